package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// 002: "Cohort weights of 0.75 and 0.25 make two orgs 'trend towards using
// 75%' and 25% of common resources." Org B floods the shared pool first; org A
// then submits as much; cycles run with the driver confirming evictions until
// nothing changes. The shares compare at the orgs (the queues'
// almost-lowest-common-ancestors), so the queues' own weights do not matter.
func TestFairSharingCohortWeightsTrendTo75And25(t *testing.T) {
	s := world(t, Options{FairSharing: bothStrategies}, MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", "cpu", "100").Obj(),
		MakeCohort("org-a").Parent("root").FairWeight("0.75").Obj(),
		MakeCohort("org-b").Parent("root").FairWeight("0.25").Obj(),
		MakeClusterQueue("team-a").Cohort("org-a").Quota("default", "cpu", "0").Preemption(any_, never).FairWeight("5").Obj(),
		MakeClusterQueue("team-b").Cohort("org-b").Quota("default", "cpu", "0").Preemption(any_, never).Obj(),
		MakeLocalQueue("a", "lq", "team-a").Obj(), MakeLocalQueue("b", "lq", "team-b").Obj())
	for i := range 100 {
		apply(t, s, MakeWorkload("b", fmt.Sprintf("b%03d", i)).Queue("lq").Request("cpu", "1").Obj())
	}
	s.Cycle(now)
	if got := usage(t, s, "team-b", "default", "cpu"); got != 100_000 {
		t.Fatalf("org B holds %d millicores, want the whole pool", got)
	}
	for i := range 100 {
		apply(t, s, MakeWorkload("a", fmt.Sprintf("a%03d", i)).Queue("lq").Created(time.Hour).Request("cpu", "1").Obj())
	}
	quiet := 0
	for c := 1; c < 400 && quiet < 3; c++ {
		ds := s.Cycle(now.Add(time.Duration(c) * time.Second))
		confirm(s, ds)
		if len(preempts(ds)) == 0 && len(admits(ds)) == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	a, b := usage(t, s, "team-a", "default", "cpu")/1000, usage(t, s, "team-b", "default", "cpu")/1000
	if a+b != 100 || a < 74 || a > 76 {
		t.Fatalf("org A %d, org B %d; want about 75 and 25 of 100", a, b)
	}
	ca, _ := s.CohortSnapshot("org-a")
	cb, _ := s.CohortSnapshot("org-b")
	t.Logf("org A %d (weighted share %d), org B %d (weighted share %d)", a, ca.WeightedShare, b, cb.WeightedShare)
}

// 002: "The Fair Sharing page proves that two workloads in different
// ClusterQueues cannot keep preempting each other." Seeded random streams of
// submissions of varied sizes into queues with varied weights, with cycles and
// confirmed evictions and finishing jobs. Finishes change the shares, so one
// reversal (x→y, later y→x) can be fair; a pair that flips back again (x→y,
// y→x, x→y) is the ping-pong the proof rules out.
func TestFairSharingNoMutualPreemption(t *testing.T) {
	steps := 2000
	if testing.Short() {
		steps = 500
	}
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 7))
			weights := []string{"1", "2", "0.5", "1"}
			objs := []any{MakeFlavor("default").Obj()}
			for i, w := range weights {
				name := fmt.Sprintf("q%d", i)
				objs = append(objs,
					MakeClusterQueue(name).Cohort("all").Quota("default", "cpu", fmt.Sprint(4+rnd.IntN(12))).
						Preemption(any_, lowerEq).FairWeight(w).Obj(),
					MakeLocalQueue(name, "lq", name).Obj())
			}
			s := world(t, Options{FairSharing: bothStrategies}, objs...)
			// last holds, per unordered pair, the direction of its last preemption
			// and how often it flipped.
			type pairState struct {
				last  [2]types.NamespacedName
				flips int
				// outside is the count of outside events (submissions,
				// finishes) when the pair last preempted.
				outside int
			}
			pairs := map[[2]types.NamespacedName]*pairState{}
			reversals := 0
			var admitted, evicting []types.NamespacedName
			next, preemptions, outside := 0, 0, 0
			for i := range steps {
				switch x := rnd.IntN(10); {
				case x < 4:
					next++
					outside++
					q := fmt.Sprintf("q%d", rnd.IntN(len(weights)))
					apply(t, s, MakeWorkload(q, fmt.Sprintf("w%05d", next)).Queue("lq").Priority(int32(rnd.IntN(2))).
						Created(time.Duration(next)*time.Second).Request("cpu", fmt.Sprint(1+rnd.IntN(6))).Obj())
				case x < 6 && len(admitted) > 0:
					k := rnd.IntN(len(admitted))
					s.FinishWorkload(admitted[k])
					outside++
					admitted = append(admitted[:k], admitted[k+1:]...)
				default:
					ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
					for _, p := range preempts(ds) {
						for _, v := range p.Victims {
							if v.ClusterQueue == p.PreemptorClusterQueue {
								continue
							}
							preemptions++
							dir := [2]types.NamespacedName{p.Preemptor, v.Workload}
							k := dir
							if compareKeys(k[0], k[1]) > 0 {
								k[0], k[1] = k[1], k[0]
							}
							ps, ok := pairs[k]
							if !ok {
								pairs[k] = &pairState{last: dir, outside: outside}
								continue
							}
							if ps.outside != outside {
								// Shares moved since: a new round.
								ps.flips, ps.outside = 0, outside
							}
							if ps.last != dir {
								ps.flips++
								reversals++
								if ps.flips > 1 {
									t.Fatalf("step %d: %s and %s keep preempting each other", i, dir[0], dir[1])
								}
							}
							ps.last = dir
						}
					}
					// The driver evicts every victim, each in one of the
					// next cycles.
					for _, p := range preempts(ds) {
						for _, v := range p.Victims {
							evicting = append(evicting, v.Workload)
						}
					}
					kept := evicting[:0]
					for _, v := range evicting {
						if rnd.IntN(4) > 0 {
							s.EvictWorkload(v)
						} else {
							kept = append(kept, v)
						}
					}
					evicting = kept
					for _, a := range admits(ds) {
						admitted = append(admitted, a.Workload)
					}
				}
			}
			if preemptions < 10 {
				t.Fatalf("only %d fair-sharing preemptions: the stream does not exercise the rule", preemptions)
			}
			t.Logf("%d cross-queue preemptions, %d single reversals, no ping-pong", preemptions, reversals)
		})
	}
}

// 002: "Kueue admits from the lowest share first", compared in a tree at the
// queues' almost-lowest-common-ancestors: both orgs submit at once into an
// empty pool, and a single cycle already splits it by the orgs' weights.
func TestFairSharingAdmissionSplitsByCohortWeights(t *testing.T) {
	s := world(t, Options{FairSharing: bothStrategies}, MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", "cpu", "100").Obj(),
		MakeCohort("org-a").Parent("root").FairWeight("0.75").Obj(),
		MakeCohort("org-b").Parent("root").FairWeight("0.25").Obj(),
		MakeClusterQueue("team-a").Cohort("org-a").Quota("default", "cpu", "0").Obj(),
		MakeClusterQueue("team-b").Cohort("org-b").Quota("default", "cpu", "0").FairWeight("9").Obj(),
		MakeLocalQueue("a", "lq", "team-a").Obj(), MakeLocalQueue("b", "lq", "team-b").Obj())
	for i := range 100 {
		// B's jobs are older and of higher priority: classic order would give
		// B everything.
		apply(t, s, MakeWorkload("b", fmt.Sprintf("b%03d", i)).Queue("lq").Priority(5).Request("cpu", "1").Obj())
		apply(t, s, MakeWorkload("a", fmt.Sprintf("a%03d", i)).Queue("lq").Created(time.Hour).Request("cpu", "1").Obj())
	}
	s.Cycle(now)
	a, b := usage(t, s, "team-a", "default", "cpu")/1000, usage(t, s, "team-b", "default", "cpu")/1000
	if a != 75 || b != 25 {
		t.Fatalf("org A %d, org B %d; want 75 and 25", a, b)
	}
}

// Fair sharing "works with [...] withinClusterQueue": a higher-priority
// workload still preempts in its own queue, with reason InClusterQueue.
func TestFairSharingWithinClusterQueue(t *testing.T) {
	s := world(t, Options{FairSharing: bothStrategies}, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Cohort("all").Quota("default", "cpu", "4").Preemption(never, lower).Obj(),
		MakeClusterQueue("b").Cohort("all").Quota("default", "cpu", "4").Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
	apply(t, s, MakeWorkload("b", "b0").Queue("lq").Request("cpu", "4").ReserveQuota("b", "default").Obj())
	apply(t, s, MakeWorkload("a", "low").Queue("lq").Request("cpu", "4").ReserveQuota("a", "default").Obj())
	apply(t, s, MakeWorkload("a", "high").Queue("lq").Priority(10).Request("cpu", "4").Obj())
	if got := victimNames(s.Cycle(now)); got != "low:InClusterQueue" {
		t.Fatalf("victims %q, want low:InClusterQueue", got)
	}
}

// Quokka's guard against kubernetes-sigs/kueue#14543: after the search, a
// victim is put back only if every victim taken from another queue stays
// justified. Here a (weight 1) and b (weight 2) borrow from lender's 12 cpus;
// the preemptor (a, 4 cpus) first takes a1 (3 cpus, its own queue) and then
// b1 (4 cpus), which LessThanOrEqualToFinalShare allows only because a1 is
// gone (a's share 3/16 ≤ b's 6/16/2). Putting a1 back would still fit, but
// would leave a at 6/16 against b's 3/16: b's workloads could then take the
// room back by the same rule, and the two queues preempt each other in turn.
// Kueue puts a1 back; Quokka keeps both victims.
func TestFairSharingFillBackKeepsVictimsJustified(t *testing.T) {
	s := world(t, Options{FairSharing: &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare}}},
		MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Cohort("all").Quota("default", "cpu", "2").Preemption(lower, lower).Obj(),
		MakeClusterQueue("b").Cohort("all").Quota("default", "cpu", "2").FairWeight("2").Obj(),
		MakeClusterQueue("lender").Cohort("all").Quota("default", "cpu", "12").Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
	apply(t, s, MakeWorkload("a", "a1").Queue("lq").Request("cpu", "3").ReserveQuota("a", "default").Obj())
	apply(t, s, MakeWorkload("a", "a2").Queue("lq").Priority(5).Request("cpu", "1").ReserveQuota("a", "default").Obj())
	apply(t, s, MakeWorkload("b", "b0").Queue("lq").Priority(5).Request("cpu", "8").ReserveQuota("b", "default").Obj())
	apply(t, s, MakeWorkload("b", "b1").Queue("lq").Request("cpu", "4").ReserveQuota("b", "default").Obj())
	apply(t, s, MakeWorkload("a", "p").Queue("lq").Priority(1).Request("cpu", "4").Obj())
	if got := victimNames(s.Cycle(now)); got != "a1:InClusterQueue,b1:InCohortFairSharing" {
		t.Fatalf("victims %q, want a1:InClusterQueue,b1:InCohortFairSharing", got)
	}
}
