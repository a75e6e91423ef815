package quota

import (
	"math/rand/v2"
	"testing"

	. "quokka.dev/quokka/engine/enginetest"
)

// A Cohort's height (how Kueue measures how far a request borrows) is kept
// with the subtree quotas and refreshed when the tree's edges change. Random
// Cohorts moving under other parents (cycles included), appearing and
// disappearing, and queues moving between them must leave every Cohort's
// stored height equal to the height recomputed from its children (Verify).
func TestPropertyHeightFollowsTheTree(t *testing.T) {
	cohorts := []string{"root", "org-a", "org-b", "team-1", "team-2"}
	queues := []string{"q1", "q2", "q3", "q4"}
	tallest := 0
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("h100").Obj())
		for step := range 200 {
			var err error
			switch x := rng.IntN(10); {
			case x < 4:
				parent := cohorts[rng.IntN(len(cohorts))]
				w := MakeCohort(cohorts[rng.IntN(len(cohorts))])
				if rng.IntN(4) > 0 {
					w = w.Parent(parent)
				}
				err = c.UpsertCohort(w.Obj())
			case x < 5:
				c.DeleteCohort(cohorts[rng.IntN(len(cohorts))])
			case x < 9:
				err = c.UpsertClusterQueue(MakeClusterQueue(queues[rng.IntN(len(queues))]).
					Cohort(cohorts[rng.IntN(len(cohorts))]).Quota("h100", "nvidia.com/gpu", "4").Obj())
			default:
				c.DeleteClusterQueue(queues[rng.IntN(len(queues))])
			}
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if err := c.Verify(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			for _, name := range c.tree.CohortNames() {
				if tc, _ := c.tree.Cohort(name); !tc.HasCycle() {
					tallest = max(tallest, tc.Value.Height())
				}
			}
		}
	}
	if tallest < 3 {
		t.Fatalf("the trees never grew past height %d: the test does not exercise nested Cohorts", tallest)
	}
}
