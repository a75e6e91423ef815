package dqo

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

// --- builders -----------------------------------------------------------------

func cpuGroup(flavor, nominal string) []v1beta2.ResourceGroup {
	return []v1beta2.ResourceGroup{{
		CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
		Flavors: []v1beta2.FlavorQuotas{{
			Name:      v1beta2.ResourceFlavorReference(flavor),
			Resources: []v1beta2.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal)}},
		}},
	}}
}

func clusterQueue(name, cohort, nominalCPU string) *v1beta2.ClusterQueue {
	return &v1beta2.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec:       v1beta2.ClusterQueueSpec{CohortName: v1beta2.CohortReference(cohort), ResourceGroups: cpuGroup("default", nominalCPU)},
	}
}

func cohort(name string) *v1beta2.Cohort {
	return &v1beta2.Cohort{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1}}
}

func readyProvider(name, cpu string) *v1alpha1.CapacityProvider {
	return &v1alpha1.CapacityProvider{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1},
		Spec: v1alpha1.CapacityProviderSpec{
			ControllerName:      "example.com/test",
			OrchestratedFlavors: []v1alpha1.OrchestratedFlavor{{Name: "default"}},
		},
		Status: v1alpha1.CapacityProviderStatus{
			Conditions: []metav1.Condition{{
				Type: v1alpha1.CapacitySynchronized, Status: metav1.ConditionTrue, Reason: v1alpha1.CapacityProviderReasonSynchronized,
				ObservedGeneration: 1, LastTransitionTime: metav1.Now(),
			}},
			Capacity: &v1alpha1.Capacity{Flavors: []v1alpha1.FlavorCapacity{{
				Name: "default", Resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
}

func orchestrator(name, provider, rootCohort string) *v1alpha1.DynamicQuotaOrchestrator {
	d := &v1alpha1.DynamicQuotaOrchestrator{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: v1alpha1.DynamicQuotaOrchestratorSpec{
			CapacityDiscovery: v1alpha1.CapacityDiscovery{Providers: []v1alpha1.ProviderContribution{{Name: provider}}},
		},
	}
	if rootCohort != "" {
		d.Spec.CapacityDistribution = &v1alpha1.CapacityDistribution{
			SubtreeRootQuotaRef: v1alpha1.SubtreeRootQuotaRef{Kind: v1alpha1.CohortKind, Name: rootCohort},
		}
	}
	return d
}

// patchCounter counts status patches per object and can fail the next ones.
type patchCounter struct {
	mu       sync.Mutex
	patches  map[string]int
	conflict int  // number of upcoming patches to fail with a conflict
	byTest   bool // the test itself is writing: do not report its updates
}

func (p *patchCounter) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, v := range p.patches {
		n += v
	}
	return n
}

func newFakeClient(t *testing.T, counter *patchCounter, objs ...client.Object) client.Client {
	t.Helper()
	counter.patches = map[string]int{}
	return fake.NewClientBuilder().
		WithScheme(scheme.New()).
		WithObjects(objs...).
		WithStatusSubresource(&v1beta2.ClusterQueue{}, &v1beta2.Cohort{}, &v1alpha1.DynamicQuotaOrchestrator{}, &v1alpha1.CapacityProvider{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				t.Errorf("the controller patched the main resource of %T %q; it must only write status", obj, obj.GetName())
				return c.Patch(ctx, obj, patch, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if counter.byTest {
					return c.Update(ctx, obj, opts...)
				}
				t.Errorf("the controller updated %T %q; it must only patch status", obj, obj.GetName())
				return c.Update(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				counter.mu.Lock()
				if counter.conflict > 0 {
					counter.conflict--
					counter.mu.Unlock()
					return apierrors.NewConflict(schema.GroupResource{Group: "kueue.x-k8s.io"}, obj.GetName(), nil)
				}
				counter.patches[obj.GetName()]++
				counter.mu.Unlock()
				return c.Status().Patch(ctx, obj, patch, opts...)
			},
		}).
		Build()
}

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// --- tests ----------------------------------------------------------------------

// STYLE: "Reconcile is idempotent and level-triggered: read, compare, write only what
// differs." A second reconcile over unchanged objects, even at a later time, makes no
// API write: lastUpdateTime alone never causes one.
func TestReconcileWritesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	counter := &patchCounter{}
	c := newFakeClient(t, counter,
		readyProvider("pool", "48"),
		orchestrator("dqo", "pool", "root"),
		cohort("root"),
		clusterQueue("team-a", "root", "10"),
		clusterQueue("team-b", "root", "20"),
	)

	if _, err := NewReconciler(c, fixedClock(t0)).Reconcile(ctx, setKey); err != nil {
		t.Fatalf("first reconcile: %v", err)
	}
	// team-a, team-b, the root Cohort (an empty list: it has no resourceGroups) and
	// the orchestrator's status.
	for _, name := range []string{"team-a", "team-b", "root", "dqo"} {
		if counter.patches[name] != 1 {
			t.Errorf("first reconcile patched %q %d times, want 1", name, counter.patches[name])
		}
	}
	var a v1beta2.ClusterQueue
	if err := c.Get(ctx, client.ObjectKey{Name: "team-a"}, &a); err != nil {
		t.Fatal(err)
	}
	if got := a.Status.EffectiveQuotas.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota; got.Cmp(resource.MustParse("16")) != 0 {
		t.Errorf("team-a effective cpu = %s, want 16", got.String())
	}
	rvBefore := a.ResourceVersion

	before := counter.total()
	for _, at := range []time.Time{t0, t0.Add(time.Hour)} {
		if _, err := NewReconciler(c, fixedClock(at)).Reconcile(ctx, setKey); err != nil {
			t.Fatalf("reconcile at %s: %v", at, err)
		}
	}
	if n := counter.total() - before; n != 0 {
		t.Errorf("reconciles over unchanged objects made %d status patches (%v), want 0", n, counter.patches)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "team-a"}, &a); err != nil {
		t.Fatal(err)
	}
	if a.ResourceVersion != rvBefore {
		t.Errorf("team-a resourceVersion moved from %s to %s without a change", rvBefore, a.ResourceVersion)
	}
	if !a.Status.EffectiveQuotas.LastUpdateTime.Time.Equal(t0) {
		t.Errorf("lastUpdateTime = %s, want the time of the write that changed the quotas, %s", a.Status.EffectiveQuotas.LastUpdateTime, t0)
	}
}

// A write that loses an optimistic-lock race is not an error: the reconcile asks
// for another plan, which then finishes the job.
func TestConflictRequeuesAndConverges(t *testing.T) {
	ctx := context.Background()
	counter := &patchCounter{}
	c := newFakeClient(t, counter,
		readyProvider("pool", "48"),
		orchestrator("dqo", "pool", "root"),
		cohort("root"),
		clusterQueue("team-a", "root", "10"),
	)
	counter.conflict = 1
	r := NewReconciler(c, fixedClock(t0))
	res, err := r.Reconcile(ctx, setKey)
	if err != nil {
		t.Fatalf("reconcile with a conflict returned an error: %v", err)
	}
	if res.RequeueAfter <= 0 {
		t.Fatalf("reconcile with a conflict returned %+v, want a requeue", res)
	}
	// The first write of the plan (ClusterQueue team-a) failed, so the orchestrator's
	// status must not claim a distribution yet.
	var d v1alpha1.DynamicQuotaOrchestrator
	if err := c.Get(ctx, client.ObjectKey{Name: "dqo"}, &d); err != nil {
		t.Fatal(err)
	}
	if meta.FindStatusCondition(d.Status.Conditions, v1alpha1.Distributed) != nil {
		t.Errorf("Distributed was stored although a quota write of the subtree failed")
	}

	res, err = r.Reconcile(ctx, setKey)
	if err != nil || res.RequeueAfter != 0 {
		t.Fatalf("second reconcile = %+v, %v; want done", res, err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "dqo"}, &d); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionTrue(d.Status.Conditions, v1alpha1.Distributed) {
		t.Errorf("conditions after retry = %+v, want Distributed=True", d.Status.Conditions)
	}
}

// 000: "In discovery-only mode, the condition is not set." and "Effective quotas
// stay on every object that the orchestrator no longer writes. This happens when
// you ... remove capacityDistribution".
func TestDiscoveryOnlyRemovesDistributedAndKeepsQuotas(t *testing.T) {
	ctx := context.Background()
	counter := &patchCounter{}
	d := orchestrator("dqo", "pool", "")
	d.Status.Conditions = []metav1.Condition{{
		Type: v1alpha1.Distributed, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonQuotasDistributed,
		ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(t0),
	}}
	cq := clusterQueue("team-a", "root", "10")
	stamp := metav1.NewTime(t0)
	cq.Status.EffectiveQuotas = &v1beta2.EffectiveQuotas{
		OrchestratorRef: v1beta2.OrchestratorReference{APIGroup: "kueue.x-k8s.io", Kind: "DynamicQuotaOrchestrator", Name: "dqo"},
		LastUpdateTime:  &stamp,
		ResourceGroups:  cpuGroup("default", "7"),
	}
	c := newFakeClient(t, counter, readyProvider("pool", "48"), d, cohort("root"), cq)

	if _, err := NewReconciler(c, fixedClock(t0.Add(time.Minute))).Reconcile(ctx, setKey); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "dqo"}, d); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(d.Status.Conditions, v1alpha1.Distributed); c != nil {
		t.Errorf("discovery-only orchestrator kept %+v", c)
	}
	if !meta.IsStatusConditionTrue(d.Status.Conditions, v1alpha1.EffectiveCapacityComputed) || d.Status.EffectiveCapacity == nil {
		t.Errorf("status = %+v, want EffectiveCapacityComputed=True and an effective capacity", d.Status)
	}
	if counter.patches["team-a"] != 0 || counter.patches["root"] != 0 {
		t.Errorf("discovery-only orchestrator wrote quotas: %v", counter.patches)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "team-a"}, cq); err != nil {
		t.Fatal(err)
	}
	if got := cq.Status.EffectiveQuotas.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota; got.Cmp(resource.MustParse("7")) != 0 {
		t.Errorf("team-a effective cpu = %s, want the old 7 kept", got.String())
	}
}

// KEP: the gate controls "registration and start of the DynamicQuotaOrchestration
// controller". With the gate off Setup must not touch the manager at all; a nil
// manager proves it.
func TestSetupWithGateOffRegistersNothing(t *testing.T) {
	cfg := &configapi.Configuration{FeatureGates: map[string]bool{string(configapi.FeatureDynamicQuotaOrchestration): false}}
	if err := Setup(nil, cfg); err != nil {
		t.Fatalf("Setup with the gate off: %v", err)
	}
	if err := Setup(nil, nil); err != nil {
		t.Fatalf("Setup with the default configuration (gate off by default): %v", err)
	}
}

// The core controller rewrites ClusterQueue usage all the time; those updates must
// not trigger a plan, while spec changes and effectiveQuotas edits must.
func TestClusterQueuePredicate(t *testing.T) {
	old := clusterQueue("q", "root", "10")
	usage := old.DeepCopy()
	usage.Status.PendingWorkloads = 3
	usage.Status.Conditions = []metav1.Condition{{Type: "Active", Status: metav1.ConditionTrue}}
	respec := old.DeepCopy()
	respec.Generation = 2
	cleared := old.DeepCopy()
	cleared.Status.EffectiveQuotas = &v1beta2.EffectiveQuotas{OrchestratorRef: v1beta2.OrchestratorReference{Kind: "Other", Name: "x"}}
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "a"}

	for _, tc := range []struct {
		name string
		new  *v1beta2.ClusterQueue
		want bool
	}{
		{"usage counters and conditions", usage, false},
		{"labels only", labelled, false},
		{"spec change", respec, true},
		{"effectiveQuotas written by someone else", cleared, true},
	} {
		if got := clusterQueueChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: predicate = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !clusterQueueChanged.Create(event.CreateEvent{Object: old}) || !clusterQueueChanged.Delete(event.DeleteEvent{Object: old}) {
		t.Errorf("creations and deletions must always trigger a plan")
	}
}

// STYLE: "conditions set with meta.SetStatusCondition and carry ObservedGeneration".
// A spec edit that changes no outcome still moves observedGeneration (one write),
// and lastTransitionTime stays while the status stays.
func TestConditionsFollowTheGenerationAndKeepTransitionTime(t *testing.T) {
	ctx := context.Background()
	counter := &patchCounter{}
	c := newFakeClient(t, counter, readyProvider("pool", "4"), orchestrator("dqo", "pool", ""))
	r := NewReconciler(c, fixedClock(t0))
	if _, err := r.Reconcile(ctx, setKey); err != nil {
		t.Fatal(err)
	}
	var d v1alpha1.DynamicQuotaOrchestrator
	if err := c.Get(ctx, client.ObjectKey{Name: "dqo"}, &d); err != nil {
		t.Fatal(err)
	}
	first := *meta.FindStatusCondition(d.Status.Conditions, v1alpha1.EffectiveCapacityComputed)

	// A new multiplier of 1 is a spec change (generation 2) with the same result.
	one := resource.MustParse("1")
	d.Spec.CapacityDiscovery.Providers[0].EffectiveCapacityMultiplier = &one
	d.Generation = 2
	counter.byTest = true
	if err := c.Update(ctx, &d); err != nil {
		t.Fatal(err)
	}
	counter.byTest = false
	before := counter.total()
	if _, err := r.Reconcile(ctx, setKey); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "dqo"}, &d); err != nil {
		t.Fatal(err)
	}
	got := meta.FindStatusCondition(d.Status.Conditions, v1alpha1.EffectiveCapacityComputed)
	if got.ObservedGeneration != d.Generation {
		t.Errorf("observedGeneration = %d, want the generation %d", got.ObservedGeneration, d.Generation)
	}
	if !got.LastTransitionTime.Equal(&first.LastTransitionTime) {
		t.Errorf("lastTransitionTime moved from %s to %s although the status stayed True", first.LastTransitionTime, got.LastTransitionTime)
	}
	if n := counter.total() - before; n != 1 {
		t.Errorf("status patches = %d, want 1 (the new observedGeneration)", n)
	}
}
