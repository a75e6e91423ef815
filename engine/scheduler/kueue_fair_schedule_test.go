package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue's scheduler-level fair-sharing table: a fixed set of flavors,
// namespaces, ClusterQueues and LocalQueues, plus each case's own; one
// scheduling cycle; the admissions, the preemptions and the workloads left
// pending. Kueue's cycle admits at most one head per ClusterQueue (and, in a
// cohort, only what still fits after the heads admitted before it); a Quokka
// Cycle admits every workload that fits, lowest share first, so where a
// workload Kueue leaves for the next cycle fits after the others, Quokka
// admits it now.

// kfSchedNow is Kueue's "now" of the table, as an offset from Epoch: Kueue's
// workloads with no creation time sort before every workload created at
// "now" or around it, as Epoch does here.
const kfSchedNow = time.Hour

const kfGPU corev1.ResourceName = "example.com/gpu"

// kfPods is a pending workload of count pods requesting cpu each, in pod set
// "one" (Kueue's MakePodSet("one", count)).
func kfPods(ns, name, lq string, count int32, cpu string) *WorkloadWrapper {
	return MakeWorkload(ns, name).Queue(lq).PodSet("one", count).Request(kfCPU, cpu)
}

// kfHeld is kfPods admitted to cq in flavor at kfSchedNow.
func kfHeld(ns, name, lq string, count int32, cpu, cq, flavor string) *kueue.Workload {
	return kfPods(ns, name, lq, count, cpu).ReserveQuota(cq, flavor).QuotaReservedAt(kfSchedNow).Obj()
}

// kfSchedBase is the table's shared world: flavors, labelled namespaces,
// ClusterQueues and LocalQueues.
func kfSchedBase() []any {
	return []any{
		MakeFlavor("default").Obj(), MakeFlavor("on-demand").Obj(), MakeFlavor("spot").Obj(), MakeFlavor("model-a").Obj(),
		namespace{"default", nil},
		namespace{"eng-alpha", map[string]string{"dep": "eng"}},
		namespace{"eng-beta", map[string]string{"dep": "eng"}},
		namespace{"eng-gamma", map[string]string{"dep": "eng"}},
		namespace{"sales", map[string]string{"dep": "sales"}},
		namespace{"lend", map[string]string{"dep": "lend"}},
		MakeClusterQueue("sales").NamespaceSelector(map[string]string{"dep": "sales"}).Strategy(kueue.StrictFIFO).
			Quota("default", kfCPU, "50", Borrowing("0")).Obj(),
		MakeClusterQueue("eng-alpha").Cohort("eng").NamespaceSelector(map[string]string{"dep": "eng"}).Strategy(kueue.StrictFIFO).
			Quota("on-demand", kfCPU, "50", Borrowing("50")).Quota("spot", kfCPU, "100", Borrowing("0")).Obj(),
		MakeClusterQueue("eng-beta").Cohort("eng").NamespaceSelector(map[string]string{"dep": "eng"}).Strategy(kueue.StrictFIFO).
			Preemption(kfAny, kfLower).
			Quota("on-demand", kfCPU, "50", Borrowing("10")).Quota("spot", kfCPU, "0", Borrowing("100")).
			Quota("model-a", kfGPU, "20", Borrowing("0")).Obj(),
		MakeClusterQueue("flavor-nonexistent-cq").Strategy(kueue.StrictFIFO).Quota("nonexistent-flavor", kfCPU, "50").Obj(),
		MakeClusterQueue("lend-a").Cohort("lend").NamespaceSelector(map[string]string{"dep": "lend"}).
			Quota("default", kfCPU, "3", Lending("2")).Obj(),
		MakeClusterQueue("lend-b").Cohort("lend").NamespaceSelector(map[string]string{"dep": "lend"}).
			Quota("default", kfCPU, "2", Lending("2")).Obj(),
		MakeLocalQueue("sales", "main", "sales").Obj(),
		MakeLocalQueue("sales", "blocked", "eng-alpha").Obj(),
		MakeLocalQueue("eng-alpha", "main", "eng-alpha").Obj(),
		MakeLocalQueue("eng-beta", "main", "eng-beta").Obj(),
		MakeLocalQueue("sales", "flavor-nonexistent-queue", "flavor-nonexistent-cq").Obj(),
		MakeLocalQueue("sales", "cq-nonexistent-queue", "nonexistent-cq").Obj(),
		MakeLocalQueue("lend", "lend-a-queue", "lend-a").Obj(),
		MakeLocalQueue("lend", "lend-b-queue", "lend-b").Obj(),
	}
}

// kfScheduleCase is one row. wantAdmit lists "ns/name@cq:res=flavor" (pod
// sets joined by "|", resources by ";"), wantPreempt "ns/preemptor<-ns/victim:Reason",
// wantPending "ns/name": each is compared as a whole set.
type kfScheduleCase struct {
	name        string
	noFS        bool // the case runs without fair sharing
	cohorts     []*kueue.Cohort
	cqs         []*kueue.ClusterQueue
	lqs         []*kueue.LocalQueue
	workloads   []*kueue.Workload
	wantAdmit   []string
	wantPreempt []string
	wantPending []string
	// wantReason gives the Pending reason of some workloads; preemptors must
	// wait with WaitingForPreemption whatever this says.
	wantReason map[string]string
	// overlapWaits runs the case with Kueue's
	// RecomputeAssignmentUponPreemptionTargetsOverlap gate off; wantMessage
	// gives the Pending message of some workloads.
	overlapWaits bool
	wantMessage  map[string]string
	// wantSkips is, per ClusterQueue, what the cycle's PreemptionSkips
	// must say (kueue_admission_cycle_preemption_skips), 0 for one absent.
	wantSkips map[string]int
}

func kfAdmitSummary(ds []Decision) []string {
	out := []string{}
	for _, a := range admits(ds) {
		var pss []string
		for _, ps := range a.PodSets {
			var rs []string
			for r, f := range ps.Flavors {
				rs = append(rs, string(r)+"="+f)
			}
			sort.Strings(rs)
			pss = append(pss, strings.Join(rs, ";"))
		}
		out = append(out, fmt.Sprintf("%s@%s:%s", a.Workload, a.ClusterQueue, strings.Join(pss, "|")))
	}
	sort.Strings(out)
	return out
}

func kfPreemptSummary(ds []Decision) []string {
	out := []string{}
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			out = append(out, fmt.Sprintf("%s<-%s:%s", p.Preemptor, v.Workload, v.Reason))
		}
	}
	sort.Strings(out)
	return out
}

// kfPendingSummary maps each workload with a Pending decision to its reason.
func kfPendingSummary(ds []Decision) map[string]string {
	out := map[string]string{}
	for _, d := range ds {
		if p, ok := d.(Pending); ok {
			out[p.Workload.String()] = p.Reason
		}
	}
	return out
}

func kfSorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func kfRunSchedule(t *testing.T, tc kfScheduleCase) {
	t.Helper()
	// Copies, so that cases may share their objects.
	objs := kfSchedBase()
	for _, c := range tc.cohorts {
		objs = append(objs, c.DeepCopy())
	}
	for _, cq := range tc.cqs {
		objs = append(objs, cq.DeepCopy())
	}
	for _, lq := range tc.lqs {
		objs = append(objs, lq.DeepCopy())
	}
	for _, w := range tc.workloads {
		objs = append(objs, w.DeepCopy())
	}
	opts := Options{FairSharing: &config.FairSharing{}}
	if tc.noFS {
		opts = Options{}
	}
	opts.WaitOnOverlappingTargets = tc.overlapWaits
	s := world(t, opts, objs...)
	ds := s.Cycle(now)
	skips := s.PreemptionSkips()
	for cq, want := range tc.wantSkips {
		if skips[cq] != want {
			t.Errorf("%d preemptions skipped in %s, want %d (all: %v)", skips[cq], cq, want, skips)
		}
	}
	for k, want := range tc.wantMessage {
		found := false
		for _, d := range ds {
			if p, ok := d.(Pending); ok && p.Workload.String() == k {
				found = true
				if p.Message != want {
					t.Errorf("%s: message %q, want %q", k, p.Message, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no Pending decision", k)
		}
	}

	if got, want := kfAdmitSummary(ds), kfSorted(tc.wantAdmit); !slices.Equal(got, want) {
		t.Errorf("admitted %q, want %q", got, want)
	}
	if got, want := kfPreemptSummary(ds), kfSorted(tc.wantPreempt); !slices.Equal(got, want) {
		t.Errorf("preempted %q, want %q", got, want)
	}
	pending := kfPendingSummary(ds)
	var gotPending []string
	for k := range pending {
		gotPending = append(gotPending, k)
	}
	if got, want := kfSorted(gotPending), kfSorted(tc.wantPending); !slices.Equal(got, want) {
		t.Errorf("pending %q, want %q", got, want)
	}
	preemptors := map[string]bool{}
	for _, p := range preempts(ds) {
		preemptors[p.Preemptor.String()] = true
	}
	for _, k := range tc.wantPending {
		r, ok := pending[k]
		if !ok {
			continue // reported above
		}
		switch {
		case preemptors[k]:
			if r != ReasonWaitingForPreemption {
				t.Errorf("%s: reason %s, want %s", k, r, ReasonWaitingForPreemption)
			}
		case tc.wantReason[k] != "":
			if r != tc.wantReason[k] {
				t.Errorf("%s: reason %s, want %s", k, r, tc.wantReason[k])
			}
		case r == ReasonWaitingForPreemption:
			t.Errorf("%s waits for a preemption it did not make", k)
		}
	}
	if t.Failed() {
		t.Logf("decisions: %v", ds)
	}
}

// Kueue: pkg/scheduler/scheduler_fs_test.go, TestScheduleForFairSharing.
func TestKueueScheduleForFairSharing(t *testing.T) {
	overlapCQs, overlapLQs, overlapWLs := kfOverlapWorld()
	cases := []kfScheduleCase{
		{
			// Kueue admits new (eng-alpha's share after it is the lowest) and
			// leaves older_new, which no longer fits in on-demand. Quokka then
			// looks at older_new in the same cycle: on-demand would need
			// preemption, so (whenCanPreempt TryNextFlavor) it borrows spot, as
			// Kueue's next cycle would.
			name: "with fair sharing: schedule workload with lowest share first",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("eng-shared").Cohort("eng").Quota("on-demand", kfCPU, "10", Borrowing("0")).Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "all_nominal", "main", 50, "1", "eng-alpha", "on-demand"),
				kfHeld("eng-beta", "borrowing", "main", 55, "1", "eng-beta", "on-demand"),
				kfPods("eng-beta", "older_new", "main", 1, "1").Created(kfSchedNow - time.Minute).Obj(),
				kfPods("eng-alpha", "new", "main", 5, "1").Created(kfSchedNow).Obj(),
			},
			wantAdmit: []string{"eng-alpha/new@eng-alpha:cpu=on-demand", "eng-beta/older_new@eng-beta:cpu=spot"},
		},
		{
			// Kueue's queues name cpu in two resource groups (on-demand in the
			// first, spot in the second), which its webhook rejects (and so
			// does Quokka's validation); Kueue's cache then assigns cpu from
			// the first group only. Ported with one group of the two flavors.
			// fs-nom-a's borrowed spot gives it the higher share, but nom-wl
			// fits within its nominal on-demand quota and goes first, while
			// borrow-wl would borrow on-demand. Kueue then leaves borrow-wl
			// (on-demand is full); Quokka looks at it in the same cycle and it
			// fits on spot within fs-nom-b's nominal quota, as Kueue's next
			// cycle would decide with one group.
			name: "with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("fs-nom-a").Cohort("fs-nom").
					Quota("on-demand", kfCPU, "50", Borrowing("0")).Quota("spot", kfCPU, "50", Borrowing("50")).Obj(),
				MakeClusterQueue("fs-nom-b").Cohort("fs-nom").
					Quota("on-demand", kfCPU, "10", Borrowing("50")).Quota("spot", kfCPU, "50", Borrowing("0")).Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "fs-nom", "fs-nom-a").Obj(),
				MakeLocalQueue("eng-beta", "fs-nom", "fs-nom-b").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "spot-heavy", "fs-nom", 80, "1", "fs-nom-a", "spot"),
				kfHeld("eng-beta", "light-usage", "fs-nom", 5, "1", "fs-nom-b", "on-demand"),
				kfPods("eng-beta", "borrow-wl", "fs-nom", 15, "1").Created(kfSchedNow - time.Minute).Obj(),
				kfPods("eng-alpha", "nom-wl", "fs-nom", 45, "1").Created(kfSchedNow).Obj(),
			},
			wantAdmit: []string{"eng-alpha/nom-wl@fs-nom-a:cpu=on-demand", "eng-beta/borrow-wl@fs-nom-b:cpu=spot"},
		},
		{
			// root has Cohort-A (10 CPUs; cq-a, none) and Cohort-B (cq-b, 5;
			// cq-c, none, using 10). wl-a keeps Cohort-A within its quota,
			// wl-b would have Cohort-B borrow: wl-a goes first and wl-b no
			// longer fits.
			name: "with fair sharing: hierarchical nominal-first prefers non-borrowing subtree",
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("Cohort-A").Parent("root").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("Cohort-B").Parent("root").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-a").Cohort("Cohort-A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("cq-b").Cohort("Cohort-B").Quota("on-demand", kfCPU, "5").Obj(),
				MakeClusterQueue("cq-c").Cohort("Cohort-B").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-a", "cq-a").Obj(),
				MakeLocalQueue("eng-alpha", "lq-b", "cq-b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "cq-c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "c0", "lq-c", 1, "10", "cq-c", "on-demand"),
				kfPods("eng-alpha", "wl-a", "lq-a", 1, "5").Obj(),
				kfPods("eng-alpha", "wl-b", "lq-b", 1, "5").Obj(),
			},
			wantAdmit:   []string{"eng-alpha/wl-a@cq-a:cpu=on-demand"},
			wantPending: []string{"eng-alpha/wl-b"},
		},
		{
			// As above with SUB-A (10 CPUs) between Cohort-A and cq-a.
			name: "with fair sharing: hierarchical nominal-first with deeper nesting",
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("Cohort-A").Parent("root").Obj(),
				MakeCohort("SUB-A").Parent("Cohort-A").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("Cohort-B").Parent("root").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-a").Cohort("SUB-A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("cq-b").Cohort("Cohort-B").Quota("on-demand", kfCPU, "5").Obj(),
				MakeClusterQueue("cq-c").Cohort("Cohort-B").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-a", "cq-a").Obj(),
				MakeLocalQueue("eng-alpha", "lq-b", "cq-b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "cq-c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "c0", "lq-c", 1, "10", "cq-c", "on-demand"),
				kfPods("eng-alpha", "wl-a", "lq-a", 1, "5").Obj(),
				kfPods("eng-alpha", "wl-b", "lq-b", 1, "5").Obj(),
			},
			wantAdmit:   []string{"eng-alpha/wl-a@cq-a:cpu=on-demand"},
			wantPending: []string{"eng-alpha/wl-b"},
		},
		{
			// Cohort-A and Cohort-B have 10 CPUs each and two queues of 5 and
			// 3; Cohort-A uses 6, Cohort-B 20. wl-a1 keeps Cohort-A within its
			// 18, wl-b would take Cohort-B further over: wl-a1 first, then
			// wl-b no longer fits.
			name: "with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas",
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("Cohort-A").Parent("root").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("Cohort-B").Parent("root").Quota("on-demand", kfCPU, "10").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-a1").Cohort("Cohort-A").Quota("on-demand", kfCPU, "5").Obj(),
				MakeClusterQueue("cq-a2").Cohort("Cohort-A").Quota("on-demand", kfCPU, "3").Obj(),
				MakeClusterQueue("cq-b").Cohort("Cohort-B").Quota("on-demand", kfCPU, "5").Obj(),
				MakeClusterQueue("cq-c").Cohort("Cohort-B").Quota("on-demand", kfCPU, "3").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-a1", "cq-a1").Obj(),
				MakeLocalQueue("eng-alpha", "lq-a2", "cq-a2").Obj(),
				MakeLocalQueue("eng-alpha", "lq-b", "cq-b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "cq-c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "a2-admitted", "lq-a2", 1, "6", "cq-a2", "on-demand"),
				kfHeld("eng-alpha", "c-admitted", "lq-c", 1, "20", "cq-c", "on-demand"),
				kfPods("eng-alpha", "wl-a1", "lq-a1", 1, "7").Obj(),
				kfPods("eng-alpha", "wl-b", "lq-b", 1, "4").Obj(),
			},
			wantAdmit:   []string{"eng-alpha/wl-a1@cq-a1:cpu=on-demand"},
			wantPending: []string{"eng-alpha/wl-b"},
		},
		{
			// Cohort-A (on-demand 10) borrows spot; Cohort-B (spot 10)
			// borrows on-demand. Both pending workloads ask for on-demand:
			// wl-a keeps Cohort-A within its on-demand quota and goes first.
			// Kueue then leaves wl-b (no on-demand left); Quokka looks at it in
			// the same cycle and it borrows spot, which has 5 CPUs free, as
			// Kueue's next cycle would.
			name: "with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing",
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("Cohort-A").Parent("root").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("Cohort-B").Parent("root").Quota("spot", kfCPU, "10").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-a").Cohort("Cohort-A").Quota("on-demand", kfCPU, "0").Quota("spot", kfCPU, "0").Obj(),
				MakeClusterQueue("cq-b").Cohort("Cohort-B").Quota("on-demand", kfCPU, "5").Quota("spot", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-a", "cq-a").Obj(),
				MakeLocalQueue("eng-alpha", "lq-b", "cq-b").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "spot-admitted", "lq-a", 1, "5", "cq-a", "spot"),
				kfHeld("eng-alpha", "od-admitted", "lq-b", 1, "8", "cq-b", "on-demand"),
				kfPods("eng-alpha", "wl-a", "lq-a", 1, "4").Obj(),
				kfPods("eng-alpha", "wl-b", "lq-b", 1, "4").Obj(),
			},
			wantAdmit: []string{"eng-alpha/wl-a@cq-a:cpu=on-demand", "eng-alpha/wl-b@cq-b:cpu=spot"},
		},
		{
			// A (200 CPUs, 70 free) has B (d 10, e 20) and C (f 0, g 100).
			// d1 wins at B (d would be at 80, e at 81) and B wins at A (100
			// against C's 101); after d1 nothing else fits.
			name: "hierarchical fair sharing schedule workload which wins tournament",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "200").Obj(),
				MakeCohort("B").Parent("A").Obj(),
				MakeCohort("C").Parent("A").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("d").Cohort("B").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("e").Cohort("B").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("f").Cohort("C").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("g").Cohort("C").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-d", "d").Obj(),
				MakeLocalQueue("eng-alpha", "lq-e", "e").Obj(),
				MakeLocalQueue("eng-alpha", "lq-f", "f").Obj(),
				MakeLocalQueue("eng-alpha", "lq-g", "g").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "d0", "lq-d", 1, "10", "d", "on-demand"),
				kfHeld("eng-alpha", "e0", "lq-e", 1, "20", "e", "on-demand"),
				kfHeld("eng-alpha", "g0", "lq-g", 1, "100", "g", "on-demand"),
				kfPods("eng-alpha", "d1", "lq-d", 1, "70").Obj(),
				kfPods("eng-alpha", "e1", "lq-e", 1, "61").Obj(),
				kfPods("eng-alpha", "f1", "lq-f", 1, "1").Obj(),
				kfPods("eng-alpha", "g1", "lq-g", 1, "1").Obj(),
			},
			wantAdmit:   []string{"eng-alpha/d1@d:cpu=on-demand"},
			wantPending: []string{"eng-alpha/e1", "eng-alpha/f1", "eng-alpha/g1"},
		},
		{
			// b would be at 60 after b1, c at 75 after c1: b1 goes first, and
			// c1 no longer fits.
			name: "fair sharing schedule workload with lowest drf after admission",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "100").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("b").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("c").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "b0", "lq-b", 1, "10", "b", "on-demand"),
				kfPods("eng-alpha", "b1", "lq-b", 1, "50").Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "75").Obj(),
			},
			wantAdmit:   []string{"eng-alpha/b1@b:cpu=on-demand"},
			wantPending: []string{"eng-alpha/c1"},
		},
		{
			// Both weights are 0; c borrows less after its workload than b
			// does after its high-priority one, so c1 goes first. b1 then does
			// not fit, and (c1 being admitted in this cycle) preempts nothing.
			name: "fair sharing two queues with weight 0 schedules workload which borrows less",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "8").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("b").FairWeight("0").Cohort("A").Preemption(kfAny, kfNever).Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("c").FairWeight("0").Cohort("A").Preemption(kfAny, kfNever).Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "b0", "lq-b", 1, "4", "b", "on-demand"),
				kfPods("eng-alpha", "b1", "lq-b", 1, "4").Priority(9001).Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "4").Priority(0).Obj(),
			},
			wantAdmit:   []string{"eng-alpha/c1@c:cpu=on-demand"},
			wantPending: []string{"eng-alpha/b1"},
		},
		{
			name: "fair sharing two queues with high weight schedules workload which borrows less",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "8").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("b").FairWeight("123456789").Cohort("A").Preemption(kfAny, kfNever).Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("c").FairWeight("123456789").Cohort("A").Preemption(kfAny, kfNever).Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfHeld("eng-alpha", "b0", "lq-b", 1, "4", "b", "on-demand"),
				kfPods("eng-alpha", "b1", "lq-b", 1, "4").Priority(9001).Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "4").Priority(0).Obj(),
			},
			wantAdmit:   []string{"eng-alpha/c1@c:cpu=on-demand"},
			wantPending: []string{"eng-alpha/b1"},
		},
		{
			// a draws on its cohort's quota, b on its own in a cohort of one,
			// c has no cohort: all three are admitted.
			name: "fair sharing schedule singleton cqs and cq without cohort",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("B").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("b").Cohort("B").Quota("on-demand", kfCPU, "10").Obj(),
				MakeClusterQueue("c").Quota("on-demand", kfCPU, "10").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-a", "a").Obj(),
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfPods("eng-alpha", "a1", "lq-a", 1, "10").Obj(),
				kfPods("eng-alpha", "b1", "lq-b", 1, "10").Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "10").Obj(),
			},
			wantAdmit: []string{
				"eng-alpha/a1@a:cpu=on-demand", "eng-alpha/b1@b:cpu=on-demand", "eng-alpha/c1@c:cpu=on-demand",
			},
		},
		{
			name: "fair sharing schedule highest priority first",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("B").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("b").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("c").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfPods("eng-alpha", "b1", "lq-b", 1, "10").Priority(99).Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "10").Priority(101).Obj(),
			},
			wantAdmit:   []string{"eng-alpha/c1@c:cpu=on-demand"},
			wantPending: []string{"eng-alpha/b1"},
		},
		{
			name: "fair sharing schedule earliest timestamp first",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Quota("on-demand", kfCPU, "10").Obj(),
				MakeCohort("B").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("b").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
				MakeClusterQueue("c").Cohort("A").Quota("on-demand", kfCPU, "0").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "lq-b", "b").Obj(),
				MakeLocalQueue("eng-alpha", "lq-c", "c").Obj(),
			},
			workloads: []*kueue.Workload{
				kfPods("eng-alpha", "b1", "lq-b", 1, "10").Created(kfSchedNow + time.Second).Priority(101).Obj(),
				kfPods("eng-alpha", "c1", "lq-c", 1, "10").Created(kfSchedNow).Priority(101).Obj(),
			},
			wantAdmit:   []string{"eng-alpha/c1@c:cpu=on-demand"},
			wantPending: []string{"eng-alpha/b1"},
		},
		{
			// eng-alpha borrows 30 on-demand CPUs and eng-gamma 20; eng-beta's
			// preemptor reclaims 30 within its nominal quota: 20 from
			// eng-alpha, then 10 from eng-gamma.
			name: "with fair sharing: preempt workload from CQ with the highest share",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("eng-gamma").Cohort("eng").Quota("on-demand", kfCPU, "50", Borrowing("0")).Obj(),
			},
			workloads: []*kueue.Workload{
				MakeWorkload("eng-alpha", "all_spot").Request(kfCPU, "100").ReserveQuota("eng-alpha", "spot").QuotaReservedAt(kfSchedNow).Obj(),
				kfUIDHeld("eng-alpha", "alpha1", "20", "eng-alpha", "on-demand"),
				kfUIDHeld("eng-alpha", "alpha2", "20", "eng-alpha", "on-demand"),
				kfUIDHeld("eng-alpha", "alpha3", "20", "eng-alpha", "on-demand"),
				kfUIDHeld("eng-alpha", "alpha4", "20", "eng-alpha", "on-demand"),
				kfUIDHeld("eng-gamma", "gamma1", "10", "eng-gamma", "on-demand"),
				kfUIDHeld("eng-gamma", "gamma2", "20", "eng-gamma", "on-demand"),
				kfUIDHeld("eng-gamma", "gamma3", "20", "eng-gamma", "on-demand"),
				kfUIDHeld("eng-gamma", "gamma4", "20", "eng-gamma", "on-demand"),
				MakeWorkload("eng-beta", "preemptor").Queue("main").Request(kfCPU, "30").Obj(),
			},
			wantPreempt: []string{
				"eng-beta/preemptor<-eng-alpha/alpha1:" + PreemptionInCohortReclamation,
				"eng-beta/preemptor<-eng-gamma/gamma1:" + PreemptionInCohortReclamation,
			},
			wantPending: []string{"eng-beta/preemptor"},
		},
		{
			// Each of other-alpha, other-beta and other-gamma borrows one CPU
			// from resource-bank; a high-priority workload in each preempts
			// the one of its own queue. Kueue's table leaves
			// reclaimWithinCohort unset, which its code, run without the
			// API's defaulting, reads as "not Never": the queues may then
			// preempt for a request above their nominal quota under fair
			// sharing. The API defaults it to Never, under which neither
			// Kueue nor Quokka preempts here; LowerPriority gives the table's
			// decisions.
			name: "multiple preemptions within cq when fair sharing",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(kfLower, kfLower).Quota("default", kfCPU, "2").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").Preemption(kfLower, kfLower).Quota("default", kfCPU, "2").Obj(),
				MakeClusterQueue("other-gamma").Cohort("other").Preemption(kfLower, kfLower).Quota("default", kfCPU, "2").Obj(),
				MakeClusterQueue("resource-bank").Cohort("other").Quota("default", kfCPU, "3").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
				MakeLocalQueue("eng-gamma", "other", "other-gamma").Obj(),
			},
			workloads: []*kueue.Workload{
				MakeWorkload("eng-alpha", "a1").Priority(0).Queue("other").Request(kfCPU, "3").
					ReserveQuota("other-alpha", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request(kfCPU, "3").
					ReserveQuota("other-beta", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-gamma", "c1").Priority(0).Queue("other").Request(kfCPU, "3").
					ReserveQuota("other-gamma", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request(kfCPU, "3").Obj(),
				MakeWorkload("eng-beta", "preemptor").Priority(100).Queue("other").Request(kfCPU, "3").Obj(),
				MakeWorkload("eng-gamma", "preemptor").Priority(100).Queue("other").Request(kfCPU, "3").Obj(),
			},
			wantPreempt: []string{
				"eng-alpha/preemptor<-eng-alpha/a1:" + PreemptionInClusterQueue,
				"eng-beta/preemptor<-eng-beta/b1:" + PreemptionInClusterQueue,
				"eng-gamma/preemptor<-eng-gamma/c1:" + PreemptionInClusterQueue,
			},
			wantPending: []string{"eng-alpha/preemptor", "eng-beta/preemptor", "eng-gamma/preemptor"},
		},
		{
			// other-gamma borrows all 9 CPUs of resource-bank. Both pending
			// workloads need 3 of them and their queue's own resource: the
			// higher-priority one goes first and takes a1 and c1. Kueue's
			// table pins RecomputeAssignmentUponPreemptionTargetsOverlap off
			// (ported as is below). With the gate at its default (on), Kueue
			// recomputes the other's assignment as if c1 were gone: the CPUs
			// then fit and it preempts b1 alone, as Quokka does by default.
			// (Kueue's c1 holds no quota for gamma-resource; here it holds its
			// 1, within other-gamma's quota, which changes no share.)
			name:      "multiple preemptions skip overlapping preemption targets (RecomputeAssignmentUponPreemptionTargetsOverlap=true)",
			cqs:       overlapCQs,
			lqs:       overlapLQs,
			workloads: overlapWLs,
			wantPreempt: []string{
				"eng-alpha/preemptor<-eng-alpha/a1:" + PreemptionInClusterQueue,
				"eng-alpha/preemptor<-eng-gamma/c1:" + PreemptionInCohortFairSharing,
				"eng-beta/pretending-preemptor<-eng-beta/b1:" + PreemptionInClusterQueue,
			},
			wantPending: []string{"eng-alpha/preemptor", "eng-beta/pretending-preemptor"},
			wantSkips:   map[string]int{"other-alpha": 0, "other-beta": 0},
		},
		{
			// Kueue's own case, with the gate off: the other preemptor's
			// targets (c1 first, already being evicted, then b1) overlap the
			// first's, so it evicts nothing this cycle.
			name:         "multiple preemptions skip overlapping preemption targets",
			overlapWaits: true,
			cqs:          overlapCQs,
			lqs:          overlapLQs,
			workloads:    overlapWLs,
			wantPreempt: []string{
				"eng-alpha/preemptor<-eng-alpha/a1:" + PreemptionInClusterQueue,
				"eng-alpha/preemptor<-eng-gamma/c1:" + PreemptionInCohortFairSharing,
			},
			wantPending: []string{"eng-alpha/preemptor", "eng-beta/pretending-preemptor"},
			wantMessage: map[string]string{"eng-beta/pretending-preemptor": overlappingTargetsMessage},
			// Kueue's processEntry counts a head whose targets overlap
			// another's (skippedPreemptions[cq]++) in
			// kueue_admission_cycle_preemption_skips.
			wantSkips: map[string]int{"other-alpha": 0, "other-beta": 1},
		},
		{
			name: "not enough resources with fair sharing enabled",
			workloads: []*kueue.Workload{
				kfPods("sales", "new", "main", 1, "100").Obj(),
			},
			wantPending: []string{"sales/new"},
			wantReason:  map[string]string{"sales/new": ReasonExceedsMaximumQuota},
		},
		{
			// on-demand would need preemption within other-alpha (a1), spot
			// only reclaiming what other-beta borrows (b1): reclamation is the
			// better mode, so spot, and b1 goes (for fair sharing, since
			// other-alpha borrows with the preemptor).
			name: "with fair sharing: prefer reclamation over cq priority based preemption; with preemption while borrowing",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(kfLower, kfLower).
					Quota("on-demand", "gpu", "7").Quota("spot", "gpu", "7").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").
					Quota("on-demand", "gpu", "3").Quota("spot", "gpu", "3").Obj(),
			},
			lqs: []*kueue.LocalQueue{
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			workloads: []*kueue.Workload{
				MakeWorkload("eng-alpha", "a1").Priority(50).Queue("other").Request("gpu", "5").
					ReserveQuota("other-alpha", "on-demand").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-beta", "b1").Priority(50).Queue("other").Request("gpu", "5").
					ReserveQuota("other-beta", "spot").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("gpu", "8").Obj(),
			},
			wantPreempt: []string{"eng-alpha/preemptor<-eng-beta/b1:" + PreemptionInCohortFairSharing},
			wantPending: []string{"eng-alpha/preemptor"},
		},
		kfLocalCapacityCase("prefer flavor with most local capacity", false),
		kfLocalCapacityCase("prefer flavor with most local capacity (FS=false)", true),
		{
			name: "fair sharing: in-CQ preemption for CQ without cohort; repro for nil pointer panic",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("no-cohort-cq").Preemption(kfNever, kfLower).Quota("default", kfCPU, "4").Obj(),
			},
			lqs: []*kueue.LocalQueue{MakeLocalQueue("default", "no-cohort-queue", "no-cohort-cq").Obj()},
			workloads: []*kueue.Workload{
				MakeWorkload("default", "nc-low").Queue("no-cohort-queue").Priority(-1).Request(kfCPU, "4").
					ReserveQuota("no-cohort-cq", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("default", "nc-high").Queue("no-cohort-queue").Priority(100).Request(kfCPU, "4").Obj(),
			},
			wantPreempt: []string{"default/nc-high<-default/nc-low:" + PreemptionInClusterQueue},
			wantPending: []string{"default/nc-high"},
		},
		{
			// on-demand needs preemption within the queue, spot fits by
			// borrowing: preference PreemptionOverBorrowing takes on-demand.
			name: "PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of borrowing in second",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("fs-pob-cq").FairWeight("1").Cohort("fs-pob-cohort").Preemption(kfNever, kfLower).
					WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preference(kueue.PreemptionOverBorrowing).
					Quota("on-demand", kfCPU, "5", Borrowing("0")).Quota("spot", kfCPU, "0", Borrowing("5")).Obj(),
				MakeClusterQueue("fs-pob-lender").FairWeight("1").Cohort("fs-pob-cohort").
					Quota("on-demand", kfCPU, "0").Quota("spot", kfCPU, "5").Obj(),
			},
			lqs: []*kueue.LocalQueue{MakeLocalQueue("default", "fs-pob-queue", "fs-pob-cq").Obj()},
			workloads: []*kueue.Workload{
				MakeWorkload("default", "fs-low-pob").Queue("fs-pob-queue").Priority(-1).Request(kfCPU, "5").
					ReserveQuota("fs-pob-cq", "on-demand").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("default", "fs-high-pob").Queue("fs-pob-queue").Priority(0).Request(kfCPU, "5").Obj(),
			},
			wantPreempt: []string{"default/fs-high-pob<-default/fs-low-pob:" + PreemptionInClusterQueue},
			wantPending: []string{"default/fs-high-pob"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { kfRunSchedule(t, tc) })
	}
}

// kfUIDHeld is a one-pod workload admitted in cq and flavor, with no
// LocalQueue and its name as UID (as Kueue's case sets them).
func kfUIDHeld(ns, name, cpu, cq, flavor string) *kueue.Workload {
	return MakeWorkload(ns, name).UID(name).Request(kfCPU, cpu).ReserveQuota(cq, flavor).QuotaReservedAt(kfSchedNow).Obj()
}

// kfLocalCapacityCase: child-cohort (on-demand 5, spot 7) under root-cohort
// (on-demand 2); queue1 (3 and 3) has used all of on-demand up to the root (8)
// and its own spot (3). Both flavors need borrowing for a3's GPU; spot borrows
// only from child-cohort, on-demand from root-cohort, so spot is chosen, with
// or without fair sharing.
func kfLocalCapacityCase(name string, noFS bool) kfScheduleCase {
	return kfScheduleCase{
		name: name,
		noFS: noFS,
		cohorts: []*kueue.Cohort{
			MakeCohort("root-cohort").Quota("on-demand", "gpu", "2").Quota("spot", "gpu", "0").Obj(),
			MakeCohort("child-cohort").Parent("root-cohort").Quota("on-demand", "gpu", "5").Quota("spot", "gpu", "7").Obj(),
		},
		cqs: []*kueue.ClusterQueue{
			MakeClusterQueue("queue1").Cohort("child-cohort").Preemption(kfAny, kfLower).
				WhenCanPreempt(kueue.TryNextFlavor).WhenCanBorrow(kueue.TryNextFlavor).
				Quota("on-demand", "gpu", "3").Quota("spot", "gpu", "3").Obj(),
		},
		lqs: []*kueue.LocalQueue{MakeLocalQueue("default", "queue1", "queue1").Obj()},
		workloads: []*kueue.Workload{
			MakeWorkload("default", "a1").Queue("queue1").Request("gpu", "8").ReserveQuota("queue1", "on-demand").QuotaReservedAt(kfSchedNow).Obj(),
			MakeWorkload("default", "a2").Queue("queue1").Request("gpu", "3").ReserveQuota("queue1", "spot").QuotaReservedAt(kfSchedNow).Obj(),
			MakeWorkload("default", "a3").Queue("queue1").Request("gpu", "1").Obj(),
		},
		wantAdmit: []string{"default/a3@queue1:gpu=spot"},
	}
}

// kfOverlapWorld is the world of Kueue's "multiple preemptions skip
// overlapping preemption targets", ported for both values of its gate:
// other-gamma borrows all of resource-bank's 9 cpus, and two preemptors need 3
// of them and their own queue's resource.
func kfOverlapWorld() (cqs []*kueue.ClusterQueue, lqs []*kueue.LocalQueue, wls []*kueue.Workload) {
	cqs = []*kueue.ClusterQueue{
		MakeClusterQueue("other-alpha").Cohort("other").Preemption(kfAny, kfLower).
			Quota("default", kfCPU, "0").Quota("default", "alpha-resource", "1").Obj(),
		MakeClusterQueue("other-beta").Cohort("other").Preemption(kfAny, kfLower).
			Quota("default", kfCPU, "0").Quota("default", "beta-resource", "1").Obj(),
		MakeClusterQueue("other-gamma").Cohort("other").Preemption(kfAny, kfLower).
			Quota("default", kfCPU, "0").Quota("default", "gamma-resource", "1").Obj(),
		MakeClusterQueue("resource-bank").Cohort("other").Quota("default", kfCPU, "9").Obj(),
	}
	lqs = []*kueue.LocalQueue{
		MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
		MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
		MakeLocalQueue("eng-gamma", "other", "other-gamma").Obj(),
	}
	wls = []*kueue.Workload{
		MakeWorkload("eng-alpha", "a1").Priority(0).Queue("other").Request("alpha-resource", "1").
			ReserveQuota("other-alpha", "default").QuotaReservedAt(kfSchedNow).Obj(),
		MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request("beta-resource", "1").
			ReserveQuota("other-beta", "default").QuotaReservedAt(kfSchedNow).Obj(),
		MakeWorkload("eng-gamma", "c1").Priority(0).Queue("other").Request(kfCPU, "9").Request("gamma-resource", "1").
			ReserveQuota("other-gamma", "default").QuotaReservedAt(kfSchedNow).Obj(),
		MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").
			Request(kfCPU, "3").Request("alpha-resource", "1").Obj(),
		MakeWorkload("eng-beta", "pretending-preemptor").Priority(99).Queue("other").
			Request(kfCPU, "3").Request("beta-resource", "1").Obj(),
	}
	return cqs, lqs, wls
}
