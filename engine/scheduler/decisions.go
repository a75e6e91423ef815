package scheduler

import "quokka.dev/quokka/engine/decision"

// Decision types live in package decision so that the flavor assigner can build
// them without importing the scheduler; these aliases are the public names.
type (
	Decision         = decision.Decision
	Admit            = decision.Admit
	Pending          = decision.Pending
	Evict            = decision.Evict
	Deactivate       = decision.Deactivate
	Preempt          = decision.Preempt
	Victim           = decision.Victim
	PodSetAssignment = decision.PodSetAssignment
)

// Pending reason codes; see package decision for their meaning.
const (
	ReasonLocalQueueNotFound        = decision.ReasonLocalQueueNotFound
	ReasonClusterQueueNotFound      = decision.ReasonClusterQueueNotFound
	ReasonNamespaceNotSelected      = decision.ReasonNamespaceNotSelected
	ReasonClusterQueueInactive      = decision.ReasonClusterQueueInactive
	ReasonStopped                   = decision.ReasonStopped
	ReasonResourceNotCovered        = decision.ReasonResourceNotCovered
	ReasonExceedsMaximumQuota       = decision.ReasonExceedsMaximumQuota
	ReasonBorrowingLimitReached     = decision.ReasonBorrowingLimitReached
	ReasonInsufficientQuotaInCohort = decision.ReasonInsufficientQuotaInCohort
	ReasonInsufficientQuota         = decision.ReasonInsufficientQuota
	ReasonFlavorSkipped             = decision.ReasonFlavorSkipped
	ReasonBlockedByStrictFIFOHead   = decision.ReasonBlockedByStrictFIFOHead
	ReasonInactive                  = decision.ReasonInactive
	ReasonInvalid                   = decision.ReasonInvalid
	ReasonBackoff                   = decision.ReasonBackoff
	ReasonWaitingForPodsReady       = decision.ReasonWaitingForPodsReady
	ReasonWaitingForPreemption      = decision.ReasonWaitingForPreemption

	PreemptionInClusterQueue                = decision.PreemptionInClusterQueue
	PreemptionInCohortReclamation           = decision.PreemptionInCohortReclamation
	PreemptionInCohortReclaimWhileBorrowing = decision.PreemptionInCohortReclaimWhileBorrowing
	PreemptionInCohortFairSharing           = decision.PreemptionInCohortFairSharing

	EvictReasonClusterQueueStopped = decision.EvictReasonClusterQueueStopped
	EvictReasonLocalQueueStopped   = decision.EvictReasonLocalQueueStopped
	EvictReasonDeactivated         = decision.EvictReasonDeactivated
	EvictReasonPodsReadyTimeout    = decision.EvictReasonPodsReadyTimeout

	DeactivateReasonMaximumExecutionTimeExceeded = decision.DeactivateReasonMaximumExecutionTimeExceeded
	DeactivateReasonRequeuingLimitExceeded       = decision.DeactivateReasonRequeuingLimitExceeded
)
