package scheduler

import (
	"slices"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// The tests below run parkWorld's queues (park_test.go), where a's a10
// (2 cpu, priority 10) needs preemption and finds no victims, with Kueue's
// SchedulingEquivalenceHashing on (the gate's default since Kueue v0.18, and
// Quokka's) and off (Kueue v0.17.0's default).

// Kueue's TestPushOrUpdateRespectsInadmissibleHashes (pkg/cache/queue,
// cluster_queue_test.go at ff69552): "workload with blocked hash goes to
// inadmissible", "workload with non-blocked hash goes to heap". Once a10 is
// parked, x5's admission makes x a borrower whose x0 a's workloads could
// reclaim. A workload of a10's class created then is parked on arrival and
// waits with a10 for a release; one of another class (priority 9) is a new
// head and reclaims x0. With the gate off, both are heads and reclaim.
func TestKueueArrivalOfAParkedClassIsParked(t *testing.T) {
	for _, hashing := range []bool{true, false} {
		for _, arrival := range []struct {
			name     string
			priority int
		}{{"a10b", 10}, {"a9", 9}} {
			for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
				opts.NoEquivalenceHashing = !hashing
				s := parkWorld(t, opts)
				apply(t, s, job("x", "x5", 1, 5).Obj())
				if got := admittedNames(s.Cycle(now.Add(time.Second))); !slices.Equal(got, []string{"x5"}) {
					t.Fatalf("admitted %v, want x5", got)
				}
				apply(t, s, job("a", arrival.name, 2, arrival.priority).Created(time.Minute).Obj())
				victims := preemptionsIn(s, 2, 5)
				var want []string
				if !hashing || arrival.priority != 10 {
					want = []string{arrival.name + ">x0:InCohortReclamation"}
				}
				if !slices.Equal(victims, want) {
					t.Errorf("hashing=%v %s incremental=%v: preemptions %v, want %v",
						hashing, arrival.name, !opts.DisableIncrementalCycle, victims, want)
				}
			}
		}
	}
}

// Kueue's TestPushOrUpdateRespectsInadmissibleHashes again, for what a
// parked class holds: a10b, of a10's class, arrives with x5. With the gate
// on it goes to the inadmissible list unevaluated, so it never holds quota
// for a preemption it cannot make (reserveCapacityForUnreclaimablePreempt
// runs for a cycle's heads), and x5 is admitted in the same cycle, borrowing
// y's cpu. With the gate off a10b is a's head, holds a's 2 cpu ahead of x5
// (a10b does not borrow, x5 would), and x5 waits a cycle.
func TestKueueParkedClassHoldsNoQuota(t *testing.T) {
	for _, hashing := range []bool{true, false} {
		for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
			opts.NoEquivalenceHashing = !hashing
			s := parkWorld(t, opts)
			apply(t, s, job("a", "a10b", 2, 10).Created(time.Minute).Obj())
			apply(t, s, job("x", "x5", 1, 5).Created(2*time.Minute).Obj())
			admittedIn := 0
			for i := 1; i <= 3 && admittedIn == 0; i++ {
				if slices.Contains(admittedNames(s.Cycle(now.Add(time.Duration(i)*time.Second))), "x5") {
					admittedIn = i
				}
			}
			want := 1
			if !hashing {
				want = 2
			}
			if admittedIn != want {
				t.Errorf("hashing=%v incremental=%v: x5 admitted in cycle %d, want %d", hashing, !opts.DisableIncrementalCycle, admittedIn, want)
			}
		}
	}
}

// Kueue's TestRecordInadmissibleHash, "bulk-moves matching workloads": when
// a10, a's head, finds no victims, a10b of its class waiting behind it goes
// to the inadmissible list with it. Here the tree admits in that cycle (m1,
// memory only, untouched by a10's hold of cpu) and x5 is then found
// admitted by another hand, which makes x a borrower whose x0 a10b could
// reclaim. With the gate on a10b waits with a10 for a release; with it off
// it is a's head in the next cycle (Kueue) and reclaims x0. m's queue is
// outside a's class and preemption: it only makes the tree admit.
func TestKueueParkedClassMovesItsWaitingWorkloads(t *testing.T) {
	for _, hashing := range []bool{true, false} {
		for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
			opts.NoEquivalenceHashing = !hashing
			s := parkQueues(t, opts, kueue.BestEffortFIFO)
			apply(t, s, MakeClusterQueue("m").Cohort("c").Quota("default", "memory", "4").Preemption(never, never).Obj())
			apply(t, s, MakeLocalQueue("m", "lq", "m").Obj())
			apply(t, s, job("a", "a10b", 2, 10).Created(time.Second).Obj())
			apply(t, s, MakeWorkload("m", "m1").Queue("lq").Request("memory", "1").Obj())
			if got := admittedNames(s.Cycle(now)); !slices.Equal(got, []string{"m1"}) {
				t.Fatalf("hashing=%v: first cycle admitted %v, want m1", hashing, got)
			}
			apply(t, s, job("x", "x5", 1, 5).ReserveQuota("x", "default").QuotaReservedAt(time.Minute).Obj())
			victims := preemptionsIn(s, 1, 4)
			var want []string
			if !hashing {
				want = []string{"a10b>x0:InCohortReclamation"}
			}
			if !slices.Equal(victims, want) {
				t.Errorf("hashing=%v incremental=%v: preemptions %v, want %v", hashing, !opts.DisableIncrementalCycle, victims, want)
			}
		}
	}
}

// Kueue's TestQueueInadmissibleWorkloadsClearsHashes: a requeue event clears
// the classes, and the workloads of a10's class are evaluated afresh. Here
// the event is a pending workload of the tree deleted (it frees no quota):
// a10b, parked by its class since x5 borrowed, reclaims x0 after it.
func TestKueueRequeueEventClearsParkedClasses(t *testing.T) {
	for _, opts := range []Options{{}, {DisableIncrementalCycle: true}} {
		s := parkWorld(t, opts)
		apply(t, s, job("y", "waiting", 9, 0).Obj()) // never fits
		apply(t, s, job("x", "x5", 1, 5).Obj())
		if got := admittedNames(s.Cycle(now.Add(time.Second))); !slices.Equal(got, []string{"x5"}) {
			t.Fatalf("admitted %v, want x5", got)
		}
		apply(t, s, job("a", "a10b", 2, 10).Created(time.Minute).Obj())
		if ds := s.Cycle(now.Add(2 * time.Second)); len(preempts(ds)) != 0 {
			t.Fatalf("incremental=%v: preempted %s while a10's class is parked", !opts.DisableIncrementalCycle, victimNames(ds))
		}
		s.DeleteWorkload(key("y", "waiting"))
		ds := s.Cycle(now.Add(3 * time.Second))
		ps := preempts(ds)
		if len(ps) != 1 || victimNames(ds) != "x0:InCohortReclamation" {
			t.Fatalf("incremental=%v: after the requeue event, preemptions %v, want x0 reclaimed", !opts.DisableIncrementalCycle, ds)
		}
	}
}

// Kueue's handleInadmissibleHash: "Only applies to BestEffortFIFO queues; in
// StrictFIFO the head workload stays in the heap and must not cause
// equivalent workloads to be skipped." And the class is the workload's
// priority and pod sets, not its name.
func TestKueueEquivalenceClassKey(t *testing.T) {
	for _, strategy := range []kueue.QueueingStrategy{kueue.BestEffortFIFO, kueue.StrictFIFO} {
		s := parkQueues(t, Options{}, strategy)
		for _, w := range []*kueue.Workload{job("a", "same", 2, 10).Created(time.Second).Obj(), job("a", "bigger", 3, 10).Obj(), job("a", "lower", 2, 9).Obj()} {
			apply(t, s, w)
		}
		a10, same := s.workloads[key("a", "a10")], s.workloads[key("a", "same")]
		c10, ok10 := a10.classOf()
		cSame, okSame := same.classOf()
		if !ok10 || !okSame || c10 != cSame {
			t.Fatalf("a10 and same: classes %v and %v, want one class", c10, cSame)
		}
		for _, other := range []string{"bigger", "lower"} {
			if c, _ := s.workloads[key("a", other)].classOf(); c == c10 {
				t.Errorf("%s is in a10's class", other)
			}
		}
		s.Cycle(now)
		q, _ := s.cache.ClusterQueue("a")
		if got, want := s.classParked(q, same), strategy == kueue.BestEffortFIFO; got != want {
			t.Errorf("%s: same parked by its class %v, want %v", strategy, got, want)
		}
	}
}

// preemptionsIn runs cycles from to to-1, a second apart, evicting every
// victim at once, and returns the preemptions as "preemptor>victims".
func preemptionsIn(s *Scheduler, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		for _, p := range preempts(s.Cycle(now.Add(time.Duration(i) * time.Second))) {
			out = append(out, p.Preemptor.Name+">"+victimNames([]Decision{p}))
			confirm(s, []Decision{p})
		}
	}
	return out
}
