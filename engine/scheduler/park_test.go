package scheduler

import (
	"slices"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// parkWorld is Cohort c with one flavor of 5 cpu: a (nominal 2) reclaims
// lower priorities within the Cohort, x (nominal 2) is at its nominal quota
// with x0 (priority 0), b (nominal 0) borrows a's 2 with b100 (priority 100),
// and y lends its 1. a's a10 (2 cpu, priority 10) would reclaim, but the
// only borrower runs a higher priority: its search finds no victims, and
// Kueue parks it in a's inadmissible list.
func parkWorld(t *testing.T, opts Options) *Scheduler {
	t.Helper()
	s := parkQueues(t, opts, kueue.BestEffortFIFO)
	for i := 0; i < 2; i++ { // the second cycle is the one WantsCycle asks for
		ds := s.Cycle(now)
		if len(admits(ds)) != 0 || len(preempts(ds)) != 0 {
			t.Fatalf("cycle %d decided %v, want a10 to wait", i+1, ds)
		}
	}
	return s
}

// parkQueues is parkWorld before its first cycle, with a's queueing
// strategy.
func parkQueues(t *testing.T, opts Options, strategy kueue.QueueingStrategy) *Scheduler {
	t.Helper()
	s := world(t, opts, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(lower, never).Strategy(strategy).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Preemption(never, never).Obj(),
		MakeClusterQueue("x").Cohort("c").Quota("default", "cpu", "2").Preemption(never, never).Obj(),
		MakeClusterQueue("y").Cohort("c").Quota("default", "cpu", "1").Preemption(never, never).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj(),
		MakeLocalQueue("x", "lq", "x").Obj(), MakeLocalQueue("y", "lq", "y").Obj())
	admitted(t, s, "x", job("x", "x0", 2, 0))
	admitted(t, s, "b", job("b", "b100", 2, 100))
	apply(t, s, job("a", "a10", 2, 10).Obj())
	return s
}

// Kueue v0.17.0: a BestEffortFIFO workload whose cycle found it
// inadmissible waits in its queue's inadmissible list until a requeue event
// (QueueAssociatedInadmissibleWorkloadsAfter: quota released in its tree);
// an admission is none. Here x's new x5 borrows y's 1 cpu, which makes x a
// borrower whose x0 a10 could reclaim, and the engine used to preempt x0 in
// the next cycle. Kueue waits for a release: b100 finishing frees a's 2 cpu
// and a10 is admitted without evicting anyone. The incremental cycle and the
// walk of every queue decide alike.
func TestParkedWorkloadDoesNotPreemptBeforeARelease(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkWorld(t, opts)
		apply(t, s, job("x", "x5", 1, 5).Obj())
		if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("incremental=%v: admitted %v, want x5 borrowing y's quota", !opts.DisableIncrementalCycle, got)
		}
		waitsForB100(t, s, opts, 1)
	}
}

// waitsForB100 checks that parkWorld's a preempts nothing in four cycles from
// second from on, and that once b100 finishes a10 is admitted in the room it
// freed, without preemption.
func waitsForB100(t *testing.T, s *Scheduler, opts Options, from int) {
	t.Helper()
	for i := from; i < from+4; i++ {
		if ds := s.Cycle(now.Add(time.Duration(i) * time.Second)); len(preempts(ds)) != 0 {
			t.Fatalf("incremental=%v: cycle at %ds preempted %s without a release in the tree", !opts.DisableIncrementalCycle, i, victimNames(ds))
		}
	}
	s.FinishWorkload(key("b", "b100"))
	ds := s.Cycle(now.Add(time.Duration(from+5) * time.Second))
	if got := admittedNames(ds); !slices.Equal(got, []string{"a10"}) || len(preempts(ds)) != 0 {
		t.Fatalf("incremental=%v: after b100 finished, decisions %v, want a10 admitted without preemption", !opts.DisableIncrementalCycle, ds)
	}
}

// A queue's second workload, parked in a later cycle than its first (Kueue
// pops one head per cycle and parks each in turn), stays in Kueue's
// inadmissible list like the first: an admission in the tree requeues
// neither (Kueue v0.17.0, pkg/cache/queue: only
// QueueAssociatedInadmissibleWorkloadsAfter moves them back to the heap).
// The engine used to count a parked workload as its queue's head when it
// evaluated it again, so the second one's parking became tentative in each
// later cycle, and x5's admission, which made x a borrower, let a9 reclaim
// x0 in the next cycle. Kueue waits for a release, as for a10.
func TestLaterParkedWorkloadStaysParkedThroughAnAdmission(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkQueues(t, opts, kueue.BestEffortFIFO)
		apply(t, s, job("a", "a9", 2, 9).Obj())
		for i := 0; i < 3; i++ {
			if ds := s.Cycle(now.Add(time.Duration(i) * time.Second)); len(admits(ds)) != 0 || len(preempts(ds)) != 0 {
				t.Fatalf("incremental=%v: cycle %d decided %v, want a10 and a9 to wait", !opts.DisableIncrementalCycle, i+1, ds)
			}
		}
		apply(t, s, job("x", "x5", 1, 5).Obj())
		if got := admittedNames(s.Cycle(now.Add(3 * time.Second))); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("incremental=%v: admitted %v, want x5 borrowing y's quota", !opts.DisableIncrementalCycle, got)
		}
		waitsForB100(t, s, opts, 4)
	}
}

// Kueue's cycle takes one head per queue: when a's head gets no flavor at
// all (huge asks for more than a can ever have), a10 behind it is a head of
// a later cycle, and cannot hold a's quota against x's head in this one
// (Kueue v0.17.0, scheduler.go: reserveCapacityForUnreclaimablePreempt runs
// for the cycle's heads only). So x5 is admitted in the first cycle, as a
// borrower, and a10 reclaims x0 in the next. The engine used to count a10's
// hold as a's head's, which kept x5 out for a cycle.
func TestHoldBehindAHeadWithNoFlavorIsALaterHold(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkQueues(t, opts, kueue.BestEffortFIFO)
		apply(t, s, job("a", "huge", 9, 10).Created(-time.Second).Obj())
		apply(t, s, job("x", "x5", 1, 5).Created(time.Second).Obj())
		if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("incremental=%v: first cycle admitted %v, want x5", !opts.DisableIncrementalCycle, got)
		}
		if got := victimNames(s.Cycle(now.Add(time.Second))); got != "x0:InCohortReclamation" {
			t.Fatalf("incremental=%v: second cycle's victims %q, want x0:InCohortReclamation", !opts.DisableIncrementalCycle, got)
		}
	}
}

// Kueue's other requeue events take a parked workload out of the
// inadmissible list too, though they free no quota: a pending workload of
// the tree deleted or deactivated (its workload controller's delete and
// "finished or inactive" cases), an admitted one's priority changed. After
// each, a10 searches again and reclaims x0 from the borrowing x.
func TestRequeueEventsUnparkWithoutFreeingQuota(t *testing.T) {
	events := map[string]func(t *testing.T, s *Scheduler){
		"pending workload deleted": func(t *testing.T, s *Scheduler) {
			s.DeleteWorkload(key("y", "waiting"))
		},
		"pending workload deactivated": func(t *testing.T, s *Scheduler) {
			apply(t, s, job("y", "waiting", 9, 0).Active(false).Obj())
		},
		"admitted workload's priority changed": func(t *testing.T, s *Scheduler) {
			admitted(t, s, "b", job("b", "b100", 2, 90))
		},
	}
	for _, name := range []string{"pending workload deleted", "pending workload deactivated", "admitted workload's priority changed"} {
		for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
			t.Run(name, func(t *testing.T) {
				s := parkWorld(t, opts)
				apply(t, s, job("y", "waiting", 9, 0).Obj()) // never fits
				apply(t, s, job("x", "x5", 1, 5).Obj())
				if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
					t.Fatalf("admitted %v, want x5", got)
				}
				if ds := s.Cycle(now.Add(time.Second)); len(preempts(ds)) != 0 {
					t.Fatalf("a10 preempted %s while parked", victimNames(ds))
				}
				events[name](t, s)
				ds := s.Cycle(now.Add(2 * time.Second))
				if got := victimNames(ds); got != "x0:InCohortReclamation" {
					t.Fatalf("incremental=%v: victims %q, want x0:InCohortReclamation (decisions %v)", !opts.DisableIncrementalCycle, got, ds)
				}
			})
		}
	}
}

// Kueue's workload controller requeues the tree's parked workloads on every
// update of an inactive workload, not only on the one that deactivates it
// (its "finished or inactive" case, Kueue v0.17.0): here y's waiting,
// deactivated before a10 was parked, is moved to another priority class,
// and a10 searches again and reclaims x0 from the borrowing x. An update
// that changes nothing the engine reads leaves a10 parked.
func TestUpdateOfAnInactiveWorkloadUnparks(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkQueues(t, opts, kueue.BestEffortFIFO)
		apply(t, s, job("y", "waiting", 9, 0).Active(false).Obj())
		for i := 0; i < 2; i++ {
			if ds := s.Cycle(now); len(admits(ds)) != 0 || len(preempts(ds)) != 0 {
				t.Fatalf("cycle %d decided %v, want a10 to wait", i+1, ds)
			}
		}
		apply(t, s, job("x", "x5", 1, 5).Obj())
		if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("incremental=%v: admitted %v, want x5", !opts.DisableIncrementalCycle, got)
		}
		apply(t, s, job("y", "waiting", 9, 0).Active(false).Obj())
		if ds := s.Cycle(now.Add(time.Second)); len(preempts(ds)) != 0 {
			t.Fatalf("incremental=%v: a10 preempted %s after an update that changed nothing", !opts.DisableIncrementalCycle, victimNames(ds))
		}
		apply(t, s, job("y", "waiting", 9, 20).Active(false).Obj())
		if got := victimNames(s.Cycle(now.Add(2 * time.Second))); got != "x0:InCohortReclamation" {
			t.Fatalf("incremental=%v: victims %q after the inactive workload's priority changed, want x0:InCohortReclamation", !opts.DisableIncrementalCycle, got)
		}
	}
}

// A StrictFIFO head is tried again in every cycle (Kueue requeues it at
// once): it is never parked, and reclaims as soon as x borrows, here with
// x5 admitted by another scheduler's hand (an admission, not a release).
func TestStrictFIFOHeadIsNotParked(t *testing.T) {
	for _, strategy := range []kueue.QueueingStrategy{kueue.StrictFIFO, kueue.BestEffortFIFO} {
		s := parkQueues(t, Options{}, strategy)
		if ds := s.Cycle(now); len(preempts(ds)) != 0 {
			t.Fatalf("%s: preempted %s with no borrower of lower priority", strategy, victimNames(ds))
		}
		apply(t, s, job("x", "x5", 1, 5).ReserveQuota("x", "default").QuotaReservedAt(time.Minute).Obj())
		want := "x0:InCohortReclamation"
		if strategy == kueue.BestEffortFIFO {
			want = "" // parked until a release
		}
		if got := victimNames(s.Cycle(now.Add(time.Second))); got != want {
			t.Fatalf("%s: victims %q, want %q", strategy, got, want)
		}
	}
}

// Kueue updates a workload of its inadmissible list in place when nothing it
// schedules by changed (ClusterQueue.PushOrUpdate: same spec, reclaimable
// pods, Evicted and Requeued conditions): the manager's own status writes,
// which come back as updates, do not take a parked workload out. A change of
// its spec does.
func TestUnchangedUpdateKeepsAWorkloadParked(t *testing.T) {
	s := parkWorld(t, Options{})
	apply(t, s, job("x", "x5", 1, 5).Obj())
	if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
		t.Fatalf("admitted %v, want x5", got)
	}
	apply(t, s, job("a", "a10", 2, 10).Obj()) // the same workload, as the informer brings it back
	if ds := s.Cycle(now.Add(time.Second)); len(preempts(ds)) != 0 {
		t.Fatalf("an unchanged update unparked a10: it preempted %s", victimNames(ds))
	}
	apply(t, s, job("a", "a10", 2, 11).Obj()) // its priority changed
	if got := victimNames(s.Cycle(now.Add(2 * time.Second))); got != "x0:InCohortReclamation" {
		t.Fatalf("victims %q after a10's spec changed, want x0:InCohortReclamation", got)
	}
}

// A manager upserts a ClusterQueue, LocalQueue or Cohort on each of its own
// status writes. Kueue requeues its inadmissible workloads on a change of
// spec, not of status, and so must the engine: a status write leaves a10
// parked (and no queue woken); a change of a ClusterQueue's spec is a change
// of structure that takes it out.
func TestStatusWriteIsNoChangeOfStructure(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkWorld(t, opts)
		apply(t, s, job("x", "x5", 1, 5).Obj())
		if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("admitted %v, want x5", got)
		}
		y := MakeClusterQueue("y").Cohort("c").Quota("default", "cpu", "1").Preemption(never, never).Obj()
		y.Status.PendingWorkloads = 3
		apply(t, s, y)
		lq := MakeLocalQueue("y", "lq", "y").Obj()
		lq.Status.PendingWorkloads = 3
		apply(t, s, lq)
		if ds := s.Cycle(now.Add(time.Second)); len(preempts(ds)) != 0 {
			t.Fatalf("incremental=%v: a status write took a10 out of the inadmissible list: it preempted %s", !opts.DisableIncrementalCycle, victimNames(ds))
		}
		y.Spec.QueueingStrategy = kueue.StrictFIFO
		apply(t, s, y)
		if got := victimNames(s.Cycle(now.Add(2 * time.Second))); got != "x0:InCohortReclamation" {
			t.Fatalf("incremental=%v: victims %q after a change of y's spec, want x0:InCohortReclamation", !opts.DisableIncrementalCycle, got)
		}
	}
}

// Kueue pops one head per queue per cycle, so a queue's second workload is
// tried in a later cycle than its first, and sees the admissions of the
// first cycle as candidates (decisions run dec-77, s37-3 event 8, where
// Kueue's later cycle reclaimed a borrower its first cycle admitted). In
// parkWorld's queues, x5 arrives with a10. If a10 is a's head, Kueue tries
// it first: it holds a's quota for a cycle, x5 is admitted in the next as a
// borrower, and a10 stays parked. If a's head is an older workload that can
// never fit, Kueue tries a10 only in a later cycle, after x5's admission
// made x borrow, and reclaims x0. The engine evaluates a10 in the cycle that
// admits x5, where x5's admission gives it no victim yet (deliberate
// difference 3): it parks a10 only when a10 is a's head.
func TestLaterWorkloadOfAQueueIsNotParkedBeforeTheCycleItWouldBeTried(t *testing.T) {
	for _, behind := range []bool{false, true} {
		for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
			s := parkQueues(t, opts, kueue.BestEffortFIFO)
			if behind {
				apply(t, s, job("a", "huge", 9, 10).Created(-time.Second).Obj())
			}
			apply(t, s, job("x", "x5", 1, 5).Created(time.Second).Obj())
			var victims []string
			admittedX5 := false
			for i := 0; i < 6; i++ {
				ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
				admittedX5 = admittedX5 || slices.Contains(admittedNames(ds), "x5")
				for _, p := range preempts(ds) {
					for _, v := range p.Victims {
						victims = append(victims, v.Workload.Name)
						s.EvictWorkload(v.Workload)
					}
				}
			}
			want := []string(nil)
			if behind {
				want = []string{"x0"}
			}
			if !admittedX5 || !slices.Equal(victims, want) {
				t.Errorf("behind=%v incremental=%v: x5 admitted %v, victims %v; want x5 admitted and victims %v",
					behind, !opts.DisableIncrementalCycle, admittedX5, victims, want)
			}
		}
	}
}
