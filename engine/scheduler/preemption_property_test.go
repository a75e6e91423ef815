package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// maxSettleCycles bounds the cycles one instant may take when every eviction is
// confirmed at once; the simulator gives up at 1000, a correct engine needs a
// handful.
const maxSettleCycles = 100

// Cycle: "the preemptor is admitted by the first cycle after the driver has
// confirmed the evictions with EvictWorkload, before any other workload of its
// tree can take the room they made." Random streams as in
// TestPropertyRandomStreams, but the driver confirms every eviction at once
// and, as the simulator does, runs cycles at the same instant until one
// preempts nothing. Nothing else changes in between, so:
//   - every preemptor whose victims were all confirmed is admitted by the next
//     cycle (its reservation kept the room for it, and no one else may take it);
//   - under classic preemption, the workloads holding quota never return to a
//     set they had earlier in the instant (victims flipping back and forth),
//     and the instant settles within maxSettleCycles.
//
// Fair sharing gives no such guarantee in Kueue: a preemptor's share is
// measured with the lower-priority workloads of its own queue it preempts
// gone, and the queues can take from each other, round after round
// (kubernetes-sigs/kueue#14543 reports such loops; Quokka closes the one of
// fillBack, see engine/preemption/fair.go, not this one). For the fair-sharing
// seeds the instant is cut after maxSettleCycles, and only the hand-over is
// checked.
func TestPropertyConfirmedPreemptionsSettle(t *testing.T) {
	t.Parallel()
	// Steps never shrink, -short included (see propertySeeds): at 500 steps
	// seed 9's stream preempted nothing and the test failed its own check.
	const steps = 3000
	for seed := uint64(1); seed <= 10; seed++ {
		// Seeds 7, 8 and 10 run with fair sharing; 9 and 10 with preemptors
		// waiting on overlapping targets (the
		// RecomputeAssignmentUponPreemptionTargetsOverlap gate off).
		fair := seed > 6 && seed != 9
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			g := &gen{rnd: rand.New(rand.NewPCG(seed, 7)), t: t, wls: map[types.NamespacedName]*kueue.Workload{}, fair: fair}
			opts := Options{WaitOnOverlappingTargets: seed > 8}
			if fair {
				opts.FairSharing = &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}
			}
			s := New(opts)
			for _, f := range propFlavors {
				s.UpsertResourceFlavor(MakeFlavor(f).Obj())
			}
			for _, name := range propCohorts {
				_ = s.UpsertCohort(g.cohort(name))
			}
			for _, name := range propQueues {
				_ = s.UpsertClusterQueue(g.clusterQueue(name))
				s.UpsertLocalQueue(MakeLocalQueue("ns", name, name).Obj())
			}
			s.UpsertNamespace("ns", nil)
			preempted, handedOver := 0, 0
			for i := range steps {
				o, cycle := g.step(s)
				if !cycle {
					o(s)
					continue
				}
				p, h := settleInstant(t, s, i, !fair)
				preempted += p
				handedOver += h
			}
			if preempted == 0 {
				t.Fatalf("the stream must exercise preemption")
			}
			t.Logf("%d steps, %d preemptions, %d preemptors admitted after their evictions", steps, preempted, handedOver)
		})
	}
}

// settleInstant runs cycles, confirming every eviction, until one preempts
// nothing, and checks the properties above. It returns how many victims were
// preempted and how many preemptors were admitted after their evictions.
//
// With every eviction confirmed, the engine's state between two cycles of one
// instant is the set of workloads holding quota (no preemption is left in
// flight), and Cycle is deterministic: a set seen before means the cycles
// would repeat forever, which is what "victims flipping back and forth" is.
func settleInstant(t *testing.T, s *Scheduler, step int, mustSettle bool) (preempted, handedOver int) {
	t.Helper()
	seen := map[string]int{holdingQuota(s): -1}
	// confirmed holds the preemptors whose victims the previous cycle evicted.
	var confirmed []types.NamespacedName
	for c := 0; c < maxSettleCycles; c++ {
		ds := s.Cycle(now)
		admittedNow := map[types.NamespacedName]bool{}
		for _, a := range admits(ds) {
			admittedNow[a.Workload] = true
		}
		for _, p := range confirmed {
			if !admittedNow[p] {
				d, _ := pendingFor(ds, p.Name)
				t.Fatalf("step %d, cycle %d: %s was not admitted after its victims were evicted (%s: %s); decisions %v",
					step, c, p, d.Reason, d.Message, ds)
			}
			handedOver++
		}
		confirmed = confirmed[:0]
		ps := preempts(ds)
		if len(ps) == 0 {
			return preempted, handedOver
		}
		for _, p := range ps {
			for _, v := range p.Victims {
				s.EvictWorkload(v.Workload)
				preempted++
			}
			confirmed = append(confirmed, p.Preemptor)
		}
		state := holdingQuota(s)
		if prev, ok := seen[state]; ok && mustSettle {
			t.Fatalf("step %d: cycle %d returned to the workloads holding quota after cycle %d: preemptions undo each other; last decisions %v",
				step, c, prev, ds)
		}
		seen[state] = c
	}
	if mustSettle {
		t.Fatalf("step %d: still preempting after %d cycles at one instant", step, maxSettleCycles)
	}
	return preempted, handedOver
}

// holdingQuota names the workloads holding quota and their ClusterQueues, in
// a canonical order.
func holdingQuota(s *Scheduler) string {
	var out []string
	for cq, m := range s.admittedByCQ {
		for k := range m {
			out = append(out, k.String()+"@"+cq)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
