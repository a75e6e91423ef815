package decision

import (
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Each engine reason reads as the reason Kueue's scheduler or workload
// controller writes for the same obstacle, with the UnadmittedWorkloadsObservability
// gate on and off (Kueue: pkg/scheduler/scheduler.go, schedule and
// requeueAndUpdate; pkg/controller/core/workload_controller.go, getQueueBlocker
// and resolveLegacyUnadmittedQuotaReservedCondition; pkg/util/testing/observability.go,
// AdjustConditionsForDisabledObservabilityInScheduler and ...InWorkloadController,
// which turn the tiered reasons into the legacy ones).
func TestKueueQuotaReservedReason(t *testing.T) {
	t.Parallel()
	const none = ""
	for _, tc := range []struct {
		reason        string
		tiered, plain string // "" when Kueue writes no condition
	}{
		// Kueue's flavor assigner: fitsResourceQuota, insufficient unused quota.
		{ReasonInsufficientQuota, kueue.WorkloadQuotaReservedReasonWaitingForQuota, kueue.WorkloadPending},
		{ReasonInsufficientQuotaInCohort, kueue.WorkloadQuotaReservedReasonWaitingForQuota, kueue.WorkloadPending},
		// A borrowing limit counts in Kueue's maximum capacity only when the
		// request exceeds it whatever the usage; one that blocks now is
		// insufficient unused quota.
		{ReasonBorrowingLimitReached, kueue.WorkloadQuotaReservedReasonWaitingForQuota, kueue.WorkloadPending},
		// Kueue's TestRequeueAndUpdate, "skipped with summary": a workload kept
		// back for another's sake waits for quota.
		{ReasonBlockedByStrictFIFOHead, kueue.WorkloadQuotaReservedReasonWaitingForQuota, kueue.WorkloadPending},
		// fitsResourceQuota: more than the maximum capacity.
		{ReasonExceedsMaximumQuota, kueue.WorkloadQuotaReservedReasonExceedsMaxQuota, kueue.WorkloadPending},
		// No flavor matches, or none provides a resource.
		{ReasonFlavorSkipped, kueue.WorkloadQuotaReservedReasonNoMatchingFlavor, kueue.WorkloadPending},
		{ReasonResourceNotCovered, kueue.WorkloadQuotaReservedReasonNoMatchingFlavor, kueue.WorkloadPending},
		// schedule: mode Preempt with targets.
		{ReasonWaitingForPreemption, kueue.WorkloadQuotaReservedReasonWaitingForPreemptedWorkloads, kueue.WorkloadPending},
		// getQueueBlocker, and the legacy Inadmissible.
		{ReasonLocalQueueNotFound, kueue.WorkloadQuotaReservedReasonMisconfigured, kueue.WorkloadInadmissible},
		{ReasonClusterQueueNotFound, kueue.WorkloadQuotaReservedReasonMisconfigured, kueue.WorkloadInadmissible},
		{ReasonStopped, kueue.WorkloadQuotaReservedReasonSuspended, kueue.WorkloadInadmissible},
		{ReasonClusterQueueInactive, kueue.WorkloadQuotaReservedReasonSuspended, kueue.WorkloadInadmissible},
		// ValidateAdmissibility: Misconfigured in the workload controller; the
		// legacy scheduler writes it as Pending.
		{ReasonNamespaceNotSelected, kueue.WorkloadQuotaReservedReasonMisconfigured, kueue.WorkloadPending},
		{ReasonInvalid, kueue.WorkloadQuotaReservedReasonMisconfigured, kueue.WorkloadPending},
		// blockAdmission (scheduler.go, waitForPodsReady).
		{ReasonWaitingForPodsReady, kueue.WorkloadQuotaReservedReasonWaitingForPodsReady, kueue.WorkloadWaiting},
		// resolveGranularUnadmittedQuotaReservedCondition: "The workload is
		// deactivated"; the legacy controller writes nothing.
		{ReasonInactive, kueue.WorkloadDeactivated, none},
		// In its back-off the workload keeps its eviction's condition.
		{ReasonBackoff, none, none},
	} {
		for _, mode := range []struct {
			tiered bool
			want   string
		}{{true, tc.tiered}, {false, tc.plain}} {
			got, write := KueueQuotaReservedReason(tc.reason, mode.tiered)
			if got != mode.want || write != (mode.want != none) {
				t.Errorf("%s (tiered %v): got %q (write %v), want %q", tc.reason, mode.tiered, got, write, mode.want)
			}
		}
	}
	if got := KueueEvictedQuotaReservedReason(true); got != kueue.WorkloadQuotaReservedReasonPendingEvaluation {
		t.Errorf("evicted, tiered: %q", got)
	}
	if got := KueueEvictedQuotaReservedReason(false); got != kueue.WorkloadPending {
		t.Errorf("evicted, legacy: %q", got)
	}
}
