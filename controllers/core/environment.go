package core

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// +kubebuilder:rbac:groups="",resources=limitranges,verbs=get;list;watch
// +kubebuilder:rbac:groups=node.k8s.io,resources=runtimeclasses,verbs=get;list;watch

// The engine counts a pod set as Kueue does in its namespace, with the
// namespace's LimitRange defaults and its RuntimeClass's overhead
// (engine/scheduler/environment.go). These two reconcilers mirror
// LimitRanges and RuntimeClasses into it and, since the engine keeps no
// Workload objects, upsert again the pending Workloads a change concerns;
// admitted ones keep the usage their admission recorded. Like the feeders
// they never write to the API and run on every replica.

// limitRangeReconciler mirrors the LimitRanges of one namespace at a time.
type limitRangeReconciler struct {
	reader client.Reader
	engine *Engine
}

func (r *limitRangeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var ranges corev1.LimitRangeList
	if err := r.reader.List(ctx, &ranges, client.InNamespace(req.Namespace)); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing the LimitRanges of namespace %s: %w", req.Namespace, err)
	}
	pending, err := pendingWorkloads(ctx, r.reader, client.InNamespace(req.Namespace), func(*kueue.Workload) bool { return true })
	if err != nil {
		return reconcile.Result{}, err
	}
	r.engine.Do(func(s *scheduler.Scheduler) {
		s.SetLimitRanges(req.Namespace, ranges.Items)
		upsertAll(ctx, s, pending)
	})
	r.engine.Notify()
	return reconcile.Result{}, nil
}

// runtimeClassReconciler mirrors RuntimeClasses.
type runtimeClassReconciler struct {
	reader client.Reader
	engine *Engine
}

func (r *runtimeClassReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rc := &nodev1.RuntimeClass{}
	err := r.reader.Get(ctx, req.NamespacedName, rc)
	if err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("reading RuntimeClass %s: %w", req.Name, err)
	}
	gone := apierrors.IsNotFound(err)
	pending, err := pendingWorkloads(ctx, r.reader, nil, func(wl *kueue.Workload) bool { return namesRuntimeClass(wl, req.Name) })
	if err != nil {
		return reconcile.Result{}, err
	}
	r.engine.Do(func(s *scheduler.Scheduler) {
		if gone {
			s.DeleteRuntimeClass(req.Name)
		} else {
			var overhead corev1.ResourceList
			if rc.Overhead != nil {
				overhead = rc.Overhead.PodFixed
			}
			s.UpsertRuntimeClass(req.Name, overhead)
		}
		upsertAll(ctx, s, pending)
	})
	r.engine.Notify()
	return reconcile.Result{}, nil
}

// namesRuntimeClass tells whether a pod set of wl runs with RuntimeClass name.
func namesRuntimeClass(wl *kueue.Workload, name string) bool {
	for i := range wl.Spec.PodSets {
		if ptr.Deref(wl.Spec.PodSets[i].Template.Spec.RuntimeClassName, "") == name {
			return true
		}
	}
	return false
}

// pendingWorkloads lists the Workloads without quota, not finished nor being
// deleted, that match keep.
func pendingWorkloads(ctx context.Context, r client.Reader, in client.ListOption, keep func(*kueue.Workload) bool) ([]*kueue.Workload, error) {
	var list kueue.WorkloadList
	var opts []client.ListOption
	if in != nil {
		opts = append(opts, in)
	}
	if err := r.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("listing workloads: %w", err)
	}
	var out []*kueue.Workload
	for i := range list.Items {
		wl := &list.Items[i]
		if wl.Status.Admission == nil && wl.DeletionTimestamp.IsZero() && !isTrue(wl, kueue.WorkloadFinished) && keep(wl) {
			out = append(out, wl)
		}
	}
	return out, nil
}

// upsertAll upserts workloads into the engine again, each read in its
// namespace's current environment.
func upsertAll(ctx context.Context, s *scheduler.Scheduler, wls []*kueue.Workload) {
	for _, wl := range wls {
		if err := s.UpsertWorkload(wl); err != nil {
			log.FromContext(ctx).Error(err, "ignoring workload the engine refused", "workload", client.ObjectKeyFromObject(wl))
		}
	}
}

// setupEnvironment registers both reconcilers; they run without leadership.
func setupEnvironment(mgr manager.Manager, e *Engine) error {
	opts := controller.Options{NeedLeaderElection: ptr.To(false), SkipNameValidation: ptr.To(true)}
	if err := ctrl.NewControllerManagedBy(mgr).Named("core-limitrange").For(&corev1.LimitRange{}).
		WithOptions(opts).Complete(&limitRangeReconciler{reader: mgr.GetClient(), engine: e}); err != nil {
		return fmt.Errorf("setting up LimitRange controller: %w", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("core-runtimeclass").For(&nodev1.RuntimeClass{}).
		WithOptions(opts).Complete(&runtimeClassReconciler{reader: mgr.GetClient(), engine: e}); err != nil {
		return fmt.Errorf("setting up RuntimeClass controller: %w", err)
	}
	return nil
}
