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
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/resources"
)

// A ready preemptor is nominated afresh, as Kueue's next cycle nominates it
// (its flavor scan from the first flavor again, since a cycle that issues
// preemptions forgets the workload's LastAssignment), and takes an earlier
// flavor that its victims' eviction made fit, when that borrows no more than
// the flavors it preempted for. Decisions run dec-60 (fair sharing with both
// strategies, seed 30, --two-groups --reclaimable-pods, scenario 7, event 10):
// cq2's new w10 (priority 20, two pods of 3 cpu and 1 GiB) needs cq2's only
// cpu flavor f1 by preemption, and of its memory flavors m1 is full (cq1
// borrows all that cq2 lends) while m2 fits within cq2's nominal quota; under
// TryNextFlavor it preempts cq2's w02 and w06 for f1+m2. Their eviction frees
// 5 GiB of m1 in cq2; Kueue's next nomination of w10 found m1 first and
// admitted it in f1+m1 (the engine kept f1+m2 until decisions run dec-127
// found the same kind of event again: see readyAssignment).
func TestReadyPreemptorTakesTheFlavorItsVictimsFreed(t *testing.T) {
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
	if got := admittedOnceEvicted(t, s, ds, "w10"); got != "cq2 main:cpu=f1,memory=m1" {
		t.Fatalf("w10 admitted as %q; want f1 and m1, as Kueue's fresh nomination (it preempted for f1 and m2)", got)
	}
}

// admittedOnceEvicted confirms the evictions ds asked for and returns how the
// next cycle admits the named workload (ksRender), failing when it does not.
func admittedOnceEvicted(t *testing.T, s *Scheduler, ds []Decision, name string) string {
	t.Helper()
	confirm(s, ds)
	for _, a := range admits(s.Cycle(now.Add(time.Second))) {
		if a.Workload.Name == name {
			return ksRender(a)
		}
	}
	t.Fatalf("%s not admitted once its victims were gone", name)
	return ""
}

// readyWorld is decisions run dec-127's scenario (fair seed 57, --two-groups
// --partial-admission, scenario 1) before its event 17, reduced to what
// decides it: cq2 (cpu flavors f2 then f1, memory flavor m2, TryNextFlavor
// when it can borrow) holds w04 (priority 20, 2 cpu in f1, 2 GiB) and w05
// (priority 10, 4 cpu in f2, borrowing 1 of what cq1 lends, and 3 GiB): all
// of its 5 GiB of m2. cq2's f2 is its first flavor; whenCanBorrow is the
// flavor list given, f2's nominal quota 3.
func readyWorld(t *testing.T, f2Nominal string, whenCanBorrow kueue.FlavorFungibilityPolicy) *Scheduler {
	t.Helper()
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	adm := func(w *WorkloadWrapper, at int, f string) *kueue.Workload {
		return w.ReserveQuotaAs("cq2", map[corev1.ResourceName]string{cpu: f, mem: "m2"}).QuotaReservedAt(time.Duration(at) * time.Second).Obj()
	}
	return world(t, Options{},
		namespace{name: "ns"}, MakeFlavor("f1").Obj(), MakeFlavor("f2").Obj(), MakeFlavor("m2").Obj(),
		MakeClusterQueue("cq1").Cohort("c").Quota("f2", cpu, "4").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).Obj(),
		MakeClusterQueue("cq2").Cohort("c").Strategy(kueue.StrictFIFO).
			WhenCanBorrow(whenCanBorrow).WhenCanPreempt(kueue.TryNextFlavor).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
			Quota("f2", cpu, f2Nominal).Quota("f1", cpu, "4").Quota("m2", mem, "5Gi").Obj(),
		MakeLocalQueue("ns", "lq2", "cq2").Obj(),
		adm(twoGroups("w04", "lq2", 20, 1, "2", "2Gi", 0), 1, "f1"),
		adm(twoGroups("w05", "lq2", 10, 1, "4", "3Gi", 2), 3, "f2"),
	)
}

// readyPreemptorFlavors plays w14's arrival (priority 20, 2 cpu and 1 GiB):
// it preempts w05 for m2, and the cycle after the eviction admits it; the
// admission's flavors are returned.
func readyPreemptorFlavors(t *testing.T, s *Scheduler) string {
	t.Helper()
	s.UpsertWorkload(twoGroups("w14", "lq2", 20, 1, "2", "1Gi", 10).Obj())
	ds := s.Cycle(now)
	p := preempts(ds)
	if len(p) != 1 || p[0].Preemptor.Name != "w14" || len(p[0].Victims) != 1 || p[0].Victims[0].Workload.Name != "w05" {
		t.Fatalf("preemptions %+v; want w14 to preempt w05, as Kueue did (decisions %v)", p, ds)
	}
	return admittedOnceEvicted(t, s, ds, "w14")
}

// Decisions run dec-127, scenario 1, event 17: w14 preempted w05 for memory;
// its cpu went to f1, since f2 would have borrowed beside w05. Once w05 was
// gone, Kueue's next cycle nominated w14 afresh and admitted it in f2, which
// now fits within cq2's nominal quota; then w05, back in the queue, took f1
// with one pod (partial admission, not modelled here). The engine admitted
// w14 in f1, as it had preempted for.
func TestReadyPreemptorTakesAnEarlierFlavorThatNowFits(t *testing.T) {
	if got := readyPreemptorFlavors(t, readyWorld(t, "3", kueue.TryNextFlavor)); got != "cq2 main:cpu=f2,memory=m2" {
		t.Fatalf("w14 admitted as %q; want f2 and m2, as Kueue's fresh nomination (it preempted for f1 and m2)", got)
	}
}

// A fresh nomination that would borrow more than the flavors the preemptor
// preempted for is not taken (deliberate difference 2, see readyAssignment):
// with f2's nominal quota 1 and MayStopSearch, w14 preempts for f1 (f2 has no
// room beside w05) and, w05 gone, f2 fits only by borrowing 1 cpu, which
// Kueue's fresh nomination would take and the engine does not.
func TestReadyPreemptorKeepsItsFlavorsWhenAFreshOneBorrowsMore(t *testing.T) {
	if got := readyPreemptorFlavors(t, readyWorld(t, "1", kueue.MayStopSearch)); got != "cq2 main:cpu=f1,memory=m2" {
		t.Fatalf("w14 admitted as %q; want f1 and m2, the flavors it preempted for, borrowing nothing", got)
	}
}

// A fresh nomination that borrows as much as the flavors the preemptor
// preempted for, in another flavor, is taken, as Kueue takes it. Decisions run
// dec-90 (classic, seed 45, --two-groups --partial-admission, scenario 6,
// event 13): cq2's w12 preempted w11 for cpu; its memory went to m2, where it
// fit by borrowing while m1 had no room beside w11; once w11 was gone, Kueue
// nominated w12 afresh and admitted it in m1, borrowing the same 2 GiB there.
// The world here is smaller: cq's w01 holds all of cq's 4 cpu and 2 GiB of m1;
// lend's w02 holds 4 of the 5 GiB of m1 it lends. w03 (priority 10, 2 cpu,
// 3 GiB) preempts w01 for cpu, with m1 short of room (1 GiB free in the
// Cohort) and m2 fitting by borrowing 1 GiB; once w01 is gone, m1 fits by
// borrowing 1 GiB too, and comes first.
func TestReadyPreemptorTakesAFreshFlavorBorrowingAsMuch(t *testing.T) {
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	adm := func(w *WorkloadWrapper, cq string) *kueue.Workload {
		return w.ReserveQuotaAs(cq, map[corev1.ResourceName]string{cpu: "f1", mem: "m1"}).QuotaReservedAt(time.Second).Obj()
	}
	s := world(t, Options{},
		namespace{name: "ns"}, MakeFlavor("f1").Obj(), MakeFlavor("m1").Obj(), MakeFlavor("m2").Obj(),
		MakeClusterQueue("lend").Cohort("c").Quota("f1", cpu, "1").Quota("m1", mem, "5Gi").Quota("m2", mem, "4Gi").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).Obj(),
		MakeClusterQueue("cq").Cohort("c").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
			Quota("f1", cpu, "4").Quota("m1", mem, "2Gi").Quota("m2", mem, "2Gi").Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj(), MakeLocalQueue("ns", "lqlend", "lend").Obj(),
		adm(twoGroups("w01", "lq", 0, 1, "4", "2Gi", 0), "cq"),
		adm(twoGroups("w02", "lqlend", 0, 1, "1", "4Gi", 0), "lend"),
		twoGroups("w03", "lq", 10, 1, "2", "3Gi", 5).Obj(),
	)
	ds := s.Cycle(now)
	p := preempts(ds)
	if len(p) != 1 || p[0].Preemptor.Name != "w03" || len(p[0].Victims) != 1 || p[0].Victims[0].Workload.Name != "w01" {
		t.Fatalf("preemptions %+v; want w03 to preempt w01 (decisions %v)", p, ds)
	}
	if got := admittedOnceEvicted(t, s, ds, "w03"); got != "cq main:cpu=f1,memory=m1" {
		t.Fatalf("w03 admitted as %q; want f1 and m1, as Kueue's fresh nomination (it borrows 1 GiB either way)", got)
	}
}

// A ready preemptor's fresh assignment may not take the room another ready
// preemptor of the tree preempted for: that one's victims' room is no longer
// reserved for it, and it would preempt again (see readyAssignment). Here wB
// preempted for f1's 2 cpu; a fresh assignment of 2 cpu in f1 leaves it no
// room, one in f2 does, and the check charges nothing in the end.
func TestReadyPreemptorLeavesAnotherReadyPreemptorsRoom(t *testing.T) {
	cpu := corev1.ResourceCPU
	s := world(t, Options{}, namespace{name: "ns"}, MakeFlavor("f1").Obj(), MakeFlavor("f2").Obj(),
		MakeClusterQueue("cq").Quota("f1", cpu, "2").Quota("f2", cpu, "2").Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj(),
		MakeWorkload("ns", "wB").Queue("lq").Request(cpu, "2").Obj())
	q, _ := s.cache.ClusterQueue("cq")
	f1 := resources.FlavorResource{Flavor: "f1", Resource: cpu}
	f2 := resources.FlavorResource{Flavor: "f2", Resource: cpu}
	s.readyFor[key("ns", "wB")] = &flavorassigner.Assignment{Usage: resources.Amounts{f1: 2000}}
	rest := []ready{{q: q, r: s.workloads[key("ns", "wB")]}}
	if s.leavesRoomFor(q, resources.Amounts{f1: 2000}, rest) {
		t.Fatal("2 cpu in f1 leaves room for wB's 2 cpu in f1; want not")
	}
	if !s.leavesRoomFor(q, resources.Amounts{f2: 2000}, rest) {
		t.Fatal("2 cpu in f2 leaves no room for wB's 2 cpu in f1; want room")
	}
	if u := q.Usage(f1) + q.Usage(f2); u != 0 {
		t.Fatalf("the check left %d cpu charged", u)
	}
}
