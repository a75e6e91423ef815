package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue's cycle nominates one head per ClusterQueue; a StrictFIFO head that
// cannot get its quota holds it (reserveCapacityForUnreclaimablePreempt) for
// the rest of that cycle, against the heads after it. A queue's second
// workload is a head of Kueue's next cycle, so what it holds cannot keep out
// another queue's head of this one: that head was admitted a cycle earlier.
// Quokka's cycle takes a queue's next workload as soon as its previous one is
// admitted (deliberate difference 1), so that next workload's hold must not
// skip the heads Kueue nominated with its queue's first.
//
// Found by `hack/kueue-perf.sh --load decisions` (seed 8, scenario 1, event
// 20): after w07 finished, 3 cpu of the Cohort's own quota were free; Kueue's
// cycle admitted cq2's StrictFIFO head w12 (2 cpu, priority 10) and cq1's
// head w11 (1 cpu, priority 0); its next cycle left cq2's w13 (3 cpu) pending.
// The engine took w13 right after w12, ahead of w11 by priority; w13 held the
// last cpu and w11 was skipped ("Workload no longer fits after processing
// another workload").
func TestKueueLaterWorkloadsHoldDoesNotSkipAnotherQueuesHead(t *testing.T) {
	cpu := corev1.ResourceCPU
	cq1 := MakeClusterQueue("cq1").Cohort("c").Quota("f1", cpu, "2").
		Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).Obj()
	cq2 := MakeClusterQueue("cq2").Cohort("c").Quota("f1", cpu, "3").Strategy(kueue.StrictFIFO).
		WhenCanPreempt(kueue.MayStopSearch).Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj()
	w := func(name, lq string, prio int32, count int32, c string, at int) *WorkloadWrapper {
		return MakeWorkload("ns", name).Queue(lq).Priority(prio).Created(time.Duration(at)*time.Second).PodSet("main", count).Request(cpu, c)
	}
	s := world(t, Options{WaitOnOverlappingTargets: true}, namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeCohort("c").Obj(), MakeCohort("c2").Parent("c").Quota("f1", cpu, "3").Obj(), cq1, cq2,
		MakeLocalQueue("ns", "lq1", "cq1").Obj(), MakeLocalQueue("ns", "lq2", "cq2").Obj(),
		ksAdmittedAt(w("w09", "lq2", 20, 1, "3", 55), 56*time.Second, "cq2", "f1"),
		ksAdmittedAt(w("w10", "lq1", 10, 1, "2", 58), 59*time.Second, "cq1", "f1"),
		w("w06", "lq2", 0, 2, "3", 47).Obj(),
		w("w11", "lq1", 0, 1, "1", 60).Obj(),
		w("w12", "lq2", 10, 1, "2", 62).Obj(),
		w("w13", "lq2", 10, 1, "3", 64).Obj(),
		w("w14", "lq2", 0, 1, "1", 66).Obj(),
	)
	ds := s.Cycle(now)
	got := admittedNames(ds)
	if len(got) != 2 || got[0] != "w11" && got[1] != "w11" || got[0] != "w12" && got[1] != "w12" {
		t.Fatalf("admitted %v; want w11 and w12, the heads of Kueue's cycle", got)
	}
	mustPending(t, ds, "w13", ReasonInsufficientQuotaInCohort)
}

// A head skipped for the cycle because it fit only in the room a ready
// preemptor took (see TestKueueHeadInAReadyPreemptorsRoomIsSkipped) is
// nominated again in Kueue's next cycle, together with the next workload
// of the preemptor's queue; one whose queue may not preempt then holds what
// it waits for, ahead of that workload when Kueue's order puts it first, and
// the workload is skipped. The engine walks the preemptor's queue on in the
// same cycle, so the skipped head now holds at once, a later hold that only
// the workloads of queues that took their turn in the cycle see.
//
// Found by `hack/kueue-perf.sh --load decisions` (seed 5, scenario 0, event
// 12, runs dec-21 and dec-25): w11 reclaimed w04 from a StrictFIFO queue that
// may not preempt; once w04 was back at its head, Kueue admitted w11, skipped
// w04, and in its next cycle w04 held and w03, next in w11's queue, was
// skipped; the engine admitted w03 in the same cycle as w11.
//
// Here p (cqx) reclaims v from cqa, which borrows; once v has gone, p is
// admitted, v (back at cqa's head, priority 20) fit only in p's room, and w
// (cqx, priority 0) would borrow the last 2 cpu.
func TestKueueSkippedHeadHoldsAgainstTheReadyPreemptorsQueue(t *testing.T) {
	cpu := corev1.ResourceCPU
	s := world(t, Options{}, namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeClusterQueue("cqa").Cohort("c").Quota("f1", cpu, "3").Strategy(kueue.StrictFIFO).
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).Obj(),
		MakeClusterQueue("cqx").Cohort("c").Quota("f1", cpu, "5").
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeLocalQueue("ns", "lqa", "cqa").Obj(), MakeLocalQueue("ns", "lqx", "cqx").Obj(),
		ksAdmittedAt(MakeWorkload("ns", "x1").Queue("lqx").Priority(20).Request(cpu, "4"), time.Second, "cqx", "f1"),
		ksAdmittedAt(MakeWorkload("ns", "u").Queue("lqa").Priority(20).Request(cpu, "1"), 2*time.Second, "cqa", "f1"),
		ksAdmittedAt(MakeWorkload("ns", "v").Queue("lqa").Priority(20).Request(cpu, "3"), 3*time.Second, "cqa", "f1"),
		MakeWorkload("ns", "w").Queue("lqx").Priority(0).Created(4*time.Second).Request(cpu, "2").Obj(),
		MakeWorkload("ns", "p").Queue("lqx").Priority(10).Created(5*time.Second).Request(cpu, "1").Obj(),
	)
	ds := s.Cycle(now)
	if got := victimNames(ds); got != "v:InCohortReclamation" {
		t.Fatalf("victims %q, want v, for p (decisions %v)", got, ds)
	}
	s.EvictWorkload(key("ns", "v"))
	ds = s.Cycle(now.Add(time.Second))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "p" {
		t.Fatalf("admitted %v, want [p]; w comes after v's hold in Kueue's next cycle (decisions %v)", got, ds)
	}
	if p := mustPending(t, ds, "v", ReasonInsufficientQuotaInCohort); p.Message != skippedMessage {
		t.Fatalf("v's message %q, want Kueue's %q", p.Message, skippedMessage)
	}
	// And in the next cycle v holds again (StrictFIFO): w stays out.
	ds = s.Cycle(now.Add(2 * time.Second))
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v under v's hold (decisions %v)", got, ds)
	}
}

// A head that needs preemption checks its victims against what the cycle's
// earlier heads took or hold before it evicts them (Kueue's check before it
// issues a cycle's preemptions). A later hold, made by a queue's next
// workload after the queue took its turn, belongs to Kueue's next cycle: it
// cannot make that check fail for a head of this one, any more than it can
// skip a head that fits (TestKueueLaterWorkloadsHoldDoesNotSkipAnotherQueuesHead).
//
// Kueue's cycle nominates a1 (cqa) and b (cqb); a1 is admitted, and b, whose
// victim b0 leaves room beside a1, preempts it. a2, behind a1 in StrictFIFO
// cqa, holds its last cpu from the next cycle on. The engine takes a2 in the
// same cycle, ahead of b by priority; its hold must not keep b from
// preempting, or b would never preempt while a2 waits.
func TestKueueLaterHoldDoesNotStopAnotherQueuesHeadFromPreempting(t *testing.T) {
	cpu := corev1.ResourceCPU
	s := world(t, Options{WaitOnOverlappingTargets: true}, namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeClusterQueue("cqa").Cohort("c").Quota("f1", cpu, "4").Strategy(kueue.StrictFIFO).
			WhenCanPreempt(kueue.MayStopSearch).Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("cqb").Cohort("c").Quota("f1", cpu, "4").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("cqc").Cohort("c").Quota("f1", cpu, "0").Obj(),
		MakeLocalQueue("ns", "lqa", "cqa").Obj(), MakeLocalQueue("ns", "lqb", "cqb").Obj(), MakeLocalQueue("ns", "lqc", "cqc").Obj(),
		ksAdmittedAt(MakeWorkload("ns", "a0").Queue("lqa").Priority(20).Request(cpu, "2"), time.Second, "cqa", "f1"),
		ksAdmittedAt(MakeWorkload("ns", "b0").Queue("lqb").Priority(0).Request(cpu, "3"), 2*time.Second, "cqb", "f1"),
		ksAdmittedAt(MakeWorkload("ns", "c0").Queue("lqc").Priority(100).Request(cpu, "2"), 3*time.Second, "cqc", "f1"),
		MakeWorkload("ns", "a1").Queue("lqa").Priority(10).Created(10*time.Second).Request(cpu, "1").Obj(),
		MakeWorkload("ns", "a2").Queue("lqa").Priority(10).Created(11*time.Second).Request(cpu, "1").Obj(),
		MakeWorkload("ns", "b").Queue("lqb").Priority(5).Created(12*time.Second).Request(cpu, "3").Obj(),
	)
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "a1" {
		t.Fatalf("admitted %v, want [a1] (decisions %v)", got, ds)
	}
	if got := victimNames(ds); got != "b0:InClusterQueue" {
		t.Fatalf("victims %q, want b0, for b, as in Kueue's cycle (decisions %v)", got, ds)
	}
	mustPending(t, ds, "a2", ReasonInsufficientQuotaInCohort)
}
