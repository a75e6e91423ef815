package dqo

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

const (
	cqKind     = v1alpha1.ClusterQueueKind
	cohortKind = v1alpha1.CohortKind
)

// distributeOver runs conflict resolution and distribution for d alone over a tree.
func distributeOver(d *v1alpha1.DynamicQuotaOrchestrator, capacity *Capacity, cqs []*v1beta2.ClusterQueue, cohorts []*v1beta2.Cohort) DistributionResult {
	tree := NewTree(cqs, cohorts)
	return Distribute(d, capacity, tree, ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{d}, tree), t0)
}

// update returns the update for a node, failing when there is none.
func update(t *testing.T, r DistributionResult, kind v1alpha1.QuotaNodeKind, name string) QuotaUpdate {
	t.Helper()
	for _, u := range r.Updates {
		if u.Node == (NodeRef{kind, name}) {
			return u
		}
	}
	t.Fatalf("no update for %s %q in %+v", kind, name, r.Updates)
	return QuotaUpdate{}
}

// resourceQuota returns the effective entry of flavor/resource in an update.
func resourceQuota(t *testing.T, u QuotaUpdate, fl string, res corev1.ResourceName) v1beta2.ResourceQuota {
	t.Helper()
	for _, g := range u.EffectiveQuotas.ResourceGroups {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				if string(f.Name) == fl && r.Name == res {
					return r
				}
			}
		}
	}
	t.Fatalf("%s has no %s/%s in %+v", u.Node, fl, res, u.EffectiveQuotas.ResourceGroups)
	return v1beta2.ResourceQuota{}
}

// wantNominal checks effective nominal quotas: "Kind/name" → quantity.
func wantNominal(t *testing.T, r DistributionResult, fl string, res corev1.ResourceName, want map[NodeRef]string) {
	t.Helper()
	if !r.Distributed() {
		t.Fatalf("not distributed: %+v", r.Condition)
	}
	for ref, q := range want {
		got := resourceQuota(t, update(t, r, ref.Kind, ref.Name), fl, res).NominalQuota
		if got.Cmp(resource.MustParse(q)) != 0 {
			t.Errorf("%s %s/%s nominalQuota = %s, want %s", ref, fl, res, got.String(), q)
		}
	}
}

func cq(name string) NodeRef     { return NodeRef{cqKind, name} }
func cohort(name string) NodeRef { return NodeRef{cohortKind, name} }

// 000: "For example, team-a has a nominal quota of 10 CPUs and team-b has 20 CPUs. If
// the effective capacity is 48 CPUs, team-a gets 16 and team-b gets 32."
func TestDistributionProportionalToNominalQuota(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"default": {"cpu": 48000}}),
		[]*v1beta2.ClusterQueue{
			makeCQ("team-a").Cohort("org").Quota("default", "cpu", "10").Obj(),
			makeCQ("team-b").Cohort("org").Quota("default", "cpu", "20").Obj(),
		}, []*v1beta2.Cohort{makeCohort("org").Obj()})
	wantNominal(t, r, "default", "cpu", map[NodeRef]string{cq("team-a"): "16", cq("team-b"): "32"})
	c := r.Condition
	if c.Type != v1alpha1.Distributed || c.Reason != v1alpha1.ReasonQuotasDistributed || c.ObservedGeneration != 1 {
		t.Errorf("condition = %+v", c)
	}
	u := update(t, r, cqKind, "team-a")
	if u.EffectiveQuotas.OrchestratorRef != (v1beta2.OrchestratorReference{APIGroup: "kueue.x-k8s.io", Kind: "DynamicQuotaOrchestrator", Name: "prod"}) {
		t.Errorf("orchestratorRef = %+v", u.EffectiveQuotas.OrchestratorRef)
	}
	if u.EffectiveQuotas.LastUpdateTime == nil || !u.EffectiveQuotas.LastUpdateTime.Equal(&t0) || !u.NeedsWrite {
		t.Errorf("lastUpdateTime = %v, needsWrite = %v; want now and true", u.EffectiveQuotas.LastUpdateTime, u.NeedsWrite)
	}
}

// 000: "Kueue rounds down to whole units: 1m for CPU and 1 for every other resource.
// It gives the units that are left over to the participants with the largest
// remainders. Ties go to the smaller UID. For example, 10 units split equally over
// three ClusterQueues gives 4, 3 and 3."
func TestDistributionLargestRemainderTiesToSmallerUID(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 10, "cpu": 10}})
	queues := []*v1beta2.ClusterQueue{
		// Names and UIDs in opposite orders: the UID decides, not the name.
		makeCQ("a").UID("uid-3").Cohort("org").Group(flavor("h100", quota(gpu, "8"), quota("cpu", "1"))).Obj(),
		makeCQ("b").UID("uid-2").Cohort("org").Group(flavor("h100", quota(gpu, "8"), quota("cpu", "1"))).Obj(),
		makeCQ("c").UID("uid-1").Cohort("org").Group(flavor("h100", quota(gpu, "8"), quota("cpu", "1"))).Obj(),
	}
	r := distributeOver(d, capacity, queues, nil)
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("a"): "3", cq("b"): "3", cq("c"): "4"})
	// 10 millicores over three: 1m is the unit for CPU.
	wantNominal(t, r, "h100", "cpu", map[NodeRef]string{cq("a"): "3m", cq("b"): "3m", cq("c"): "4m"})
}

// 000: "The split is flat: Cohorts and ClusterQueues at every level of the subtree
// share one pool, and a Cohort's share is not split again among its children."
func TestDistributionIsFlatAcrossLevels(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 100}})
	r := distributeOver(d, capacity,
		[]*v1beta2.ClusterQueue{
			makeCQ("direct").Cohort("org").Quota("h100", gpu, "10").Obj(),
			makeCQ("research-1").Cohort("research").Quota("h100", gpu, "10").Obj(),
			makeCQ("research-2").Cohort("research").Quota("h100", gpu, "20").Obj(),
		},
		[]*v1beta2.Cohort{
			makeCohort("org").Quota("h100", gpu, "0").Obj(),
			makeCohort("research").Parent("org").Quota("h100", gpu, "10").Obj(),
		})
	// Weights 0 + 10 + 10 + 10 + 20 = 50 for 100 GPUs: everyone doubles, the Cohort
	// "research" included, and its children are not scaled by its share.
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{
		cohort("org"): "0", cohort("research"): "20", cq("direct"): "20", cq("research-1"): "20", cq("research-2"): "40",
	})
	if len(r.Updates) != 5 {
		t.Errorf("updates = %d, want 5 (2 Cohorts, 3 ClusterQueues)", len(r.Updates))
	}
}

// 000: "A flavor that DQO does not orchestrate keeps its quota from
// spec.resourceGroups." and "If an orchestrated flavor has a resource that the
// providers do not report, that resource gets an effective nominal quota of 0."
func TestDistributionNonOrchestratedFlavorAndUnreportedResource(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 24}}) // memory not reported
	r := distributeOver(d, capacity, []*v1beta2.ClusterQueue{
		makeCQ("team").Cohort("org").
			Group(flavor("h100", quota(gpu, "8"), quota("memory", "1Ti")), flavor("spot", quota(gpu, "4"), quota("memory", "512Gi"))).
			Obj(),
	}, nil)
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("team"): "24"})
	wantNominal(t, r, "h100", "memory", map[NodeRef]string{cq("team"): "0"})
	wantNominal(t, r, "spot", gpu, map[NodeRef]string{cq("team"): "4"})
	wantNominal(t, r, "spot", "memory", map[NodeRef]string{cq("team"): "512Gi"})
	// The structure is the spec's: one group, covered resources and flavor order kept.
	g := update(t, r, cqKind, "team").EffectiveQuotas.ResourceGroups
	if len(g) != 1 || len(g[0].Flavors) != 2 || g[0].Flavors[0].Name != "h100" || g[0].CoveredResources[1] != "memory" {
		t.Errorf("resource groups = %+v, want the spec's structure", g)
	}
	if q := resourceQuota(t, update(t, r, cqKind, "team"), "h100", "memory").NominalQuota; q.Format != resource.BinarySI {
		t.Errorf("memory format = %s, want BinarySI", q.Format)
	}
}

// 000: "If every participant has a nominal quota of 0 in spec.resourceGroups for a
// resource, every participant gets an effective nominal quota of 0."
func TestDistributionAllZeroNominalGivesZero(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 64}})
	r := distributeOver(d, capacity, []*v1beta2.ClusterQueue{
		makeCQ("a").Cohort("org").Quota("h100", gpu, "0").Obj(),
		makeCQ("b").Cohort("org").Quota("h100", gpu, "0").Obj(),
	}, []*v1beta2.Cohort{makeCohort("org").Quota("h100", gpu, "0").Obj()})
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("a"): "0", cq("b"): "0", cohort("org"): "0"})
}

// 000: "A Cohort with no spec.resourceGroups gets an empty list of effective quotas."
// Implicit Cohorts (referenced, never created) have no object and get nothing.
func TestDistributionCohortWithoutResourceGroupsGetsEmptyList(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}})
	r := distributeOver(d, capacity,
		[]*v1beta2.ClusterQueue{makeCQ("q").Cohort("implicit").Quota("h100", gpu, "1").Obj()},
		[]*v1beta2.Cohort{makeCohort("org").Obj(), makeCohort("unrelated").Obj(), makeCohort("mid").Parent("org").Obj(), makeCohort("leaf").Parent("mid").Obj()},
	)
	// "implicit" is not under org: q is outside the subtree.
	for _, name := range []string{"org", "mid", "leaf"} {
		u := update(t, r, cohortKind, name)
		if u.EffectiveQuotas.ResourceGroups == nil || len(u.EffectiveQuotas.ResourceGroups) != 0 {
			t.Errorf("Cohort %q resourceGroups = %#v, want empty non-nil", name, u.EffectiveQuotas.ResourceGroups)
		}
	}
	if len(r.Updates) != 3 {
		t.Errorf("updates = %+v, want exactly the 3 Cohorts of the subtree", r.Updates)
	}

	// An implicit Cohort can be the root: its created descendants are written.
	d = makeDQO("prod").Provider("nodes", "").Root(cohortKind, "implicit").Obj()
	r = distributeOver(d, capacity, []*v1beta2.ClusterQueue{makeCQ("q").Cohort("implicit").Quota("h100", gpu, "1").Obj()}, nil)
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("q"): "8"})
	if len(r.Updates) != 1 {
		t.Errorf("updates = %+v, want only ClusterQueue q", r.Updates)
	}
}

// 000: "borrowingLimit is copied from the spec." and "lendingLimit is copied from the
// spec. For a ClusterQueue, it is capped at the effective nominal quota."
func TestDistributionBorrowingAndLendingLimits(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 10}})
	r := distributeOver(d, capacity,
		[]*v1beta2.ClusterQueue{
			// Nominal 30 of 50 → 6: lendingLimit 20 is capped at 6.
			makeCQ("capped").Cohort("team").Quota("h100", gpu, "30", borrowing("5"), lending("20")).Obj(),
			// Nominal 10 of 50 → 2: lendingLimit 1 stays.
			makeCQ("kept").Cohort("team").Quota("h100", gpu, "10", lending("1")).Obj(),
		},
		[]*v1beta2.Cohort{
			makeCohort("org").Obj(),
			// Nominal 10 of 50 → 2: a Cohort's lendingLimit of 8 is copied, not capped.
			makeCohort("team").Parent("org").Quota("h100", gpu, "10", borrowing("3"), lending("8")).Obj(),
		})
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("capped"): "6", cq("kept"): "2", cohort("team"): "2"})
	check := func(ref NodeRef, borrow, lend string) {
		t.Helper()
		q := resourceQuota(t, update(t, r, ref.Kind, ref.Name), "h100", gpu)
		if !quantityIs(q.BorrowingLimit, borrow) || !quantityIs(q.LendingLimit, lend) {
			t.Errorf("%s borrowingLimit %v lendingLimit %v, want %q %q", ref, q.BorrowingLimit, q.LendingLimit, borrow, lend)
		}
	}
	check(cq("capped"), "5", "6")
	check(cq("kept"), "", "1")
	check(cohort("team"), "3", "8")
}

func quantityIs(q *resource.Quantity, want string) bool {
	if want == "" {
		return q == nil
	}
	return q != nil && q.Cmp(resource.MustParse(want)) == 0
}

// 000: "Discovery only: leave out capacityDistribution. Kueue computes
// status.effectiveCapacity but does not change any quota." and "In discovery-only
// mode, the condition is not set."
func TestDiscoveryOnlyWritesNothing(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}}),
		[]*v1beta2.ClusterQueue{makeCQ("q").Cohort("org").Quota("h100", gpu, "1").Obj()}, nil)
	if r.Condition != nil || r.Updates != nil || r.Distributed() {
		t.Errorf("discovery-only result = %+v, want no condition and no updates", r)
	}
}

// A subtree root that does not exist is a misconfiguration of the orchestrator; the
// message names the field and the missing object.
func TestDistributionRootMissingIsMisconfigured(t *testing.T) {
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}})
	queues := []*v1beta2.ClusterQueue{makeCQ("q").Cohort("org").Quota("h100", gpu, "1").Obj()}
	for _, c := range []struct {
		name string
		root NodeRef
		want string
	}{
		{"ClusterQueue", cq("gone"), `spec.capacityDistribution.subtreeRootQuotaRef: ClusterQueue "gone" does not exist`},
		{"Cohort", cohort("gone"), `spec.capacityDistribution.subtreeRootQuotaRef: Cohort "gone" does not exist`},
		// A ClusterQueue named like an existing Cohort is still missing.
		{"wrong kind", cq("org"), `ClusterQueue "org" does not exist`},
		{"invalid kind", NodeRef{"LocalQueue", "q"}, `kind: "LocalQueue" must be ClusterQueue or Cohort`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := makeDQO("prod").Provider("nodes", "").Root(c.root.Kind, c.root.Name).Obj()
			r := distributeOver(d, capacity, queues, nil)
			if r.Condition == nil || r.Condition.Status != metav1.ConditionFalse || r.Condition.Reason != v1alpha1.ReasonMisconfigured ||
				!strings.Contains(r.Condition.Message, c.want) || len(r.Updates) != 0 {
				t.Errorf("result = %+v, want Misconfigured mentioning %q and no updates", r, c.want)
			}
		})
	}
}

// A Cohort on a cycle has no top, so its subtree cannot be distributed.
func TestDistributionRootOnCohortCycleIsMisconfigured(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "a").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}}), nil,
		[]*v1beta2.Cohort{makeCohort("a").Parent("b").Obj(), makeCohort("b").Parent("a").Obj()})
	if r.Condition == nil || r.Condition.Reason != v1alpha1.ReasonMisconfigured || !strings.Contains(r.Condition.Message, "a -> b -> a") {
		t.Errorf("condition = %+v, want Misconfigured naming the cycle a -> b -> a", r.Condition)
	}
}

// A ClusterQueue root is a subtree of one: only it is written.
func TestDistributionClusterQueueRoot(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cqKind, "solo").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}}),
		[]*v1beta2.ClusterQueue{
			makeCQ("solo").Cohort("org").Quota("h100", gpu, "1").Obj(),
			makeCQ("sibling").Cohort("org").Quota("h100", gpu, "1").Obj(),
		}, []*v1beta2.Cohort{makeCohort("org").Quota("h100", gpu, "1").Obj()})
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("solo"): "8"})
	if len(r.Updates) != 1 {
		t.Errorf("updates = %+v, want only the root", r.Updates)
	}
}

// 000: "It also happens when Distributed becomes False for any reason, such as a
// discovery failure". Without capacity, nothing is written.
func TestDistributionWithoutCapacityReportsNotComputed(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, nil, []*v1beta2.ClusterQueue{makeCQ("q").Cohort("org").Quota("h100", gpu, "1").Obj()}, nil)
	if r.Condition == nil || r.Condition.Reason != v1alpha1.ReasonEffectiveCapacityNotComputed || len(r.Updates) != 0 {
		t.Errorf("result = %+v, want EffectiveCapacityNotComputed and no updates", r)
	}
}

// Effective quotas written by another component are not overwritten: the orchestrator
// reports EffectiveQuotasConflict, names the object and the writer, and writes
// nothing. Quotas that an orchestrator of the set wrote are taken over.
func TestDistributionEffectiveQuotasConflict(t *testing.T) {
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}})
	foreign := &v1beta2.EffectiveQuotas{OrchestratorRef: v1beta2.OrchestratorReference{APIGroup: "example.com", Kind: "Autoscaler", Name: "burst"}}
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, capacity, []*v1beta2.ClusterQueue{
		makeCQ("mine").Cohort("org").Quota("h100", gpu, "1").Effective(&v1beta2.EffectiveQuotas{OrchestratorRef: OrchestratorRef("prod")}).Obj(),
		makeCQ("theirs").Cohort("org").Quota("h100", gpu, "1").Effective(foreign).Obj(),
	}, nil)
	if r.Condition == nil || r.Condition.Reason != v1alpha1.ReasonEffectiveQuotasConflict || len(r.Updates) != 0 ||
		!strings.Contains(r.Condition.Message, `ClusterQueue "theirs" (orchestratorRef example.com/Autoscaler "burst")`) ||
		strings.Contains(r.Condition.Message, `"mine"`) {
		t.Errorf("result = %+v, want EffectiveQuotasConflict naming only theirs", r)
	}

	// A DQO name that is not in the set counts as another component too; one in the
	// set (here "old", which no longer distributes) is taken over.
	old := makeDQO("old").Provider("nodes", "").Obj()
	tree := NewTree([]*v1beta2.ClusterQueue{
		makeCQ("a").Cohort("org").Quota("h100", gpu, "1").Effective(&v1beta2.EffectiveQuotas{OrchestratorRef: OrchestratorRef("old")}).Obj(),
	}, nil)
	res := ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{d, old}, tree)
	if got := Distribute(d, capacity, tree, res, t0); !got.Distributed() {
		t.Errorf("quotas written by a known orchestrator must be taken over: %+v", got.Condition)
	}
	res = ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{d}, tree)
	if got := Distribute(d, capacity, tree, res, t0); got.Condition.Reason != v1alpha1.ReasonEffectiveQuotasConflict {
		t.Errorf("quotas written by an unknown orchestrator: %+v, want EffectiveQuotasConflict", got.Condition)
	}
}

// A controller writes only when something changed: NeedsWrite compares by value and
// ignores lastUpdateTime.
func TestDistributionNeedsWriteOnlyOnChange(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8, "cpu": 16000}})
	spec := func() *cqWrapper {
		return makeCQ("q").Cohort("org").Group(flavor("h100", quota(gpu, "1"), quota("cpu", "1", borrowing("2"))))
	}
	first := distributeOver(d, capacity, []*v1beta2.ClusterQueue{spec().Obj()}, nil)
	u := update(t, first, cqKind, "q")
	written := u.EffectiveQuotas.DeepCopy()
	if !u.NeedsWrite {
		t.Fatal("no effective quotas yet: NeedsWrite must be true")
	}

	// Same values, another lastUpdateTime and another textual form of the same quantity.
	earlier := metav1.NewTime(t0.Add(-3600e9))
	written.LastUpdateTime = &earlier
	written.ResourceGroups[0].Flavors[0].Resources[1].NominalQuota = resource.MustParse("16000m")
	second := distributeOver(d, capacity, []*v1beta2.ClusterQueue{spec().Effective(written).Obj()}, nil)
	if update(t, second, cqKind, "q").NeedsWrite {
		t.Error("unchanged quotas must not need a write")
	}

	// Capacity moves: a write is needed.
	capacity.flavors["h100"][gpu] = 9
	third := distributeOver(d, capacity, []*v1beta2.ClusterQueue{spec().Effective(written).Obj()}, nil)
	if !update(t, third, cqKind, "q").NeedsWrite {
		t.Error("changed quotas must need a write")
	}
}

// EffectiveQuotasEqual treats every field that the scheduler reads.
func TestEffectiveQuotasEqual(t *testing.T) {
	base := func() *v1beta2.EffectiveQuotas {
		return &v1beta2.EffectiveQuotas{
			OrchestratorRef: OrchestratorRef("prod"),
			ResourceGroups: []v1beta2.ResourceGroup{group(
				flavor("h100", quota(gpu, "8", borrowing("2"), lending("1"))),
			)},
		}
	}
	cases := []struct {
		name   string
		change func(*v1beta2.EffectiveQuotas)
		equal  bool
	}{
		{"identical", func(*v1beta2.EffectiveQuotas) {}, true},
		{"lastUpdateTime ignored", func(e *v1beta2.EffectiveQuotas) { e.LastUpdateTime = &t0 }, true},
		{"same value other format", func(e *v1beta2.EffectiveQuotas) {
			e.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota = resource.MustParse("8000m")
		}, true},
		{"nominal differs", func(e *v1beta2.EffectiveQuotas) {
			e.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota = resource.MustParse("9")
		}, false},
		{"borrowing unset", func(e *v1beta2.EffectiveQuotas) { e.ResourceGroups[0].Flavors[0].Resources[0].BorrowingLimit = nil }, false},
		{"lending differs", func(e *v1beta2.EffectiveQuotas) {
			l := resource.MustParse("2")
			e.ResourceGroups[0].Flavors[0].Resources[0].LendingLimit = &l
		}, false},
		{"other orchestrator", func(e *v1beta2.EffectiveQuotas) { e.OrchestratorRef.Name = "other" }, false},
		{"flavor renamed", func(e *v1beta2.EffectiveQuotas) { e.ResourceGroups[0].Flavors[0].Name = "a100" }, false},
		{"covered resources differ", func(e *v1beta2.EffectiveQuotas) { e.ResourceGroups[0].CoveredResources = []corev1.ResourceName{"cpu"} }, false},
		{"group added", func(e *v1beta2.EffectiveQuotas) { e.ResourceGroups = append(e.ResourceGroups, e.ResourceGroups[0]) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base()
			c.change(b)
			if got := EffectiveQuotasEqual(base(), b); got != c.equal {
				t.Errorf("EffectiveQuotasEqual = %v, want %v", got, c.equal)
			}
		})
	}
	empty, none := &v1beta2.EffectiveQuotas{OrchestratorRef: OrchestratorRef("p"), ResourceGroups: []v1beta2.ResourceGroup{}}, &v1beta2.EffectiveQuotas{OrchestratorRef: OrchestratorRef("p")}
	if !EffectiveQuotasEqual(empty, none) {
		t.Error("an empty and a nil list of resource groups are the same effective quotas")
	}
	if !NeedsWrite(nil, *empty) || NeedsWrite(none, *empty) {
		t.Error("NeedsWrite: unset status needs a write; nil vs empty list does not")
	}
}

// A nominalQuota that does not fit into canonical units makes the split impossible;
// the message names the object and the field.
func TestDistributionUnreadableNominalQuota(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {"cpu": 8}}),
		[]*v1beta2.ClusterQueue{makeCQ("huge").Cohort("org").Quota("h100", "cpu", "9E").Obj()}, nil)
	if r.Condition == nil || r.Condition.Reason != v1alpha1.ReasonMisconfigured ||
		!strings.Contains(r.Condition.Message, `ClusterQueue "huge" spec.resourceGroups[0].flavors[0].resources[0].nominalQuota`) {
		t.Errorf("condition = %+v", r.Condition)
	}
}

// Capacity that no object of the subtree claims is reported in the message.
func TestDistributionReportsUnusedCapacity(t *testing.T) {
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8, "cpu": 4000}}),
		[]*v1beta2.ClusterQueue{makeCQ("q").Cohort("org").Quota("h100", gpu, "1").Obj()}, nil)
	if !r.Distributed() || !strings.Contains(r.Condition.Message, "1 pairs of status.effectiveCapacity have no participant and stay unused: h100/cpu") {
		t.Errorf("condition = %+v", r.Condition)
	}
}

// Between equal UIDs (objects that never went through an API server, such as the
// simulator's), the tie-break falls back to kind and name, so results stay
// deterministic.
func TestTieBreakRanksFallBackToKindAndName(t *testing.T) {
	nodes := []quotaNode{
		{ref: cq("b"), uid: "same"}, {ref: cq("a"), uid: "same"}, {ref: cohort("a"), uid: "same"}, {ref: cq("z"), uid: "0-first"},
	}
	sortNodes(nodes)
	ranks := tieBreakRanks(nodes)
	got := make([]NodeRef, len(nodes))
	for i, r := range ranks {
		got[r] = nodes[i].ref
	}
	want := []NodeRef{cq("z"), cq("a"), cq("b"), cohort("a")}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tie-break order = %v, want %v", got, want)
		}
	}
}

// A condition message names a few objects and counts the rest, so that a subtree of
// thousands of queues cannot produce a message beyond the API's limit.
func TestDistributionConflictMessageIsBounded(t *testing.T) {
	foreign := &v1beta2.EffectiveQuotas{OrchestratorRef: v1beta2.OrchestratorReference{APIGroup: "example.com", Kind: "Autoscaler", Name: "burst"}}
	var queues []*v1beta2.ClusterQueue
	for _, n := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7"} {
		queues = append(queues, makeCQ(n).Cohort("org").Quota("h100", gpu, "1").Effective(foreign).Obj())
	}
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "org").Obj()
	r := distributeOver(d, capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}}), queues, nil)
	msg := r.Condition.Message
	if !strings.Contains(msg, "on 7 objects") || !strings.Contains(msg, `ClusterQueue "q5"`) || strings.Contains(msg, `ClusterQueue "q6"`) || !strings.Contains(msg, "and 2 more") {
		t.Errorf("message = %q, want 5 objects named and 2 counted", msg)
	}
}
