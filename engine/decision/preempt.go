package decision

import (
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Preempt asks the driver to evict victims so that a pending workload, the
// preemptor, can be admitted. The victims keep their quota until the driver
// confirms each eviction with the scheduler's EvictWorkload; the preemptor is
// admitted by a later cycle, once the quota is free. A Preempt decision comes
// before any decision that depends on it.
type Preempt struct {
	Preemptor             types.NamespacedName
	PreemptorClusterQueue string
	Victims               []Victim
}

// Victim is one workload to evict, with the reason for its Preempted condition.
type Victim struct {
	Workload     types.NamespacedName
	ClusterQueue string
	// Reason is one of the Preemption* reasons (Kueue's InClusterQueue,
	// InCohortReclamation, InCohortReclaimWhileBorrowing, InCohortFairSharing).
	Reason string
	// Message names the preemptor, for the Evicted and Preempted conditions.
	Message string
}

// Preemption reasons: the Preempted condition's reasons, shared with Kueue.
const (
	// PreemptionInClusterQueue: preempted by a workload of the same ClusterQueue.
	PreemptionInClusterQueue = kueue.InClusterQueueReason
	// PreemptionInCohortReclamation: its queue borrowed quota that the
	// preemptor's queue reclaims within its nominal quota.
	PreemptionInCohortReclamation = kueue.InCohortReclamationReason
	// PreemptionInCohortReclaimWhileBorrowing: the preemptor borrows too, under
	// borrowWithinCohort.
	PreemptionInCohortReclaimWhileBorrowing = kueue.InCohortReclaimWhileBorrowingReason
	// PreemptionInCohortFairSharing: fair sharing moved quota to a queue with a
	// lower share.
	PreemptionInCohortFairSharing = kueue.InCohortFairSharingReason
)

// ReasonWaitingForPreemption: the workload preempted others and waits for their
// evictions to be confirmed.
const ReasonWaitingForPreemption = "WaitingForPreemption"

// WorkloadKey is the preemptor.
func (d Preempt) WorkloadKey() types.NamespacedName { return d.Preemptor }
func (Preempt) isDecision()                         {}
