package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's scheduler table (pkg/scheduler/scheduler_test.go,
// TestSchedule): each case is one Kueue scheduling cycle, replayed as one
// Cycle. Where the case preempts, the evictions are then confirmed and a second
// Cycle shows the preemptor's admission. See docs/kueue-conformance/schedule.md.

// ksNow is Kueue's "now" of the table, as an offset from enginetest.Epoch.
// Kueue's workloads without a creation time are older than anything created
// at "now"; here they keep enginetest's default creation time, Epoch.
const ksNow = time.Hour

const ksGPU corev1.ResourceName = "example.com/gpu"

// ksSelectDep makes a ClusterQueue select the namespaces labelled dep In
// [value], as Kueue's table does.
func ksSelectDep(cq *kueue.ClusterQueue, value string) *kueue.ClusterQueue {
	cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "dep", Operator: metav1.LabelSelectorOpIn, Values: []string{value},
	}}}
	return cq
}

// ksCluster is the default cluster of Kueue's TestSchedule: its flavors,
// namespaces, ClusterQueues and LocalQueues.
func ksCluster() []any {
	objs := []any{
		MakeFlavor("default").Obj(),
		MakeFlavor("on-demand").Obj(),
		MakeFlavor("spot").Obj(),
		MakeFlavor("model-a").Obj(),
		MakeFlavor("spot-tainted").Taint("key", "val", corev1.TaintEffectNoSchedule).Obj(),
		MakeFlavor("spot-tainted-2").Taint("key", "val2", corev1.TaintEffectNoSchedule).Obj(),
		namespace{"default", nil},
		namespace{"eng-alpha", map[string]string{"dep": "eng"}},
		namespace{"eng-beta", map[string]string{"dep": "eng"}},
		namespace{"eng-gamma", map[string]string{"dep": "eng"}},
		namespace{"sales", map[string]string{"dep": "sales"}},
		namespace{"lend", map[string]string{"dep": "lend"}},
		ksSelectDep(MakeClusterQueue("sales").Strategy(kueue.StrictFIFO).
			Quota("default", "cpu", "50", Borrowing("0")).Obj(), "sales"),
		ksSelectDep(MakeClusterQueue("eng-alpha").Cohort("eng").Strategy(kueue.StrictFIFO).
			Quota("on-demand", "cpu", "50", Borrowing("50")).
			Quota("spot", "cpu", "100", Borrowing("0")).Obj(), "eng"),
		ksSelectDep(MakeClusterQueue("eng-beta").Cohort("eng").Strategy(kueue.StrictFIFO).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
			Quota("on-demand", "cpu", "50", Borrowing("10")).
			Quota("spot", "cpu", "0", Borrowing("100")).
			Quota("model-a", ksGPU, "20", Borrowing("0")).Obj(), "eng"),
		MakeClusterQueue("flavor-nonexistent-cq").Strategy(kueue.StrictFIFO).
			Quota("nonexistent-flavor", "cpu", "50").Obj(),
		ksSelectDep(MakeClusterQueue("lend-a").Cohort("lend").
			Quota("default", "cpu", "3", Lending("2")).Obj(), "lend"),
		ksSelectDep(MakeClusterQueue("lend-b").Cohort("lend").
			Quota("default", "cpu", "2", Lending("2")).Obj(), "lend"),
		MakeLocalQueue("sales", "main", "sales").Obj(),
		MakeLocalQueue("sales", "blocked", "eng-alpha").Obj(),
		MakeLocalQueue("eng-alpha", "main", "eng-alpha").Obj(),
		MakeLocalQueue("eng-beta", "main", "eng-beta").Obj(),
		MakeLocalQueue("sales", "flavor-nonexistent-queue", "flavor-nonexistent-cq").Obj(),
		MakeLocalQueue("sales", "cq-nonexistent-queue", "nonexistent-cq").Obj(),
		MakeLocalQueue("lend", "lend-a-queue", "lend-a").Obj(),
		MakeLocalQueue("lend", "lend-b-queue", "lend-b").Obj(),
	}
	return objs
}

// ksAdmitted gives the workload quota in cq, pod set i in flavors[i] (every
// resource of a pod set in one flavor, as in every case of the table), with
// the QuotaReserved condition at Kueue's "now".
func ksAdmitted(w *WorkloadWrapper, cq string, flavors ...string) *kueue.Workload {
	return ksAdmittedAt(w, ksNow, cq, flavors...)
}

// ksAdmittedAt is ksAdmitted with the QuotaReserved condition at Epoch+at.
func ksAdmittedAt(w *WorkloadWrapper, at time.Duration, cq string, flavors ...string) *kueue.Workload {
	obj := w.ReserveQuota(cq, "").QuotaReservedAt(at).Obj()
	for i := range obj.Status.Admission.PodSetAssignments {
		a := &obj.Status.Admission.PodSetAssignments[i]
		for r := range a.Flavors {
			a.Flavors[r] = kueue.ResourceFlavorReference(flavors[min(i, len(flavors)-1)])
		}
	}
	return obj
}

// ksRender writes an admission as "cq podset:res=flavor,... podset:...", the
// resources of a pod set sorted.
func ksRender(a Admit) string {
	parts := []string{a.ClusterQueue}
	for _, ps := range a.PodSets {
		var fl []string
		for r, f := range ps.Flavors {
			fl = append(fl, string(r)+"="+f)
		}
		sort.Strings(fl)
		parts = append(parts, ps.Name+":"+strings.Join(fl, ","))
	}
	return strings.Join(parts, " ")
}

// ksOutcome is what one Cycle decided, in comparable form.
type ksOutcome struct {
	admit    map[string]string // workload → ksRender of its Admit
	counts   map[string]string // workload → "podset=count ..." of its Admit
	preempt  map[string]string // preemptor → "victim:Reason,..." sorted
	pending  []string          // workloads with a Pending decision, sorted
	reasons  map[string]string // workload → Pending reason
	messages map[string]string // workload → Pending message
	evicts   []string
}

func ksOutcomeOf(ds []Decision) ksOutcome {
	o := ksOutcome{admit: map[string]string{}, counts: map[string]string{}, preempt: map[string]string{}, pending: []string{}, reasons: map[string]string{}, messages: map[string]string{}}
	for _, d := range ds {
		switch d := d.(type) {
		case Admit:
			o.admit[d.Workload.String()] = ksRender(d)
			var cs []string
			for _, ps := range d.PodSets {
				cs = append(cs, fmt.Sprintf("%s=%d", ps.Name, ps.Count))
			}
			o.counts[d.Workload.String()] = strings.Join(cs, " ")
		case Preempt:
			var vs []string
			for _, v := range d.Victims {
				vs = append(vs, v.Workload.String()+":"+v.Reason)
			}
			sort.Strings(vs)
			o.preempt[d.Preemptor.String()] = strings.Join(vs, ",")
		case Pending:
			k := d.Workload.String()
			if _, seen := o.reasons[k]; !seen {
				o.pending = append(o.pending, k)
			}
			o.reasons[k] = d.Reason
			o.messages[k] = d.Message
		case Evict:
			o.evicts = append(o.evicts, d.Workload.String())
		}
	}
	sort.Strings(o.pending)
	return o
}

// ksExpect is what Kueue's case decides for one cycle: admitted workloads
// with their flavors (wantAssignments minus the workloads admitted before),
// preemptions (the Evicted/Preempted conditions of wantWorkloads), and
// workloads left pending (wantLeft, wantInadmissibleLeft, and workloads that
// reach no ClusterQueue), with the reasons that have a Quokka counterpart.
type ksExpect struct {
	admit map[string]string
	// counts, when set, are the admitted pod sets' counts ("one=25 two=20"),
	// for the cases of partial admission.
	counts  map[string]string
	preempt map[string]string
	pending []string
	reasons map[string]string
	// messages, when set, are Pending messages that must be Kueue's.
	messages map[string]string
	// skips, when set, are Kueue's wantSkippedPreemptions: per
	// ClusterQueue, the preemptions the cycle skipped (PreemptionSkips;
	// kueue_admission_cycle_preemption_skips), 0 for one absent.
	skips map[string]int
}

func ksCompare(t *testing.T, label string, ds []Decision, want ksExpect) {
	t.Helper()
	got := ksOutcomeOf(ds)
	wantAdmit := want.admit
	if wantAdmit == nil {
		wantAdmit = map[string]string{}
	}
	if !ksSameMap(got.admit, wantAdmit) {
		t.Errorf("%s: admitted\n  got  %v\n  want %v", label, got.admit, wantAdmit)
	}
	for k, c := range want.counts {
		if got.counts[k] != c {
			t.Errorf("%s: %s admitted with counts %q, want %q", label, k, got.counts[k], c)
		}
	}
	wantPreempt := want.preempt
	if wantPreempt == nil {
		wantPreempt = map[string]string{}
	}
	if !ksSameMap(got.preempt, wantPreempt) {
		t.Errorf("%s: preemptions\n  got  %v\n  want %v", label, got.preempt, wantPreempt)
	}
	wantPending := slices.Clone(want.pending)
	if wantPending == nil {
		wantPending = []string{}
	}
	sort.Strings(wantPending)
	if !slices.Equal(got.pending, wantPending) {
		t.Errorf("%s: pending\n  got  %v\n  want %v", label, got.pending, wantPending)
	}
	for k, r := range want.reasons {
		if got.reasons[k] != r {
			t.Errorf("%s: %s pending with reason %q, want %q", label, k, got.reasons[k], r)
		}
	}
	for k, m := range want.messages {
		if got.messages[k] != m {
			t.Errorf("%s: %s pending with message %q, want %q", label, k, got.messages[k], m)
		}
	}
	if len(got.evicts) != 0 {
		t.Errorf("%s: unexpected evictions %v", label, got.evicts)
	}
	if t.Failed() {
		t.Logf("%s: decisions %+v", label, ds)
	}
}

func ksSameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ksScheduleCase is one case of Kueue's TestSchedule: objects added to the
// default cluster (its additionalClusterQueues, additionalLocalQueues and
// cohorts), the workloads, what the cycle decides, and, for cases that
// preempt, what the next cycle decides once the driver has confirmed the
// evictions (Quokka's preemptor is admitted by that cycle).
type ksScheduleCase struct {
	name string
	// opts are the engine's options (Kueue's feature gates of the case).
	opts  Options
	extra []any
	wls   []*kueue.Workload
	want  ksExpect
	next  *ksExpect
	// refused are workloads whose upsert must fail: Quokka refuses a request
	// it cannot hold in its int64 canonical units, where Kueue leaves the
	// workload pending for exceeding the maximum quota. Either way it is
	// never admitted.
	refused []string
}

func ksRunSchedule(t *testing.T, tc ksScheduleCase) {
	t.Helper()
	s := world(t, tc.opts, append(ksCluster(), tc.extra...)...)
	for _, w := range tc.wls {
		k := w.Namespace + "/" + w.Name
		if err := s.UpsertWorkload(w); (err != nil) != slices.Contains(tc.refused, k) {
			t.Fatalf("upsert %s: error %v, want refused=%v", k, err, slices.Contains(tc.refused, k))
		}
	}
	ds := s.Cycle(now)
	ksCompare(t, "cycle", ds, tc.want)
	got := s.PreemptionSkips()
	for cq, want := range tc.want.skips {
		if got[cq] != want {
			t.Errorf("cycle: %d preemptions skipped in %s, want %d (all: %v)", got[cq], cq, want, got)
		}
	}
	if tc.next != nil {
		confirm(s, ds)
		// As the manager does, so that every pending workload is explained.
		s.WakeAll()
		ksCompare(t, "cycle after the evictions", s.Cycle(now.Add(time.Minute)), *tc.next)
	}
}

// Kueue: pkg/scheduler/scheduler_test.go, TestSchedule.
func TestKueueSchedule(t *testing.T) {
	never, anyPolicy, lower := kueue.PreemptionPolicyNever, kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority
	pob, bop := kueue.PreemptionOverBorrowing, kueue.BorrowingOverPreemption
	// withinLower is Kueue's Preemption{WithinClusterQueue: LowerPriority}.
	withinLower := func(w *ClusterQueueWrapper) *ClusterQueueWrapper { return w.Preemption(never, lower) }
	// The cohort of three queues of the "... in the same cycle" cases.
	threeQueues := func() []any {
		var out []any
		for _, n := range []string{"cq1", "cq2", "cq3"} {
			out = append(out, MakeClusterQueue(n).Cohort("co").Preemption(anyPolicy, lower).
				Quota("default", "r1", "10", Borrowing("10")).
				Quota("default", "r2", "10", Borrowing("10")).Obj())
		}
		return append(out,
			MakeLocalQueue("sales", "lq1", "cq1").Obj(),
			MakeLocalQueue("sales", "lq2", "cq2").Obj(),
			MakeLocalQueue("sales", "lq3", "cq3").Obj())
	}
	// The ClusterQueueA/ClusterQueueB pair of the "capacity ... blocked" cases.
	capacityCase := func(reclaim kueue.PreemptionPolicy) ([]any, []*kueue.Workload) {
		return []any{
				MakeClusterQueue("ClusterQueueA").Cohort("root").Quota("on-demand", "gpu", "2").Preemption(reclaim, never).Obj(),
				MakeClusterQueue("ClusterQueueB").Cohort("root").Quota("on-demand", "gpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "lq", "ClusterQueueA").Obj(),
				MakeLocalQueue("eng-beta", "lq", "ClusterQueueB").Obj(),
			}, []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1-admitted").Queue("lq").Request("gpu", "1"), "ClusterQueueA", "on-demand"),
				MakeWorkload("eng-alpha", "a2-pending").Queue("lq").Request("gpu", "2").Obj(),
				MakeWorkload("eng-beta", "b1-pending").Created(ksNow).Queue("lq").Request("gpu", "1").Obj(),
			}
	}
	capAnyObjs, capAnyWls := capacityCase(anyPolicy)
	capLowerObjs, capLowerWls := capacityCase(lower)
	capNeverObjs, capNeverWls := capacityCase(never)
	// The hierarchical lender/borrower pair.
	lenderBorrower := func(lending string) []any {
		return []any{
			MakeCohort("root").Obj(),
			MakeCohort("child").Parent("root").Obj(),
			ksSelectDep(MakeClusterQueue("cq-lender").Cohort("child").Quota("on-demand", "cpu", "10", Lending(lending)).Obj(), "eng"),
			ksSelectDep(MakeClusterQueue("cq-borrower").Cohort("child").Quota("on-demand", "cpu", "5", Borrowing("10")).Obj(), "eng"),
			MakeLocalQueue("eng-alpha", "lq-lender", "cq-lender").Obj(),
			MakeLocalQueue("eng-alpha", "lq-borrower", "cq-borrower").Obj(),
		}
	}

	cases := []ksScheduleCase{
		{
			name: "use second flavor when the first has no preemption candidates; WhenCanPreempt: MayStopSearch",
			extra: []any{
				withinLower(MakeClusterQueue("other-alpha")).WhenCanPreempt(kueue.MayStopSearch).
					Quota("on-demand", "cpu", "50", Borrowing("50")).
					Quota("spot", "cpu", "100", Borrowing("0")).Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "admitted").Queue("other").Request("cpu", "50"), "other-alpha", "on-demand"),
				MakeWorkload("eng-alpha", "new").Queue("other").Request("cpu", "20").Obj(),
			},
			want: ksExpect{admit: map[string]string{"eng-alpha/new": "other-alpha main:cpu=spot"}},
		},
		{
			name: "skip workload with missing or deleted ClusterQueue (NoFit)",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "missing-cq-workload").Queue("non-existent-queue").PodSet("set", 1).Request("cpu", "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/missing-cq-workload"},
				reasons: map[string]string{"sales/missing-cq-workload": ReasonLocalQueueNotFound},
			},
		},
		{
			name: "flavors with mixed misconfiguration and insufficient quota",
			extra: []any{
				MakeClusterQueue("custom-cq").Strategy(kueue.StrictFIFO).
					Quota("spot-tainted", "cpu", "20", Borrowing("20")).
					Quota("on-demand", "cpu", "15", Borrowing("15")).Obj(),
				MakeLocalQueue("sales", "custom-q", "custom-cq").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("sales", "existing-on-demand-job").Queue("custom-q").Request("cpu", "10"), "custom-cq", "on-demand"),
				MakeWorkload("sales", "new-job").Queue("custom-q").Request("cpu", "10").Obj(),
			},
			want: ksExpect{pending: []string{"sales/new-job"}},
		},
		{
			name: "flavors with mixed taint mismatch and exceeding limits",
			extra: []any{
				MakeClusterQueue("custom-cq2").Strategy(kueue.StrictFIFO).
					Quota("spot-tainted", "cpu", "20", Borrowing("20")).
					Quota("on-demand", "cpu", "5", Borrowing("5")).Obj(),
				MakeLocalQueue("sales", "custom-q2", "custom-cq2").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new-job2").Queue("custom-q2").Request("cpu", "10").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/new-job2"},
				reasons: map[string]string{"sales/new-job2": ReasonExceedsMaximumQuota},
			},
		},
		{
			name: "flavors are structurally incompatible",
			extra: []any{
				MakeClusterQueue("custom-cq3").Strategy(kueue.StrictFIFO).
					Quota("spot-tainted", "cpu", "20", Borrowing("20")).
					Quota("spot-tainted-2", "cpu", "5", Borrowing("5")).Obj(),
				MakeLocalQueue("sales", "custom-q3", "custom-cq3").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new-job3").Queue("custom-q3").Request("cpu", "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/new-job3"},
				reasons: map[string]string{"sales/new-job3": ReasonFlavorSkipped},
			},
		},
		{
			name: "single clusterQueue full",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new").Queue("main").PodSet("one", 11).Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("sales", "assigned").PodSet("one", 40).Request("cpu", "1"), "sales", "default"),
			},
			want: ksExpect{pending: []string{"sales/new"}},
		},
		{
			name: "failed to match clusterQueue selector",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new").Queue("blocked").PodSet("one", 1).Request("cpu", "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/new"},
				reasons: map[string]string{"sales/new": ReasonNamespaceNotSelected},
			},
		},
		{
			name: "admit in different cohorts",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new").Queue("main").PodSet("one", 1).Request("cpu", "1").Obj(),
				MakeWorkload("eng-alpha", "new").Queue("main").PodSet("one", 51).Request("cpu", "1").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"sales/new":     "sales one:cpu=default",
				"eng-alpha/new": "eng-alpha one:cpu=on-demand",
			}},
		},
		{
			name: "admit in same cohort with no borrowing",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "new").Queue("main").PodSet("one", 40).Request("cpu", "1").Obj(),
				MakeWorkload("eng-beta", "new").Queue("main").PodSet("one", 40).Request("cpu", "1").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"eng-alpha/new": "eng-alpha one:cpu=on-demand",
				"eng-beta/new":  "eng-beta one:cpu=on-demand",
			}},
		},
		{
			name: "assign multiple resources and flavors",
			wls: []*kueue.Workload{
				MakeWorkload("eng-beta", "new").Queue("main").
					PodSet("one", 10).Request("cpu", "6").Request(ksGPU, "1").
					PodSet("two", 40).Request("cpu", "1").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"eng-beta/new": "eng-beta one:cpu=on-demand,example.com/gpu=model-a two:cpu=spot",
			}},
		},
		{
			// Kueue admits eng-alpha/new and leaves eng-beta/new, whose
			// on-demand assignment no longer fits; its next cycle assigns it
			// spot. Quokka evaluates it after eng-alpha/new in the same Cycle
			// and admits it on spot (deliberate difference 1).
			name: "cannot borrow if cohort was assigned and would result in overadmission",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "new").Queue("main").PodSet("one", 45).Request("cpu", "1").Obj(),
				MakeWorkload("eng-beta", "new").Queue("main").PodSet("one", 56).Request("cpu", "1").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"eng-alpha/new": "eng-alpha one:cpu=on-demand",
				"eng-beta/new":  "eng-beta one:cpu=spot",
			}},
		},
		{
			name: "can borrow if cohort was assigned and will not result in overadmission",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "new").Queue("main").PodSet("one", 45).Request("cpu", "1").Obj(),
				MakeWorkload("eng-beta", "new").Queue("main").PodSet("one", 55).Request("cpu", "1").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"eng-alpha/new": "eng-alpha one:cpu=on-demand",
				"eng-beta/new":  "eng-beta one:cpu=on-demand",
			}},
		},
		{
			name: "can borrow if needs reclaim from cohort in different flavor",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "can-reclaim").Queue("main").Request("cpu", "100").Obj(),
				MakeWorkload("eng-beta", "needs-to-borrow").Queue("main").Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("eng-beta", "user-on-demand").Request("cpu", "50"), "eng-beta", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "user-spot").Request("cpu", "1"), "eng-beta", "spot"),
			},
			want: ksExpect{
				admit:   map[string]string{"eng-beta/needs-to-borrow": "eng-beta main:cpu=on-demand"},
				pending: []string{"eng-alpha/can-reclaim"},
			},
		},
		{
			name: "workload exceeds lending limit when borrow in cohort",
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("lend", "a").Request("cpu", "2"), "lend-b", "default"),
				MakeWorkload("lend", "b").Queue("lend-b-queue").Request("cpu", "3").Obj(),
			},
			want: ksExpect{pending: []string{"lend/b"}},
		},
		{
			name:  "hierarchical cohort respects lending limit when borrowing",
			extra: lenderBorrower("3"),
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "wl-existing").PodSet("main", 1).Request("cpu", "5"), "cq-borrower", "on-demand"),
				MakeWorkload("eng-alpha", "wl-pending").Queue("lq-borrower").PodSet("main", 1).Request("cpu", "4").Obj(),
			},
			want: ksExpect{pending: []string{"eng-alpha/wl-pending"}},
		},
		{
			name:  "hierarchical cohort allows borrowing up to lending limit",
			extra: lenderBorrower("5"),
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "wl-existing").PodSet("main", 1).Request("cpu", "5"), "cq-borrower", "on-demand"),
				MakeWorkload("eng-alpha", "wl-borrowing").Queue("lq-borrower").PodSet("main", 1).Request("cpu", "5").Obj(),
			},
			want: ksExpect{admit: map[string]string{"eng-alpha/wl-borrowing": "cq-borrower main:cpu=on-demand"}},
		},
		{
			name: "preempt workloads in ClusterQueue and cohort",
			wls: []*kueue.Workload{
				MakeWorkload("eng-beta", "preemptor").Queue("main").Request("cpu", "20").Obj(),
				ksAdmitted(MakeWorkload("eng-alpha", "use-all-spot").Request("cpu", "100"), "eng-alpha", "spot"),
				ksAdmitted(MakeWorkload("eng-beta", "low-1").Priority(-1).Request("cpu", "30"), "eng-beta", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "low-2").Priority(-2).Request("cpu", "10"), "eng-beta", "on-demand"),
				ksAdmitted(MakeWorkload("eng-alpha", "borrower").Request("cpu", "60"), "eng-alpha", "on-demand"),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-beta/preemptor": "eng-alpha/borrower:InCohortReclamation,eng-beta/low-2:InClusterQueue"},
				pending: []string{"eng-beta/preemptor"},
				reasons: map[string]string{"eng-beta/preemptor": ReasonWaitingForPreemption},
			},
			// The victims, which name no LocalQueue, are pending again.
			next: &ksExpect{
				admit:   map[string]string{"eng-beta/preemptor": "eng-beta main:cpu=on-demand"},
				pending: []string{"eng-alpha/borrower", "eng-beta/low-2"},
			},
		},
		{
			name: "multiple CQs need preemption",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Quota("on-demand", "cpu", "50", Borrowing("50")).Obj(),
				MakeClusterQueue("other-beta").Cohort("other").Preemption(anyPolicy, lower).
					Quota("on-demand", "cpu", "50", Borrowing("10")).Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("eng-beta", "preemptor").Priority(-1).Queue("other").Request("cpu", "1").Obj(),
				MakeWorkload("eng-alpha", "pending").Priority(1).Queue("other").Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("eng-alpha", "use-all").Request("cpu", "100"), "other-alpha", "on-demand"),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-beta/preemptor": "eng-alpha/use-all:InCohortReclamation"},
				pending: []string{"eng-beta/preemptor", "eng-alpha/pending"},
				reasons: map[string]string{"eng-beta/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit: map[string]string{
					"eng-beta/preemptor": "other-beta main:cpu=on-demand",
					"eng-alpha/pending":  "other-alpha main:cpu=on-demand",
				},
				pending: []string{"eng-alpha/use-all"},
			},
		},
		{
			name: "cannot borrow resource not listed in clusterQueue",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "new").Queue("main").Request(ksGPU, "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"eng-alpha/new"},
				reasons: map[string]string{"eng-alpha/new": ReasonResourceNotCovered},
			},
		},
		{
			name: "not enough resources to borrow, fallback to next flavor; WhenCanPreempt: TryNextFlavor",
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "new").Queue("main").PodSet("one", 60).Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("eng-beta", "existing").PodSet("one", 45).Request("cpu", "1"), "eng-beta", "on-demand"),
			},
			want: ksExpect{admit: map[string]string{"eng-alpha/new": "eng-alpha one:cpu=spot"}},
		},
		{
			name: "workload should not fit in nonexistent clusterQueue",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "foo").Queue("cq-nonexistent-queue").Request("cpu", "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/foo"},
				reasons: map[string]string{"sales/foo": ReasonClusterQueueNotFound},
			},
		},
		{
			name: "workload should not fit in clusterQueue with nonexistent flavor",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "foo").Queue("flavor-nonexistent-queue").Request("cpu", "1").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/foo"},
				reasons: map[string]string{"sales/foo": ReasonClusterQueueInactive},
			},
		},
		{
			name: "no overadmission while borrowing",
			extra: []any{
				MakeClusterQueue("eng-gamma").Cohort("eng").Preemption(anyPolicy, lower).
					Quota("on-demand", "cpu", "50", Borrowing("10")).
					Quota("spot", "cpu", "0", Borrowing("100")).Obj(),
				MakeLocalQueue("eng-gamma", "main", "eng-gamma").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("eng-beta", "new").Queue("main").Created(ksNow-2*time.Second).PodSet("one", 50).Request("cpu", "1").Obj(),
				MakeWorkload("eng-alpha", "new-alpha").Queue("main").Created(ksNow-time.Second).PodSet("one", 1).Request("cpu", "1").Obj(),
				MakeWorkload("eng-gamma", "new-gamma").Queue("main").Created(ksNow).PodSet("one", 50).Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("eng-gamma", "existing").
					PodSet("borrow-on-demand", 51).Request("cpu", "1").
					PodSet("use-all-spot", 100).Request("cpu", "1"), "eng-gamma", "on-demand", "spot"),
			},
			want: ksExpect{
				skips: map[string]int{"eng-alpha": 0, "eng-beta": 0, "eng-gamma": 0},
				admit: map[string]string{
					"eng-beta/new":        "eng-beta one:cpu=on-demand",
					"eng-alpha/new-alpha": "eng-alpha one:cpu=on-demand",
				},
				pending: []string{"eng-gamma/new-gamma"},
			},
		},
		{
			// sales has 50 cpu: of 50 pods of 2 cpu, 25 fit. Kueue's binary
			// search over the counts from 50 down to 20 settles on 25.
			name: "partial admission single variable pod set",
			wls: []*kueue.Workload{
				ksMinCount(MakeWorkload("sales", "new").Queue("main").
					PodSet("one", 50).Request("cpu", "2").Obj(), map[string]int32{"one": 20}),
			},
			want: ksExpect{
				admit:  map[string]string{"sales/new": "sales one:cpu=default"},
				counts: map[string]string{"sales/new": "one=25"},
			},
		},
		{
			// All 20 pods fit once old (priority -4) is evicted: Kueue preempts
			// for the full count and does not look at fewer pods.
			name: "partial admission single variable pod set, preempt first",
			wls: []*kueue.Workload{
				ksMinCount(MakeWorkload("eng-beta", "new").Queue("main").Priority(4).
					PodSet("one", 20).Request(ksGPU, "1").Obj(), map[string]int32{"one": 10}),
				ksAdmitted(MakeWorkload("eng-beta", "old").Priority(-4).PodSet("one", 10).Request(ksGPU, "1"), "eng-beta", "model-a"),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-beta/new": "eng-beta/old:InClusterQueue"},
				pending: []string{"eng-beta/new"},
				reasons: map[string]string{"eng-beta/new": ReasonWaitingForPreemption},
			},
			// old, which names no LocalQueue in Kueue's case, stays pending.
			next: &ksExpect{
				admit:   map[string]string{"eng-beta/new": "eng-beta one:example.com/gpu=model-a"},
				counts:  map[string]string{"eng-beta/new": "one=20"},
				pending: []string{"eng-beta/old"},
			},
		},
		{
			// 30 pods never fit in eng-beta's 20 GPUs (no borrowing); the
			// search settles on 20, for which evicting old makes room.
			name: "partial admission single variable pod set, preempt with partial admission",
			wls: []*kueue.Workload{
				ksMinCount(MakeWorkload("eng-beta", "new").Queue("main").Priority(4).
					PodSet("one", 30).Request(ksGPU, "1").Obj(), map[string]int32{"one": 10}),
				ksAdmitted(MakeWorkload("eng-beta", "old").Priority(-4).PodSet("one", 10).Request(ksGPU, "1"), "eng-beta", "model-a"),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-beta/new": "eng-beta/old:InClusterQueue"},
				pending: []string{"eng-beta/new"},
				reasons: map[string]string{"eng-beta/new": ReasonWaitingForPreemption},
			},
			// old, which names no LocalQueue in Kueue's case, stays pending.
			next: &ksExpect{
				admit:   map[string]string{"eng-beta/new": "eng-beta one:example.com/gpu=model-a"},
				counts:  map[string]string{"eng-beta/new": "one=20"},
				pending: []string{"eng-beta/old"},
			},
		},
		{
			// 65 pods of 1 cpu in 50: two shrinks from 30 towards 10 and three
			// from 15 towards 5 in step (step 15 of 30), one stays at 20.
			name: "partial admission multiple variable pod sets",
			wls: []*kueue.Workload{
				ksMinCount(MakeWorkload("sales", "new").Queue("main").
					PodSet("one", 20).Request("cpu", "1").
					PodSet("two", 30).Request("cpu", "1").
					PodSet("three", 15).Request("cpu", "1").Obj(), map[string]int32{"two": 10, "three": 5}),
			},
			want: ksExpect{
				admit:  map[string]string{"sales/new": "sales one:cpu=default two:cpu=default three:cpu=default"},
				counts: map[string]string{"sales/new": "one=20 two=20 three=10"},
			},
		},
		{
			// The partial admission feature gate is off: minCount is ignored and
			// the workload needs all 65 CPUs of its three pod sets.
			name: "partial admission disabled, multiple variable pod sets",
			opts: Options{NoPartialAdmission: true},
			wls: []*kueue.Workload{
				ksMinCount(MakeWorkload("sales", "new").Queue("main").
					PodSet("one", 20).Request("cpu", "1").
					PodSet("two", 30).Request("cpu", "1").
					PodSet("three", 15).Request("cpu", "1").Obj(), map[string]int32{"two": 10, "three": 5}),
			},
			want: ksExpect{
				pending: []string{"sales/new"},
				reasons: map[string]string{"sales/new": ReasonExceedsMaximumQuota},
			},
		},
		{
			name:  "two workloads can borrow different resources from the same flavor in the same cycle",
			extra: threeQueues(),
			wls: []*kueue.Workload{
				MakeWorkload("sales", "wl1").Queue("lq1").Priority(-1).Request("r1", "16").Obj(),
				MakeWorkload("sales", "wl2").Queue("lq2").Priority(-2).Request("r2", "16").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"sales/wl1": "cq1 main:r1=default",
				"sales/wl2": "cq2 main:r2=default",
			}},
		},
		{
			name:  "two workloads can borrow the same resources from the same flavor in the same cycle if fits in the cohort quota",
			extra: threeQueues(),
			wls: []*kueue.Workload{
				MakeWorkload("sales", "wl1").Queue("lq1").Priority(-1).Request("r1", "16").Obj(),
				MakeWorkload("sales", "wl2").Queue("lq2").Priority(-2).Request("r1", "14").Obj(),
			},
			want: ksExpect{admit: map[string]string{
				"sales/wl1": "cq1 main:r1=default",
				"sales/wl2": "cq2 main:r1=default",
			}},
		},
		{
			name:  "only one workload can borrow one resources from the same flavor in the same cycle if cohort quota cannot fit",
			extra: threeQueues(),
			wls: []*kueue.Workload{
				MakeWorkload("sales", "wl1").Queue("lq1").Priority(-1).Request("r1", "16").Obj(),
				MakeWorkload("sales", "wl2").Queue("lq2").Priority(-2).Request("r1", "16").Obj(),
			},
			want: ksExpect{
				admit:   map[string]string{"sales/wl1": "cq1 main:r1=default"},
				pending: []string{"sales/wl2"},
			},
		},
		{
			// a needs preemption while borrowing and finds no candidate; it
			// holds min(3, 0+3-2) = 1 CPU (Kueue's resourcesToReserve), which
			// leaves room for b.
			name: "preemption while borrowing, workload waiting for preemption should not block a borrowing workload in another CQ",
			extra: []any{
				MakeClusterQueue("cq_shared").Cohort("preemption-while-borrowing").
					Quota("default", "cpu", "4", Borrowing("0")).Obj(),
				MakeClusterQueue("cq_a").Cohort("preemption-while-borrowing").Preemption(lower, "").BorrowWithinCohort(nil).
					Quota("default", "cpu", "0", Borrowing("3")).Obj(),
				MakeClusterQueue("cq_b").Cohort("preemption-while-borrowing").Preemption(lower, "").BorrowWithinCohort(nil).
					Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "lq_a", "cq_a").Obj(),
				MakeLocalQueue("eng-beta", "lq_b", "cq_b").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "a").Queue("lq_a").Created(ksNow+time.Second).Request("cpu", "3").Obj(),
				MakeWorkload("eng-beta", "b").Queue("lq_b").Created(ksNow+2*time.Second).Request("cpu", "1").Obj(),
				ksAdmitted(MakeWorkload("eng-alpha", "admitted_a").Queue("lq_a").Request("cpu", "2"), "cq_a", "default"),
			},
			want: ksExpect{
				admit:   map[string]string{"eng-beta/b": "cq_b main:cpu=default"},
				pending: []string{"eng-alpha/a"},
			},
		},
		{
			name: "minimal preemptions when target queue is exhausted",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(anyPolicy, lower).Quota("on-demand", "cpu", "2").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").Quota("on-demand", "cpu", "2").Obj(),
				MakeClusterQueue("other-gamma").Cohort("other").Quota("on-demand", "cpu", "2").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
				MakeLocalQueue("eng-gamma", "other", "other-gamma").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(-2).Queue("other").Request("cpu", "1"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-alpha", "a2").Priority(-2).Queue("other").Request("cpu", "1"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-alpha", "a3").Priority(-1).Queue("other").Request("cpu", "1"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request("cpu", "1"), "other-beta", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "b2").Priority(0).Queue("other").Request("cpu", "1"), "other-beta", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "b3").Priority(0).Queue("other").Request("cpu", "1"), "other-beta", "on-demand"),
				MakeWorkload("eng-alpha", "incoming").Priority(0).Queue("other").Request("cpu", "2").Obj(),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-alpha/incoming": "eng-alpha/a1:InClusterQueue,eng-alpha/a2:InClusterQueue"},
				pending: []string{"eng-alpha/incoming"},
				reasons: map[string]string{"eng-alpha/incoming": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-alpha/incoming": "other-alpha main:cpu=on-demand"},
				pending: []string{"eng-alpha/a1", "eng-alpha/a2"},
			},
		},
		{
			name: "A workload is only eligible to do preemptions if it fits fully within nominal quota",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(anyPolicy, lower).Quota("on-demand", "cpu", "2").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").Quota("on-demand", "cpu", "2").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(-1).Queue("other").Request("cpu", "1"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(-1).Queue("other").Request("cpu", "1"), "other-beta", "on-demand"),
				MakeWorkload("eng-alpha", "incoming").Priority(1).Queue("other").Request("cpu", "3").Obj(),
			},
			want: ksExpect{pending: []string{"eng-alpha/incoming"}},
		},
		{
			name: "multiple preemptions without borrowing",
			extra: []any{
				withinLower(MakeClusterQueue("other-alpha").Cohort("other")).Quota("default", "cpu", "2").Obj(),
				withinLower(MakeClusterQueue("other-beta").Cohort("other")).Quota("default", "cpu", "2").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(0).Queue("other").Request("cpu", "2"), "other-alpha", "default"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request("cpu", "2"), "other-beta", "default"),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("cpu", "2").Obj(),
				MakeWorkload("eng-beta", "preemptor").Priority(100).Queue("other").Request("cpu", "2").Obj(),
			},
			want: ksExpect{
				skips: map[string]int{"other-alpha": 0, "other-beta": 0},
				preempt: map[string]string{
					"eng-alpha/preemptor": "eng-alpha/a1:InClusterQueue",
					"eng-beta/preemptor":  "eng-beta/b1:InClusterQueue",
				},
				pending: []string{"eng-alpha/preemptor", "eng-beta/preemptor"},
				reasons: map[string]string{
					"eng-alpha/preemptor": ReasonWaitingForPreemption,
					"eng-beta/preemptor":  ReasonWaitingForPreemption,
				},
			},
			next: &ksExpect{
				admit: map[string]string{
					"eng-alpha/preemptor": "other-alpha main:cpu=default",
					"eng-beta/preemptor":  "other-beta main:cpu=default",
				},
				pending: []string{"eng-alpha/a1", "eng-beta/b1"},
			},
		},
		{
			name: "multiple preemptions preemption possible after earlier workload fits",
			extra: []any{
				withinLower(MakeClusterQueue("other-alpha").Cohort("other")).Quota("default", "cpu", "1").Obj(),
				withinLower(MakeClusterQueue("other-beta").Cohort("other")).Quota("default", "cpu", "2").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request("cpu", "2"), "other-beta", "default"),
				MakeWorkload("eng-alpha", "fit").Priority(100).Queue("other").Request("cpu", "1").Obj(),
				MakeWorkload("eng-beta", "preemptor").Priority(99).Queue("other").Request("cpu", "2").Obj(),
			},
			want: ksExpect{
				skips:   map[string]int{"other-alpha": 0, "other-beta": 0},
				admit:   map[string]string{"eng-alpha/fit": "other-alpha main:cpu=default"},
				preempt: map[string]string{"eng-beta/preemptor": "eng-beta/b1:InClusterQueue"},
				pending: []string{"eng-beta/preemptor"},
				reasons: map[string]string{"eng-beta/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-beta/preemptor": "other-beta main:cpu=default"},
				pending: []string{"eng-beta/b1"},
			},
		},
		{
			// Only one of the two 3-CPU preemptors can fit in the cohort's 5 CPUs
			// even after both preemptions: the second one does not preempt.
			// Kueue counts it in kueue_admission_cycle_preemption_skips
			// (other-beta: 1): nominated against the cycle's start, it had
			// candidates, and its fit check after the first preemptor's
			// failed. The engine's flavor assigner sees the room the first
			// preemptor was promised, so the second gets no candidates and
			// there is nothing to skip: 0, the same decisions.
			name: "multiple preemptions skip preemption when shared limited resource",
			extra: []any{
				withinLower(MakeClusterQueue("other-alpha").Cohort("other")).BorrowWithinCohort(nil).Quota("default", "cpu", "2").Obj(),
				withinLower(MakeClusterQueue("other-beta").Cohort("other")).BorrowWithinCohort(nil).Quota("default", "cpu", "2").Obj(),
				MakeClusterQueue("resource-bank").Cohort("other").Quota("default", "cpu", "1").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(0).Queue("other").Request("cpu", "2"), "other-alpha", "default"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(0).Queue("other").Request("cpu", "2"), "other-beta", "default"),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("cpu", "3").Obj(),
				MakeWorkload("eng-beta", "pretending-preemptor").Priority(99).Queue("other").Request("cpu", "3").Obj(),
			},
			want: ksExpect{
				skips:   map[string]int{"other-alpha": 0, "other-beta": 0},
				preempt: map[string]string{"eng-alpha/preemptor": "eng-alpha/a1:InClusterQueue"},
				pending: []string{"eng-alpha/preemptor", "eng-beta/pretending-preemptor"},
				reasons: map[string]string{"eng-alpha/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-alpha/preemptor": "other-alpha main:cpu=default"},
				pending: []string{"eng-alpha/a1", "eng-beta/pretending-preemptor"},
			},
		},
		{
			name: "not enough resources",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new").Queue("main").PodSet("one", 1).Request("cpu", "100").Obj(),
			},
			want: ksExpect{
				pending: []string{"sales/new"},
				reasons: map[string]string{"sales/new": ReasonExceedsMaximumQuota},
			},
		},
		{
			// Kueue refuses a container whose requests exceed its limits
			// (workload resource validation) and leaves the workload pending.
			name: "container resource requests exceed limits",
			wls: []*kueue.Workload{
				ksLimit(MakeWorkload("sales", "new").Queue("main").PodSet("one", 1).Request("cpu", "200m").Obj(), "cpu", "100m"),
			},
			want: ksExpect{pending: []string{"sales/new"}},
		},
		{
			// on-demand needs priority preemption in other-alpha; spot needs
			// only reclamation from other-beta, which borrows it: spot is the
			// better assignment.
			name: "prefer reclamation over cq priority based preemption",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(lower, lower).
					Quota("on-demand", "gpu", "10").Quota("spot", "gpu", "10").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").Preemption(lower, lower).
					Quota("on-demand", "gpu", "0").Quota("spot", "gpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(50).Queue("other").Request("gpu", "5"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(50).Queue("other").Request("gpu", "5"), "other-beta", "spot"),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("gpu", "6").Obj(),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-alpha/preemptor": "eng-beta/b1:InCohortReclamation"},
				pending: []string{"eng-alpha/preemptor"},
				reasons: map[string]string{"eng-alpha/preemptor": ReasonWaitingForPreemption},
			},
			// b1, requeued, borrows the on-demand GPUs other-alpha does not use.
			next: &ksExpect{admit: map[string]string{
				"eng-alpha/preemptor": "other-alpha main:gpu=spot",
				"eng-beta/b1":         "other-beta main:gpu=on-demand",
			}},
		},
		{
			name: "prefer first preemption flavor when second flavor requires both reclaim and cq priority preemption",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(lower, lower).
					Quota("on-demand", "gpu", "10").Quota("spot", "gpu", "10").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").
					Quota("on-demand", "gpu", "0").Quota("spot", "gpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(50).Queue("other").Request("gpu", "5"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-alpha", "a2").Priority(50).Queue("other").Request("gpu", "5"), "other-alpha", "spot"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(50).Queue("other").Request("gpu", "5"), "other-beta", "spot"),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("gpu", "6").Obj(),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-alpha/preemptor": "eng-alpha/a1:InClusterQueue"},
				pending: []string{"eng-alpha/preemptor"},
				reasons: map[string]string{"eng-alpha/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-alpha/preemptor": "other-alpha main:gpu=on-demand"},
				pending: []string{"eng-alpha/a1"},
			},
		},
		{
			name: "prefer first preemption flavor when second flavor also requires cq preemption",
			extra: []any{
				MakeClusterQueue("other-alpha").Cohort("other").Preemption(lower, lower).
					Quota("on-demand", "gpu", "10").Quota("spot", "gpu", "10").Obj(),
				MakeClusterQueue("other-beta").Cohort("other").
					Quota("on-demand", "gpu", "0").Quota("spot", "gpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "other", "other-alpha").Obj(),
				MakeLocalQueue("eng-beta", "other", "other-beta").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "a1").Priority(50).Queue("other").Request("gpu", "6"), "other-alpha", "on-demand"),
				ksAdmitted(MakeWorkload("eng-alpha", "a2").Priority(50).Queue("other").Request("gpu", "5"), "other-alpha", "spot"),
				ksAdmitted(MakeWorkload("eng-beta", "b1").Priority(9001).Queue("other").Request("gpu", "5"), "other-beta", "spot"),
				MakeWorkload("eng-alpha", "preemptor").Priority(100).Queue("other").Request("gpu", "5").Obj(),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-alpha/preemptor": "eng-alpha/a1:InClusterQueue"},
				pending: []string{"eng-alpha/preemptor"},
				reasons: map[string]string{"eng-alpha/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-alpha/preemptor": "other-alpha main:gpu=on-demand"},
				pending: []string{"eng-alpha/a1"},
			},
		},
		{
			// WL1 (older) would borrow; WL2 fits within CQ2's nominal quota and
			// reclaims it from CQ3, so WL2 goes first and WL1 does not take the
			// room WL2 reclaims.
			name: "workload requiring reclaimation prioritized over wl in another full cq",
			extra: []any{
				MakeClusterQueue("CQ1").Cohort("other").Quota("on-demand", "gpu", "10").Obj(),
				MakeClusterQueue("CQ2").Cohort("other").Preemption(anyPolicy, "").Quota("on-demand", "gpu", "10").Obj(),
				MakeClusterQueue("CQ3").Cohort("other").Quota("on-demand", "gpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "lq", "CQ1").Obj(),
				MakeLocalQueue("eng-beta", "lq", "CQ2").Obj(),
				MakeLocalQueue("eng-gamma", "lq", "CQ3").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "Admitted-Workload-1").Queue("lq").Request("gpu", "5"), "CQ1", "on-demand"),
				MakeWorkload("eng-alpha", "WL1").Created(ksNow).Queue("lq").Request("gpu", "10").Obj(),
				MakeWorkload("eng-beta", "WL2").Created(ksNow+time.Second).Queue("lq").Request("gpu", "10").Obj(),
				ksAdmitted(MakeWorkload("eng-gamma", "Admitted-Workload-2").Queue("lq").Priority(0).Request("gpu", "5"), "CQ3", "on-demand"),
				ksAdmitted(MakeWorkload("eng-gamma", "Admitted-Workload-3").Queue("lq").Priority(1).Request("gpu", "5"), "CQ3", "on-demand"),
			},
			want: ksExpect{
				preempt: map[string]string{"eng-beta/WL2": "eng-gamma/Admitted-Workload-2:InCohortReclamation"},
				pending: []string{"eng-beta/WL2", "eng-alpha/WL1"},
				reasons: map[string]string{"eng-beta/WL2": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"eng-beta/WL2": "CQ2 main:gpu=on-demand"},
				pending: []string{"eng-alpha/WL1", "eng-gamma/Admitted-Workload-2"},
			},
		},
		{
			// ClusterQueueA can always reclaim what it lends (reclaimWithinCohort
			// Any), so a2-pending, which needs preemption and finds no
			// candidate, holds nothing and b1-pending borrows.
			name:  "capacity not blocked when lending clusterqueue can reclaim (ReclaimWithinCohort=Any)",
			extra: capAnyObjs,
			wls:   capAnyWls,
			want: ksExpect{
				admit:   map[string]string{"eng-beta/b1-pending": "ClusterQueueB main:gpu=on-demand"},
				pending: []string{"eng-alpha/a2-pending"},
			},
		},
		{
			// ClusterQueueA is not sure to reclaim: a2-pending holds its
			// request, and b1-pending cannot borrow it.
			name:  "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=LowerPriority)",
			extra: capLowerObjs,
			wls:   capLowerWls,
			want:  ksExpect{pending: []string{"eng-alpha/a2-pending", "eng-beta/b1-pending"}},
		},
		{
			name:  "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=Never)",
			extra: capNeverObjs,
			wls:   capNeverWls,
			want:  ksExpect{pending: []string{"eng-alpha/a2-pending", "eng-beta/b1-pending"}},
		},
		{
			// Both queues borrow; guaranteed's quota is one level up (the
			// guaranteed cohort), best-effort's two (root): guaranteed goes
			// first despite its lower priority.
			name: "in a hierarchical cohort, workload borrowing less is scheduled first",
			extra: []any{
				MakeCohort("root").Obj(),
				MakeCohort("guaranteed").Parent("root").Quota("default", "cpu", "4").Obj(),
				MakeClusterQueue("guaranteed").Cohort("guaranteed").Quota("default", "cpu", "0").Obj(),
				MakeClusterQueue("best-effort").Cohort("root").Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("eng-alpha", "lq-guaranteed", "guaranteed").Obj(),
				MakeLocalQueue("eng-alpha", "lq-best-effort", "best-effort").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("eng-alpha", "guaranteed").Queue("lq-guaranteed").Priority(0).PodSet("one", 1).Request("cpu", "4").Obj(),
				MakeWorkload("eng-alpha", "best-effort").Queue("lq-best-effort").Priority(3).PodSet("one", 1).Request("cpu", "4").Obj(),
			},
			want: ksExpect{
				admit:   map[string]string{"eng-alpha/guaranteed": "guaranteed one:cpu=default"},
				pending: []string{"eng-alpha/best-effort"},
			},
		},
		{
			// on-demand would need preemption, but admitted uses only cq2's
			// nominal quota and cannot be preempted: new goes to spot.
			name: "don't assign flavor if there are no candidates for preemption",
			extra: []any{
				MakeClusterQueue("cq1").Cohort("cohort").Preemption(anyPolicy, lower).BorrowWithinCohort(nil).
					WhenCanPreempt(kueue.MayStopSearch).WhenCanBorrow(kueue.MayStopSearch).
					Quota("on-demand", "cpu", "0", Borrowing("1")).
					Quota("spot", "cpu", "0", Borrowing("1")).Obj(),
				MakeClusterQueue("cq2").Cohort("cohort").
					Quota("on-demand", "cpu", "1").Quota("spot", "cpu", "1").Obj(),
				MakeLocalQueue("eng-alpha", "lq1", "cq1").Obj(),
				MakeLocalQueue("eng-alpha", "lq2", "cq2").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmittedAt(MakeWorkload("eng-alpha", "admitted").Queue("lq2").Request("cpu", "1").Priority(0), ksNow-time.Second, "cq2", "on-demand"),
				MakeWorkload("eng-alpha", "new").Queue("lq1").Request("cpu", "1").Priority(100).Obj(),
			},
			want: ksExpect{admit: map[string]string{"eng-alpha/new": "cq1 main:cpu=spot"}},
		},
		{
			// Kueue's case carries a pending admission check; Quokka has no
			// admission checks, and the check does not take part in the flavor
			// assignment compared here: on-demand cannot hold 80 CPUs (at most
			// 50+10), spot fits by borrowing.
			name: "pending admission check with nofit and fit flavors",
			wls: []*kueue.Workload{
				MakeWorkload("eng-beta", "pending-check").Queue("main").Request("cpu", "80").Obj(),
			},
			want: ksExpect{admit: map[string]string{"eng-beta/pending-check": "eng-beta main:cpu=spot"}},
		},
		{
			name: "admit to second flavor when first needs preemption; WhenCanPreempt: TryNextFlavor",
			extra: []any{
				withinLower(MakeClusterQueue("preempt-attempts-cq")).WhenCanPreempt(kueue.TryNextFlavor).
					Quota("on-demand", "cpu", "1").Quota("spot", "cpu", "1").Obj(),
				MakeLocalQueue("eng-alpha", "preempt-attempts-lq", "preempt-attempts-cq").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("eng-alpha", "blocker").Queue("preempt-attempts-lq").Request("cpu", "1").Priority(50), "preempt-attempts-cq", "on-demand"),
				MakeWorkload("eng-alpha", "test-wl").Queue("preempt-attempts-lq").Request("cpu", "1").Priority(100).Obj(),
			},
			want: ksExpect{admit: map[string]string{"eng-alpha/test-wl": "preempt-attempts-cq main:cpu=spot"}},
		},
		{
			name: "admit workload with zero-quantity request for resource not in ClusterQueue",
			wls: []*kueue.Workload{
				MakeWorkload("sales", "zero-resource-wl").Queue("main").Request("cpu", "1").Request(ksGPU, "0").Obj(),
			},
			want: ksExpect{admit: map[string]string{"sales/zero-resource-wl": "sales main:cpu=default"}},
		},
		{
			name: "preempt when workload requests zero of a resource not defined in ClusterQueue",
			extra: []any{
				withinLower(MakeClusterQueue("preempt-zero-gpu-cq")).Quota("default", "cpu", "4").Obj(),
				MakeLocalQueue("sales", "preempt-zero-gpu-lq", "preempt-zero-gpu-cq").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("sales", "preemptor").Queue("preempt-zero-gpu-lq").Request("cpu", "2").Request(ksGPU, "0").Obj(),
				ksAdmitted(MakeWorkload("sales", "low-priority").Priority(-1).Queue("preempt-zero-gpu-lq").Request("cpu", "4"), "preempt-zero-gpu-cq", "default"),
			},
			want: ksExpect{
				preempt: map[string]string{"sales/preemptor": "sales/low-priority:InClusterQueue"},
				pending: []string{"sales/preemptor"},
				reasons: map[string]string{"sales/preemptor": ReasonWaitingForPreemption},
			},
			next: &ksExpect{
				admit:   map[string]string{"sales/preemptor": "preempt-zero-gpu-cq main:cpu=default"},
				pending: []string{"sales/low-priority"},
			},
		},
		{
			name: "PreemptionOverBorrowing preference: preempt in first flavor instead of borrowing in second",
			extra: []any{
				withinLower(MakeClusterQueue("pob-cq").Cohort("pob-cohort")).
					WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preference(pob).
					Quota("on-demand", "cpu", "5", Borrowing("0")).
					Quota("spot", "cpu", "0", Borrowing("5")).Obj(),
				MakeClusterQueue("pob-lender").Cohort("pob-cohort").
					Quota("on-demand", "cpu", "0").Quota("spot", "cpu", "5").Obj(),
				MakeLocalQueue("default", "pob-queue", "pob-cq").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("default", "low-pob").Queue("pob-queue").Priority(-1).Request("cpu", "5"), "pob-cq", "on-demand"),
				MakeWorkload("default", "high-pob").Queue("pob-queue").Priority(0).Request("cpu", "5").Obj(),
			},
			want: ksExpect{
				preempt: map[string]string{"default/high-pob": "default/low-pob:InClusterQueue"},
				pending: []string{"default/high-pob"},
				reasons: map[string]string{"default/high-pob": ReasonWaitingForPreemption},
			},
			// low-pob, requeued, borrows spot from pob-lender.
			next: &ksExpect{admit: map[string]string{
				"default/high-pob": "pob-cq main:cpu=on-demand",
				"default/low-pob":  "pob-cq main:cpu=spot",
			}},
		},
		{
			name: "PreemptionOverBorrowing preference: select fitting second flavor over first flavor with no preemption candidates",
			extra: []any{
				MakeCohort("nopc-root").Quota("on-demand", "cpu", "0").Quota("spot", "cpu", "5").Obj(),
				MakeCohort("nopc-mid").Parent("nopc-root").Obj(),
				withinLower(MakeClusterQueue("nopc-cq").Cohort("nopc-mid")).
					WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preference(pob).
					Quota("on-demand", "cpu", "5", Borrowing("0")).
					Quota("spot", "cpu", "0").Obj(),
				MakeClusterQueue("nopc-sibling").Cohort("nopc-mid").
					Quota("on-demand", "cpu", "5").Quota("spot", "cpu", "0").Obj(),
				MakeLocalQueue("default", "nopc-queue", "nopc-cq").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("default", "admitted-nopc").Queue("nopc-queue").Priority(0).Request("cpu", "5"), "nopc-cq", "on-demand"),
				MakeWorkload("default", "pending-nopc").Queue("nopc-queue").Priority(0).Request("cpu", "5").Obj(),
			},
			want: ksExpect{admit: map[string]string{"default/pending-nopc": "nopc-cq main:cpu=spot"}},
		},
		{
			name: "BorrowingOverPreemption preference: borrow in second flavor instead of preempting in first",
			extra: []any{
				withinLower(MakeClusterQueue("bop-cq").Cohort("bop-cohort")).
					WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preference(bop).
					Quota("on-demand", "cpu", "5", Borrowing("0")).
					Quota("spot", "cpu", "0", Borrowing("5")).Obj(),
				MakeClusterQueue("bop-lender").Cohort("bop-cohort").
					Quota("on-demand", "cpu", "0").Quota("spot", "cpu", "5").Obj(),
				MakeLocalQueue("default", "bop-queue", "bop-cq").Obj(),
			},
			wls: []*kueue.Workload{
				ksAdmitted(MakeWorkload("default", "low-bop").Queue("bop-queue").Priority(-1).Request("cpu", "5"), "bop-cq", "on-demand"),
				MakeWorkload("default", "high-bop").Queue("bop-queue").Priority(0).Request("cpu", "5").Obj(),
			},
			want: ksExpect{admit: map[string]string{"default/high-bop": "bop-cq main:cpu=spot"}},
		},
		{
			// A LimitRange of the namespace caps containers at 300m cpu: the
			// workload is never admitted, with Kueue's message.
			name: "container does not satisfy limitRange constraints",
			extra: []any{&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Namespace: "sales"},
				Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
					Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")}}}}}},
			wls: []*kueue.Workload{
				MakeWorkload("sales", "new").Queue("main").PodSet("one", 1).Request("cpu", "500m").Obj(),
			},
			want: ksExpect{
				pending:  []string{"sales/new"},
				reasons:  map[string]string{"sales/new": ReasonInvalid},
				messages: map[string]string{"sales/new": `resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be above the limitRange max`},
			},
		},
		{
			name: "prevent integer overflow when sum of requests over podsets exceeds MaxInt64",
			extra: []any{
				MakeClusterQueue("overflow-cq").Quota("default", "cpu", "10000").Obj(),
				MakeLocalQueue("default", "overflow-queue", "overflow-cq").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("default", "vuln-wl").Queue("overflow-queue").
					PodSet("ps1", 1).Request("cpu", "1000000m").
					PodSet("ps2", 1).Request("cpu", "9223372036854775000m").Obj(),
			},
			refused: []string{"default/vuln-wl"},
		},
		{
			name: "prevent integer overflow in ResourceValue conversion to MilliValue",
			extra: []any{
				MakeClusterQueue("overflow-cq").Quota("default", "cpu", "10").Obj(),
				MakeLocalQueue("default", "overflow-queue", "overflow-cq").Obj(),
			},
			wls: []*kueue.Workload{
				MakeWorkload("default", "vuln-wl").Queue("overflow-queue").
					PodSet("ps1", 1).Request("cpu", "9223372036854776").Obj(),
			},
			refused: []string{"default/vuln-wl"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { ksRunSchedule(t, tc) })
	}
}

// ksLimit sets a limit of the first container of every pod set.
func ksLimit(w *kueue.Workload, res corev1.ResourceName, q string) *kueue.Workload {
	for i := range w.Spec.PodSets {
		c := &w.Spec.PodSets[i].Template.Spec.Containers[0]
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		c.Resources.Limits[res] = resource.MustParse(q)
	}
	return w
}

// ksMinCount sets spec.podSets[].minCount by pod set name.
func ksMinCount(w *kueue.Workload, minCounts map[string]int32) *kueue.Workload {
	for i := range w.Spec.PodSets {
		if c, ok := minCounts[string(w.Spec.PodSets[i].Name)]; ok {
			w.Spec.PodSets[i].MinCount = &c
		}
	}
	return w
}
