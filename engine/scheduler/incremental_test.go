package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// "Decisions are the same either way": a scheduler that reuses flavor
// assignments between cycles and one that computes every assignment again get
// the same random stream and must return identical decisions after every cycle.
// Cycles come in runs of one to three at the same instant, as drivers settle an
// instant, so that unchanged caches (and recharged preemption reservations)
// are exercised.
func TestIncrementalCycleDecidesAsFullCycle(t *testing.T) {
	steps := 3000
	if testing.Short() {
		steps = 500
	}
	for seed := uint64(1); seed <= 8; seed++ {
		fair := seed > 5
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			g := &gen{rnd: rand.New(rand.NewPCG(seed, 7)), t: t, wls: map[types.NamespacedName]*kueue.Workload{}, fair: fair}
			opts := Options{}
			if fair {
				opts.FairSharing = &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}
			}
			full := opts
			full.DisableIncrementalCycle = true
			a, b := New(opts), New(full)
			both := func(o op) { o(a); o(b) }
			for _, f := range propFlavors {
				rf := MakeFlavor(f).Obj()
				both(func(s *Scheduler) { s.UpsertResourceFlavor(rf) })
			}
			for _, name := range propCohorts {
				c := g.cohort(name)
				both(func(s *Scheduler) { _ = s.UpsertCohort(c.DeepCopy()) })
			}
			for _, name := range propQueues {
				cq := g.clusterQueue(name)
				lq := MakeLocalQueue("ns", name, name).Obj()
				both(func(s *Scheduler) { _ = s.UpsertClusterQueue(cq.DeepCopy()); s.UpsertLocalQueue(lq) })
			}
			both(func(s *Scheduler) { s.UpsertNamespace("ns", nil) })
			cycles, pending, preempted := 0, 0, 0
			for i := range steps {
				o, cycle := g.step(a)
				if !cycle {
					both(o)
					continue
				}
				for range 1 + g.rnd.IntN(3) {
					da, db := a.Cycle(now), b.Cycle(now)
					cycles++
					if !reflect.DeepEqual(da, db) {
						t.Fatalf("step %d: incremental and full cycles decided differently:\n%v\n%v", i, da, db)
					}
					for _, d := range da {
						if _, ok := d.(Pending); ok {
							pending++
						}
					}
					for _, p := range preempts(da) {
						preempted++
						if g.maybe(0.7) {
							for _, v := range p.Victims {
								a.EvictWorkload(v.Workload)
								b.EvictWorkload(v.Workload)
							}
						}
					}
				}
			}
			if pending == 0 || preempted == 0 {
				t.Fatalf("the stream must leave workloads pending and preempt: %d pending decisions, %d preemptions", pending, preempted)
			}
			t.Logf("%d steps, %d cycles, %d pending decisions, %d preemptions", steps, cycles, pending, preempted)
		})
	}
}
