package core

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=clusterqueues/status;localqueues/status;cohorts/status,verbs=get;update;patch

// LocalQueue Active condition reasons (Kueue's).
const (
	lqReasonReady                 = "Ready"
	lqReasonClusterQueueNotExists = "ClusterQueueDoesNotExist"
	lqReasonClusterQueueInactive  = "ClusterQueueIsInactive"
	lqReasonStopped               = "Stopped"
)

// syncStatus writes the status of every ClusterQueue and LocalQueue whose
// engine view differs from what the object says. Comparing with the informer's
// copy first keeps the steady state free of writes.
func (l *loop) syncStatus(ctx context.Context) {
	var cqs kueue.ClusterQueueList
	if err := l.client.List(ctx, &cqs); err != nil {
		l.log.Error(err, "listing ClusterQueues for status")
		return
	}
	for i := range cqs.Items {
		cq := &cqs.Items[i]
		var view scheduler.ClusterQueueView
		var ok bool
		l.engine.Do(func(s *scheduler.Scheduler) { view, ok = s.ClusterQueueSnapshot(cq.Name) })
		// A queue the engine refused holds no workload's quota there.
		if err := l.syncClusterQueueFinalizer(ctx, cq, view); err != nil {
			l.log.Error(err, "updating the finalizer of a ClusterQueue", "clusterQueue", cq.Name)
		}
		if !ok {
			continue
		}
		if err := l.writeStatus(ctx, cq, &kueue.ClusterQueue{}, func(obj client.Object) {
			setClusterQueueStatus(obj.(*kueue.ClusterQueue), view, l.fairSharing)
		}); err != nil {
			l.log.Error(err, "writing ClusterQueue status", "clusterQueue", cq.Name)
		}
	}
	l.syncFlavorFinalizers(ctx, cqs.Items)
	if l.fairSharing {
		l.syncCohortStatus(ctx)
	}
	var lqs kueue.LocalQueueList
	if err := l.client.List(ctx, &lqs); err != nil {
		l.log.Error(err, "listing LocalQueues for status")
		return
	}
	for i := range lqs.Items {
		lq := &lqs.Items[i]
		var view scheduler.LocalQueueView
		var cqView scheduler.ClusterQueueView
		var ok, cqOK bool
		l.engine.Do(func(s *scheduler.Scheduler) {
			view, ok = s.LocalQueueSnapshot(lq.Namespace, lq.Name)
			cqView, cqOK = s.ClusterQueueSnapshot(string(lq.Spec.ClusterQueue))
		})
		if !ok {
			continue
		}
		if err := l.writeStatus(ctx, lq, &kueue.LocalQueue{}, func(obj client.Object) {
			setLocalQueueStatus(obj.(*kueue.LocalQueue), view, cqView, cqOK)
		}); err != nil {
			l.log.Error(err, "writing LocalQueue status", "localQueue", client.ObjectKeyFromObject(lq))
		}
	}
}

// writeStatus applies set to the cached object and writes it only if the status
// changed; after a conflict it re-reads from the API server into fresh.
func (l *loop) writeStatus(ctx context.Context, cached, fresh client.Object, set func(client.Object)) error {
	obj := cached.DeepCopyObject().(client.Object)
	set(obj)
	if equality.Semantic.DeepEqual(statusOf(cached), statusOf(obj)) {
		return nil
	}
	err := l.rereadOnConflict(ctx, cached, fresh, func(cur client.Object) error {
		if cur == fresh {
			obj = fresh
			set(obj)
		}
		return l.client.Status().Update(ctx, obj)
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating status of %s: %w", client.ObjectKeyFromObject(cached), err)
	}
	return nil
}

// rereadOnConflict calls write with the cached object and, after each
// conflict, with the object read again from the API server into fresh, as
// client-go's RetryOnConflict allows (a few attempts, backing off).
func (l *loop) rereadOnConflict(ctx context.Context, cached, fresh client.Object, write func(cur client.Object) error) error {
	cur := cached
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := write(cur)
		if apierrors.IsConflict(err) {
			if gerr := l.apiReader.Get(ctx, client.ObjectKeyFromObject(cached), fresh); gerr != nil {
				return gerr
			}
			cur = fresh
		}
		return err
	})
}

func statusOf(obj client.Object) any {
	switch o := obj.(type) {
	case *kueue.ClusterQueue:
		return o.Status
	case *kueue.LocalQueue:
		return o.Status
	case *kueue.Cohort:
		return o.Status
	}
	return nil
}

// setClusterQueueStatus fills what the engine knows. Without admission checks
// every workload holding quota is both reserving and admitted.
func setClusterQueueStatus(cq *kueue.ClusterQueue, v scheduler.ClusterQueueView, fairSharing bool) {
	st := metav1.ConditionFalse
	if v.Active {
		st = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&cq.Status.Conditions, metav1.Condition{
		Type: kueue.ClusterQueueActive, Status: st, Reason: v.ActiveReason, Message: activeMessage(v),
		ObservedGeneration: cq.Generation,
	})
	cq.Status.PendingWorkloads = int32(v.PendingWorkloads)
	cq.Status.ReservingWorkloads = int32(v.AdmittedWorkloads)
	cq.Status.AdmittedWorkloads = int32(v.AdmittedWorkloads)
	usage := flavorUsage(v.Usage)
	cq.Status.FlavorsReservation = usage
	cq.Status.FlavorsUsage = usage
	if fairSharing {
		cq.Status.FairSharing = weightedShare(cq.Status.FairSharing, v.WeightedShare)
	}
}

// weightedShare sets fairSharing.weightedShare, keeping what else is there.
func weightedShare(fs *kueue.FairSharingStatus, share int64) *kueue.FairSharingStatus {
	out := &kueue.FairSharingStatus{}
	if fs != nil {
		out = fs.DeepCopy()
	}
	out.WeightedShare = share
	return out
}

// syncCohortStatus publishes each explicit Cohort's weighted share; Kueue's
// Cohort status has no other field that Quokka computes.
func (l *loop) syncCohortStatus(ctx context.Context) {
	var cohorts kueue.CohortList
	if err := l.client.List(ctx, &cohorts); err != nil {
		l.log.Error(err, "listing Cohorts for status")
		return
	}
	for i := range cohorts.Items {
		c := &cohorts.Items[i]
		var view scheduler.CohortView
		var ok bool
		l.engine.Do(func(s *scheduler.Scheduler) { view, ok = s.CohortSnapshot(c.Name) })
		if !ok {
			continue
		}
		if err := l.writeStatus(ctx, c, &kueue.Cohort{}, func(obj client.Object) {
			co := obj.(*kueue.Cohort)
			co.Status.FairSharing = weightedShare(co.Status.FairSharing, view.WeightedShare)
		}); err != nil {
			l.log.Error(err, "writing Cohort status", "cohort", c.Name)
		}
	}
}

func activeMessage(v scheduler.ClusterQueueView) string {
	if v.ActiveCondition != "" {
		return v.ActiveCondition
	}
	if v.Active {
		return "Can admit new workloads"
	}
	return "Can't admit new workloads"
}

// flavorUsage groups usage cells by flavor, keeping the view's order.
func flavorUsage(cells []scheduler.UsageView) []kueue.FlavorUsage {
	var out []kueue.FlavorUsage
	for _, c := range cells {
		if len(out) == 0 || string(out[len(out)-1].Name) != c.Flavor {
			out = append(out, kueue.FlavorUsage{Name: kueue.ResourceFlavorReference(c.Flavor)})
		}
		f := &out[len(out)-1]
		f.Resources = append(f.Resources, kueue.ResourceUsage{
			Name: c.Resource, Total: quantity(c.Resource, c.Total), Borrowed: quantity(c.Resource, c.Borrowed),
		})
	}
	return out
}

func setLocalQueueStatus(lq *kueue.LocalQueue, v scheduler.LocalQueueView, cq scheduler.ClusterQueueView, cqExists bool) {
	cond := metav1.Condition{Type: kueue.ClusterQueueActive, Status: metav1.ConditionTrue, Reason: lqReasonReady,
		Message: "Can submit new workloads to localQueue", ObservedGeneration: lq.Generation}
	if reason := localQueueInactiveReason(v, cq.Active, cqExists); reason != "" {
		cond.Status, cond.Reason = metav1.ConditionFalse, reason
		switch reason {
		case lqReasonClusterQueueNotExists:
			cond.Message = fmt.Sprintf("ClusterQueue %s does not exist", lq.Spec.ClusterQueue)
		case lqReasonStopped:
			cond.Message = "LocalQueue is stopped"
		case lqReasonClusterQueueInactive:
			cond.Message = fmt.Sprintf("ClusterQueue %s is inactive", lq.Spec.ClusterQueue)
		}
	}
	meta.SetStatusCondition(&lq.Status.Conditions, cond)
	lq.Status.PendingWorkloads = int32(v.PendingWorkloads)
	lq.Status.ReservingWorkloads = int32(v.AdmittedWorkloads)
	lq.Status.AdmittedWorkloads = int32(v.AdmittedWorkloads)
	usage := localQueueUsage(v.Usage, cq, cqExists)
	lq.Status.FlavorsReservation = usage
	lq.Status.FlavorsUsage = usage
	setAdmissionFairSharingStatus(lq, v)
}

// localQueueInactiveReason is the reason of a LocalQueue's Active=False
// condition, or "" when it is active: its ClusterQueue is missing, it is
// stopped, or its ClusterQueue is inactive, in that order. The status writer
// and the kueue_local_queue_status gauge share it.
func localQueueInactiveReason(v scheduler.LocalQueueView, cqActive, cqExists bool) string {
	switch {
	case !cqExists:
		return lqReasonClusterQueueNotExists
	case v.StopPolicy == kueue.Hold || v.StopPolicy == kueue.HoldAndDrain:
		return lqReasonStopped
	case !cqActive:
		return lqReasonClusterQueueInactive
	}
	return ""
}

// setAdmissionFairSharingStatus writes the LocalQueue's decayed usage, as
// Kueue does, once the engine has sampled it: a manager that restarts, or a
// new leader, starts its ordering from it.
func setAdmissionFairSharingStatus(lq *kueue.LocalQueue, v scheduler.LocalQueueView) {
	if v.ConsumedResources == nil || v.ConsumedAt.IsZero() {
		return
	}
	if lq.Status.FairSharing == nil {
		lq.Status.FairSharing = &kueue.FairSharingStatus{}
	}
	lq.Status.FairSharing.AdmissionFairSharingStatus = &kueue.AdmissionFairSharingStatus{
		ConsumedResources: v.ConsumedResources, LastUpdate: metav1.NewTime(v.ConsumedAt)}
}

// localQueueUsage converts a LocalQueue's charge into flavor usage, as Kueue
// lists it: every flavor and resource of its ClusterQueue in the spec's order,
// zero where it holds nothing, then anything it holds outside that spec,
// sorted. A LocalQueue borrows nothing itself.
func localQueueUsage(a resources.Amounts, cq scheduler.ClusterQueueView, cqExists bool) []kueue.FlavorUsage {
	cells := make([]scheduler.UsageView, 0, len(a)+len(cq.Quotas))
	inSpec := map[resources.FlavorResource]bool{}
	if cqExists {
		for _, q := range cq.Quotas {
			fr := resources.FlavorResource{Flavor: q.Flavor, Resource: q.Resource}
			cells = append(cells, scheduler.UsageView{Flavor: q.Flavor, Resource: q.Resource, Total: a[fr]})
			inSpec[fr] = true
		}
	}
	for _, fr := range a.Keys() {
		if !inSpec[fr] {
			cells = append(cells, scheduler.UsageView{Flavor: fr.Flavor, Resource: fr.Resource, Total: a[fr]})
		}
	}
	return flavorUsage(cells)
}
