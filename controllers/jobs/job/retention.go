package job

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// deleteDeactivated is Kueue's objectRetentionPolicies.workloads
// .afterDeactivatedByKueue for Jobs: a Job whose Workload the manager
// deactivated (spec.active=false and Evicted=True with a DeactivatedDueTo<cause>
// reason: past its maximum execution time, or its requeuing limit) is deleted,
// its pods and Workload with it, once that long has passed since the
// eviction. A Workload a user deactivated (reason Deactivated) is kept. done
// says the pass is over: the Job was deleted, or is due later (res).
func (r *Reconciler) deleteDeactivated(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) (res ctrl.Result, done bool, err error) {
	if r.AfterDeactivatedByKueue == nil || ptr.Deref(wl.Spec.Active, true) {
		return ctrl.Result{}, false, nil
	}
	ev := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted)
	if ev == nil || ev.Status != metav1.ConditionTrue || !strings.HasPrefix(ev.Reason, kueue.WorkloadDeactivated+"DueTo") {
		return ctrl.Result{}, false, nil
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if left := ev.LastTransitionTime.Add(*r.AfterDeactivatedByKueue).Sub(now()); left > 0 {
		return ctrl.Result{RequeueAfter: left}, true, nil
	}
	if err := r.Client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return ctrl.Result{}, true, client.IgnoreNotFound(fmt.Errorf("deleting deactivated job %s/%s: %w", job.Namespace, job.Name, err))
	}
	r.event(job, corev1.EventTypeNormal, "Deleted", "Deleted job: deactivation retention period expired")
	log.FromContext(ctx).V(2).Info("deleted job: deactivation retention period expired", "workload", wl.Name)
	return ctrl.Result{}, true, nil
}
