package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// A workload that waits for quota it may not be able to reclaim holds it for
// the rest of the cycle (Kueue's reserveCapacityForUnreclaimablePreempt, see
// hold.go). Kueue skips a head of another queue that no longer fits once that
// hold is charged ("Workload no longer fits after processing another
// workload") and requeues it at once (requeueAndUpdate turns the skipped
// entry's reason into RequeueReasonFailedAfterNomination, which
// requeueIfNotPresent in pkg/cache/queue puts straight back into the heap),
// while a BestEffortFIFO holder, which found no victims, is parked. So
// Kueue's next cycle, with no other change, admits the skipped head. Found by
// `hack/kueue-perf.sh --load decisions` (scenario s1-0, event 9): Quokka's
// drivers stopped after the holding cycle, since it changed nothing, and the
// head stayed pending until something else happened in the cluster.
//
// The world: cq3 lends 3 of its 5 cpu, cq1 (nominal 1) borrows 2 of them for
// a high-priority workload, so 1 cpu of the cohort is free. P (cq3, 2 cpu) is
// within cq3's nominal quota but can reclaim nothing from higher-priority
// workloads, so it waits and holds; Q (cq1, 1 cpu, borrowing) fits only
// without P's hold.
func wantsCycleWorld(t *testing.T, strategy kueue.QueueingStrategy) *Scheduler {
	t.Helper()
	cpu := corev1.ResourceCPU
	return world(t, Options{},
		namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeClusterQueue("cq1").Cohort("c").Quota("f1", cpu, "1").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("cq3").Cohort("c").Strategy(strategy).Quota("f1", cpu, "5", Lending("3")).
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).Obj(),
		MakeLocalQueue("ns", "lq1", "cq1").Obj(), MakeLocalQueue("ns", "lq3", "cq3").Obj(),
		MakeWorkload("ns", "a1").Queue("lq1").Priority(20).Request(cpu, "3").ReserveQuota("cq1", "f1").Obj(),
		MakeWorkload("ns", "a3").Queue("lq3").Priority(0).Request(cpu, "2").ReserveQuota("cq3", "f1").Obj(),
		MakeWorkload("ns", "p").Queue("lq3").Priority(10).Created(time.Second).Request(cpu, "2").Obj(),
		MakeWorkload("ns", "q").Queue("lq1").Priority(0).Created(2*time.Second).Request(cpu, "1").Obj(),
	)
}

func TestWantsCycleAfterAOneCycleHold(t *testing.T) {
	s := wantsCycleWorld(t, kueue.BestEffortFIFO)
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("first cycle admitted %v; want nothing while p holds the free cpu", got)
	}
	mustPending(t, ds, "q", ReasonInsufficientQuotaInCohort)
	if !s.WantsCycle() {
		t.Fatal("WantsCycle() = false after a cycle in which a BestEffortFIFO workload held quota; q would wait for an unrelated change")
	}
	ds = s.Cycle(now.Add(time.Millisecond))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "q" {
		t.Fatalf("second cycle admitted %v; want [q], as Kueue's next cycle does with p parked", got)
	}
	if s.WantsCycle() {
		t.Fatal("WantsCycle() = true after a cycle without holds; drivers would cycle for nothing")
	}
	// p holds again after the next release in the tree, once.
	s.FinishWorkload(key("ns", "q"))
	s.Cycle(now.Add(2 * time.Millisecond))
	if !s.WantsCycle() {
		t.Fatal("WantsCycle() = false after a release made p hold again")
	}
}

// Under StrictFIFO the holder is the head of its queue in every cycle, in
// Kueue as here, and holds in every one: another cycle would decide the same,
// so none is asked for once q, which waits too and holds once, has held.
func TestWantsCycleNotForStrictFIFOHolds(t *testing.T) {
	s := wantsCycleWorld(t, kueue.StrictFIFO)
	for i := 0; i < 4; i++ {
		ds := s.Cycle(now.Add(time.Duration(i) * time.Millisecond))
		if got := admittedNames(ds); len(got) != 0 {
			t.Fatalf("cycle %d admitted %v; want nothing while the StrictFIFO head p holds the free cpu", i, got)
		}
		if i > 0 && s.WantsCycle() {
			t.Fatalf("cycle %d: WantsCycle() = true with only the StrictFIFO hold left, which every cycle repeats", i)
		}
	}
}
