package quota

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

var h100CPU = resources.FlavorResource{Flavor: "h100", Resource: "cpu"}

// cellsOf reads every queue's usage and availability in cell fr, and the
// queues the borrowers index lists for it.
func cellsOf(t *testing.T, c *Cache, fr resources.FlavorResource) string {
	t.Helper()
	out := ""
	for _, name := range []string{"a1", "a2", "b1"} {
		q := mustCQ(t, c, name)
		var borrowers []string
		c.EachBorrowerInTree(q, map[resources.FlavorResource]bool{fr: true}, func(o *ClusterQueue) { borrowers = append(borrowers, o.Name()) })
		slices.Sort(borrowers)
		out += fmt.Sprintf("%s: usage %d available %d borrowers %v; ", name, q.Usage(fr), c.Available(q, fr).Available, borrowers)
	}
	return out
}

// chargedTwins charges the same random workloads of gpus and cpu to two
// caches of threeLevels, and returns a random non-empty part of their keys in
// random order: one cache to lift them from, the other to release them from.
func chargedTwins(t *testing.T, rng *rand.Rand) (lifted, released *Cache, taken []types.NamespacedName) {
	t.Helper()
	queues := []string{"a1", "a2", "b1"}
	lifted, released = threeLevels(t), threeLevels(t)
	var keys []types.NamespacedName
	for i := range 4 + rng.IntN(8) {
		k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", i)}
		keys = append(keys, k)
		usage := resources.Amounts{h100GPU: int64(1 + rng.IntN(6)), h100CPU: int64(1 + rng.IntN(4))}
		q := queues[rng.IntN(len(queues))]
		lifted.Charge(k, q, usage)
		released.Charge(k, q, usage)
	}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return lifted, released, keys[:1+rng.IntN(len(keys))]
}

// Lift with cells must take out of those cells exactly what Release takes
// out, leave every other cell as it was, and Restore must bring back exactly
// the state before, borrowers index included; a preemption search relies on
// it for every candidate it tries (package preemption's sim).
func TestPropertyLiftIsReleaseInItsCells(t *testing.T) {
	gpuOnly := map[resources.FlavorResource]bool{h100GPU: true}
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 5))
			lifted, released, taken := chargedTwins(t, rng)
			beforeGPU, beforeCPU := cellsOf(t, lifted, h100GPU), cellsOf(t, lifted, h100CPU)
			for _, k := range taken {
				if !lifted.Lift(k, gpuOnly) {
					t.Fatalf("Lift(%s) found no charge", k)
				}
				released.Release(k)
				if got, want := cellsOf(t, lifted, h100GPU), cellsOf(t, released, h100GPU); got != want {
					t.Fatalf("after lifting %s, gpu cells %s; released: %s", k, got, want)
				}
				if got := cellsOf(t, lifted, h100CPU); got != beforeCPU {
					t.Fatalf("after lifting %s, cpu cells changed: %s, before %s", k, got, beforeCPU)
				}
			}
			for i := len(taken) - 1; i >= 0; i-- {
				lifted.Restore(taken[i], gpuOnly)
			}
			if got := cellsOf(t, lifted, h100GPU); got != beforeGPU {
				t.Fatalf("after Restore, gpu cells %s, before %s", got, beforeGPU)
			}
			if lifted.Lift(types.NamespacedName{Namespace: "ns", Name: "never-charged"}, gpuOnly) {
				t.Fatal("Lift of a workload without a charge reported one")
			}
		})
	}
}

// Releasing workloads raises what any queue of the tree has available in a
// cell by at most what they used there, and never lowers it: package
// preemption ends a search early when the request exceeds the queue's
// availability plus everything its candidates use (beyondReach), which is
// right only if no set of evictions can raise the availability by more.
// threeLevels has lending and borrowing limits at every level, where the
// pass-through of usage to the parent is not one to one.
func TestPropertyReleaseRaisesAvailableAtMostByItsUsage(t *testing.T) {
	queues := []string{"a1", "a2", "b1"}
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		c := threeLevels(t)
		var keys []types.NamespacedName
		usage := map[types.NamespacedName]int64{}
		for i := range 2 + rng.IntN(10) {
			k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", i)}
			keys = append(keys, k)
			usage[k] = int64(1 + rng.IntN(7))
			c.Charge(k, queues[rng.IntN(len(queues))], resources.Amounts{h100GPU: usage[k]})
		}
		before := map[string]int64{}
		for _, name := range queues {
			before[name] = c.Available(mustCQ(t, c, name), h100GPU).Available
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		var released int64
		for _, k := range keys[:1+rng.IntN(len(keys))] {
			released += usage[k]
			c.Release(k)
		}
		for _, name := range queues {
			after := c.Available(mustCQ(t, c, name), h100GPU).Available
			if after < before[name] || after > before[name]+released {
				t.Fatalf("seed %d: %s available %d before, %d after releasing %d GPUs; want between %d and %d",
					seed, name, before[name], after, released, before[name], before[name]+released)
			}
		}
	}
}

// Lifting with nil cells takes a charge's every cell out, as Release does,
// and Restore puts it all back: package scheduler sets the holds aside so
// around every question of a walk (releasingHolds).
func TestPropertyLiftAllIsRelease(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			lifted, released, taken := chargedTwins(t, rng)
			beforeGPU, beforeCPU := cellsOf(t, lifted, h100GPU), cellsOf(t, lifted, h100CPU)
			for _, k := range taken {
				if !lifted.Lift(k, nil) {
					t.Fatalf("Lift(%s, nil) found no charge", k)
				}
				released.Release(k)
				for _, fr := range []resources.FlavorResource{h100GPU, h100CPU} {
					if got, want := cellsOf(t, lifted, fr), cellsOf(t, released, fr); got != want {
						t.Fatalf("after lifting %s, %s cells %s; released: %s", k, fr, got, want)
					}
				}
			}
			for i := len(taken) - 1; i >= 0; i-- {
				lifted.Restore(taken[i], nil)
			}
			if got := cellsOf(t, lifted, h100GPU); got != beforeGPU {
				t.Fatalf("after Restore, gpu cells %s, before %s", got, beforeGPU)
			}
			if got := cellsOf(t, lifted, h100CPU); got != beforeCPU {
				t.Fatalf("after Restore, cpu cells %s, before %s", got, beforeCPU)
			}
		})
	}
}

// Lifting a whole charge follows a plan kept from its first lift (liftplan.go)
// until the charge or the tree's structure changes. Lifting the same charges
// round after round, between new charges, releases and a queue's quota or
// Cohort changing, must leave every cell, availability and borrower list as
// releasing them and charging them again does.
func TestPropertyLiftPlansFollowChargesAndStructure(t *testing.T) {
	queues := []string{"a1", "a2", "b1"}
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 13))
			lifted, released, taken := chargedTwins(t, rng)
			same := func(when string) {
				t.Helper()
				for _, fr := range []resources.FlavorResource{h100GPU, h100CPU} {
					if got, want := cellsOf(t, lifted, fr), cellsOf(t, released, fr); got != want {
						t.Fatalf("%s, %s cells %s; released and charged again: %s", when, fr, got, want)
					}
				}
			}
			// Every other charge is lifted through a handle kept across
			// rounds, as package scheduler keeps one per hold: a handle
			// must not keep a plan the cache dropped.
			handles := make([]*LiftHandle, len(taken))
			for i := range taken {
				if i%2 == 0 {
					handles[i] = &LiftHandle{}
				}
			}
			for round := range 8 {
				for i, k := range taken {
					ok := false
					if handles[i] != nil {
						ok = lifted.LiftWhole(k, handles[i])
					} else {
						ok = lifted.Lift(k, nil)
					}
					if !ok {
						t.Fatalf("round %d: lifting %s found no charge", round, k)
					}
					released.Release(k)
					same(fmt.Sprintf("round %d, %s lifted", round, k))
				}
				for i := len(taken) - 1; i >= 0; i-- {
					if handles[i] != nil {
						lifted.RestoreWhole(taken[i], handles[i])
					} else {
						lifted.Restore(taken[i], nil)
					}
					cq, usage, _ := lifted.Charged(taken[i])
					released.Charge(taken[i], cq, usage)
				}
				same(fmt.Sprintf("round %d, restored", round))
				// Change both caches alike before the next round.
				both := func(f func(c *Cache) error) {
					for _, c := range []*Cache{lifted, released} {
						if err := f(c); err != nil {
							t.Fatal(err)
						}
					}
				}
				switch rng.IntN(4) {
				case 0: // a taken workload charged anew, elsewhere
					k, q := taken[rng.IntN(len(taken))], queues[rng.IntN(len(queues))]
					usage := resources.Amounts{h100GPU: int64(1 + rng.IntN(6)), h100CPU: int64(1 + rng.IntN(4))}
					both(func(c *Cache) error { c.Charge(k, q, usage); return nil })
				case 1: // a new workload, not lifted
					k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("new", round)}
					q, usage := queues[rng.IntN(len(queues))], resources.Amounts{h100GPU: int64(1 + rng.IntN(3))}
					both(func(c *Cache) error { c.Charge(k, q, usage); return nil })
				case 2: // a queue's quota changes
					nominal := fmt.Sprint(2 + rng.IntN(8))
					both(func(c *Cache) error {
						return c.UpsertClusterQueue(MakeClusterQueue("a1").Cohort("team-a").Quota("h100", "nvidia.com/gpu", nominal).Obj())
					})
				case 3: // a Cohort's limits change
					lend := fmt.Sprint(rng.IntN(6))
					both(func(c *Cache) error {
						return c.UpsertCohort(MakeCohort("team-a").Parent("org").Quota("h100", "nvidia.com/gpu", "0", Borrowing("5"), Lending(lend)).Obj())
					})
				}
				same(fmt.Sprintf("round %d, changed", round))
			}
		})
	}
}
