package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/scheduler"
)

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=resourceflavors;cohorts;workloadpriorityclasses;clusterqueues;localqueues,verbs=get;list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=preemptionconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// feeder is a reconciler that only mirrors one kind into the engine: the object
// as the informer cache has it is upserted, a missing one is deleted. It never
// writes to the API, so it runs on every replica and keeps followers warm.
type feeder[T client.Object] struct {
	kind   string
	reader client.Reader
	engine *Engine
	newObj func() T
	upsert func(s *scheduler.Scheduler, obj T) error
	remove func(s *scheduler.Scheduler, key client.ObjectKey)
}

func (f *feeder[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := f.newObj()
	err := f.reader.Get(ctx, req.NamespacedName, obj)
	switch {
	case apierrors.IsNotFound(err):
		f.engine.Do(func(s *scheduler.Scheduler) { f.remove(s, req.NamespacedName) })
	case err != nil:
		return reconcile.Result{}, fmt.Errorf("reading %s %s: %w", f.kind, req.NamespacedName, err)
	default:
		f.engine.Do(func(s *scheduler.Scheduler) { err = f.upsert(s, obj) })
		switch {
		case errors.Is(err, quota.ErrTreeQuota):
			// Its Cohort tree's quotas would total more than the engine can
			// add up; room may come as other queues shrink or leave, which
			// is no event of this object's: look again later.
			log.FromContext(ctx).Error(err, "the engine refused the object for now", "kind", f.kind)
			f.engine.Notify()
			return reconcile.Result{RequeueAfter: treeQuotaRetry}, nil
		case err != nil:
			// A quantity the engine cannot convert will not convert on retry
			// either; the object keeps its previous state in the engine.
			log.FromContext(ctx).Error(err, "ignoring object the engine refused", "kind", f.kind)
		}
	}
	f.engine.Notify()
	return reconcile.Result{}, nil
}

// treeQuotaRetry is how soon an object refused for its tree's total quota is
// offered to the engine again.
const treeQuotaRetry = 30 * time.Second

// setup registers the feeder as a controller that runs without leadership.
func (f *feeder[T]) setup(mgr manager.Manager, name string) error {
	err := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(f.newObj()).
		WithOptions(controller.Options{NeedLeaderElection: ptr.To(false), SkipNameValidation: ptr.To(true)}).
		Complete(f)
	if err != nil {
		return fmt.Errorf("setting up %s controller: %w", f.kind, err)
	}
	return nil
}

// feeders lists the mirrors of the kinds that only configure the engine.
// ClusterQueues and LocalQueues have their own reconcilers since they also
// carry status; Workloads have a lifecycle.
func feeders(mgr manager.Manager, e *Engine) []struct {
	name  string
	setup func() error
} {
	r := mgr.GetClient()
	rf := &feeder[*kueue.ResourceFlavor]{kind: "ResourceFlavor", reader: r, engine: e,
		newObj: func() *kueue.ResourceFlavor { return &kueue.ResourceFlavor{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.ResourceFlavor) error { s.UpsertResourceFlavor(o); return nil },
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteResourceFlavor(k.Name) }}
	co := &feeder[*kueue.Cohort]{kind: "Cohort", reader: r, engine: e,
		newObj: func() *kueue.Cohort { return &kueue.Cohort{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.Cohort) error { return s.UpsertCohort(o) },
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteCohort(k.Name) }}
	wpc := &feeder[*kueue.WorkloadPriorityClass]{kind: "WorkloadPriorityClass", reader: r, engine: e,
		newObj: func() *kueue.WorkloadPriorityClass { return &kueue.WorkloadPriorityClass{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.WorkloadPriorityClass) error {
			s.UpsertWorkloadPriorityClass(o.Name, o.Value)
			return nil
		},
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteWorkloadPriorityClass(k.Name) }}
	pc := &feeder[*schedulingv1.PriorityClass]{kind: "PriorityClass", reader: r, engine: e,
		newObj: func() *schedulingv1.PriorityClass { return &schedulingv1.PriorityClass{} },
		upsert: func(s *scheduler.Scheduler, o *schedulingv1.PriorityClass) error {
			s.UpsertPriorityClass(o.Name, o.Value)
			return nil
		},
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeletePriorityClass(k.Name) }}
	pcfg := &feeder[*kueuev1alpha1.PreemptionConfig]{kind: "PreemptionConfig", reader: r, engine: e,
		newObj: func() *kueuev1alpha1.PreemptionConfig { return &kueuev1alpha1.PreemptionConfig{} },
		upsert: func(s *scheduler.Scheduler, o *kueuev1alpha1.PreemptionConfig) error {
			return s.UpsertPreemptionConfig(o)
		},
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeletePreemptionConfig(k.Name) }}
	ns := &feeder[*corev1.Namespace]{kind: "Namespace", reader: r, engine: e,
		newObj: func() *corev1.Namespace { return &corev1.Namespace{} },
		upsert: func(s *scheduler.Scheduler, o *corev1.Namespace) error {
			s.UpsertNamespace(o.Name, o.Labels)
			return nil
		},
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteNamespace(k.Name) }}
	return []struct {
		name  string
		setup func() error
	}{
		{"resourceflavor", func() error { return rf.setup(mgr, "core-resourceflavor") }},
		{"cohort", func() error { return co.setup(mgr, "core-cohort") }},
		{"workloadpriorityclass", func() error { return wpc.setup(mgr, "core-workloadpriorityclass") }},
		{"priorityclass", func() error { return pc.setup(mgr, "core-priorityclass") }},
		{"preemptionconfig", func() error { return pcfg.setup(mgr, "core-preemptionconfig") }},
		{"namespace", func() error { return ns.setup(mgr, "core-namespace") }},
	}
}

// queueFeeders mirror ClusterQueues and LocalQueues. Their status is written by
// the scheduling loop from the engine's view, not here.
func queueFeeders(mgr manager.Manager, e *Engine) []struct {
	name  string
	setup func() error
} {
	r := mgr.GetClient()
	cq := &feeder[*kueue.ClusterQueue]{kind: "ClusterQueue", reader: r, engine: e,
		newObj: func() *kueue.ClusterQueue { return &kueue.ClusterQueue{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.ClusterQueue) error { return s.UpsertClusterQueue(o) },
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteClusterQueue(k.Name) }}
	lq := &feeder[*kueue.LocalQueue]{kind: "LocalQueue", reader: r, engine: e,
		newObj: func() *kueue.LocalQueue { return &kueue.LocalQueue{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.LocalQueue) error { s.UpsertLocalQueue(o); return nil },
		remove: func(s *scheduler.Scheduler, k client.ObjectKey) { s.DeleteLocalQueue(k.Namespace, k.Name) }}
	return []struct {
		name  string
		setup func() error
	}{
		{"clusterqueue", func() error { return cq.setup(mgr, "core-clusterqueue") }},
		{"localqueue", func() error { return lq.setup(mgr, "core-localqueue") }},
	}
}
