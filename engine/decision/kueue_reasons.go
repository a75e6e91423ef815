package decision

import kueue "quokka.dev/quokka/apis/kueue/v1beta2"

// KueueQuotaReservedReason returns the QuotaReserved=False reason Kueue writes
// for a workload the engine left pending for reason, and whether Kueue writes
// one at all. The engine's reasons are finer than Kueue's (they say which limit
// stops a workload, which the simulator and `quokka explain` report); a
// Workload's condition carries Kueue's, so that what reads Kueue's conditions
// (kubectl columns, dashboards, scripts) reads Quokka's alike. The message
// keeps the engine's details.
//
// tiered is Kueue's UnadmittedWorkloadsObservability gate: on (Kueue's default
// from v0.20), one reason per kind of obstacle, as Kueue's scheduler
// (pkg/scheduler/scheduler.go, schedule and requeueAndUpdate) and workload
// controller (getQueueBlocker, resolveGranularUnadmittedQuotaReservedCondition)
// choose them; off (Kueue v0.19 and before), "Pending" for what the scheduler
// writes, "Inadmissible" for a missing or stopped queue, "Waiting" under
// blockAdmission.
//
// Kueue writes nothing for a workload in its PodsReady back-off (its eviction
// left QuotaReserved=False, and Requeued says why it waits), nor, with the gate
// off, for a deactivated one; neither does Quokka.
func KueueQuotaReservedReason(reason string, tiered bool) (string, bool) {
	if reason == ReasonBackoff {
		return "", false
	}
	if !tiered {
		switch reason {
		case ReasonInactive:
			return "", false
		case ReasonLocalQueueNotFound, ReasonClusterQueueNotFound, ReasonClusterQueueInactive, ReasonStopped:
			return kueue.WorkloadInadmissible, true
		case ReasonWaitingForPodsReady:
			return kueue.WorkloadWaiting, true
		default:
			return kueue.WorkloadPending, true
		}
	}
	switch reason {
	case ReasonInactive:
		return kueue.WorkloadDeactivated, true
	case ReasonLocalQueueNotFound, ReasonClusterQueueNotFound, ReasonNamespaceNotSelected, ReasonInvalid:
		return kueue.WorkloadQuotaReservedReasonMisconfigured, true
	case ReasonStopped, ReasonClusterQueueInactive:
		return kueue.WorkloadQuotaReservedReasonSuspended, true
	case ReasonResourceNotCovered, ReasonFlavorSkipped:
		return kueue.WorkloadQuotaReservedReasonNoMatchingFlavor, true
	case ReasonExceedsMaximumQuota:
		return kueue.WorkloadQuotaReservedReasonExceedsMaxQuota, true
	case ReasonWaitingForPreemption:
		return kueue.WorkloadQuotaReservedReasonWaitingForPreemptedWorkloads, true
	case ReasonWaitingForPodsReady:
		return kueue.WorkloadQuotaReservedReasonWaitingForPodsReady, true
	default:
		// InsufficientQuota, InsufficientQuotaInCohort, BorrowingLimitReached
		// (the limit blocks now, not forever: Kueue's potential available
		// counts it), BlockedByStrictFIFOHead, and a preemptor held back by
		// another's hold or targets: Kueue's WaitingForQuota.
		return kueue.WorkloadQuotaReservedReasonWaitingForQuota, true
	}
}

// KueueEvictedQuotaReservedReason is the QuotaReserved=False reason Kueue's job
// framework writes when an evicted workload has stopped and its quota is
// released: it waits for the scheduler to look at it again.
func KueueEvictedQuotaReservedReason(tiered bool) string {
	if tiered {
		return kueue.WorkloadQuotaReservedReasonPendingEvaluation
	}
	return kueue.WorkloadPending
}
