package quota

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Ports of Kueue's quota arithmetic tables: what a ClusterQueue can still take
// of a cell through its Cohort tree (Cache.Available), what it could take if
// nothing were admitted (Cache.PotentialAvailable), and what a Cohort's subtree
// could lend per resource (Cohort.LendableOf). Quantities are canonical: cpu in
// millicores, as Kueue's Amounts.

var (
	kaRed  = resources.FlavorResource{Flavor: "red", Resource: corev1.ResourceCPU}
	kaBlue = resources.FlavorResource{Flavor: "blue", Resource: corev1.ResourceCPU}
)

// kaMeasure reads, for every queue and every cell its quotas define (the cells
// Kueue reads, cq.ResourceNode.Quotas), Available and PotentialAvailable.
// Available is Quokka's raw value, which is negative where the queue's tree is
// in debt (see kaClamp).
func kaMeasure(c *Cache) (avail, potential map[string]resources.Amounts) {
	avail, potential = map[string]resources.Amounts{}, map[string]resources.Amounts{}
	for _, name := range c.ClusterQueueNames() {
		q, _ := c.ClusterQueue(name)
		avail[name], potential[name] = resources.Amounts{}, resources.Amounts{}
		for fr := range q.Quotas.Cells {
			avail[name][fr] = c.Available(q, fr).Available
			potential[name][fr] = c.PotentialAvailable(q, fr)
		}
	}
	return avail, potential
}

// kaClamp is Kueue's public ClusterQueueSnapshot.Available of the raw values:
// Kueue clamps it at 0 ("When the ClusterQueue/Cohort is in debt, Available
// will return 0"). Quokka's Cache.Available, like Kueue's internal available(),
// does not: its callers add the usage that preemption would free to it, which
// must start from the debt, not from 0.
func kaClamp(raw map[string]resources.Amounts) map[string]resources.Amounts {
	out := make(map[string]resources.Amounts, len(raw))
	for name, cells := range raw {
		out[name] = resources.Amounts{}
		for fr, v := range cells {
			out[name][fr] = max(0, v)
		}
	}
	return out
}

// kaOverride is want with the cells of override replaced.
func kaOverride(want, override map[string]resources.Amounts) map[string]resources.Amounts {
	out := make(map[string]resources.Amounts, len(want))
	for name, cells := range want {
		out[name] = maps.Clone(cells)
		maps.Copy(out[name], override[name])
	}
	return out
}

// kaExpect reports every queue and cell where got differs from want.
func kaExpect(t *testing.T, phase, what string, want, got map[string]resources.Amounts) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s of unexpected ClusterQueue %s: %v", phase, what, name, got[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if !maps.Equal(want[name], got[name]) {
			t.Errorf("%s: %s of %s = %v, want %v", phase, what, name, got[name], want[name])
		}
	}
}

// Kueue: pkg/cache/scheduler/resource_test.go, TestAvailable. Each case is read
// three times, as in Kueue: with no usage (available equals potentially
// available), with the usage charged, and once the usage is released again.
// Kueue's wantAvailable is its public Available, clamped at 0, so it is
// compared with Quokka's value clamped at 0 (kaClamp); Quokka's raw value is
// compared with Kueue's internal available(): the same where it is positive,
// and wantRaw, worked out from the case, where the tree is in debt.
func TestKueueAvailable(t *testing.T) {
	cases := []struct {
		name          string
		cohorts       []*kueue.Cohort
		cqs           []*kueue.ClusterQueue
		usage         map[string]resources.Amounts
		wantAvailable map[string]resources.Amounts
		// wantRaw is Kueue's internal available() of the cells where it
		// is negative (wantAvailable shows them as 0).
		wantRaw       map[string]resources.Amounts
		wantPotential map[string]resources.Amounts
	}{
		{
			name: "base cqs",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Quota("red", "cpu", "0").Obj(),
				MakeClusterQueue("cq2").Quota("red", "cpu", "5").Quota("blue", "cpu", "10").Obj(),
			},
			usage: map[string]resources.Amounts{
				"cq1": {kaRed: 1_000},
				"cq2": {kaRed: 2_500, kaBlue: 1_000},
			},
			wantAvailable: map[string]resources.Amounts{
				"cq1": {kaRed: 0},
				"cq2": {kaRed: 2_500, kaBlue: 9_000},
			},
			// cq1 has no cohort: its nominal 0 less its usage of 1.
			wantRaw: map[string]resources.Amounts{"cq1": {kaRed: -1_000}},
			wantPotential: map[string]resources.Amounts{
				"cq1": {kaRed: 0},
				"cq2": {kaRed: 5_000, kaBlue: 10_000},
			},
		},
		{
			name: "cqs with cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Cohort("cohort").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("cq2").Cohort("cohort").Quota("red", "cpu", "10", Lending("9")).Obj(),
			},
			cohorts: []*kueue.Cohort{MakeCohort("cohort").Quota("red", "cpu", "10").Obj()},
			usage: map[string]resources.Amounts{
				"cq1": {kaRed: 1_000},
				"cq2": {kaRed: 500},
			},
			wantAvailable: map[string]resources.Amounts{
				"cq1": {kaRed: 28_000},
				"cq2": {kaRed: 28_500},
			},
			wantPotential: map[string]resources.Amounts{
				"cq1": {kaRed: 29_000},
				"cq2": {kaRed: 30_000},
			},
		},
		{
			name: "cq borrows from cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Cohort("cohort").Quota("red", "cpu", "10").Obj(),
			},
			cohorts:       []*kueue.Cohort{MakeCohort("cohort").Quota("red", "cpu", "10").Obj()},
			usage:         map[string]resources.Amounts{"cq1": {kaRed: 11_000}},
			wantAvailable: map[string]resources.Amounts{"cq1": {kaRed: 9_000}},
			wantPotential: map[string]resources.Amounts{"cq1": {kaRed: 20_000}},
		},
		{
			name: "cq oversubscription spills into cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Cohort("cohort").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("cq2").Cohort("cohort").Quota("red", "cpu", "10", Borrowing("0"), Lending("0")).Obj(),
			},
			cohorts: []*kueue.Cohort{MakeCohort("cohort").Quota("red", "cpu", "10").Obj()},
			usage:   map[string]resources.Amounts{"cq1": {kaRed: 31_000}},
			wantAvailable: map[string]resources.Amounts{
				"cq1": {kaRed: 0},
				// cq2 neither borrows nor lends, yet cq1's overuse
				// spills into its available so that the tree is not
				// admitted over.
				"cq2": {kaRed: 0},
			},
			wantRaw: map[string]resources.Amounts{
				// The cohort holds 20 (its 10 and cq1's 10) and 31 is
				// used: -11. cq1 keeps nothing for itself.
				"cq1": {kaRed: -11_000},
				// cq2's own unused 10, plus at most 0 (its borrowing
				// limit) of the cohort's -11: 10 - 11.
				"cq2": {kaRed: -1_000},
			},
			wantPotential: map[string]resources.Amounts{
				"cq1": {kaRed: 20_000},
				"cq2": {kaRed: 10_000},
			},
		},
		{
			// The cohort holds 40; cq1 can reach 35 (cq3 keeps 5), cq2 12
			// (its borrowing limit), cq3 all 40.
			name: "lending and borrowing limits respected",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Cohort("cohort").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("cq2").Cohort("cohort").Quota("red", "cpu", "10", Borrowing("2")).Obj(),
				MakeClusterQueue("cq3").Cohort("cohort").Quota("red", "cpu", "10", Lending("5")).Obj(),
			},
			cohorts: []*kueue.Cohort{MakeCohort("cohort").Quota("red", "cpu", "10").Obj()},
			usage: map[string]resources.Amounts{
				"cq1": {kaRed: 20_000},
				"cq2": {kaRed: 10_000},
				"cq3": {kaRed: 6_000},
			},
			wantAvailable: map[string]resources.Amounts{
				// 35 - (20 + 10 + the 1 cq3 uses above its kept 5).
				"cq1": {kaRed: 4_000},
				// Only 2 of those 4: cq2's borrowing limit.
				"cq2": {kaRed: 2_000},
				// 40 - (20 + 10 + 6).
				"cq3": {kaRed: 4_000},
			},
			wantPotential: map[string]resources.Amounts{
				"cq1": {kaRed: 35_000},
				"cq2": {kaRed: 12_000},
				"cq3": {kaRed: 40_000},
			},
		},
		{
			//      root
			//     /    \
			//   left   right
			//    |       |
			//   cq1     cq2
			name: "hierarchical cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq1").Cohort("left").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("cq2").Cohort("right").Quota("red", "cpu", "10", Lending("0")).Obj(),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("left").Parent("root").Quota("red", "cpu", "10").Obj(),
				MakeCohort("right").Parent("root").Quota("red", "cpu", "10").Obj(),
			},
			usage: map[string]resources.Amounts{
				"cq1": {kaRed: 10_000},
				"cq2": {kaRed: 5_000},
			},
			wantAvailable: map[string]resources.Amounts{
				// 30 - 10: right's subtree shows nothing of cq2.
				"cq1": {kaRed: 20_000},
				// 40 - 15.
				"cq2": {kaRed: 25_000},
			},
			wantPotential: map[string]resources.Amounts{
				"cq1": {kaRed: 30_000},
				"cq2": {kaRed: 40_000},
			},
		},
		{
			//          root
			//     (5) /    \
			//      left    right -- right-cq
			//     /    \ (5)
			// left-cq1  left-cq2
			name: "hierarchical cohort respects borrowing limit",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("left-cq1").Cohort("left").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("left-cq2").Cohort("left").Quota("red", "cpu", "10", Borrowing("5")).Obj(),
				MakeClusterQueue("right-cq").Cohort("right").Quota("red", "cpu", "10").Obj(),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("left").Parent("root").Quota("red", "cpu", "10", Borrowing("5")).Obj(),
				MakeCohort("right").Parent("root").Quota("red", "cpu", "10").Obj(),
			},
			wantAvailable: map[string]resources.Amounts{
				// 30 in left's subtree + 5 above it.
				"left-cq1": {kaRed: 35_000},
				// 10 + its borrowing limit of 5.
				"left-cq2": {kaRed: 15_000},
				// All 50 of root's subtree.
				"right-cq": {kaRed: 50_000},
			},
			wantPotential: map[string]resources.Amounts{
				"left-cq1": {kaRed: 35_000},
				"left-cq2": {kaRed: 15_000},
				"right-cq": {kaRed: 50_000},
			},
		},
		{
			//            root -- root-cq
			//       (5) /    \
			//        left    right -- right-cq
			//   (5) /    \
			// left-cq1  left-cq2
			name: "hierarchical cohort respects lending limit",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("left-cq1").Cohort("left").Quota("red", "cpu", "10", Lending("5")).Obj(),
				MakeClusterQueue("left-cq2").Cohort("left").Quota("red", "cpu", "10").Obj(),
				MakeClusterQueue("right-cq").Cohort("right").Quota("red", "cpu", "0").Obj(),
				MakeClusterQueue("root-cq").Cohort("root").Quota("red", "cpu", "0").Obj(),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("left").Parent("root").Quota("red", "cpu", "0", Lending("5")).Obj(),
				MakeCohort("right").Parent("root").Quota("red", "cpu", "0").Obj(),
			},
			wantAvailable: map[string]resources.Amounts{
				"left-cq1": {kaRed: 20_000},
				// Its own 10 and the 5 left-cq1 lends.
				"left-cq2": {kaRed: 15_000},
				// left lends 5 to root.
				"right-cq": {kaRed: 5_000},
				"root-cq":  {kaRed: 5_000},
			},
			wantPotential: map[string]resources.Amounts{
				"left-cq1": {kaRed: 20_000},
				"left-cq2": {kaRed: 15_000},
				"right-cq": {kaRed: 5_000},
				"root-cq":  {kaRed: 5_000},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			c.UpsertResourceFlavor(MakeFlavor("red").Obj())
			c.UpsertResourceFlavor(MakeFlavor("blue").Obj())
			for _, cq := range tc.cqs {
				if err := c.UpsertClusterQueue(cq); err != nil {
					t.Fatal(err)
				}
			}
			for _, co := range tc.cohorts {
				if err := c.UpsertCohort(co); err != nil {
					t.Fatal(err)
				}
			}
			phase := func(name string, wantAvailable, wantRaw map[string]resources.Amounts) {
				t.Helper()
				raw, potential := kaMeasure(c)
				kaExpect(t, name, "available (clamped at 0)", wantAvailable, kaClamp(raw))
				kaExpect(t, name, "raw available", kaOverride(wantAvailable, wantRaw), raw)
				kaExpect(t, name, "potentially available", tc.wantPotential, potential)
				if err := c.Verify(); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			// With nothing used, available is the potential.
			phase("before adding usage", tc.wantPotential, nil)
			for cq, usage := range tc.usage {
				c.Charge(types.NamespacedName{Name: "usage-of-" + cq}, cq, usage)
			}
			phase("with usage", tc.wantAvailable, tc.wantRaw)
			for cq := range tc.usage {
				c.Release(types.NamespacedName{Name: "usage-of-" + cq})
			}
			phase("usage removed", tc.wantPotential, nil)
		})
	}
}

// Kueue: pkg/cache/scheduler/resource_node_test.go, TestCohortLendable (a
// single case, no subtests): what an implicit Cohort of two queues could lend
// per resource, summed over flavors, counts every queue's lendable quota.
func TestKueueCohortLendable(t *testing.T) {
	const gpu = corev1.ResourceName("example.com/gpu")
	c := New(Options{})
	for _, cq := range []*kueue.ClusterQueue{
		MakeClusterQueue("cq1").Cohort("test-cohort").
			Quota("default", "cpu", "8", Lending("8")).
			Quota("default", gpu, "3", Lending("3")).Obj(),
		MakeClusterQueue("cq2").Cohort("test-cohort").
			Quota("default", "cpu", "2", Lending("2")).Obj(),
	} {
		if err := c.UpsertClusterQueue(cq); err != nil {
			t.Fatal(err)
		}
	}
	co, ok := c.Cohort("test-cohort")
	if !ok {
		t.Fatal("no Cohort test-cohort")
	}
	// Kueue sums over the cells of the root's subtree quota, per resource.
	got := map[corev1.ResourceName]int64{}
	for fr := range co.SubtreeQuota() {
		got[fr.Resource] = co.LendableOf(fr.Resource)
	}
	want := map[corev1.ResourceName]int64{corev1.ResourceCPU: 10_000, gpu: 3}
	if !maps.Equal(got, want) {
		t.Errorf("lendable %v, want %v", got, want)
	}
}
