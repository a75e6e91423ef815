package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue nominates every head (flavors, preemption targets) against the
// snapshot its cycle began with, where no hold is; a waiting workload's hold
// (reserveCapacityForUnreclaimablePreempt) is added to the snapshot when the
// loop reaches it, and a later head whose nominated assignment no longer
// fits is skipped: "Workload no longer fits after processing another
// workload" (pkg/scheduler/scheduler.go, schedule). It preempts nothing and
// takes no other flavor, and under a StrictFIFO holder, which holds in every
// cycle, it is skipped in every cycle.
//
// Found by `hack/kueue-perf.sh --load decisions --seed 5 --scenario 0`
// (event 4, docs/kueue-decisions.md): the engine assigned w05 with w04's hold
// counted, found it had to preempt within cq2, and evicted w01, which Kueue
// never did. The world is that scenario's: cq1 (StrictFIFO, preempts nobody)
// and cq2 (lends 1 of its 5 cpu) share a Cohort; cq1 uses 2 of its 3 cpu, cq2
// all 5. w04 (cq1, 3 cpu) would borrow and can reclaim nothing: it holds its
// 3 cpu. w05 (cq2, 1 cpu) fits by borrowing cq1's unused cpu, but not once
// w04's hold is counted.
func holdSkipWorld(t *testing.T, cq2 *ClusterQueueWrapper, flavors ...string) *Scheduler {
	t.Helper()
	cpu := corev1.ResourceCPU
	objs := []any{namespace{name: "ns"},
		MakeClusterQueue("cq1").Cohort("c").Strategy(kueue.StrictFIFO).Quota("f1", cpu, "3").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).Obj(),
		cq2.Obj(),
		MakeLocalQueue("ns", "lq1", "cq1").Obj(), MakeLocalQueue("ns", "lq2", "cq2").Obj(),
		MakeWorkload("ns", "w01").Queue("lq2").Priority(0).Request(cpu, "3").ReserveQuota("cq2", "f1").Obj(),
		MakeWorkload("ns", "w02").Queue("lq1").Priority(10).Request(cpu, "2").ReserveQuota("cq1", "f1").Obj(),
		MakeWorkload("ns", "w03").Queue("lq2").Priority(10).Request(cpu, "2").ReserveQuota("cq2", "f1").Obj(),
		MakeWorkload("ns", "w04").Queue("lq1").Priority(20).Created(time.Second).Request(cpu, "3").Obj(),
		MakeWorkload("ns", "w05").Queue("lq2").Priority(20).Created(2*time.Second).Request(cpu, "1").Obj(),
	}
	for _, f := range flavors {
		objs = append(objs, MakeFlavor(f).Obj())
	}
	return world(t, Options{}, objs...)
}

func seed5CQ2() *ClusterQueueWrapper {
	return MakeClusterQueue("cq2").Cohort("c").Quota("f1", corev1.ResourceCPU, "5", Lending("1")).
		Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerOrNewerEqualPriority)
}

func TestKueueSkipsAHeadThatNoLongerFitsUnderAStrictFIFOHold(t *testing.T) {
	s := holdSkipWorld(t, seed5CQ2(), "f1")
	for i := 0; i < 3; i++ {
		ds := s.Cycle(now.Add(time.Duration(i) * time.Millisecond))
		if got := admittedNames(ds); len(got) != 0 {
			t.Fatalf("cycle %d admitted %v; want nothing while w04 holds the cohort's free cpu", i, got)
		}
		if ps := preempts(ds); len(ps) != 0 {
			t.Fatalf("cycle %d preempted %+v; Kueue skips w05, whose nominated assignment (borrowing) does not fit beside the hold, and searches no victims", i, ps)
		}
		if p := mustPending(t, ds, "w05", ReasonInsufficientQuotaInCohort); p.Message != skippedMessage {
			t.Fatalf("cycle %d: w05's message %q, want Kueue's %q", i, p.Message, skippedMessage)
		}
	}
	// w02 finishes: w04 fits within cq1's nominal quota and is admitted;
	// w05 then needs preemption within cq2 (cq1 lends nothing left) and
	// evicts w01, as Kueue does in the cycle after w04's (it nominated w05
	// against the state before w04's admission, then skipped it).
	s.FinishWorkload(key("ns", "w02"))
	var admitted []string
	var victims []string
	for i := 0; i < 2; i++ {
		ds := s.Cycle(now.Add(time.Duration(10+i) * time.Millisecond))
		admitted = append(admitted, admittedNames(ds)...)
		for _, p := range preempts(ds) {
			if p.Preemptor.Name != "w05" {
				t.Fatalf("preemptor %s, want w05", p.Preemptor.Name)
			}
			for _, v := range p.Victims {
				victims = append(victims, v.Workload.Name)
			}
		}
	}
	if len(admitted) != 1 || admitted[0] != "w04" {
		t.Fatalf("admitted %v after w02 finished, want [w04]", admitted)
	}
	if len(victims) != 1 || victims[0] != "w01" {
		t.Fatalf("w05's victims %v, want [w01]", victims)
	}
}

// Nor does a skipped head take a flavor it would fit in with the hold
// counted: Kueue's nomination stopped at f1, where w05 fits by borrowing
// (whenCanBorrow: MayStopSearch), and the check of the loop only skips it.
func TestKueueSkippedHeadTakesNoOtherFlavor(t *testing.T) {
	cpu := corev1.ResourceCPU
	cq2 := MakeClusterQueue("cq2").Cohort("c").WhenCanBorrow(kueue.MayStopSearch).
		Quota("f1", cpu, "5", Lending("1")).Quota("f2", cpu, "2", Lending("0")).
		Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever)
	s := holdSkipWorld(t, cq2, "f1", "f2")
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v; want nothing: w05 is nominated in f1 and skipped, not admitted in f2", got)
	}
	if p := mustPending(t, ds, "w05", ReasonInsufficientQuotaInCohort); p.Message != skippedMessage {
		t.Fatalf("w05's message %q, want Kueue's %q", p.Message, skippedMessage)
	}
}
