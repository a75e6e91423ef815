package scheduler

import (
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// ClusterQueuePendingClasses counts the classes of a queue's pending
// workloads as Kueue's pending_scheduling_hashes counts their hashes: the
// parked ones' (Kueue's inadmissible list) apart from the others'. It follows
// Kueue's TestQueueInadmissibleWorkloadsClearsHashes: a parked class counts
// as inadmissible until a requeue event, then as active.
func TestClusterQueuePendingClasses(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("q").Quota("default", "cpu", "2").Preemption(never, never).Obj(),
		MakeLocalQueue("ns", "lq", "q").Obj())
	admitted(t, s, "q", job("ns", "x", 2, 0))
	check := func(step string, wantActive, wantInadmissible int) {
		t.Helper()
		a, i, ok := s.ClusterQueuePendingClasses("q")
		if !ok || a != wantActive || i != wantInadmissible {
			t.Errorf("%s: active %d, inadmissible %d (ok %v); want %d and %d", step, a, i, ok, wantActive, wantInadmissible)
		}
	}
	if _, _, ok := s.ClusterQueuePendingClasses("missing"); ok {
		t.Error("an unknown ClusterQueue answered")
	}
	// Two workloads of one class (priority 0, 2 cpu) and one of another
	// (priority 5): three workloads, two classes, none evaluated yet.
	apply(t, s, job("ns", "a1", 2, 0).Created(time.Second).Obj())
	apply(t, s, job("ns", "a2", 2, 0).Created(2*time.Second).Obj())
	apply(t, s, job("ns", "b1", 2, 5).Created(3*time.Second).Obj())
	check("before a cycle", 2, 0)
	// None fits beside x: all parked.
	if ds := s.Cycle(now); len(admits(ds)) != 0 {
		t.Fatalf("admitted %v", admits(ds))
	}
	check("after a cycle that parked them", 0, 2)
	// One more of a1's class joins it among the parked; a new class waits
	// for its evaluation; a deactivated workload is in no queue.
	apply(t, s, job("ns", "a3", 2, 0).Created(4*time.Second).Obj())
	apply(t, s, job("ns", "c1", 2, 7).Created(5*time.Second).Obj())
	apply(t, s, job("ns", "d1", 2, 9).Active(false).Obj())
	check("after two arrivals and a deactivated workload", 1, 2)
	// x finishes: the release is a requeue event, every class is active.
	apply(t, s, job("ns", "x", 2, 0).ReserveQuota("q", "default").Finished().Obj())
	check("after a release", 3, 0)
	// A stopped ClusterQueue reports every class as inadmissible, once.
	apply(t, s, MakeClusterQueue("q").Quota("default", "cpu", "2").Preemption(never, never).StopPolicy(kueue.Hold).Obj())
	check("stopped", 0, 3)
}
