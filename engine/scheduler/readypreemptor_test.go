package scheduler

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// A ready preemptor is admitted in the flavors it preempted for (deliberate
// difference 2), even when its victims' eviction makes an earlier flavor fit,
// where Kueue nominates it afresh and takes the first flavor that fits then.
// Decisions run dec-60 (fair sharing with both strategies, seed 30,
// --two-groups --reclaimable-pods, scenario 7, event 10): cq2's new w10
// (priority 20, two pods of 3 cpu and 1 GiB) needs cq2's only cpu flavor f1
// by preemption, and of its memory flavors m1 is full (cq1 borrows all that
// cq2 lends) while m2 fits within cq2's nominal quota; under TryNextFlavor it
// preempts cq2's w02 and w06 for f1+m2. Their eviction frees 5 GiB of m1 in
// cq2; Kueue's next nomination of w10 found m1 first and admitted it in
// f1+m1, the engine admits it in f1+m2, as it preempted for. Both leave the
// same workloads admitted and evicted.
func TestReadyPreemptorKeepsItsFlavors(t *testing.T) {
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	adm := func(w *WorkloadWrapper, at int, cq, f, m string) *kueue.Workload {
		return w.ReserveQuotaAs(cq, map[corev1.ResourceName]string{cpu: f, mem: m}).QuotaReservedAt(time.Duration(at) * time.Second).Obj()
	}
	w05 := adm(twoGroups("w05", "lq1", 10, 3, "1", "2Gi", 9), 10, "cq1", "f2", "m1")
	w05.Status.Admission.PodSetAssignments[0].Count = ptr.To[int32](2) // as Kueue admitted it
	s := world(t, Options{FairSharing: &config.FairSharing{PreemptionStrategies: []config.PreemptionStrategy{
		config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}}},
		namespace{name: "ns"}, MakeFlavor("f1").Obj(), MakeFlavor("f2").Obj(), MakeFlavor("m1").Obj(), MakeFlavor("m2").Obj(),
		MakeClusterQueue("cq1").Cohort("c").FairWeight("0").
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerOrNewerEqualPriority).
			Quota("f1", cpu, "6", Borrowing("2"), Lending("0")).Quota("f2", cpu, "6", Borrowing("2"), Lending("3")).
			Quota("m1", mem, "0").Obj(),
		MakeClusterQueue("cq2").Cohort("c").WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerOrNewerEqualPriority).
			Quota("f1", cpu, "2").Quota("m1", mem, "6Gi", Lending("5Gi")).Quota("m2", mem, "3Gi", Borrowing("4Gi")).Obj(),
		MakeClusterQueue("cq3").Cohort("c").WhenCanBorrow(kueue.TryNextFlavor).
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority).
			Quota("f2", cpu, "0").Quota("m2", mem, "2Gi").Quota("m1", mem, "0", Lending("0")).Obj(),
		MakeClusterQueue("cq4").Cohort("c").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).
			Quota("f1", cpu, "5", Borrowing("0"), Lending("5")).Quota("m1", mem, "6Gi", Borrowing("2Gi")).Quota("m2", mem, "0").Obj(),
		MakeLocalQueue("ns", "lq1", "cq1").Obj(), MakeLocalQueue("ns", "lq2", "cq2").Obj(), MakeLocalQueue("ns", "lq3", "cq3").Obj(),
		adm(twoGroups("w01", "lq1", 10, 1, "3", "1Gi", 0), 1, "cq1", "f1", "m1"),
		adm(twoGroups("w02", "lq2", 0, 2, "2", "1Gi", 3), 4, "cq2", "f1", "m1"),
		adm(twoGroups("w04", "lq3", 0, 1, "2", "2Gi", 7), 8, "cq3", "f2", "m2"),
		w05,
		adm(twoGroups("w06", "lq2", 10, 3, "1", "1Gi", 13), 14, "cq2", "f1", "m1"),
		adm(twoGroups("w08", "lq1", 20, 2, "1", "1Gi", 18), 19, "cq1", "f1", "m1"),
		twoGroups("w03", "lq1", 20, 3, "3", "1Gi", 5).Obj(),
		twoGroups("w07", "lq1", 10, 1, "2", "3Gi", 16).Obj(),
		twoGroups("w09", "lq2", 0, 2, "1", "1Gi", 21).Obj(),
		twoGroups("w10", "lq2", 20, 2, "3", "1Gi", 23).Obj(),
	)
	ds := s.Cycle(now)
	p := preempts(ds)
	if len(p) == 0 {
		t.Fatalf("no preemption; want w10 to preempt w02 and w06, as Kueue did (decisions %v)", ds)
	}
	var victims []string
	for _, v := range p[0].Victims {
		victims = append(victims, v.Workload.Name)
	}
	slices.Sort(victims)
	if len(p) != 1 || p[0].Preemptor.Name != "w10" || !slices.Equal(victims, []string{"w02", "w06"}) {
		t.Fatalf("preemptions %v; want w10 to preempt w02 and w06, as Kueue did", p)
	}
	confirm(s, ds)
	for _, a := range admits(s.Cycle(now.Add(time.Second))) {
		if a.Workload.Name != "w10" {
			continue
		}
		if got := ksRender(a); got != "cq2 main:cpu=f1,memory=m2" {
			t.Fatalf("w10 admitted as %q; want the flavors it preempted for, f1 and m2 (Kueue: m1)", got)
		}
		return
	}
	t.Fatal("w10 not admitted once its victims were gone")
}
