package core

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Finalizer keeps a Workload's object until the engine has released its quota,
// so that a deletion can never be missed by a restarting manager. Kueue's name,
// so that objects move between Kueue and Quokka unchanged.
const Finalizer = "kueue.x-k8s.io/resource-in-use"

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

// pendingUnchanged reports whether the Workload already says, in QuotaReserved,
// that it is pending for this reason and message; the loop then skips the write.
func pendingUnchanged(wl *kueue.Workload, reason, message string) bool {
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason && c.Message == message
}

// setAdmitted records an admission as Kueue does without admission checks:
// QuotaReserved and Admitted become True, and conditions left over from a
// previous eviction turn False so that readers (and this controller) do not
// mistake the new admission for an evicted one.
func setAdmitted(wl *kueue.Workload, adm *kueue.Admission, message string) {
	wl.Status.Admission = adm
	setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionTrue, kueue.WorkloadQuotaReserved, message)
	setCondition(wl, kueue.WorkloadAdmitted, metav1.ConditionTrue, kueue.WorkloadAdmitted, "The workload is admitted")
	for _, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadPreempted} {
		if c := meta.FindStatusCondition(wl.Status.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
			setCondition(wl, typ, metav1.ConditionFalse, kueue.WorkloadQuotaReserved, "Previously: "+c.Message)
		}
	}
}

// setRequeued releases an evicted workload's admission once it has stopped: it is
// pending again and says why it was requeued.
func setRequeued(wl *kueue.Workload, reason, message string) {
	wl.Status.Admission = nil
	setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, reason, message)
	setCondition(wl, kueue.WorkloadAdmitted, metav1.ConditionFalse, reason, message)
	setCondition(wl, kueue.WorkloadRequeued, metav1.ConditionTrue, reason, message)
}
