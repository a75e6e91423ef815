package job

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// With waitForPodsReady on, the core evicts an admitted workload whose
// PodsReady condition is not True in time; the job integration keeps that
// condition, as Kueue's job framework does: True (Started, or Recovered
// after a recovery) once all the Job's pods are ready or succeeded, False
// with WaitForStart before that, False with WaitForRecovery when a pod
// stopped being ready after all were. It writes only when the status or the
// reason changes.

// Kueue's messages for the three states.
const (
	podsNotReadyMessage = "Not all pods are ready or succeeded"
	podsRecoveryMessage = "At least one pod has failed, waiting for recovery"
	podsAllReadyMessage = "All pods reached readiness and the workload is running"
)

// podsReady reports whether all the pods the Job runs at once are ready or
// have succeeded (Kueue's Job.PodsReady).
func podsReady(job *batchv1.Job) bool {
	n := job.Status.Succeeded + ptr.Deref(job.Status.Ready, 0)
	if u := job.Status.UncountedTerminatedPods; u != nil {
		n += int32(len(u.Succeeded))
	}
	return n >= kueue.JobPodCount(job)
}

// podsReadyCondition is the PodsReady condition an admitted, running
// workload should carry (Kueue's generatePodsReadyCondition).
func podsReadyCondition(job *batchv1.Job, wl *kueue.Workload) metav1.Condition {
	cur := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady)
	cond := func(status metav1.ConditionStatus, reason, message string) metav1.Condition {
		return metav1.Condition{Type: kueue.WorkloadPodsReady, Status: status, Reason: reason, Message: message,
			ObservedGeneration: wl.Generation}
	}
	if podsReady(job) {
		if cur != nil && (cur.Reason == kueue.WorkloadWaitForRecovery || cur.Reason == kueue.WorkloadRecovered) {
			return cond(metav1.ConditionTrue, kueue.WorkloadRecovered, podsAllReadyMessage)
		}
		return cond(metav1.ConditionTrue, kueue.WorkloadStarted, podsAllReadyMessage)
	}
	if cur != nil && (cur.Status == metav1.ConditionTrue || cur.Reason == kueue.WorkloadWaitForRecovery) {
		return cond(metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, podsRecoveryMessage)
	}
	return cond(metav1.ConditionFalse, kueue.WorkloadWaitForStart, podsNotReadyMessage)
}

// syncPodsReady writes the PodsReady condition of a running Job's admitted
// Workload when its status or reason changed. A Workload without the
// condition is not given WaitForStart, which Kueue writes first: the core
// reads a missing condition the same way, and the write would be one more
// per Job.
func (r *Reconciler) syncPodsReady(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) error {
	want := podsReadyCondition(job, wl)
	cur := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady)
	if cur == nil && want.Reason == kueue.WorkloadWaitForStart {
		return nil
	}
	if cur != nil && cur.Status == want.Status && cur.Reason == want.Reason {
		return nil
	}
	meta.SetStatusCondition(&wl.Status.Conditions, want)
	if err := r.Client.Status().Update(ctx, wl); err != nil {
		return fmt.Errorf("updating the PodsReady condition of workload %s/%s: %w", wl.Namespace, wl.Name, err)
	}
	log.FromContext(ctx).V(2).Info("pods ready condition", "workload", wl.Name, "status", want.Status, "reason", want.Reason)
	return nil
}
