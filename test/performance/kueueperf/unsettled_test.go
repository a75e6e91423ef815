package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/scheduler"
)

// An engine that keeps deciding is a finding to report with its world, not a
// reason to stop the run: settleEngine gives up after engineCycleLimit cycles
// with an engineUnsettled that shows the last cycles' decisions. The world is
// dec-68's s33-8 after w05 finished (fair sharing, partial admission), where
// the engine used to keep deciding: it let w12 preempt as soon as w07's
// admission made that possible, and w12 and w06 then preempted each other for
// ever. Like Kueue, it now admits w07 and leaves w12 parked until a release
// (docs/kueue-decisions.md). A requeue event that frees nothing (a pending
// workload deleted) then lets w12 preempt, which settleEngineWithin, given a
// limit of one cycle, reports.
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
	// Created after w12, so that w12 stays cq3's head (see the engine's park.go).
	must(s.UpsertWorkload(wl("never", "lq3", 0, 1, "100", "").Created(time.Hour).Obj()))

	start := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	held := map[string]string{}
	evicted, _, err := settleEngine(s, start, held, func(string) int32 { return 3 })
	if err != nil || len(evicted) != 0 || held["w07"] == "" || held["w12"] != "" {
		t.Fatalf("before the requeue event: evicted %v, held %v, err %v; want w07 admitted, w12 parked, nothing evicted", evicted, held, err)
	}
	s.DeleteWorkload(types.NamespacedName{Namespace: "ns", Name: "never"})
	_, _, err = settleEngineWithin(s, start.Add(time.Second), held, func(string) int32 { return 3 }, 1)
	var u *engineUnsettled
	if !errors.As(err, &u) {
		t.Fatalf("settleEngineWithin = %v; want an engineUnsettled", err)
	}
	if u.cycles != 1 || len(u.last) != 1 {
		t.Fatalf("gave up after %d cycles showing %d; want 1 and the last 1", u.cycles, len(u.last))
	}
	if msg := u.Error(); !strings.Contains(msg, "cycle 0: evict w06 for w12") {
		t.Errorf("report %q; want w12's preemption", msg)
	}
}
