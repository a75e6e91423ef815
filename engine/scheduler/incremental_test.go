package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// "Decisions are the same either way": a scheduler that reuses flavor
// assignments, skips sleeping queues and hopeless preemption searches, and one
// that evaluates every pending workload every cycle get the same random stream.
// After every cycle their admissions, preemptions and evictions must be
// identical and in the same order; every Pending decision the incremental one
// returns must be the full one's for that workload (it may return fewer: a
// sleeping queue's workloads keep their last decision); and after WakeAll the
// two must return the same decisions, Pending included, in the same order
// within each ClusterQueue (sameAfterWakeAll). Cycles come in
// runs of one to three at the same instant, as drivers settle an instant, so
// that unchanged caches (and recharged preemption reservations) are exercised.
//
// On every third seed the incremental scheduler has QuietCycles: "Cycle
// return[s] Pending decisions only in the first cycle after WakeAll", and the
// other cycles "still admit, preempt and evict exactly as they would".
func TestIncrementalCycleDecidesAsFullCycle(t *testing.T) {
	// Seeds 1-6 include a fair-sharing seed (5) and two quiet ones (3, 6);
	// -short keeps 1-5; QUOKKA_PROPERTY_SEEDS=24 is the long run.
	for seed := uint64(1); seed <= propertySeeds(t, 6, 5); seed++ {
		fair, quiet := seed%5 == 0, seed%3 == 0
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: fair, quiet: quiet})
		})
	}
}

// The same with one flavor per ClusterQueue and reclaim within the Cohort
// Any, where a queue whose workloads' preemption searches found no victims
// in the queue itself sleeps, and a preemption elsewhere in its tree may wake
// it within the cycle (late.go): the stream must wake some that way.
func TestIncrementalCycleDecidesAsFullCycleOneFlavor(t *testing.T) {
	var late atomic.Uint64
	t.Run("seeds", func(t *testing.T) {
		// Seeds from 10: since the preemption oracle lists the victims in
		// flight (as Kueue's nomination does), seeds 1-4 wake no queue late,
		// and since a workload whose search failed waits for a release in
		// its tree (park.go), neither do 5-9 (10, 13, 14 and 15 do).
		for seed := uint64(10); seed < 10+propertySeeds(t, 4, 3); seed++ {
			t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
				t.Parallel()
				late.Add(incrementalAgainstFull(t, seed, stream{quiet: seed%3 == 0, oneFlavor: true}))
			})
		}
	})
	if late.Load() == 0 {
		t.Fatal("no preemption woke a sleeping queue within its cycle: the stream no longer exercises late.go")
	}
}

// The same with RecomputeAssignmentUponPreemptionTargetsOverlap off
// (Options.WaitOnOverlappingTargets), where a preemptor whose victims overlap
// the evictions in flight waits and its queue stays awake; seed 2 runs with
// fair sharing.
func TestIncrementalCycleDecidesAsFullCycleWaitingOnOverlaps(t *testing.T) {
	for seed := uint64(1); seed <= propertySeeds(t, 3, 2); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: seed == 2, quiet: seed == 3, overlapWaits: true})
		})
	}
}

// The same with workloads that may be admitted with fewer pods (partial
// admission), whose queues never sleep while such a workload waits; seed 2
// runs with fair sharing.
func TestIncrementalCycleDecidesAsFullCyclePartialAdmission(t *testing.T) {
	for seed := uint64(1); seed <= propertySeeds(t, 3, 2); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: seed == 2, quiet: seed == 3, partial: true})
		})
	}
}

// The same with reclaimable pods: a pending workload marked reclaimable asks
// for less, an admitted one holds less, and the sleeping queues of its tree
// must wake for it as for any other release; seed 2 runs with fair sharing.
func TestIncrementalCycleDecidesAsFullCycleReclaimablePods(t *testing.T) {
	for seed := uint64(1); seed <= propertySeeds(t, 3, 2); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: seed == 2, quiet: seed == 3, reclaim: true})
		})
	}
}

// The same under admission fair sharing: every ClusterQueue orders its
// workloads by the usage of two LocalQueues, which samples and entry
// penalties change from cycle to cycle; seed 2 runs with fair sharing.
func TestIncrementalCycleDecidesAsFullCycleAdmissionFairSharing(t *testing.T) {
	for seed := uint64(1); seed <= propertySeeds(t, 3, 2); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: seed == 2, quiet: seed == 3, afs: true})
		})
	}
}

// The same with the PrioritySortingWithinCohort gate off, where the heads of
// a tree are ordered without their priority (late.go's and the deferral's
// replays of that order must agree with the heap's); seed 2 runs with fair
// sharing, whose tournament drops priority too.
//
// Seed 24 always runs: in it a sleeping queue whose arrival a probe kept
// asleep was woken by freed quota in the same cycle, and the arrival was
// explained twice, by the probe and by the queue's walk (markProbedAwake).
func TestIncrementalCycleDecidesAsFullCycleWithoutPrioritySorting(t *testing.T) {
	seeds := propertySeeds(t, 3, 2)
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, seed, stream{fair: seed == 2, quiet: seed == 3, noPrioritySorting: true})
		})
	}
	if seeds < 24 {
		t.Run("seed-24", func(t *testing.T) {
			t.Parallel()
			incrementalAgainstFull(t, 24, stream{noPrioritySorting: true})
		})
	}
}

// stream is how a random stream is played: with fair sharing, quiet
// incremental cycles, one flavor per ClusterQueue, preemptors waiting on
// overlapping targets, or workloads that may be admitted partially.
type stream struct {
	fair, quiet, oneFlavor, overlapWaits, partial, reclaim, noPrioritySorting bool
	// afs puts every ClusterQueue in UsageBasedAdmissionFairSharing mode,
	// fed by two LocalQueues (the second of weight 2), and moves time a
	// second per cycle, so that samples and entry penalties reorder them.
	afs bool
}

// incrementalAgainstFull plays one seed's random stream through an
// incremental and a full-walk scheduler and compares every cycle (see
// TestIncrementalCycleDecidesAsFullCycle); it returns how many sleeping
// queues preemptions woke within their cycle.
func incrementalAgainstFull(t *testing.T, seed uint64, st stream) uint64 {
	const steps = 3000
	fair, quiet := st.fair, st.quiet
	g := &gen{rnd: rand.New(rand.NewPCG(seed, 7)), t: t, wls: map[types.NamespacedName]*kueue.Workload{}, fair: fair, oneFlavor: st.oneFlavor, partial: st.partial, reclaim: st.reclaim, afsLQs: st.afs}
	opts := Options{WaitOnOverlappingTargets: st.overlapWaits, NoPrioritySortingWithinCohort: st.noPrioritySorting}
	if st.afs {
		opts.AdmissionFairSharing = &config.AdmissionFairSharing{
			UsageHalfLifeTime: metav1.Duration{Duration: 10 * time.Second}, UsageSamplingInterval: metav1.Duration{Duration: 2 * time.Second}}
	}
	if fair {
		opts.FairSharing = &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}
	}
	full := opts
	full.DisableIncrementalCycle = true
	inc := opts
	inc.QuietCycles = quiet
	a, b := New(inc), New(full)
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
		if st.afs {
			cq.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
			second := MakeLocalQueue("ns", name+"-2", name).FairWeight("2").Obj()
			both(func(s *Scheduler) { _ = s.UpsertClusterQueue(cq.DeepCopy()); s.UpsertLocalQueue(second) })
		}
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
			woken := g.maybe(0.2)
			if woken {
				a.WakeAll()
			}
			at := now
			if st.afs {
				at = now.Add(time.Duration(cycles) * time.Second)
			}
			da, db := a.Cycle(at), b.Cycle(at)
			cycles++
			if woken && !sameAfterWakeAll(da, db) {
				t.Fatalf("step %d: after WakeAll, incremental and full cycles decided differently:\n%v\n%v", i, da, db)
			}
			compareIncremental(t, i, da, db)
			for _, d := range da {
				if _, ok := d.(Pending); ok {
					pending++
					if quiet && !woken {
						t.Fatalf("step %d: a quiet cycle not after WakeAll returned %v", i, d)
					}
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
	if st.reclaim && g.reclaimed == 0 {
		t.Fatal("the stream must mark some pods reclaimable")
	}
	t.Logf("%d steps, %d cycles, %d pending decisions, %d preemptions, %d heads lost for good, %d queues woken late, %d kept asleep by a probe of their arrivals, %d settled by a memo (%d ahead of the heap)", steps, cycles, pending, preempted, a.lost, a.lateWakes, a.probed, a.repeats, a.repeatsAhead)
	return a.lateWakes
}

// sameAfterWakeAll tells whether a cycle after WakeAll decided as the full
// walk's: the same decisions, in the same order within each ClusterQueue
// (Cycle's order; the walk may settle a run of equal workloads of one queue
// ahead of other queues' heads, repeat.go) and, but for Pending decisions,
// across queues too.
func sameAfterWakeAll(inc, full []Decision) bool {
	split := func(ds []Decision) (acts []Decision, byCQ map[string][]Pending) {
		byCQ = map[string][]Pending{}
		for _, d := range ds {
			if p, ok := d.(Pending); ok {
				byCQ[p.ClusterQueue] = append(byCQ[p.ClusterQueue], p)
			} else {
				acts = append(acts, d)
			}
		}
		return acts, byCQ
	}
	ai, pi := split(inc)
	af, pf := split(full)
	return len(inc) == len(full) && reflect.DeepEqual(ai, af) && reflect.DeepEqual(pi, pf)
}

// compareIncremental checks an incremental cycle's decisions against a full
// cycle's: the same decisions but Pending, in the same order, and each Pending
// of the incremental cycle equal to the full cycle's for that workload.
func compareIncremental(t *testing.T, step int, inc, full []Decision) {
	t.Helper()
	acts := func(ds []Decision) []Decision {
		var out []Decision
		for _, d := range ds {
			if _, ok := d.(Pending); !ok {
				out = append(out, d)
			}
		}
		return out
	}
	if ai, af := acts(inc), acts(full); !reflect.DeepEqual(ai, af) {
		t.Fatalf("step %d: incremental and full cycles decided differently:\n%v\n%v", step, ai, af)
	}
	pf := map[types.NamespacedName]Pending{}
	for _, d := range full {
		if p, ok := d.(Pending); ok {
			pf[p.Workload] = p
		}
	}
	// "Every pending workload that was looked at and not admitted gets a
	// Pending decision": one, in either cycle.
	for name, ds := range map[string][]Decision{"incremental": inc, "full": full} {
		seen := map[types.NamespacedName]bool{}
		for _, d := range ds {
			if p, ok := d.(Pending); ok {
				if seen[p.Workload] {
					t.Fatalf("step %d: the %s cycle explained %s twice: %v", step, name, p.Workload, ds)
				}
				seen[p.Workload] = true
			}
		}
	}
	for _, d := range inc {
		p, ok := d.(Pending)
		if !ok {
			continue
		}
		if f, ok := pf[p.Workload]; !ok || f != p {
			t.Fatalf("step %d: the incremental cycle explained %s as %v, the full cycle as %v", step, p.Workload, p, f)
		}
	}
}
