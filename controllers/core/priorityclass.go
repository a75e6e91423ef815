package core

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// A Workload carries its priority in spec.priority, resolved from its
// WorkloadPriorityClass when it was created, and the engine orders and
// preempts by that number. Kueue keeps the number in step with the class: when
// a WorkloadPriorityClass is created or its value changes, every Workload that
// references it gets the new value (pending, admitted or finished alike;
// Kueue's workloadpriorityclass_controller.go). Quokka does the same, on the
// leader; the Workload's update reaches the engine like any other.

// workloadPriorityClassIndex indexes Workloads by the WorkloadPriorityClass
// their spec.priorityClassRef names.
const workloadPriorityClassIndex = "spec.priorityClassRef.workloadPriorityClass"

func indexWorkloadPriorityClass(obj client.Object) []string {
	wl, ok := obj.(*kueue.Workload)
	if !ok || wl.Spec.PriorityClassRef == nil {
		return nil
	}
	ref := wl.Spec.PriorityClassRef
	if ref.Group != kueue.WorkloadPriorityClassGroup || ref.Kind != kueue.WorkloadPriorityClassKind {
		return nil
	}
	return []string{ref.Name}
}

// priorityClassReconciler writes a WorkloadPriorityClass's value into the
// spec.priority of the Workloads that reference it.
type priorityClassReconciler struct {
	client client.Client
}

func (r *priorityClassReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var wpc kueue.WorkloadPriorityClass
	if err := r.client.Get(ctx, req.NamespacedName, &wpc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var wls kueue.WorkloadList
	if err := r.client.List(ctx, &wls, client.MatchingFields{workloadPriorityClassIndex: wpc.Name}); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing the Workloads of WorkloadPriorityClass %s: %w", wpc.Name, err)
	}
	var errs []error
	for i := range wls.Items {
		wl := &wls.Items[i]
		if wl.Spec.Priority != nil && *wl.Spec.Priority == wpc.Value {
			continue
		}
		orig := wl.DeepCopy()
		wl.Spec.Priority = ptr.To(wpc.Value)
		err := r.client.Patch(ctx, wl, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("updating the priority of Workload %s/%s: %w", wl.Namespace, wl.Name, err))
		}
	}
	// A conflict (the Workload changed meanwhile) is retried with backoff.
	return reconcile.Result{}, errors.Join(errs...)
}

// setup registers the reconciler for creations and changes of value.
func (r *priorityClassReconciler) setup(ctx context.Context, mgr manager.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kueue.Workload{}, workloadPriorityClassIndex, indexWorkloadPriorityClass); err != nil {
		return fmt.Errorf("indexing workloads by WorkloadPriorityClass: %w", err)
	}
	valueChanged := predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, okOld := e.ObjectOld.(*kueue.WorkloadPriorityClass)
			n, okNew := e.ObjectNew.(*kueue.WorkloadPriorityClass)
			return !okOld || !okNew || o.Value != n.Value
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("core-workloadpriorityclass-priority").
		For(&kueue.WorkloadPriorityClass{}, builder.WithPredicates(valueChanged)).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up the WorkloadPriorityClass controller: %w", err)
	}
	return nil
}
