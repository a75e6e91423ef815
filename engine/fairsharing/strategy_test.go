package fairsharing

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

const gpu = corev1.ResourceName("example.com/gpu")

var (
	defaultCPU = resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
	defaultGPU = resources.FlavorResource{Flavor: "default", Resource: gpu}
)

// shareWorld is a cache of flavor "default" with the given cohorts and queues.
func shareWorld(t *testing.T, cohorts []*kueue.Cohort, queues ...*kueue.ClusterQueue) *quota.Cache {
	t.Helper()
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	for _, co := range cohorts {
		if err := c.UpsertCohort(co); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range queues {
		if err := c.UpsertClusterQueue(q); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func charge(c *quota.Cache, name, cq string, usage resources.Amounts) types.NamespacedName {
	k := types.NamespacedName{Namespace: cq, Name: name}
	c.Charge(k, cq, usage)
	return k
}

func cqOf(t *testing.T, c *quota.Cache, name string) *quota.ClusterQueue {
	t.Helper()
	q, ok := c.ClusterQueue(name)
	if !ok {
		t.Fatalf("no ClusterQueue %s", name)
	}
	return q
}

// perThousand is n/d per thousand as a Share, rounded up as ratio rounds.
func perThousand(n, d int64) Share { return Share((n*1_000_000_000 + d - 1) / d) }

// The two strategies on shares taken from one state, where they disagree.
// Queues a, b and c (nominal 3 CPUs each) and preemptible (nominal 0) share
// cohort all, so each share is borrowed CPUs per 9. a holds 3 and admits the
// preemptor's 1 (share 1/9); b holds b_low (5 CPUs) and b_high (1 CPU), share
// 3/9. Without b_low, b's share is 0; without b_high, 2/9.
//
// Kueue: pkg/scheduler/preemption/preemption_fair_test.go 'preempt lower
// priority first, even if big' (LessThanInitialShare takes b_low) and
// 'preempt workload that doesn't transfer the imbalance, even if high
// priority' (LessThanOrEqualToFinalShare spares it and takes b_high).
func TestStrategiesDecideDifferently(t *testing.T) {
	t.Parallel()
	var qs []*kueue.ClusterQueue
	for _, n := range []string{"a", "b", "c"} {
		qs = append(qs, MakeClusterQueue(n).Cohort("all").Quota("default", corev1.ResourceCPU, "3").Obj())
	}
	qs = append(qs, MakeClusterQueue("preemptible").Cohort("all").Quota("default", corev1.ResourceCPU, "0").Obj())
	c := shareWorld(t, nil, qs...)
	charge(c, "a1", "a", resources.Amounts{defaultCPU: 3000})
	charge(c, "incoming", "a", resources.Amounts{defaultCPU: 1000})
	low := charge(c, "b_low", "b", resources.Amounts{defaultCPU: 5000})
	high := charge(c, "b_high", "b", resources.Amounts{defaultCPU: 1000})
	a, b := cqOf(t, c, "a"), cqOf(t, c, "b")
	pNew, tOld := Of(a), Of(b)
	without := func(k types.NamespacedName, cpus int64) Share {
		c.Release(k)
		defer c.Charge(k, "b", resources.Amounts{defaultCPU: cpus})
		return Of(b)
	}
	tNewLow, tNewHigh := without(low, 5000), without(high, 1000)
	for name, got := range map[string][2]Share{
		"a with the preemptor": {pNew, perThousand(1, 9)},
		"b before":             {tOld, perThousand(3, 9)},
		"b without b_low":      {tNewLow, 0},
		"b without b_high":     {tNewHigh, perThousand(2, 9)},
	} {
		if got[0] != got[1] {
			t.Fatalf("share of %s %d, want %d", name, got[0], got[1])
		}
	}
	for _, tc := range []struct {
		name                     string
		pNew, tOld, tNew         Share
		finalShare, initialShare bool // LessThanOrEqualToFinalShare, LessThanInitialShare
	}{
		{"victim b_low: b would end below a", pNew, tOld, tNewLow, false, true},
		{"victim b_high: b stays above a", pNew, tOld, tNewHigh, true, true},
		// Boundaries, with the two target shares apart so that reading the
		// wrong one shows.
		{"preemptor equal to the target's final share", 100 * Scale, 300 * Scale, 100 * Scale, true, true},
		{"preemptor equal to the target's initial share", 300 * Scale, 300 * Scale, 100 * Scale, false, false},
		{"preemptor above the initial share, below the final one", 200 * Scale, 150 * Scale, 250 * Scale, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LessThanOrEqualToFinalShare.Allow(tc.pNew, tc.tOld, tc.tNew); got != tc.finalShare {
				t.Errorf("LessThanOrEqualToFinalShare(%d, %d, %d) = %v, want %v", tc.pNew, tc.tOld, tc.tNew, got, tc.finalShare)
			}
			if got := LessThanInitialShare.Allow(tc.pNew, tc.tOld, tc.tNew); got != tc.initialShare {
				t.Errorf("LessThanInitialShare(%d, %d, %d) = %v, want %v", tc.pNew, tc.tOld, tc.tNew, got, tc.initialShare)
			}
		})
	}
}

// fairSharing.weight 0: a node that borrows has an infinite share (Kueue
// reports math.MaxInt64, and preempts it first); one within its quota has
// share 0 (its nominal quota is safe); between two zero-weight borrowers the
// one that borrows more (unweighted) has the larger share.
//
// Queues z1, z2 (weight 0) and w (weight 1), nominal 5 GPUs each, share
// cohort c with a lender of 30: lendable 45.
//
// Kueue: pkg/cache/scheduler/fair_sharing_test.go 'above nominal with zero
// weight'; pkg/scheduler/preemption/preemption_fair_test.go 'can preempt
// anything borrowing from CQ with 0 weight' and 'can't preempt nominal from
// CQ with 0 weight'.
func TestShareWeightZero(t *testing.T) {
	t.Parallel()
	world := func(t *testing.T) *quota.Cache {
		return shareWorld(t, nil,
			MakeClusterQueue("z1").Cohort("c").Quota("default", gpu, "5").FairWeight("0").Obj(),
			MakeClusterQueue("z2").Cohort("c").Quota("default", gpu, "5").FairWeight("0").Obj(),
			MakeClusterQueue("w").Cohort("c").Quota("default", gpu, "5").Obj(),
			MakeClusterQueue("lender").Cohort("c").Quota("default", gpu, "30").Obj(),
		)
	}
	for _, tc := range []struct {
		name     string
		z1, z2   int64 // GPUs used
		w        int64
		infinite bool // z1's share
		z1OverZ2 int  // sign of Of(z1) - Of(z2)
	}{
		{"weight 0 within nominal: share 0", 5, 0, 0, false, 0},
		{"weight 0 borrowing one GPU: infinite", 6, 0, 0, true, 1},
		{"two weight-0 borrowers: the one borrowing more is larger", 9, 7, 0, true, 1},
		{"two weight-0 borrowers: the one borrowing less is smaller", 7, 9, 0, true, -1},
		{"two weight-0 borrowers borrowing the same: equal", 8, 8, 0, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := world(t)
			charge(c, "z1", "z1", resources.Amounts{defaultGPU: tc.z1})
			charge(c, "z2", "z2", resources.Amounts{defaultGPU: tc.z2})
			z1, z2 := Of(cqOf(t, c, "z1")), Of(cqOf(t, c, "z2"))
			if z1.IsInfinite() != tc.infinite {
				t.Fatalf("z1 share %d: infinite %v, want %v", z1, z1.IsInfinite(), tc.infinite)
			}
			if !tc.infinite && z1 != 0 {
				t.Errorf("z1 within nominal: share %d, want 0", z1)
			}
			if tc.infinite && z1.Weighted() != math.MaxInt64 {
				t.Errorf("z1 borrowing: weighted share %d, want MaxInt64", z1.Weighted())
			}
			if got := sign(int64(z1) - int64(z2)); got != tc.z1OverZ2 {
				t.Errorf("shares z1 %d, z2 %d: sign %d, want %d", z1, z2, got, tc.z1OverZ2)
			}
		})
	}
	// A weight-1 queue borrowing everything it can stays finite and below a
	// weight-0 queue borrowing one GPU.
	c := world(t)
	charge(c, "z1", "z1", resources.Amounts{defaultGPU: 6})
	charge(c, "w", "w", resources.Amounts{defaultGPU: 34})
	if z1, w := Of(cqOf(t, c, "z1")), Of(cqOf(t, c, "w")); w.IsInfinite() || w != perThousand(29, 45) || w >= z1 {
		t.Errorf("weight 1 borrowing 29 of 45: share %d (infinite %v), z1 %d; want %d below z1", w, w.IsInfinite(), z1, perThousand(29, 45))
	}
	// Over its quota only in what nobody can lend (lendingLimit 0 all round),
	// a zero-weight queue has share 0, as its unweighted share is 0 (Kueue's
	// zeroWeightBorrows needs a non-zero unweighted ratio).
	c = shareWorld(t, nil,
		MakeClusterQueue("z").Cohort("c").Quota("default", gpu, "5", Lending("0")).FairWeight("0").Obj(),
		MakeClusterQueue("lender").Cohort("c").Quota("default", gpu, "5", Lending("0")).Obj(),
	)
	charge(c, "z", "z", resources.Amounts{defaultGPU: 7})
	if z := Of(cqOf(t, c, "z")); z != 0 {
		t.Errorf("weight 0 over quota with nothing lendable: share %d (infinite %v), want 0", z, z.IsInfinite())
	}
}

// A Cohort of weight 0 that borrows from its parent has an infinite share
// too, and 0 while its subtree stays within its quota.
//
// Kueue: pkg/scheduler/preemption/preemption_fair_test.go 'can't preempt
// nominal from Cohort with 0 weight'.
func TestShareWeightZeroCohort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		used     int64
		infinite bool
	}{
		{"within its subtree quota", 4, false},
		{"borrowing from the root", 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := shareWorld(t,
				[]*kueue.Cohort{MakeCohort("root").Obj(), MakeCohort("team").Parent("root").FairWeight("0").Obj()},
				MakeClusterQueue("member").Cohort("team").Quota("default", gpu, "4").Obj(),
				MakeClusterQueue("lender").Cohort("root").Quota("default", gpu, "8").Obj(),
			)
			charge(c, "w", "member", resources.Amounts{defaultGPU: tc.used})
			team, _ := c.Cohort("team")
			got := Of(team)
			if got.IsInfinite() != tc.infinite || (!tc.infinite && got != 0) {
				t.Errorf("team share %d (infinite %v), want infinite %v", got, got.IsInfinite(), tc.infinite)
			}
		})
	}
}

// The dominant resource share is the largest, over resources, of borrowed /
// lendable; the resource giving it need not be the first one (here cpu sorts
// before example.com/gpu). A resource nobody can lend does not count.
//
// Queue cq (nominal cpu 2, GPUs 5) and a lender (cpu 8, GPUs 5) share a
// cohort: lendable cpu 10, GPUs 10.
func TestShareDominantResource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		gpuLend0 bool // GPUs have lendingLimit 0 in both queues
		cpu, gpu int64
		want     Share
	}{
		// Kueue: pkg/cache/scheduler/fair_sharing_test.go, TestDominantResourceShare
		// 'usage above nominal': cpu gives 100, GPUs 200.
		{"GPUs dominate: borrowing 1 CPU and 2 GPUs", false, 3000, 7, perThousand(2, 10)},
		{"cpu dominates: borrowing 4 CPUs and 2 GPUs", false, 6000, 7, perThousand(4, 10)},
		{"only GPUs borrowed", false, 2000, 8, perThousand(3, 10)},
		{"only cpu borrowed", false, 5000, 5, perThousand(3, 10)},
		// Kueue: same table, 'A resource with zero lendable': the GPUs
		// borrowed (over-admitted) have no lendable quota and do not count.
		{"a resource with zero lendable does not count", true, 5000, 9, perThousand(3, 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []QuotaOption
			if tc.gpuLend0 {
				opts = append(opts, Lending("0"))
			}
			c := shareWorld(t, nil,
				MakeClusterQueue("cq").Cohort("c").Quota("default", corev1.ResourceCPU, "2").Quota("default", gpu, "5", opts...).Obj(),
				MakeClusterQueue("lender").Cohort("c").Quota("default", corev1.ResourceCPU, "8").Quota("default", gpu, "5", opts...).Obj(),
			)
			charge(c, "w", "cq", resources.Amounts{defaultCPU: tc.cpu, defaultGPU: tc.gpu})
			// Usage is a map, visited in a random order: asking several times
			// shows a share that depends on which resource comes first.
			for range 32 {
				if got := Of(cqOf(t, c, "cq")); got != tc.want {
					t.Fatalf("share %d, want %d", got, tc.want)
				}
			}
		})
	}
}

func sign(v int64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
