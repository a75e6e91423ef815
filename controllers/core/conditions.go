package core

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
)

// Finalizer keeps a Job's Workload until the Job no longer needs it. As in
// Kueue, the Job integration creates its Workloads with it (no later patch),
// and the core removes it once the Workload is finished or deleted, after the
// engine has released the quota; a Workload created on its own gets none
// (Kueue's core adds none either), since a manager that restarts rebuilds its
// usage from the Workloads that exist and so cannot miss a deletion. Kueue's
// name, so that objects move between Kueue and Quokka unchanged.
const Finalizer = kueue.ResourceInUseFinalizerName

// setCondition sets a Workload condition with the generation it describes.
func setCondition(wl *kueue.Workload, typ string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: wl.Generation,
	})
}

// isTrue reports whether condition typ is True.
func isTrue(wl *kueue.Workload, typ string) bool {
	return meta.IsStatusConditionTrue(wl.Status.Conditions, typ)
}

// pendingUnchanged reports whether the workload already says it is pending for
// reason. Only a change of reason is written: the message's details (how much
// more quota is needed, which flavor was tried last) change with every cycle,
// and a status write per pending workload per cycle competes with every other
// write the API server serves. The message is the one of the write.
func pendingUnchanged(wl *kueue.Workload, reason, _ string) bool {
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason
}

// setAdmitted records an admission as Kueue does without admission checks:
// QuotaReserved and Admitted become True, resourceRequests goes (as in
// Kueue), and conditions left over from a
// previous eviction turn False so that readers (and this controller) do not
// mistake the new admission for an evicted one.
func setAdmitted(wl *kueue.Workload, adm *kueue.Admission, message string) {
	wl.Status.Admission = adm
	// The admission's resourceUsage says what resourceRequests said.
	wl.Status.ResourceRequests = nil
	if rs := wl.Status.RequeueState; rs != nil && rs.RequeueAt != nil {
		// The back-off is over (the engine admits nothing before it);
		// Kueue clears it and says so, here in the admission's write.
		rs.RequeueAt = nil
		setCondition(wl, kueue.WorkloadRequeued, metav1.ConditionTrue, "BackoffFinished", "The workload backoff was finished")
	}
	setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionTrue, kueue.WorkloadQuotaReserved, message)
	setCondition(wl, kueue.WorkloadAdmitted, metav1.ConditionTrue, kueue.WorkloadAdmitted, "The workload is admitted")
	for _, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadPreempted} {
		if c := meta.FindStatusCondition(wl.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
			setCondition(wl, typ, metav1.ConditionFalse, kueue.WorkloadQuotaReserved, "Previously: "+c.Message)
		}
	}
}

// setRequeued releases an evicted workload's admission once it has stopped: it is
// pending again and says why. As in Kueue, Requeued is True only after a
// preemption; after any other eviction something still holds the workload
// back (a stopped queue, spec.active=false, a back-off) and Requeued is False
// until it is gone (see requeued.go; a back-off's end is written with the
// next admission). A PodsReady condition left from the admission goes back to
// WaitForStart, as Kueue's job framework sets it for a workload that is not
// admitted, so that the next admission's pods are waited for afresh.
//
// QuotaReserved and Admitted turn False as Kueue's job framework and
// SyncAdmittedCondition turn them: QuotaReserved with PendingEvaluation
// (Pending with the UnadmittedWorkloadsObservability gate off, tiered false)
// and the eviction's message, Admitted with NoReservation; the eviction's
// reason stays on Evicted and Requeued.
func setRequeued(wl *kueue.Workload, reason, message string, now time.Time, tiered bool) {
	wl.Status.Admission = nil
	setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, decision.KueueEvictedQuotaReservedReason(tiered), message)
	setNoReservation(wl)
	requeued := metav1.ConditionFalse
	if rs := wl.Status.RequeueState; reason == kueue.WorkloadEvictedByPreemption && ptr.Deref(wl.Spec.Active, true) &&
		(rs == nil || rs.RequeueAt == nil || !rs.RequeueAt.After(now)) {
		requeued = metav1.ConditionTrue
	}
	setCondition(wl, kueue.WorkloadRequeued, requeued, reason, message)
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady); c != nil && c.Reason != kueue.WorkloadWaitForStart {
		setCondition(wl, kueue.WorkloadPodsReady, metav1.ConditionFalse, kueue.WorkloadWaitForStart, "Not all pods are ready or succeeded")
	}
}

// setNoReservation sets Admitted=False as Kueue's SyncAdmittedCondition does
// for a workload without a quota reservation.
func setNoReservation(wl *kueue.Workload) {
	setCondition(wl, kueue.WorkloadAdmitted, metav1.ConditionFalse, kueue.WorkloadAdmittedReasonNoReservation, noReservationMessage)
}

// hasNoReservation reports whether Admitted is already False for want of a
// reservation.
func hasNoReservation(wl *kueue.Workload) bool {
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == kueue.WorkloadAdmittedReasonNoReservation
}

// noReservationMessage is Kueue's message for Admitted=False, NoReservation.
const noReservationMessage = "The workload has no reservation"

// setRequeueState records a PodsReady timeout's back-off as Kueue does: the
// count one higher, and requeueAt, never moved earlier.
func setRequeueState(wl *kueue.Workload, requeueAt time.Time) {
	rs := wl.Status.RequeueState
	if rs == nil {
		rs = &kueue.RequeueState{}
		wl.Status.RequeueState = rs
	}
	rs.Count = ptr.To(ptr.Deref(rs.Count, 0) + 1)
	if rs.RequeueAt == nil || rs.RequeueAt.Time.Before(requeueAt) {
		rs.RequeueAt = &metav1.Time{Time: requeueAt}
	}
}
