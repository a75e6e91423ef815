package core

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/internal/scheme"
)

func cpuQueue(name, cohort, nominal string) *kueue.ClusterQueue {
	return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{
		CohortName: kueue.CohortReference(cohort),
		ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
			Flavors: []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{
				{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal)}}}}}}}}
}

// A ClusterQueue refused because its Cohort tree's quotas would total more than
// the engine can add up is offered again later: the room may come from other
// queues leaving, which is no event of its own. Once there is room it is taken.
// An object refused for good (a quantity too large to convert) is not retried.
func TestFeederRetriesAQueueRefusedForItsTreesTotal(t *testing.T) {
	t.Parallel()
	half := resources.MaxAmount/2 + 1 // millicores: two of them overflow the tree
	big := cpuQueue("big", "all", resource.NewMilliQuantity(half, resource.DecimalSI).String())
	late := cpuQueue("late", "all", resource.NewMilliQuantity(half, resource.DecimalSI).String())
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(big, late).Build()
	e := NewEngine(scheduler.Options{})
	f := &feeder[*kueue.ClusterQueue]{kind: "ClusterQueue", reader: c, engine: e,
		newObj: func() *kueue.ClusterQueue { return &kueue.ClusterQueue{} },
		upsert: func(s *scheduler.Scheduler, o *kueue.ClusterQueue) error { return s.UpsertClusterQueue(o) },
		remove: func(s *scheduler.Scheduler, key client.ObjectKey) { s.DeleteClusterQueue(key.Name) }}
	reconcileQueue := func(name string) reconcile.Result {
		t.Helper()
		res, err := f.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
		if err != nil {
			t.Fatalf("reconciling %s: %v", name, err)
		}
		return res
	}
	known := func(name string) bool {
		var ok bool
		e.Do(func(s *scheduler.Scheduler) { _, ok = s.ClusterQueueSnapshot(name) })
		return ok
	}
	if res := reconcileQueue("big"); res.RequeueAfter != 0 || !known("big") {
		t.Fatalf("big: result %+v, known %v", res, known("big"))
	}
	if res := reconcileQueue("late"); res.RequeueAfter != treeQuotaRetry || known("late") {
		t.Fatalf("late, over the tree's total: result %+v, known %v; want a retry and no queue", res, known("late"))
	}
	if err := c.Delete(context.Background(), big); err != nil {
		t.Fatal(err)
	}
	reconcileQueue("big")
	if res := reconcileQueue("late"); res.RequeueAfter != 0 || !known("late") {
		t.Errorf("late, once big left: result %+v, known %v; want it taken", res, known("late"))
	}

	huge := cpuQueue("huge", "", "1E")
	if err := c.Create(context.Background(), huge); err != nil {
		t.Fatal(err)
	}
	if res := reconcileQueue("huge"); res.RequeueAfter != 0 || known("huge") {
		t.Errorf("huge, which never converts: result %+v, known %v; want no retry", res, known("huge"))
	}
}
