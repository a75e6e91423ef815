package decision

import kueue "quokka.dev/quokka/apis/kueue/v1beta2"

// Pending reason codes. Conditions, events, metrics and the simulator's report
// all use these strings, so they are part of the API: do not rename them.
const (
	// ReasonLocalQueueNotFound: spec.queueName names no LocalQueue in the namespace.
	ReasonLocalQueueNotFound = "LocalQueueNotFound"
	// ReasonClusterQueueNotFound: the LocalQueue points to a missing ClusterQueue.
	ReasonClusterQueueNotFound = "ClusterQueueNotFound"
	// ReasonNamespaceNotSelected: the ClusterQueue's namespaceSelector does not
	// select the workload's namespace.
	ReasonNamespaceNotSelected = "NamespaceNotSelected"
	// ReasonClusterQueueInactive: the ClusterQueue is inactive (missing flavor,
	// cohort cycle); the message says why.
	ReasonClusterQueueInactive = "ClusterQueueInactive"
	// ReasonStopped: the ClusterQueue or LocalQueue has a stopPolicy.
	ReasonStopped = "Stopped"
	// ReasonResourceNotCovered: a requested resource is in no resource group.
	ReasonResourceNotCovered = "ResourceNotCovered"
	// ReasonExceedsMaximumQuota: the request is larger than the queue could ever
	// get, even with everything else idle.
	ReasonExceedsMaximumQuota = "ExceedsMaximumQuota"
	// ReasonBorrowingLimitReached: it would fit but for a borrowingLimit (of the
	// queue or of one of its cohorts).
	ReasonBorrowingLimitReached = "BorrowingLimitReached"
	// ReasonInsufficientQuotaInCohort: the cohort has not enough unused quota now.
	ReasonInsufficientQuotaInCohort = "InsufficientQuotaInCohort"
	// ReasonInsufficientQuota: a queue without cohort has not enough unused quota.
	ReasonInsufficientQuota = "InsufficientQuota"
	// ReasonFlavorSkipped: every flavor was skipped for taints or node labels.
	ReasonFlavorSkipped = "FlavorSkipped"
	// ReasonBlockedByStrictFIFOHead: under StrictFIFO an older workload that does
	// not fit is ahead.
	ReasonBlockedByStrictFIFOHead = "BlockedByStrictFIFOHead"
	// ReasonInactive: the workload has spec.active=false.
	ReasonInactive = "Inactive"
	// ReasonInvalid: the workload's requests cannot be converted.
	ReasonInvalid = "Invalid"
	// ReasonBackoff: evicted for a PodsReady timeout, the workload waits for
	// its back-off (status.requeueState.requeueAt) to end.
	ReasonBackoff = "Backoff"
	// ReasonWaitingForPodsReady: the workload fits, and waits for every
	// workload holding quota to have PodsReady=True
	// (waitForPodsReady.blockAdmission). Kueue's reason, "Waiting".
	ReasonWaitingForPodsReady = kueue.WorkloadWaiting
)

// Evict reasons, shared with Kueue's Evicted condition reasons.
const (
	EvictReasonClusterQueueStopped = "ClusterQueueStopped"
	EvictReasonLocalQueueStopped   = "LocalQueueStopped"
	// EvictReasonDeactivated: an admitted workload got spec.active=false.
	EvictReasonDeactivated = "Deactivated"
	// EvictReasonPodsReadyTimeout: the workload's pods were not ready in
	// time (waitForPodsReady).
	EvictReasonPodsReadyTimeout = kueue.WorkloadEvictedByPodsReadyTimeout
)

// Deactivate reasons, shared with Kueue's DeactivationTarget condition reasons.
const (
	// DeactivateReasonMaximumExecutionTimeExceeded: the workload has been
	// admitted for spec.maximumExecutionTimeSeconds in all.
	DeactivateReasonMaximumExecutionTimeExceeded = kueue.WorkloadMaximumExecutionTimeExceeded
	// DeactivateReasonRequeuingLimitExceeded: the workload timed out waiting
	// for its pods more often than backoffLimitCount allows.
	DeactivateReasonRequeuingLimitExceeded = kueue.WorkloadRequeuingLimitExceeded
)
