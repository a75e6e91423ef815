package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/scheduler"
)

// An engine that keeps deciding is a finding to report with its world, not a
// reason to stop the run: settleEngine gives up after engineCycleLimit cycles
// with an engineUnsettled that shows the last cycles' decisions. The world is
// dec-68's s33-8 after w05 finished (fair sharing, partial admission), where
// the engine's w12 and w06 preempt each other (docs/kueue-decisions.md: Kueue
// parks w12 and never gets there; the engine does not park). Once the engine
// parks as Kueue does, this test needs another world that keeps deciding.
func TestSettleEngineReportsAnEngineThatKeepsDeciding(t *testing.T) {
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	s := scheduler.New(scheduler.Options{FairSharing: &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{
		config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}})
	s.UpsertNamespace("ns", nil)
	s.UpsertResourceFlavor(MakeFlavor("f1").Obj())
	s.UpsertResourceFlavor(MakeFlavor("m1").Obj())
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.UpsertCohort(MakeCohort("c").Obj()))
	must(s.UpsertClusterQueue(MakeClusterQueue("cq1").Cohort("c").FairWeight("500m").
		WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
		Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyNever).
		Quota("f1", cpu, "0").Quota("m1", mem, "6Gi").Obj()))
	must(s.UpsertClusterQueue(MakeClusterQueue("cq3").Cohort("c").FairWeight("2").
		WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.MayStopSearch).
		Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerOrNewerEqualPriority).
		Quota("f1", cpu, "6", Borrowing("2")).Quota("m1", mem, "0").Obj()))
	s.UpsertLocalQueue(MakeLocalQueue("ns", "lq1", "cq1").Obj())
	s.UpsertLocalQueue(MakeLocalQueue("ns", "lq3", "cq3").Obj())
	wl := func(name, lq string, prio, count int32, c, m string) *WorkloadWrapper {
		w := MakeWorkload("ns", name).Queue(lq).Priority(prio).PodSet("main", count).Request(cpu, c)
		if m != "" {
			w.Request(mem, m)
		}
		return w
	}
	withMin := func(w *kueue.Workload, minCount int32) *kueue.Workload {
		w.Spec.PodSets[0].MinCount = &minCount
		return w
	}
	must(s.UpsertWorkload(wl("w06", "lq1", 0, 1, "2", "2Gi").ReserveQuotaAs("cq1", map[corev1.ResourceName]string{cpu: "f1", mem: "m1"}).Obj()))
	must(s.UpsertWorkload(withMin(wl("w07", "lq1", 20, 3, "3", "").Obj(), 1)))
	must(s.UpsertWorkload(withMin(wl("w12", "lq3", 0, 3, "2", "3Gi").Obj(), 2)))

	_, _, err := settleEngine(s, time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), map[string]string{}, func(string) int32 { return 3 })
	var u *engineUnsettled
	if !errors.As(err, &u) {
		t.Fatalf("settleEngine = %v; want an engineUnsettled", err)
	}
	if u.cycles != engineCycleLimit || len(u.last) != engineCyclesShown {
		t.Fatalf("gave up after %d cycles showing %d; want %d and the last %d", u.cycles, len(u.last), engineCycleLimit, engineCyclesShown)
	}
	if msg := u.Error(); !strings.Contains(msg, "evict w12 for w06") || !strings.Contains(msg, "evict w06 for w12") {
		t.Errorf("report %q; want the preemptions going round", msg)
	}
}
