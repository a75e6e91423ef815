package core

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=clusterqueues;resourceflavors,verbs=update;patch

// Kueue keeps a ClusterQueue while workloads hold quota in it, and a
// ResourceFlavor while a ClusterQueue names it, with the
// kueue.x-k8s.io/resource-in-use finalizer. Without it, deleting a queue under
// running workloads would drop their usage from its Cohort, which could then
// admit more than the cluster holds, and deleting a flavor would leave its
// queues inactive. Quokka does the same, from the leader's status pass (which
// follows every cycle, so it sees each finish and each change of a queue):
//
//   - every ClusterQueue and ResourceFlavor that is not being deleted gets the
//     finalizer (Kueue's webhook adds it at creation, its controllers as a
//     fallback; Quokka has no webhook for them, so this is the only way);
//   - a ClusterQueue being deleted admits nothing new (the engine reads its
//     deletionTimestamp: Active=False, reason Terminating) and loses the
//     finalizer once no workload holds quota in it;
//   - a ResourceFlavor being deleted loses it once no ClusterQueue names it.
const inUseFinalizer = kueue.ResourceInUseFinalizerName

// syncClusterQueueFinalizer puts the finalizer on a queue, or takes it off a
// queue being deleted that no workload holds quota in any more.
func (l *loop) syncClusterQueueFinalizer(ctx context.Context, cq *kueue.ClusterQueue, v scheduler.ClusterQueueView) error {
	deleting := !cq.DeletionTimestamp.IsZero()
	has := controllerutil.ContainsFinalizer(cq, inUseFinalizer)
	switch {
	case !deleting && !has:
		return l.patchFinalizer(ctx, cq, &kueue.ClusterQueue{}, true)
	case deleting && has && v.AdmittedWorkloads == 0:
		return l.patchFinalizer(ctx, cq, &kueue.ClusterQueue{}, false)
	}
	return nil
}

// syncFlavorFinalizers does the same for every ResourceFlavor: on while it is
// not being deleted, off once it is and no ClusterQueue of cqs names it.
func (l *loop) syncFlavorFinalizers(ctx context.Context, cqs []kueue.ClusterQueue) {
	var flavors kueue.ResourceFlavorList
	if err := l.client.List(ctx, &flavors); err != nil {
		l.log.Error(err, "listing ResourceFlavors for their finalizers")
		return
	}
	var named map[kueue.ResourceFlavorReference]bool
	for i := range flavors.Items {
		rf := &flavors.Items[i]
		deleting := !rf.DeletionTimestamp.IsZero()
		has := controllerutil.ContainsFinalizer(rf, inUseFinalizer)
		var err error
		switch {
		case !deleting && !has:
			err = l.patchFinalizer(ctx, rf, &kueue.ResourceFlavor{}, true)
		case deleting && has:
			if named == nil {
				named = flavorsNamed(cqs)
			}
			if !named[kueue.ResourceFlavorReference(rf.Name)] {
				err = l.patchFinalizer(ctx, rf, &kueue.ResourceFlavor{}, false)
			}
		}
		if err != nil {
			l.log.Error(err, "updating the finalizer of a ResourceFlavor", "resourceFlavor", rf.Name)
		}
	}
}

// flavorsNamed lists the flavors the queues' resource groups name, those of
// queues being deleted included: they still hold their workloads' quota.
func flavorsNamed(cqs []kueue.ClusterQueue) map[kueue.ResourceFlavorReference]bool {
	out := map[kueue.ResourceFlavorReference]bool{}
	for i := range cqs {
		for _, g := range cqs[i].Spec.ResourceGroups {
			for _, f := range g.Flavors {
				out[f.Name] = true
			}
		}
	}
	return out
}

// patchFinalizer adds (on) or removes the finalizer with a merge patch that
// carries the resourceVersion, so that it never drops another controller's
// finalizer written meanwhile; after a conflict it reads the object again
// from the API server into fresh and decides again.
func (l *loop) patchFinalizer(ctx context.Context, cached, fresh client.Object, on bool) error {
	err := l.rereadOnConflict(ctx, cached, fresh, func(cur client.Object) error {
		if controllerutil.ContainsFinalizer(cur, inUseFinalizer) == on {
			return nil
		}
		if on && !cur.GetDeletionTimestamp().IsZero() {
			return nil // deleted meanwhile: the API server refuses new finalizers
		}
		obj := cur.DeepCopyObject().(client.Object)
		if on {
			controllerutil.AddFinalizer(obj, inUseFinalizer)
		} else {
			controllerutil.RemoveFinalizer(obj, inUseFinalizer)
		}
		return l.client.Patch(ctx, obj, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}))
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating the finalizer of %s: %w", client.ObjectKeyFromObject(cached), err)
	}
	return nil
}
