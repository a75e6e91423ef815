package scheduler

import (
	"testing"
	"time"

	. "quokka.dev/quokka/engine/enginetest"
)

// reclaimHandoff is the smallest cluster where the room a reclaim makes was
// taken by someone else before its preemptor could use it (the simulator's
// "Scale" livelock, seed 4). Cohort c holds 6 cpus: a's nominal 3 and e's 3,
// which e only lends. In a, "keep" (priority 100) holds 2; "head" (priority 10,
// 2 cpus) would have to borrow; "preemptor" (priority 0, 1 cpu) would stay
// within a's nominal and so may reclaim. b and d, with no quota, each borrow 2
// cpus for a priority-50 workload.
//
// When one of b or d is evicted, a's first pending workload, "head", fits by
// borrowing and is a's candidate; the victim, also borrowing but of higher
// priority, is ordered before it and takes the room back. "preemptor" was never
// a candidate, then no longer fits, and reclaims from the other borrowing
// queue: forever.
func reclaimHandoff(t *testing.T) *Scheduler {
	t.Helper()
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "3").Preemption(any_, lower).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Preemption(never, lower).Obj(),
		MakeClusterQueue("d").Cohort("c").Quota("default", "cpu", "0").Preemption(never, lower).Obj(),
		MakeClusterQueue("e").Cohort("c").Quota("default", "cpu", "3").Preemption(never, lower).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj(),
		MakeLocalQueue("d", "lq", "d").Obj(), MakeLocalQueue("e", "lq", "e").Obj())
	admitted(t, s, "a", job("a", "keep", 2, 100))
	admitted(t, s, "b", job("b", "lender-b", 2, 50))
	apply(t, s, job("d", "lender-d", 2, 50).ReserveQuota("d", "default").QuotaReservedAt(time.Minute).Obj())
	apply(t, s, job("a", "head", 2, 10).Obj())
	apply(t, s, job("a", "preemptor", 1, 0).Obj())
	return s
}

// Cycle: "the preemptor is admitted by the first cycle after the driver has
// confirmed the evictions with EvictWorkload, before any other workload of its
// tree can take the room they made." A borrowing workload ordered before the
// preemptor's queue-mates must not take that room back.
func TestReclaimedRoomGoesToItsPreemptor(t *testing.T) {
	t.Parallel()
	s := reclaimHandoff(t)
	ds := s.Cycle(now)
	if got := victimNames(ds); got != "lender-d:InCohortReclamation" {
		t.Fatalf("first cycle: victims %q, want lender-d:InCohortReclamation; decisions %v", got, ds)
	}
	mustPending(t, ds, "head", ReasonInsufficientQuotaInCohort)
	confirm(s, ds)
	ds = s.Cycle(now)
	if got := victimNames(ds); got != "" {
		t.Fatalf("second cycle preempted again (%s); decisions %v", got, ds)
	}
	if got := admittedNames(ds); len(got) != 1 || got[0] != "preemptor" {
		t.Fatalf("second cycle admitted %v, want only preemptor; decisions %v", got, ds)
	}
	// head's outcome did not change, so the cycle need not explain it again
	// (it keeps the first cycle's InsufficientQuotaInCohort); if it does, the
	// reason is the same.
	if p, ok := pendingFor(ds, "head"); ok && p.Reason != ReasonInsufficientQuotaInCohort {
		t.Fatalf("head: reason %s, want %s", p.Reason, ReasonInsufficientQuotaInCohort)
	}
}
