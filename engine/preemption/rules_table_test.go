package preemption

import (
	"reflect"
	"testing"
	"time"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/fairsharing"
)

// Each classic preemption rule with a table of its own, boundaries included,
// so that a flipped comparison or a dropped condition fails here and not
// only in the scheduler's random runs.

var (
	lowerPriority = kueue.PreemptionPolicyLowerPriority
	anyPriority   = kueue.PreemptionPolicyAny
	lowerOrNewer  = kueue.PreemptionPolicyLowerOrNewerEqualPriority
)

// borrowWithinCohort.maxPriorityThreshold: while the preemptor borrows (and
// still will once the victims are gone), it may preempt a workload of another
// queue only if that workload's priority is lower than its own and at most
// the threshold (Kueue's isAboveBorrowingThreshold: "candidatePriority >
// threshold" excludes, so the threshold itself is allowed). Without a
// threshold every lower priority is allowed; without borrowWithinCohort none.
//
// Queue a (nominal 0, so the preemptor borrows whatever happens) shares cohort
// c with b (nominal 6, using 8: b0 of priority 100 and 6 CPUs, b1 of priority
// P and 2 CPUs) and c2 (nominal 2, idle). The preemptor, of priority 10, needs
// 2 CPUs: only b1 can make room.
//
// Kueue: pkg/scheduler/preemption/preemption_test.go 'use BorrowWithinCohort;
// allow preempting a lower-priority workload from another ClusterQueue while
// borrowing' and 'use BorrowWithinCohort; don't allow preempting a
// lower-priority workload with priority above MaxPriorityThreshold, if
// borrowing is required even after the preemption' (the boundary itself is
// not among Kueue's cases).
func TestBorrowWithinCohortMaxPriorityThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		reclaim   kueue.PreemptionPolicy
		bwc       bool
		threshold *int32
		candPrio  int32
		want      []string
	}{
		{"priority below the threshold is taken", lowerPriority, true, i32(5), 4, []string{"b/b1"}},
		{"priority equal to the threshold is taken", lowerPriority, true, i32(5), 5, []string{"b/b1"}},
		{"priority above the threshold is not taken", lowerPriority, true, i32(5), 6, []string{}},
		{"no threshold: any lower priority is taken", lowerPriority, true, nil, 9, []string{"b/b1"}},
		{"threshold above the preemptor: lower priority is taken", anyPriority, true, i32(20), 9, []string{"b/b1"}},
		{"threshold above the preemptor: equal priority is not taken", anyPriority, true, i32(20), 10, []string{}},
		{"without borrowWithinCohort nothing is taken while borrowing", lowerPriority, false, nil, 4, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "0").Preemption(tc.reclaim, never)
			if tc.bwc {
				a.BorrowWithinCohort(tc.threshold)
			}
			f := newFixture(t, a.Obj(),
				MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "6").Obj(),
				MakeClusterQueue("c2").Cohort("c").Quota("default", "cpu", "2").Obj(),
			)
			f.admit("b", "b0", 100, 6, nil)
			f.admit("b", "b1", tc.candPrio, 2, nil)
			if got := f.find("a", 2, 10, nil, Options{}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}

// The threshold bounds only preemption while borrowing: a preemptor that ends
// within its nominal quota reclaims a lower-priority workload above the
// threshold all the same.
//
// Kueue: pkg/scheduler/preemption/preemption_test.go 'use BorrowWithinCohort;
// allow preempting a lower-priority workload with priority above
// MaxPriorityThreshold, if borrowing is not required after the preemption'.
func TestBorrowWithinCohortThresholdIgnoredWithinNominal(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(lowerPriority, never).BorrowWithinCohort(i32(5)).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "6").Obj(),
	)
	f.admit("b", "b0", 100, 6, nil)
	f.admit("b", "b1", 6, 2, nil)
	if got, want := f.find("a", 2, 10, nil, Options{}), []string{"b/b1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("victims %v, want %v", got, want)
	}
}

// Fill-back: once the preemptor fits, every victim but the last is offered
// back, the last removed first, and kept only if the preemptor would no
// longer fit: no victim is evicted that the preemptor does not need gone.
//
// Queue q (nominal 8, withinClusterQueue LowerPriority, no cohort). The
// preemptor has priority 10; candidates go lowest priority first.
func TestFillBackLeavesMinimalVictims(t *testing.T) {
	t.Parallel()
	type wl struct {
		name string
		prio int32
		cpus int64
	}
	for _, tc := range []struct {
		name     string
		admitted []wl
		need     int64
		want     []string
	}{
		// Kueue: pkg/scheduler/preemption/preemption_test.go 'minimal set
		// excludes low priority'. Greedy takes low (1) and mid (2); with mid
		// gone, low is not needed and is given back.
		{"an early victim not needed is given back",
			[]wl{{"low", -1, 1}, {"mid", 0, 2}, {"high", 20, 5}}, 2, []string{"q/mid"}},
		// Greedy takes v1, v2, v3 (2+2+3 of the 5 needed). Offered back last
		// removed first, v2 goes back (v1+v3 free 5), then v1 must stay.
		// Offering v1 first would have kept v2 instead.
		{"victims are given back last removed first",
			[]wl{{"v1", 1, 2}, {"v2", 2, 2}, {"v3", 3, 3}, {"top", 20, 1}}, 5, []string{"q/v1", "q/v3"}},
		{"no victim is given back when all are needed",
			[]wl{{"v1", 1, 2}, {"v2", 2, 2}, {"top", 20, 4}}, 4, []string{"q/v1", "q/v2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, MakeClusterQueue("q").Quota("default", "cpu", "8").Preemption(never, lowerPriority).Obj())
			for _, w := range tc.admitted {
				f.admit("q", w.name, w.prio, w.cpus, nil)
			}
			if got := f.find("q", tc.need, 10, nil, Options{}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}

// reclaimWithinCohort at equal priority: Any reclaims from a borrower of any
// priority, LowerPriority only from lower priorities, Never from none.
//
// Queue a (nominal 2) shares cohort c with b (nominal 2, using 4: b0 of
// priority 100 and b1 of priority P, 2 CPUs each). The preemptor, of priority
// 10, needs 2 CPUs, within a's nominal quota.
func TestReclaimWithinCohortAtEqualPriority(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		reclaim  kueue.PreemptionPolicy
		candPrio int32
		want     []string
	}{
		// Kueue: pkg/scheduler/preemption/preemption_test.go 'reclaim
		// borrowed quota from same priority for withinCohort=ReclaimFromAny'.
		{"Any takes an equal-priority borrower", anyPriority, 10, []string{"b/b1"}},
		// Kueue: same file, 'do not reclaim borrowed quota from same priority
		// for withinCohort=ReclaimFromLowerPriority'.
		{"LowerPriority spares an equal-priority borrower", lowerPriority, 10, []string{}},
		{"LowerPriority takes a lower-priority borrower", lowerPriority, 9, []string{"b/b1"}},
		{"Never spares even a lower-priority borrower", never, 0, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t,
				MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(tc.reclaim, never).Obj(),
				MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "2").Obj(),
			)
			f.admit("b", "b0", 100, 2, nil)
			f.admit("b", "b1", tc.candPrio, 2, nil)
			if got := f.find("a", 2, 10, nil, Options{}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}

// withinClusterQueue at equal priority: LowerPriority spares every workload of
// the preemptor's priority; LowerOrNewerEqualPriority takes one created after
// the preemptor and spares one created before it, or at the same instant
// (Kueue's SatisfiesPreemptionPolicy: preemptorTS.Before(candidateTS), strict).
//
// Queue q (nominal 4, no cohort) is full with one workload of 4 CPUs, of the
// preemptor's priority 10 or lower, created relative to the preemptor. The
// preemptor needs 2 CPUs.
func TestWithinClusterQueueAtEqualPriority(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		policy   kueue.PreemptionPolicy
		candPrio int32
		offset   time.Duration // candidate's creation relative to the preemptor's
		want     []string
	}{
		{"LowerPriority spares a newer workload of equal priority", lowerPriority, 10, time.Second, []string{}},
		{"LowerPriority takes a lower priority", lowerPriority, 9, -time.Second, []string{"q/w"}},
		// Kueue: pkg/scheduler/preemption/preemption_test.go 'preempt newer
		// workloads with the same priority'.
		{"LowerOrNewerEqualPriority takes a newer workload of equal priority", lowerOrNewer, 10, time.Second, []string{"q/w"}},
		{"LowerOrNewerEqualPriority takes one a nanosecond newer", lowerOrNewer, 10, time.Nanosecond, []string{"q/w"}},
		{"LowerOrNewerEqualPriority spares an older workload of equal priority", lowerOrNewer, 10, -time.Second, []string{}},
		{"LowerOrNewerEqualPriority takes an older workload of lower priority", lowerOrNewer, 9, -time.Second, []string{"q/w"}},
		{"LowerOrNewerEqualPriority spares a newer workload of higher priority", lowerOrNewer, 11, time.Second, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withinQueueVictims(t, tc.policy, tc.candPrio, created.Add(tc.offset), created)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}

// LowerOrNewerEqualPriority with equal priority and the same creation time:
// the candidate is not newer, so it is not taken. Kueue compares queue-order
// timestamps with a strict Before (pkg/scheduler/preemption/common/
// preemption_policy.go, SatisfiesPreemptionPolicy); equal times are common,
// since API timestamps have a resolution of one second.
func TestLowerOrNewerEqualPrioritySameCreationTime(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := withinQueueVictims(t, lowerOrNewer, 10, created, created); len(got) != 0 {
		t.Errorf("a workload created at the preemptor's instant was taken: %v", got)
	}
	for _, tc := range []struct {
		name    string
		cand    time.Time
		allowed bool
	}{
		{"same instant", created, false},
		{"one second later", created.Add(time.Second), true},
		{"one second earlier", created.Add(-time.Second), false},
	} {
		if got := WithinQueueAllowed(lowerOrNewer, 10, tc.cand, 10, created); got != tc.allowed {
			t.Errorf("%s: WithinQueueAllowed = %v, want %v", tc.name, got, tc.allowed)
		}
	}
}

// withinQueueVictims runs Find in a full queue q (nominal 4, withinClusterQueue
// policy) holding one workload w of 4 CPUs, for a preemptor of priority 10
// needing 2 CPUs.
func withinQueueVictims(t *testing.T, policy kueue.PreemptionPolicy, candPrio int32, candCreated, created time.Time) []string {
	t.Helper()
	f := newFixture(t, MakeClusterQueue("q").Quota("default", "cpu", "4").Preemption(never, policy).Obj())
	f.admit("q", "w", candPrio, 4, nil)
	f.src["q"][0].Created = candCreated
	p := f.preemptor("q", 2, 10, nil)
	p.Created = created
	return f.findFor("q", p, Options{})
}

// The two fair-sharing strategies pick different victims from one state.
// Queues a, b and c (nominal 3 each) and preemptible (nominal 0) share cohort
// all: a holds 3, b holds b_low (priority 0, 5 CPUs) and b_high (priority 1,
// 1 CPU). The preemptor in a needs 1 CPU: a's share becomes 1/9. Taking b_low
// leaves b at share 0: LessThanInitialShare allows it (1/9 < 3/9, b's share
// before), LessThanOrEqualToFinalShare does not (1/9 > 0), and takes b_high
// (b keeps 2/9).
//
// Kueue: pkg/scheduler/preemption/preemption_fair_test.go 'preempt lower
// priority first, even if big' and 'preempt workload that doesn't transfer
// the imbalance, even if high priority'.
func TestFairSharingStrategiesChooseDifferentVictims(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		strategy fairsharing.Strategy
		want     []string
	}{
		{string(configv1beta2.LessThanInitialShare), fairsharing.LessThanInitialShare, []string{"b/b_low"}},
		{string(configv1beta2.LessThanOrEqualToFinalShare), fairsharing.LessThanOrEqualToFinalShare, []string{"b/b_high"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cqs []*kueue.ClusterQueue
			for _, n := range []string{"a", "b", "c"} {
				cqs = append(cqs, MakeClusterQueue(n).Cohort("all").Quota("default", "cpu", "3").
					Preemption(anyPriority, lowerPriority).BorrowWithinCohort(i32(-3)).Obj())
			}
			cqs = append(cqs, MakeClusterQueue("preemptible").Cohort("all").Quota("default", "cpu", "0").Obj())
			f := newFixture(t, cqs...)
			f.admit("a", "a1", 0, 3, nil)
			f.admit("b", "b_low", 0, 5, nil)
			f.admit("b", "b_high", 1, 1, nil)
			got := f.find("a", 1, 0, nil, Options{FairSharing: []fairsharing.Strategy{tc.strategy}})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("victims %v, want %v", got, tc.want)
			}
		})
	}
}
