package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: pkg/scheduler/scheduler_test.go (ff69552), TestLastSchedulingContext:
// a workload's flavor search across two scheduling passes, with the
// ClusterQueues' flavor fungibility (on-demand first, then spot). Kueue runs
// one pass, deletes some workloads (a preempted victim among them, which
// confirms its eviction), runs a second and compares what holds quota. The
// ports run a Cycle, the deletions, and the Cycles that follow (Quokka
// admits a preemptor in the cycle after its victims' evictions are
// confirmed: deliberate difference 2), and compare the same.

// holdingFlavors maps each workload holding quota to its ClusterQueue and the
// flavor of its cpu.
func holdingFlavors(s *Scheduler) map[string]string {
	out := map[string]string{}
	for cq, m := range s.admittedByCQ {
		for k, r := range m {
			out[k.Name] = cq + "/" + r.admission.PodSets[0].Flavors[corev1.ResourceCPU]
		}
	}
	return out
}

// lscCohort is the test's three StrictFIFO ClusterQueues in cohort "cohort":
// 50 cpus of on-demand (borrowing up to 50) and 100 of spot (no borrowing)
// each, never preempting within, reclaiming from lower priorities; alpha and
// beta stop at the first flavor that fits by borrowing or preempting, theta
// tries the next flavor.
func lscCohort() []any {
	cq := func(name string, policy kueue.FlavorFungibilityPolicy) *kueue.ClusterQueue {
		return MakeClusterQueue(name).Cohort("cohort").Strategy(kueue.StrictFIFO).
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).
			WhenCanPreempt(policy).WhenCanBorrow(policy).
			Quota("on-demand", corev1.ResourceCPU, "50", Borrowing("50")).Quota("spot", corev1.ResourceCPU, "100", Borrowing("0")).Obj()
	}
	return []any{cq("eng-cohort-alpha", kueue.MayStopSearch), cq("eng-cohort-beta", kueue.MayStopSearch), cq("eng-cohort-theta", kueue.TryNextFlavor)}
}

func TestKueueLastSchedulingContext(t *testing.T) {
	held := func(name, cq, flavor, cpu string, priority int32) *kueue.Workload {
		return MakeWorkload("default", name).Priority(priority).Request(corev1.ResourceCPU, cpu).ReserveQuota(cq, flavor).Obj()
	}
	pending := func(name, lq, cpu string, created time.Duration) *kueue.Workload {
		return MakeWorkload("default", name).Queue(lq).Request(corev1.ResourceCPU, cpu).Created(created).Obj()
	}
	cases := []struct {
		name    string
		objects []any
		// firstPreempts are the victims of the first pass; firstPending the
		// workloads it leaves pending, with their reason.
		firstPreempts []string
		firstPending  map[string]string
		deletes       []string
		want          map[string]string // workload: ClusterQueue/flavor of cpu
	}{
		{name: "scheduling on the first flavor is unblocked after some workloads were deleted",
			objects: []any{
				MakeClusterQueue("eng-alpha").Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
					WhenCanPreempt(kueue.MayStopSearch).
					Quota("on-demand", corev1.ResourceCPU, "50", Borrowing("50")).Quota("spot", corev1.ResourceCPU, "10", Borrowing("0")).Obj(),
				held("low-1", "eng-alpha", "on-demand", "50", 0),
				pending("preemptor", "main", "20", 0)},
			firstPending: map[string]string{"preemptor": ReasonInsufficientQuota},
			deletes:      []string{"low-1"},
			want:         map[string]string{"preemptor": "eng-alpha/on-demand"}},
		{name: "borrow before next flavor",
			objects: append(lscCohort(), held("placeholder", "eng-cohort-alpha", "on-demand", "50", 0),
				pending("borrower", "main-alpha", "20", 0), pending("workload1", "main-beta", "20", time.Second)),
			want: map[string]string{"placeholder": "eng-cohort-alpha/on-demand", "workload1": "eng-cohort-beta/on-demand",
				"borrower": "eng-cohort-alpha/on-demand"}},
		{name: "borrow after all flavors",
			objects: append(lscCohort(), held("placeholder", "eng-cohort-alpha", "on-demand", "50", 0),
				held("placeholder1", "eng-cohort-theta", "on-demand", "50", 0), pending("workload", "main-theta", "20", 0)),
			want: map[string]string{"placeholder": "eng-cohort-alpha/on-demand", "placeholder1": "eng-cohort-theta/on-demand",
				"workload": "eng-cohort-theta/spot"}},
		{name: "when the next flavor is full, but can borrow on first",
			objects: append(lscCohort(), held("placeholder", "eng-cohort-alpha", "on-demand", "40", 0),
				held("placeholder1", "eng-cohort-theta", "on-demand", "40", 0), held("placeholder2", "eng-cohort-theta", "spot", "100", 0),
				pending("workload", "main-theta", "20", 0)),
			want: map[string]string{"placeholder": "eng-cohort-alpha/on-demand", "placeholder1": "eng-cohort-theta/on-demand",
				"placeholder2": "eng-cohort-theta/spot", "workload": "eng-cohort-theta/on-demand"}},
		{name: "when the next flavor is full, but can preempt on first",
			objects: append(lscCohort(), held("placeholder-alpha", "eng-cohort-alpha", "on-demand", "150", -1),
				held("placeholder-theta-spot", "eng-cohort-theta", "spot", "100", 0), pending("new", "main-theta", "20", 0)),
			firstPreempts: []string{"placeholder-alpha"},
			firstPending:  map[string]string{"new": ReasonWaitingForPreemption},
			deletes:       []string{"placeholder-alpha"},
			want:          map[string]string{"placeholder-theta-spot": "eng-cohort-theta/spot", "new": "eng-cohort-theta/on-demand"}},
		{name: "TryNextFlavor, but second flavor is full and can preempt on first",
			objects: []any{
				MakeClusterQueue("eng-cohort-alpha").Cohort("cohort").
					Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
					WhenCanPreempt(kueue.TryNextFlavor).WhenCanBorrow(kueue.TryNextFlavor).
					Quota("on-demand", corev1.ResourceCPU, "0", Borrowing("60")).Quota("spot", corev1.ResourceCPU, "30", Borrowing("30")).Obj(),
				MakeClusterQueue("eng-cohort-beta").Cohort("cohort").
					Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
					WhenCanPreempt(kueue.TryNextFlavor).WhenCanBorrow(kueue.TryNextFlavor).
					Quota("on-demand", corev1.ResourceCPU, "30", Borrowing("30")).Quota("spot", corev1.ResourceCPU, "30", Borrowing("30")).Obj(),
				MakeClusterQueue("eng-cohort-shared").Cohort("cohort").Quota("on-demand", corev1.ResourceCPU, "30").Obj(),
				MakeWorkload("default", "alpha1").Request(corev1.ResourceCPU, "22").ReserveQuota("eng-cohort-alpha", "on-demand").QuotaReservedAt(-time.Second).Obj(),
				MakeWorkload("default", "alpha2").Request(corev1.ResourceCPU, "22").ReserveQuota("eng-cohort-alpha", "on-demand").QuotaReservedAt(0).Obj(),
				MakeWorkload("default", "alpha3").Request(corev1.ResourceCPU, "22").ReserveQuota("eng-cohort-alpha", "spot").QuotaReservedAt(0).Obj(),
				MakeWorkload("default", "beta1").Request(corev1.ResourceCPU, "22").ReserveQuota("eng-cohort-beta", "spot").QuotaReservedAt(0).Obj(),
				pending("new", "main-beta", "22", 0)},
			firstPreempts: []string{"alpha2"},
			firstPending:  map[string]string{"new": ReasonWaitingForPreemption},
			deletes:       []string{"alpha2"},
			want: map[string]string{"alpha1": "eng-cohort-alpha/on-demand", "alpha3": "eng-cohort-alpha/spot",
				"beta1": "eng-cohort-beta/spot", "new": "eng-cohort-beta/on-demand"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := []any{MakeFlavor("on-demand").Obj(), MakeFlavor("spot").Obj()}
			for lq, cq := range map[string]string{"main": "eng-alpha", "main-alpha": "eng-cohort-alpha",
				"main-beta": "eng-cohort-beta", "main-theta": "eng-cohort-theta"} {
				objs = append(objs, MakeLocalQueue("default", lq, cq).Obj())
			}
			s := world(t, Options{}, append(objs, tc.objects...)...)
			first := s.Cycle(now)
			var victims []string
			for _, p := range preempts(first) {
				for _, v := range p.Victims {
					victims = append(victims, v.Workload.Name)
				}
			}
			slices.Sort(victims)
			if !slices.Equal(victims, tc.firstPreempts) {
				t.Fatalf("first pass preempted %v, want %v", victims, tc.firstPreempts)
			}
			for name, reason := range tc.firstPending {
				mustPending(t, first, name, reason)
			}
			for _, name := range tc.deletes {
				s.DeleteWorkload(key("default", name))
			}
			for i := 1; i <= 3; i++ {
				s.Cycle(now.Add(time.Duration(i) * time.Second))
			}
			if got := holdingFlavors(s); !maps.Equal(got, tc.want) {
				t.Fatalf("holding quota %v, want %v", fmt.Sprint(got), fmt.Sprint(tc.want))
			}
		})
	}
}
