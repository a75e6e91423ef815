// Package decision holds what a scheduling cycle returns: admissions, pending
// workloads with a reason, and evictions. Drivers (controllers, the simulator)
// turn them into API writes; package scheduler re-exports these types.
package decision

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/resources"
)

// Decision is one thing a driver must do. The concrete types are Admit, Pending,
// Evict, Deactivate and Preempt.
type Decision interface {
	// WorkloadKey is the workload the decision is about.
	WorkloadKey() types.NamespacedName
	isDecision()
}

// PodSetAssignment is the flavor assignment of one pod set.
type PodSetAssignment struct {
	Name string
	// Flavors maps each requested resource to its flavor.
	Flavors map[corev1.ResourceName]string
	// Usage is count × per-pod requests, in canonical units.
	Usage resources.Requests
	Count int32
}

// Admit reserves quota for a workload in a ClusterQueue. The scheduler has already
// charged it (an assumed admission); call Forget if the API write fails.
type Admit struct {
	Workload     types.NamespacedName
	ClusterQueue string
	PodSets      []PodSetAssignment
	// Borrowing is true when the admission takes the queue above its nominal
	// quota in some flavor and resource.
	Borrowing bool
}

// Pending says why a workload was not admitted in this cycle.
type Pending struct {
	Workload types.NamespacedName
	// LocalQueue is the workload's spec.queueName, so that drivers count
	// pending workloads per LocalQueue without reading the object.
	LocalQueue string
	// ClusterQueue is "" when the workload did not reach one.
	ClusterQueue string
	// Reason is one of the Reason* codes.
	Reason string
	// Message is a sentence a person can act on.
	Message string
}

// Evict asks the driver to evict an admitted workload. The quota stays charged
// until the driver confirms with the scheduler's EvictWorkload.
type Evict struct {
	Workload     types.NamespacedName
	ClusterQueue string
	// Reason is EvictReasonClusterQueueStopped, EvictReasonLocalQueueStopped,
	// EvictReasonDeactivated or EvictReasonPodsReadyTimeout.
	Reason  string
	Message string
	// UnderlyingCause completes a PodsReadyTimeout eviction: the PodsReady
	// reason it timed out in (WaitForStart, WaitForRecovery).
	UnderlyingCause string
	// RequeueAt, for a PodsReadyTimeout eviction, is the end of the
	// back-off: the driver records it (status.requeueState, with the count
	// one higher) and the workload is not admitted before then.
	RequeueAt time.Time
}

// Deactivate asks the driver to deactivate an admitted workload (Kueue's
// DeactivationTarget condition, then spec.active=false). The quota stays
// charged: once the driver's deactivation reaches the scheduler (an upsert
// with spec.active=false), the workload is evicted like any deactivated one,
// with Reason as the eviction's underlying cause. Until then it is decided
// again each cycle, unless the upsert carries the DeactivationTarget.
type Deactivate struct {
	Workload     types.NamespacedName
	ClusterQueue string
	// Reason is DeactivateReasonMaximumExecutionTimeExceeded.
	Reason  string
	Message string
}

func (d Admit) WorkloadKey() types.NamespacedName      { return d.Workload }
func (d Pending) WorkloadKey() types.NamespacedName    { return d.Workload }
func (d Evict) WorkloadKey() types.NamespacedName      { return d.Workload }
func (d Deactivate) WorkloadKey() types.NamespacedName { return d.Workload }
func (Admit) isDecision()                              {}
func (Pending) isDecision()                            {}
func (Evict) isDecision()                              {}
func (Deactivate) isDecision()                         {}
