package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

var bothStrategies = &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}

// abc is the spec's fair-sharing example: one flavor, 64 GPUs, no lending
// limits; A and B nominal 24, C nominal 16 and idle; A runs nine 4-GPU jobs
// (36) and B seven (28). aWeight is A's spec.fairSharing.weight.
func abc(t *testing.T, aWeight string) *Scheduler {
	a := MakeClusterQueue("a").Cohort("all").Quota("gpus", gpu, "24").Preemption(any_, never)
	if aWeight != "" {
		a.FairWeight(aWeight)
	}
	s := world(t, Options{FairSharing: bothStrategies}, MakeFlavor("gpus").Obj(), a.Obj(),
		MakeClusterQueue("b").Cohort("all").Quota("gpus", gpu, "24").Preemption(any_, never).Obj(),
		MakeClusterQueue("c").Cohort("all").Quota("gpus", gpu, "16").Preemption(any_, never).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj(), MakeLocalQueue("c", "lq", "c").Obj())
	for i := range 9 {
		apply(t, s, MakeWorkload("a", fmt.Sprintf("a%d", i)).Queue("lq").Request(gpu, "4").
			ReserveQuota("a", "gpus").QuotaReservedAt(time.Duration(i)*time.Minute).Obj())
	}
	for i := range 7 {
		apply(t, s, MakeWorkload("b", fmt.Sprintf("b%d", i)).Queue("lq").Request(gpu, "4").
			ReserveQuota("b", "gpus").QuotaReservedAt(time.Duration(i)*time.Minute).Obj())
	}
	return s
}

func weightedShare(t *testing.T, s *Scheduler, cq string) int64 {
	t.Helper()
	v, ok := s.ClusterQueueSnapshot(cq)
	if !ok {
		t.Fatalf("no ClusterQueue %s", cq)
	}
	return v.WeightedShare
}

// 002: "Share A = 12/64 = 187.5 per thousand. Share B = 4/64 = 62.5." [...]
// "B submits a 4-GPU job. B's share with the job admitted is 8/64 = 125. A's
// share without one of its 4-GPU jobs is also 8/64 = 125. Since 125 ≤ 125,
// LessThanOrEqualToFinalShare holds and the A job is preempted. Both queues end
// at 32 GPUs."
func TestFairSharingExampleFourGPUJobPreemptsOne(t *testing.T) {
	s := abc(t, "")
	if a, b := weightedShare(t, s, "a"), weightedShare(t, s, "b"); a != 188 || b != 63 {
		t.Fatalf("weighted shares A %d, B %d; want 188 (187.5 rounded up) and 63 (62.5)", a, b)
	}
	apply(t, s, MakeWorkload("b", "new").Queue("lq").Request(gpu, "4").Obj())
	ds := s.Cycle(now)
	ps := preempts(ds)
	if len(ps) != 1 || len(ps[0].Victims) != 1 {
		t.Fatalf("preemptions %+v, want exactly one victim", ps)
	}
	v := ps[0].Victims[0]
	if v.ClusterQueue != "a" || v.Reason != PreemptionInCohortFairSharing || !strings.Contains(v.Message, "Fair Sharing") {
		t.Fatalf("victim %+v, want one of A's jobs for InCohortFairSharing", v)
	}
	// The most recently admitted of A's jobs goes.
	if v.Workload.Name != "a8" {
		t.Errorf("victim %s, want a8 (the most recently admitted)", v.Workload.Name)
	}
	confirm(s, ds)
	ds = s.Cycle(now.Add(time.Minute))
	if got := strings.Join(admittedNames(ds), ","); got != "new" {
		t.Fatalf("admitted %q, want new", got)
	}
	if len(preempts(ds)) != 0 {
		t.Fatalf("the evicted A job must not preempt back: %+v", preempts(ds))
	}
	if a, b := usage(t, s, "a", "gpus", gpu), usage(t, s, "b", "gpus", gpu); a != 32 || b != 32 {
		t.Fatalf("A %d, B %d; want both at 32", a, b)
	}
	if a, b := weightedShare(t, s, "a"), weightedShare(t, s, "b"); a != 125 || b != 125 {
		t.Fatalf("weighted shares A %d, B %d; want 125 each", a, b)
	}
}

// 002: "B submits an 8-GPU job instead. B with the job: 12/64 = 187.5. A after
// losing 8 GPUs: 62.5. 187.5 ≤ 62.5 fails, and LessThanInitialShare (187.5 <
// 187.5) also fails, so B waits."
// 002: "With A at weight 2, B's 4-GPU job would need 125 ≤ 125/2 = 62.5, which
// fails. A keeps its borrowed GPUs."
func TestFairSharingExampleWaits(t *testing.T) {
	for _, tc := range []struct {
		name, aWeight, request string
	}{
		{"8-GPU job: both strategies fail", "", "8"},
		{"A at weight 2: 4-GPU job", "2", "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := abc(t, tc.aWeight)
			apply(t, s, MakeWorkload("b", "new").Queue("lq").Request(gpu, tc.request).Obj())
			for i := range 3 {
				ds := s.Cycle(now.Add(time.Duration(i) * time.Minute))
				if len(preempts(ds)) != 0 || len(admits(ds)) != 0 {
					t.Fatalf("cycle %d: preempts %+v, admits %v; B must wait", i, preempts(ds), admittedNames(ds))
				}
				mustPending(t, ds, "new", ReasonInsufficientQuotaInCohort)
			}
		})
	}
}

// 002: "Kueue admits from the lowest share first": with room for one job, the
// queue that borrows less gets it, whatever the priorities and creation times.
func TestFairSharingAdmitsLowestShareFirst(t *testing.T) {
	s := abc(t, "")
	// Free 8 GPUs by finishing two of A's jobs: A 28 (share 62.5), B 28 (62.5).
	s.FinishWorkload(key("a", "a0"))
	s.FinishWorkload(key("a", "a1"))
	s.FinishWorkload(key("a", "a2"))
	// A at 24 (share 0), B at 28 (62.5); 12 GPUs free. B's job is older and
	// of higher priority, yet A's goes first.
	apply(t, s, MakeWorkload("b", "b-new").Queue("lq").Priority(100).Request(gpu, "12").Obj())
	apply(t, s, MakeWorkload("a", "a-new").Queue("lq").Created(time.Hour).Request(gpu, "12").Obj())
	ds := s.Cycle(now)
	if got := strings.Join(admittedNames(ds), ","); got != "a-new" {
		t.Fatalf("admitted %q, want a-new (A's share after admission 187.5 < B's 250)", got)
	}
	// Without fair sharing the higher priority wins (both borrow).
	s2 := world(t, Options{}, MakeFlavor("gpus").Obj(),
		MakeClusterQueue("a").Cohort("all").Quota("gpus", gpu, "24").Obj(),
		MakeClusterQueue("b").Cohort("all").Quota("gpus", gpu, "24").Obj(),
		MakeClusterQueue("c").Cohort("all").Quota("gpus", gpu, "16").Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
	apply(t, s2, MakeWorkload("b", "fill").Queue("lq").Request(gpu, "28").ReserveQuota("b", "gpus").Obj())
	apply(t, s2, MakeWorkload("a", "fill").Queue("lq").Request(gpu, "24").ReserveQuota("a", "gpus").Obj())
	apply(t, s2, MakeWorkload("b", "b-new").Queue("lq").Priority(100).Request(gpu, "12").Obj())
	apply(t, s2, MakeWorkload("a", "a-new").Queue("lq").Created(time.Hour).Request(gpu, "12").Obj())
	if got := strings.Join(admittedNames(s2.Cycle(now)), ","); got != "b-new" {
		t.Fatalf("classic admitted %q, want b-new", got)
	}
}

// 002: "A weight of zero makes any borrowing an infinite share"; "A queue with
// weight 0 always loses as soon as it borrows."
func TestFairSharingZeroWeight(t *testing.T) {
	s := abc(t, "0")
	if got := weightedShare(t, s, "a"); got != 1<<63-1 {
		t.Fatalf("A's weighted share %d, want MaxInt64 (infinite)", got)
	}
	// Even a 12-GPU job of B (share 250 after) preempts A.
	apply(t, s, MakeWorkload("b", "new").Queue("lq").Request(gpu, "12").Obj())
	ds := s.Cycle(now)
	if got := victimNames(ds); !strings.Contains(got, "InCohortFairSharing") {
		t.Fatalf("victims %q, want A's jobs", got)
	}
	// A not borrowing has share 0.
	s2 := abc(t, "0")
	for i := range 3 {
		s2.FinishWorkload(key("a", fmt.Sprintf("a%d", i)))
	}
	if got := weightedShare(t, s2, "a"); got != 0 {
		t.Fatalf("A at nominal with weight 0: share %d, want 0", got)
	}
}

// Fair sharing respects reclaimWithinCohort: with Never, no candidate in other
// queues; with LowerPriority only lower-priority ones.
func TestFairSharingHonoursReclaimPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy kueue.PreemptionPolicy
		prio   int32
		want   bool
	}{
		{never, 10, false},
		{lower, 0, false},
		{lower, 10, true},
		{any_, 0, true},
	} {
		t.Run(fmt.Sprintf("%s-prio%d", tc.policy, tc.prio), func(t *testing.T) {
			s := world(t, Options{FairSharing: bothStrategies}, MakeFlavor("gpus").Obj(),
				MakeClusterQueue("a").Cohort("all").Quota("gpus", gpu, "24").Obj(),
				MakeClusterQueue("b").Cohort("all").Quota("gpus", gpu, "24").Preemption(tc.policy, never).Obj(),
				MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
			for i := range 3 {
				apply(t, s, MakeWorkload("a", fmt.Sprintf("a%d", i)).Queue("lq").Request(gpu, "12").ReserveQuota("a", "gpus").Obj())
			}
			apply(t, s, MakeWorkload("b", "b0").Queue("lq").Request(gpu, "12").ReserveQuota("b", "gpus").Obj())
			apply(t, s, MakeWorkload("b", "new").Queue("lq").Priority(tc.prio).Request(gpu, "12").Obj())
			got := len(preempts(s.Cycle(now))) > 0
			if got != tc.want {
				t.Fatalf("preempted %v, want %v", got, tc.want)
			}
		})
	}
}
