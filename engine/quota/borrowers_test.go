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

// The borrowers index must always be what walking the tree finds: the queues
// whose usage exceeds their nominal quota in some cell. Random charges,
// releases, a search's lifts, quota edits, moves between Cohorts and deletions
// keep it honest.
func TestPropertyBorrowersIndexMatchesTheTree(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			c := threeLevels(t)
			queues := []string{"a1", "a2", "b1", "c1"}
			cohorts := []string{"team-a", "org", "elsewhere"}
			check := func(step int, when string) {
				t.Helper()
				for _, name := range c.ClusterQueueNames() {
					q := mustCQ(t, c, name)
					var walked, indexed []string
					c.TreeQueues(q, func(o *ClusterQueue) {
						if o.tq.Cohort() != nil && o.Borrowed(h100GPU) > 0 {
							walked = append(walked, o.Name())
						}
					})
					c.EachBorrowerInTree(q, map[resources.FlavorResource]bool{h100GPU: true}, func(o *ClusterQueue) { indexed = append(indexed, o.Name()) })
					slices.Sort(walked)
					slices.Sort(indexed)
					if !slices.Equal(walked, indexed) {
						t.Fatalf("step %d%s, tree of %s: borrowers by walking %v, by the index %v", step, when, name, walked, indexed)
					}
				}
				// A queue that stopped borrowing may stay listed until a
				// look passes over it, and only while a charge is lifted
				// after that: the index must not grow into a list of
				// every queue that ever borrowed.
				if c.lifted == 0 {
					borrowing := 0
					for _, name := range c.ClusterQueueNames() {
						if mustCQ(t, c, name).Borrowed(h100GPU) > 0 {
							borrowing++
						}
					}
					if n := len(c.borrowers[h100GPU]); n != borrowing {
						t.Fatalf("step %d%s: the index lists %d queues after a look, %d borrow", step, when, n, borrowing)
					}
				}
			}
			for step := range 300 {
				if rng.IntN(4) == 0 {
					// A preemption search lifts a candidate out and puts it
					// back: the index follows both.
					key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", rng.IntN(12))}
					cells := map[resources.FlavorResource]bool{h100GPU: true}
					if c.Lift(key, cells) {
						check(step, " (lifted "+key.Name+")")
						c.Restore(key, cells)
					}
				}
				switch x := rng.IntN(10); {
				case x < 5:
					chargeGPUs(c, fmt.Sprint("w", rng.IntN(12)), queues[rng.IntN(len(queues))], int64(1+rng.IntN(6)))
				case x < 8:
					c.Release(types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", rng.IntN(12))})
				case x < 9:
					name := queues[rng.IntN(len(queues))]
					if err := c.UpsertClusterQueue(MakeClusterQueue(name).Cohort(cohorts[rng.IntN(len(cohorts))]).
						Quota("h100", "nvidia.com/gpu", fmt.Sprint(rng.IntN(10))).Obj()); err != nil {
						t.Fatal(err)
					}
				default:
					c.DeleteClusterQueue(queues[rng.IntN(len(queues))])
				}
				check(step, "")
			}
		})
	}
}
