package core

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// The Requeued condition, as Kueue keeps it: an eviction that finishes sets
// it True only for a preemption (the workload is queued again at once), and
// False for the others (a stopped queue, a deactivation, a PodsReady
// back-off); it turns True when what held the workload back is gone: the
// workload reactivated, its LocalQueue or ClusterQueue restarted. The engine
// queues such workloads by itself; the condition says so to people and tools.

// stoppedRequeueIndex indexes the Workloads that a stopped queue holds back
// (Requeued=False with reason ClusterQueueStopped or LocalQueueStopped) by
// that reason, so that a queue's restart finds them without a scan.
const stoppedRequeueIndex = "core.quokka.dev/requeued-stopped"

func indexStoppedRequeue(obj client.Object) []string {
	wl, ok := obj.(*kueue.Workload)
	if !ok {
		return nil
	}
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued)
	if c == nil || c.Status != metav1.ConditionFalse {
		return nil
	}
	switch c.Reason {
	case kueue.WorkloadEvictedByClusterQueueStopped, kueue.WorkloadEvictedByLocalQueueStopped:
		return []string{c.Reason}
	}
	return nil
}

// requeuedAgain is the Requeued=True condition a workload held back earlier
// should now carry, nil when it is still held back or was not. (The engine
// may have admitted it again already: the condition still says why.)
func (r *workloadReconciler) requeuedAgain(ctx context.Context, wl *kueue.Workload) (*metav1.Condition, error) {
	c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued)
	if c == nil || c.Status != metav1.ConditionFalse || !ptr.Deref(wl.Spec.Active, true) {
		return nil, nil
	}
	again := func(reason, message string) *metav1.Condition {
		return &metav1.Condition{Type: kueue.WorkloadRequeued, Status: metav1.ConditionTrue, Reason: reason, Message: message}
	}
	switch {
	case strings.HasPrefix(c.Reason, kueue.WorkloadDeactivated):
		// Kueue matches the reason Deactivated exactly (a user's
		// deactivation); Quokka also DeactivatedDueTo<cause>, its own,
		// which Kueue leaves False although the workload is queued again.
		return again("Reactivated", "The workload was reactivated"), nil
	case c.Reason == kueue.WorkloadEvictedByLocalQueueStopped:
		lq, err := r.localQueueOf(ctx, wl)
		if err != nil || lq == nil || ptr.Deref(lq.Spec.StopPolicy, kueue.None) != kueue.None {
			return nil, err
		}
		return again("LocalQueueRestarted", "The LocalQueue was restarted after being stopped"), nil
	case c.Reason == kueue.WorkloadEvictedByClusterQueueStopped:
		lq, err := r.localQueueOf(ctx, wl)
		if err != nil || lq == nil {
			return nil, err
		}
		cq := &kueue.ClusterQueue{}
		if err := r.client.Get(ctx, client.ObjectKey{Name: string(lq.Spec.ClusterQueue)}, cq); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		if ptr.Deref(cq.Spec.StopPolicy, kueue.None) != kueue.None {
			return nil, nil
		}
		return again("ClusterQueueRestarted", "The ClusterQueue was restarted after being stopped"), nil
	}
	return nil, nil
}

// markRequeuedAgain writes requeuedAgain's condition.
func (r *workloadReconciler) markRequeuedAgain(ctx context.Context, wl *kueue.Workload) error {
	c, err := r.requeuedAgain(ctx, wl)
	if err != nil || c == nil {
		return err
	}
	setCondition(wl, c.Type, c.Status, c.Reason, c.Message)
	if err := r.client.Status().Update(ctx, wl); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("marking workload %s requeued (%s): %w", client.ObjectKeyFromObject(wl), c.Reason, err)
	}
	return nil
}

// localQueueOf reads the workload's LocalQueue, nil when it does not exist.
func (r *workloadReconciler) localQueueOf(ctx context.Context, wl *kueue.Workload) (*kueue.LocalQueue, error) {
	lq := &kueue.LocalQueue{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: wl.Namespace, Name: string(wl.Spec.QueueName)}, lq)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the LocalQueue of workload %s: %w", client.ObjectKeyFromObject(wl), err)
	}
	return lq, nil
}

// workloadsHeldByStoppedQueues maps a change of a queue's spec (its stop
// policy among it) to the workloads a stopped queue held back.
func (r *workloadReconciler) workloadsHeldByStoppedQueues(reason string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list kueue.WorkloadList
		opts := []client.ListOption{client.MatchingFields{stoppedRequeueIndex: reason}}
		if obj.GetNamespace() != "" {
			opts = append(opts, client.InNamespace(obj.GetNamespace()))
		}
		if err := r.client.List(ctx, &list, opts...); err != nil {
			log.FromContext(ctx).Error(err, "listing workloads held by a stopped queue", "queue", client.ObjectKeyFromObject(obj))
			return nil
		}
		return workloadRequests(&list)
	}
}
