package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// A workload past its maximum execution time is deactivated in Kueue's three
// steps, each one write: the scheduling loop records the engine's Deactivate
// decision as a DeactivationTarget condition (and a Warning event); the
// workload reconciler turns that into spec.active=false; the engine then
// evicts the inactive workload, and the eviction names the condition's reason
// as its cause (Evicted reason DeactivatedDueToMaximumExecutionTimeExceeded)
// and removes the condition. Kueue writes spec.active from its workload
// reconciler because a status write cannot change the spec; Quokka keeps the
// same steps so that a workload's conditions read the same under both.

// EventMaximumExecutionTimeExceeded is the reason of Kueue's Warning event.
const EventMaximumExecutionTimeExceeded = kueue.WorkloadMaximumExecutionTimeExceeded

// deactivate records a Deactivate decision: DeactivationTarget=True, and for
// a maximum execution time the accumulated execution time cleared, as Kueue's
// reconcileMaxExecutionTime does (its triggerDeactivation, past the requeuing
// limit, keeps it). A workload that already carries the condition, is inactive, finished
// or no longer admitted is left alone: the engine repeats the decision until
// the condition reaches it.
func (l *loop) deactivate(ctx context.Context, d scheduler.Deactivate) error {
	wl, err := l.updateWorkloadStatus(ctx, d.Workload, func(wl *kueue.Workload) error {
		if wl.Status.Admission == nil || isTrue(wl, kueue.WorkloadFinished) || !ptr.Deref(wl.Spec.Active, true) ||
			isTrue(wl, kueue.WorkloadDeactivationTarget) {
			return errSkip
		}
		if d.Reason == scheduler.DeactivateReasonRequeuingLimitExceeded && isTrue(wl, kueue.WorkloadEvicted) {
			// Kueue's PodsReady timeout leaves a workload being evicted alone.
			return errSkip
		}
		setCondition(wl, kueue.WorkloadDeactivationTarget, metav1.ConditionTrue, d.Reason, d.Message)
		if d.Reason == scheduler.DeactivateReasonMaximumExecutionTimeExceeded {
			wl.Status.AccumulatedPastExecutionTimeSeconds = nil
		}
		return nil
	})
	switch {
	case errors.Is(err, errSkip), apierrors.IsNotFound(err):
		return nil
	case err != nil:
		l.log.Error(err, "writing deactivation target", "workload", d.Workload, "reason", d.Reason)
		return fmt.Errorf("deactivating workload %s: %w", d.Workload, err)
	}
	if d.Reason == scheduler.DeactivateReasonMaximumExecutionTimeExceeded {
		l.events.Eventf(wl, corev1.EventTypeWarning, EventMaximumExecutionTimeExceeded,
			"The maximum execution time (%ds) exceeded", ptr.Deref(wl.Spec.MaximumExecutionTimeSeconds, 0))
	}
	return nil
}

// applyDeactivationTarget sets spec.active=false on an active workload that
// carries DeactivationTarget=True. It reports whether it wrote.
func (r *workloadReconciler) applyDeactivationTarget(ctx context.Context, wl *kueue.Workload) (bool, error) {
	if !ptr.Deref(wl.Spec.Active, true) || !isTrue(wl, kueue.WorkloadDeactivationTarget) {
		return false, nil
	}
	patch := client.MergeFromWithOptions(wl.DeepCopy(), client.MergeFromWithOptimisticLock{})
	wl.Spec.Active = ptr.To(false)
	if err := r.client.Patch(ctx, wl, patch); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("deactivating workload %s: %w", client.ObjectKeyFromObject(wl), err)
	}
	return true, nil
}

// deactivatedEviction is how Kueue words the eviction of a deactivated
// workload: reason Deactivated, or DeactivatedDueTo<cause> when a
// DeactivationTarget condition gives the cause, which the eviction removes.
// It returns the Evicted condition's reason and message and the cause ("" for
// none), and changes wl.
func deactivatedEviction(wl *kueue.Workload) (reason, message, cause string) {
	reason, message = kueue.WorkloadDeactivated, "The workload is deactivated"
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadDeactivationTarget); c != nil {
		if c.Status == metav1.ConditionTrue {
			cause = c.Reason
			reason = kueue.WorkloadDeactivated + "DueTo" + c.Reason
			message = fmt.Sprintf("%s due to %s", message, c.Message)
		}
		meta.RemoveStatusCondition(&wl.Status.Conditions, kueue.WorkloadDeactivationTarget)
	}
	return reason, message, cause
}

// accumulateExecution adds the time since the Admitted condition turned True
// to status.accumulatedPastExecutionTimeSeconds, in whole seconds, as Kueue
// does when an admission ends; call it before the condition turns False.
func accumulateExecution(wl *kueue.Workload, now time.Time) {
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted)
	if c == nil || c.Status != metav1.ConditionTrue {
		return
	}
	d := int32(now.Sub(c.LastTransitionTime.Time).Seconds())
	wl.Status.AccumulatedPastExecutionTimeSeconds = ptr.To(ptr.Deref(wl.Status.AccumulatedPastExecutionTimeSeconds, 0) + d)
}
