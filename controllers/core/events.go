package core

import "k8s.io/apimachinery/pkg/runtime"

// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// EventRecorder is the part of client-go's record.EventRecorder that the
// controllers use; tests may pass a fake.
type EventRecorder interface {
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...interface{})
}

// Event reasons on Workloads, Kueue's. A pending workload's event is a
// Warning named by its QuotaReserved reason, as Kueue's scheduler records it.
const (
	EventAdmitted  = "Admitted"
	EventPreempted = "Preempted"
	EventEvicted   = "Evicted"
)
