package quota

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

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

// Lift with cells must take out of those cells exactly what Release takes
// out, leave every other cell as it was, and Restore must bring back exactly
// the state before, borrowers index included; a preemption search relies on
// it for every candidate it tries (package preemption's sim).
func TestPropertyLiftIsReleaseInItsCells(t *testing.T) {
	queues := []string{"a1", "a2", "b1"}
	gpuOnly := map[resources.FlavorResource]bool{h100GPU: true}
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 5))
			lifted, released := threeLevels(t), threeLevels(t)
			var keys []types.NamespacedName
			for i := range 4 + rng.IntN(8) {
				k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", i)}
				keys = append(keys, k)
				usage := resources.Amounts{h100GPU: int64(1 + rng.IntN(6)), h100CPU: int64(1 + rng.IntN(4))}
				q := queues[rng.IntN(len(queues))]
				lifted.Charge(k, q, usage)
				released.Charge(k, q, usage)
			}
			beforeGPU, beforeCPU := cellsOf(t, lifted, h100GPU), cellsOf(t, lifted, h100CPU)
			rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			taken := keys[:1+rng.IntN(len(keys))]
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
