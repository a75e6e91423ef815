package core

import "k8s.io/apimachinery/pkg/runtime"

// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// EventRecorder is the part of client-go's record.EventRecorder that the
// controllers use; tests may pass a fake.
type EventRecorder interface {
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...interface{})
}

// Event reasons on Workloads, Kueue's.
const (
	EventAdmitted  = "Admitted"
	EventPending   = "Pending"
	EventPreempted = "Preempted"
	EventEvicted   = "Evicted"
)
