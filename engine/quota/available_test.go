package quota

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Every node remembers its availability for the cache's Version ("Version
// identifies the content"), so a remembered answer must always be the one the
// chain gives when worked out afresh. Random charges, releases, quota edits
// with borrowing and lending limits, Cohort edits and deletions, with reads in
// between so that answers are remembered at every step.
func TestPropertyRememberedAvailabilityIsFresh(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 5))
			c := threeLevels(t)
			queues := []string{"a1", "a2", "b1", "c1"}
			cohorts := []string{"team-a", "org", "elsewhere"}
			limit := func() []QuotaOption {
				var opts []QuotaOption
				if rng.IntN(3) == 0 {
					opts = append(opts, Borrowing(fmt.Sprint(rng.IntN(6))))
				}
				if rng.IntN(3) == 0 {
					opts = append(opts, Lending(fmt.Sprint(rng.IntN(6))))
				}
				return opts
			}
			for step := range 400 {
				switch x := rng.IntN(12); {
				case x < 5:
					chargeGPUs(c, fmt.Sprint("w", rng.IntN(12)), queues[rng.IntN(len(queues))], int64(1+rng.IntN(6)))
				case x < 8:
					c.Release(types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", rng.IntN(12))})
				case x < 10:
					name := queues[rng.IntN(len(queues))]
					if err := c.UpsertClusterQueue(MakeClusterQueue(name).Cohort(cohorts[rng.IntN(len(cohorts))]).
						Quota("h100", "nvidia.com/gpu", fmt.Sprint(rng.IntN(10)), limit()...).Obj()); err != nil {
						t.Fatal(err)
					}
				case x < 11:
					w := MakeCohort("team-a").Parent("org").Quota("h100", "nvidia.com/gpu", fmt.Sprint(rng.IntN(4)), limit()...)
					if err := c.UpsertCohort(w.Obj()); err != nil {
						t.Fatal(err)
					}
				default:
					c.DeleteClusterQueue(queues[rng.IntN(len(queues))])
				}
				for _, name := range c.ClusterQueueNames() {
					q := mustCQ(t, c, name)
					for range 2 { // the second read is answered from memory
						if got, want := c.Available(q, h100GPU), freshAvailable(q, h100GPU); got != want {
							t.Fatalf("step %d, %s: remembered %+v, afresh %+v", step, name, got, want)
						}
					}
				}
			}
		})
	}
}

// freshAvailable is Available's formula with nothing remembered.
func freshAvailable(q *ClusterQueue, fr resources.FlavorResource) Availability {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if nodes == nil {
		return Availability{}
	}
	root := nodes[len(nodes)-1]
	res := Availability{Available: root.SubtreeQuotaOf(fr) - root.UsageOf(fr)}
	for i := len(nodes) - 2; i >= 0; i-- {
		n := nodes[i]
		g := n.guaranteed(fr)
		fromParent := res.Available
		if bl := n.borrowingLimit(fr); bl != resources.Unlimited {
			capped := resources.Add(n.SubtreeQuotaOf(fr)-g-max(0, n.UsageOf(fr)-g), bl)
			if capped < fromParent {
				fromParent = capped
				res.LimitedBy, res.LimitedByCohort = n.name, i > 0
			}
		}
		res.Available = max(0, g-n.UsageOf(fr)) + fromParent
	}
	return res
}
