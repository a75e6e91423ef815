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
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// preemption is what a preempted victim's Preempted condition records.
type preemption struct {
	preemptor   types.NamespacedName
	preemptorCQ string
	// reason is Kueue's: InClusterQueue, InCohortReclamation, ...
	reason string
}

// backoff is what a PodsReadyTimeout eviction records besides: the PodsReady
// reason it timed out in, and the end of its back-off.
type backoff struct {
	cause     string
	requeueAt time.Time
}

// evict starts an eviction: Evicted=True (and Preempted=True for a preemption)
// tells the owner's integration to stop the workload; a PodsReadyTimeout
// eviction also records its back-off (status.requeueState) in the same write.
// The quota stays held; the workload reconciler releases it once the owner has
// stopped. An eviction already under way is not written again, since the
// engine repeats its decision every cycle until the quota is released.
func (l *loop) evict(ctx context.Context, key types.NamespacedName, cq, reason, message string, p *preemption, b *backoff) error {
	if p != nil && message == "" {
		message = fmt.Sprintf("Preempted to accommodate workload %s in ClusterQueue %s", p.preemptor, p.preemptorCQ)
	}
	conditionReason, cause, first := reason, "", false
	wl, err := l.updateWorkloadStatus(ctx, key, func(wl *kueue.Workload) error {
		if wl.Status.Admission == nil || isTrue(wl, kueue.WorkloadFinished) {
			return errSkip
		}
		if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue {
			return errSkip
		}
		if reason == kueue.WorkloadDeactivated {
			conditionReason, message, cause = deactivatedEviction(wl)
		}
		if b != nil {
			cause = b.cause
			setRequeueState(wl, b.requeueAt)
		}
		setCondition(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, conditionReason, message)
		first = countEviction(wl, reason, cause)
		if p != nil {
			setCondition(wl, kueue.WorkloadPreempted, metav1.ConditionTrue, p.reason, message)
		}
		return nil
	})
	switch {
	case errors.Is(err, errSkip), apierrors.IsNotFound(err):
		return nil
	case err != nil:
		l.log.Error(err, "writing eviction", "workload", key, "reason", reason)
		return fmt.Errorf("evicting workload %s: %w", key, err)
	}
	if p != nil {
		l.events.Eventf(wl, corev1.EventTypeNormal, EventPreempted, "%s", message)
		l.metrics.Preempted(p.preemptorCQ, p.reason)
	}
	l.events.Eventf(wl, corev1.EventTypeNormal, EventEvicted, "%s", message)
	l.metrics.Evicted(metricsWorkload(wl, cq), reason, cause, first)
	if d, ok := podsReadyToEvicted(wl); ok {
		l.metrics.PodsReadyToEvicted(cq, reason, cause, d)
	}
	return nil
}

// countEviction counts one more eviction of wl for reason and cause in
// status.schedulingStats.evictions, in the eviction's own write, as Kueue's
// eviction does (pkg/workload/evict, workloadEvictionStateInc), and reports
// whether it is the first for them.
func countEviction(wl *kueue.Workload, reason, cause string) bool {
	if wl.Status.SchedulingStats == nil {
		wl.Status.SchedulingStats = &kueue.SchedulingStats{}
	}
	ev := &wl.Status.SchedulingStats.Evictions
	for i := range *ev {
		if e := &(*ev)[i]; e.Reason == reason && e.UnderlyingCause == cause {
			e.Count++
			return e.Count == 1
		}
	}
	*ev = append(*ev, kueue.WorkloadSchedulingStatsEviction{Reason: reason, UnderlyingCause: cause, Count: 1})
	return true
}
