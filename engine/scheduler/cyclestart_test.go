package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue's cycle chooses every head's preemption targets against the snapshot
// the cycle began with (its nomination), then, head by head, checks that
// the targets still make room beside what the earlier heads took or
// reserved, and skips the head when they do not ("Workload no longer fits
// after processing another workload"), preempting nothing: it searches again
// next cycle. Searching with the earlier preemptor's reservation counted
// instead finds a larger set of victims that does make room, and evicts
// them at once. Found by the fair-sharing decisions run (seed 3, scenario
// 10, event 14: Kueue evicted one workload, the engine three).
//
// The cohort has 1 cpu free, which cqb's b1 and b2 borrow with 1 of cqp's.
// p1 (cqa, created first) fits and takes it. p2 (cqp, within its nominal
// quota, so it may reclaim) needed only b1 against the cycle's start (the
// free cpu and b1's); with p1 admitted it would need b2 too. It is skipped,
// and nothing of cqb's is evicted in this cycle.
func TestKueueTargetsChosenAtCycleStartNoLongerFitAreSkipped(t *testing.T) {
	cpu := corev1.ResourceCPU
	s := world(t, Options{}, namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeClusterQueue("cqa").Cohort("c").Quota("f1", cpu, "1").Obj(),
		MakeClusterQueue("cqp").Cohort("c").Quota("f1", cpu, "2").
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).Obj(),
		MakeClusterQueue("cqb").Cohort("c").Quota("f1", cpu, "0").Obj(),
		MakeLocalQueue("ns", "lqa", "cqa").Obj(), MakeLocalQueue("ns", "lqp", "cqp").Obj(),
		MakeLocalQueue("ns", "lqb", "cqb").Obj(),
		MakeWorkload("ns", "b1").Queue("lqb").Priority(0).Request(cpu, "1").ReserveQuota("cqb", "f1").Obj(),
		MakeWorkload("ns", "b2").Queue("lqb").Priority(0).Request(cpu, "1").ReserveQuota("cqb", "f1").Obj(),
		MakeWorkload("ns", "p1").Queue("lqa").Priority(10).Created(time.Second).Request(cpu, "1").Obj(),
		MakeWorkload("ns", "p2").Queue("lqp").Priority(10).Created(2*time.Second).Request(cpu, "2").Obj(),
	)
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "p1" {
		t.Fatalf("admitted %v, want [p1] (decisions %v)", got, ds)
	}
	if ps := preempts(ds); len(ps) != 0 {
		t.Fatalf("preempted %+v; p2's targets, chosen against the cycle's start, no longer make room beside p1", ps)
	}
	if p := mustPending(t, ds, "p2", ReasonInsufficientQuotaInCohort); p.Message != skippedMessage {
		t.Fatalf("p2's message %q, want Kueue's %q", p.Message, skippedMessage)
	}
	// Kueue counts the skip (mode Preempt, "no longer fits") in
	// kueue_admission_cycle_preemption_skips.
	if got := s.PreemptionSkips(); len(got) != 1 || got["cqp"] != 1 {
		t.Errorf("PreemptionSkips() = %v, want cqp: 1", got)
	}
	// Next cycle p2 searches the tree as it then stands and evicts both of
	// cqb's workloads, as Kueue's next cycle does; the count is the cycle's.
	ds = s.Cycle(now.Add(time.Second))
	if got := victimNames(ds); got != "b1:InCohortReclamation,b2:InCohortReclamation" {
		t.Fatalf("victims %q, want b1 and b2, for p2 (decisions %v)", got, ds)
	}
	if got := s.PreemptionSkips(); len(got) != 0 {
		t.Errorf("PreemptionSkips() after a cycle without skips = %v, want none", got)
	}
}

// A head that would have fit in the room a ready preemptor's victims left,
// had the preemptor not taken it first, is skipped for the cycle: Kueue
// nominates the ready preemptor with the other heads, against the snapshot
// where that room is free, admits it first and skips the others, which
// neither preempt nor hold until its next cycle (fair-sharing decisions
// runs, seed 3, scenario 10 event 14: by then another queue's hold had
// taken the room, and Kueue never evicted the workloads the engine did).
//
// p (cqx) evicts v; once v has gone, p is admitted before anything else.
// h (cqa, which may hold quota: it cannot always reclaim) would have fit in
// v's room; it is skipped, and cqb's b, which h may reclaim, stays. In the
// next cycle h reclaims it.
func TestKueueHeadInAReadyPreemptorsRoomIsSkipped(t *testing.T) {
	cpu := corev1.ResourceCPU
	s := world(t, Options{}, namespace{name: "ns"}, MakeFlavor("f1").Obj(),
		MakeClusterQueue("cqx").Cohort("c").Quota("f1", cpu, "2").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("cqa").Cohort("c").Quota("f1", cpu, "2").
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).Obj(),
		MakeClusterQueue("cqb").Cohort("c").Quota("f1", cpu, "0").Obj(),
		MakeLocalQueue("ns", "lqx", "cqx").Obj(), MakeLocalQueue("ns", "lqa", "cqa").Obj(),
		MakeLocalQueue("ns", "lqb", "cqb").Obj(),
		MakeWorkload("ns", "v").Queue("lqx").Priority(0).Request(cpu, "2").ReserveQuota("cqx", "f1").Obj(),
		MakeWorkload("ns", "b").Queue("lqb").Priority(0).Request(cpu, "2").ReserveQuota("cqb", "f1").Obj(),
		MakeWorkload("ns", "p").Queue("lqx").Priority(10).Created(time.Second).Request(cpu, "2").Obj(),
	)
	ds := s.Cycle(now)
	if got := victimNames(ds); got != "v:InClusterQueue" {
		t.Fatalf("victims %q, want v, for p (decisions %v)", got, ds)
	}
	s.EvictWorkload(key("ns", "v"))
	if err := s.UpsertWorkload(MakeWorkload("ns", "h").Queue("lqa").Priority(10).Created(2*time.Second).Request(cpu, "2").Obj()); err != nil {
		t.Fatal(err)
	}
	ds = s.Cycle(now.Add(time.Second))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "p" {
		t.Fatalf("admitted %v, want [p] (decisions %v)", got, ds)
	}
	if ps := preempts(ds); len(ps) != 0 {
		t.Fatalf("preempted %+v in the cycle p took the room h was nominated for", ps)
	}
	if p := mustPending(t, ds, "h", ReasonInsufficientQuotaInCohort); p.Message != skippedMessage {
		t.Fatalf("h's message %q, want Kueue's %q", p.Message, skippedMessage)
	}
	ds = s.Cycle(now.Add(2 * time.Second))
	if got := victimNames(ds); got != "b:InCohortReclamation" {
		t.Fatalf("victims %q, want b, for h, in the next cycle (decisions %v)", got, ds)
	}
}
