package scheduler

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's classic preemption tables. Each case builds the ClusterQueues
// and Cohorts of the Kueue case, upserts its admitted workloads (all in
// namespace "default", each reserved at Epoch unless the case says otherwise),
// puts the incoming workload "in" pending in the target queue's LocalQueue
// (named after the ClusterQueue) and runs one Cycle. Kueue hands GetTargets a
// flavor assignment; here the Cycle computes it, and once the victims'
// evictions are confirmed the next Cycle must admit "in" with that assignment.

const (
	kpNever             = kueue.PreemptionPolicyNever
	kpAny               = kueue.PreemptionPolicyAny
	kpLower             = kueue.PreemptionPolicyLowerPriority
	kpLowerOrNewerEqual = kueue.PreemptionPolicyLowerOrNewerEqualPriority
)

// kpNS is the namespace of every workload and LocalQueue of these tests.
const kpNS = "default"

// kpRes is a pod's requests.
type kpRes map[corev1.ResourceName]string

// kpFl is a pod set's flavor per resource.
type kpFl map[corev1.ResourceName]string

func kpPtr(v int32) *int32 { return &v }

// kpWorkload is a one-pod workload with a priority and requests.
func kpWorkload(name string, prio int32, req kpRes) *WorkloadWrapper {
	w := MakeWorkload(kpNS, name).Priority(prio)
	for r, q := range req {
		w.Request(r, q)
	}
	return w
}

// kpAdmitted is a one-pod workload holding quota in cq, every resource in
// flavor, reserved at Epoch.
func kpAdmitted(name string, prio int32, cq, flavor string, req kpRes) *kueue.Workload {
	return kpWorkload(name, prio, req).Queue(cq).ReserveQuota(cq, flavor).QuotaReservedAt(0).Obj()
}

// kpIncoming is the incoming one-pod workload "in".
func kpIncoming(prio int32, req kpRes) *WorkloadWrapper {
	return kpWorkload("in", prio, req)
}

// kpWithUsage overrides the admission's resourceUsage of the first pod set, as
// Kueue's cases do when the assignment's quantity differs from the request.
func kpWithUsage(w *kueue.Workload, res corev1.ResourceName, q string) *kueue.Workload {
	psa := &w.Status.Admission.PodSetAssignments[0]
	if psa.ResourceUsage == nil {
		psa.ResourceUsage = corev1.ResourceList{}
	}
	psa.ResourceUsage[res] = resource.MustParse(q)
	return w
}

// kpCase is one case of a Kueue preemption table.
type kpCase struct {
	name     string
	opts     Options
	cqs      []*kueue.ClusterQueue // nil: kpDefaultClusterQueues
	cohorts  []*kueue.Cohort
	admitted []*kueue.Workload
	// incoming is "in"; the runner queues it in target's LocalQueue.
	incoming *WorkloadWrapper
	target   string
	// want lists the victims as victimNames does; "" when nothing is preempted.
	want string
	// flavors is the incoming workload's assignment, per pod set: checked on
	// the admission that follows the confirmed evictions, or on the immediate
	// admission when admit is set.
	flavors []kpFl
	// admit: "in" fits without preemption, so the Cycle admits it at once
	// (Kueue's case hands GetTargets a Preempt assignment for a workload that
	// its flavor assigner would have found to fit).
	admit bool
}

// kpDefaultClusterQueues are the ClusterQueues shared by TestPreemption's
// cases.
func kpDefaultClusterQueues() []*kueue.ClusterQueue {
	bwc := kpPtr(0)
	return []*kueue.ClusterQueue{
		MakeClusterQueue("standalone").Quota("default", "cpu", "6").
			Quota("alpha", "memory", "3Gi").Quota("beta", "memory", "3Gi").
			Preemption(kpNever, kpLower).Obj(),
		MakeClusterQueue("c1").Cohort("cohort").
			Quota("default", "cpu", "6", Borrowing("6")).Quota("default", "memory", "3Gi", Borrowing("3Gi")).
			Preemption(kpLower, kpLower).Obj(),
		MakeClusterQueue("c2").Cohort("cohort").
			Quota("default", "cpu", "6", Borrowing("6")).Quota("default", "memory", "3Gi", Borrowing("3Gi")).
			Preemption(kpAny, kpNever).Obj(),
		MakeClusterQueue("d1").Cohort("cohort-no-limits").
			Quota("default", "cpu", "6").Quota("default", "memory", "3Gi").
			Preemption(kpLower, kpLower).Obj(),
		MakeClusterQueue("d2").Cohort("cohort-no-limits").
			Quota("default", "cpu", "6").Quota("default", "memory", "3Gi").
			Preemption(kpAny, kpNever).Obj(),
		MakeClusterQueue("l1").Cohort("legion").
			Quota("default", "cpu", "6", Borrowing("12")).Quota("default", "memory", "3Gi", Borrowing("6Gi")).
			Preemption(kpLower, kpLower).Obj(),
		MakeClusterQueue("preventStarvation").Quota("default", "cpu", "6").
			Preemption(kpNever, kpLowerOrNewerEqual).Obj(),
		MakeClusterQueue("a_standard").Cohort("with_shared_cq").
			Quota("default", "cpu", "1", Borrowing("12")).
			Preemption(kpLower, kpNever).BorrowWithinCohort(bwc).Obj(),
		MakeClusterQueue("b_standard").Cohort("with_shared_cq").
			Quota("default", "cpu", "1", Borrowing("12")).
			Preemption(kpAny, kpLower).BorrowWithinCohort(bwc).Obj(),
		MakeClusterQueue("a_best_effort").Cohort("with_shared_cq").
			Quota("default", "cpu", "1", Borrowing("12")).
			Preemption(kpLower, kpNever).BorrowWithinCohort(bwc).Obj(),
		MakeClusterQueue("b_best_effort").Cohort("with_shared_cq").
			Quota("default", "cpu", "0", Borrowing("13")).
			Preemption(kpLower, kpNever).BorrowWithinCohort(bwc).Obj(),
		MakeClusterQueue("shared").Cohort("with_shared_cq").Quota("default", "cpu", "10").Obj(),
		MakeClusterQueue("lend1").Cohort("cohort-lend").
			Quota("default", "cpu", "6", Lending("4")).Preemption(kpLower, kpLower).Obj(),
		MakeClusterQueue("lend2").Cohort("cohort-lend").
			Quota("default", "cpu", "6", Lending("2")).Preemption(kpLower, kpLower).Obj(),
		MakeClusterQueue("a").Cohort("cohort-three").
			Quota("default", "cpu", "2").Quota("default", "memory", "2").Preemption(kpAny, kpLower).Obj(),
		MakeClusterQueue("b").Cohort("cohort-three").
			Quota("default", "cpu", "2").Quota("default", "memory", "2").Obj(),
		MakeClusterQueue("c").Cohort("cohort-three").
			Quota("default", "cpu", "2").Quota("default", "memory", "2").Obj(),
	}
}

// kpRun builds the case's world, runs one Cycle and checks its decisions.
func kpRun(t *testing.T, tc kpCase) {
	t.Helper()
	objs := []any{MakeFlavor("default").Obj(), MakeFlavor("alpha").Obj(), MakeFlavor("beta").Obj()}
	for _, c := range tc.cohorts {
		objs = append(objs, c)
	}
	cqs := tc.cqs
	if cqs == nil {
		cqs = kpDefaultClusterQueues()
	}
	for _, cq := range cqs {
		objs = append(objs, cq, MakeLocalQueue(kpNS, cq.Name, cq.Name).Obj())
	}
	for _, w := range tc.admitted {
		objs = append(objs, w)
	}
	s := world(t, tc.opts, objs...)
	apply(t, s, tc.incoming.Queue(tc.target).UID("wl-in").Obj())
	ds := s.Cycle(now)
	kpCheck(t, s, ds, tc)
}

// kpCheck checks one cycle's decisions against the case, and for a
// preemption, the admission that follows the confirmed evictions.
func kpCheck(t *testing.T, s *Scheduler, ds []Decision, tc kpCase) {
	t.Helper()
	if got := victimNames(ds); got != tc.want {
		t.Fatalf("victims %q, want %q; decisions %v", got, tc.want, ds)
	}
	if tc.admit {
		kpMustAdmit(t, ds, tc)
		return
	}
	for _, a := range admits(ds) {
		if a.Workload.Name == "in" {
			t.Fatalf("in admitted at once (%+v), want it to wait", a)
		}
	}
	ps := preempts(ds)
	if tc.want == "" {
		if len(ps) != 0 {
			t.Fatalf("preemptions %+v, want none", ps)
		}
		if p, ok := pendingFor(ds, "in"); !ok {
			t.Fatalf("in: no pending decision; decisions %v", ds)
		} else if p.Reason == ReasonWaitingForPreemption {
			t.Fatalf("in waits for a preemption: %s", p.Message)
		}
		return
	}
	if len(ps) != 1 || ps[0].Preemptor != key(kpNS, "in") || ps[0].PreemptorClusterQueue != tc.target {
		t.Fatalf("preemptions %+v, want one by in of %s", ps, tc.target)
	}
	mustPending(t, ds, "in", ReasonWaitingForPreemption)
	confirm(s, ds)
	kpMustAdmit(t, s.Cycle(now.Add(time.Minute)), tc)
}

// kpMustAdmit checks that the decisions admit "in" in the target queue with
// the case's flavors.
func kpMustAdmit(t *testing.T, ds []Decision, tc kpCase) {
	t.Helper()
	for _, a := range admits(ds) {
		if a.Workload != key(kpNS, "in") {
			continue
		}
		if a.ClusterQueue != tc.target {
			t.Fatalf("in admitted in %s, want %s", a.ClusterQueue, tc.target)
		}
		if len(a.PodSets) != len(tc.flavors) {
			t.Fatalf("in admitted with %d pod sets, want %d: %+v", len(a.PodSets), len(tc.flavors), a.PodSets)
		}
		for i, ps := range a.PodSets {
			if !maps.Equal(ps.Flavors, map[corev1.ResourceName]string(tc.flavors[i])) {
				t.Fatalf("in's pod set %s flavors %v, want %v", ps.Name, ps.Flavors, tc.flavors[i])
			}
		}
		return
	}
	t.Fatalf("in not admitted; decisions %v", ds)
}

// Kueue: pkg/scheduler/preemption/preemption_test.go, TestPreemption.
func TestKueuePreemption(t *testing.T) {
	cpu := func(q string) kpRes { return kpRes{"cpu": q} }
	mem := func(q string) kpRes { return kpRes{"memory": q} }
	onDefault := []kpFl{{"cpu": "default"}}
	// standaloneBetaFirst is standalone with its memory flavors listed beta
	// first, so that the flavor assigner picks beta as Kueue's hand-made
	// assignment does (with alpha first it would pick alpha).
	standaloneBetaFirst := []*kueue.ClusterQueue{
		MakeClusterQueue("standalone").Quota("default", "cpu", "6").
			Quota("beta", "memory", "3Gi").Quota("alpha", "memory", "3Gi").
			Preemption(kpNever, kpLower).Obj(),
	}
	cases := []kpCase{
		{
			name: "preempt lowest priority",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("2")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("2")),
				kpAdmitted("high", 1, "standalone", "default", cpu("2")),
			},
			incoming: kpIncoming(1, cpu("2")), target: "standalone",
			want: "low:InClusterQueue", flavors: onDefault,
		},
		{
			name: "preempt multiple",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("2")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("2")),
				kpAdmitted("high", 1, "standalone", "default", cpu("2")),
			},
			incoming: kpIncoming(1, cpu("3")), target: "standalone",
			want: "low:InClusterQueue,mid:InClusterQueue", flavors: onDefault,
		},
		{
			name: "no preemption for low priority",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("3")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("3")),
			},
			incoming: kpIncoming(-1, cpu("1")), target: "standalone",
		},
		{
			name: "not enough low priority workloads",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("3")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("3")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "standalone",
		},
		{
			name: "some free quota, preempt low priority",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("1")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("1")),
				kpAdmitted("high", 1, "standalone", "default", cpu("3")),
			},
			incoming: kpIncoming(1, cpu("2")), target: "standalone",
			want: "low:InClusterQueue", flavors: onDefault,
		},
		{
			name: "minimal set excludes low priority",
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "default", cpu("1")),
				kpAdmitted("mid", 0, "standalone", "default", cpu("2")),
				kpAdmitted("high", 1, "standalone", "default", cpu("3")),
			},
			incoming: kpIncoming(1, cpu("2")), target: "standalone",
			want: "mid:InClusterQueue", flavors: onDefault,
		},
		{
			name: "only preempt workloads using the chosen flavor",
			cqs:  standaloneBetaFirst,
			admitted: []*kueue.Workload{
				kpAdmitted("low", -1, "standalone", "alpha", mem("2Gi")),
				kpAdmitted("mid", 0, "standalone", "beta", mem("1Gi")),
				kpAdmitted("high", 1, "standalone", "beta", mem("1Gi")),
			},
			incoming: kpIncoming(1, kpRes{"cpu": "1", "memory": "2Gi"}), target: "standalone",
			want: "mid:InClusterQueue", flavors: []kpFl{{"cpu": "default", "memory": "beta"}},
		},
		{
			name: "reclaim quota from borrower",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-low", -1, "c1", "default", cpu("3")),
				kpAdmitted("c2-mid", 0, "c2", "default", cpu("3")),
				kpAdmitted("c2-high", 1, "c2", "default", cpu("6")),
			},
			incoming: kpIncoming(1, cpu("3")), target: "c1",
			want: "c2-mid:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "reclaim quota if workload requests 0 resources for a resource at nominal quota",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-low", -1, "c1", "default", kpRes{"cpu": "3", "memory": "3Gi"}),
				kpAdmitted("c2-mid", 0, "c2", "default", cpu("3")),
				kpAdmitted("c2-high", 1, "c2", "default", cpu("6")),
			},
			incoming: kpIncoming(1, kpRes{"cpu": "3", "memory": "0"}), target: "c1",
			want: "c2-mid:InCohortReclamation", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			name: "no workloads borrowing",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-high", 1, "c1", "default", cpu("4")),
				kpAdmitted("c2-low-1", -1, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "c1",
			// The cohort has 4 unused cpus: c1 borrows them.
			admit: true, flavors: onDefault,
		},
		{
			name: "not enough workloads borrowing",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-high", 1, "c1", "default", cpu("4")),
				kpAdmitted("c2-low-1", -1, "c2", "default", cpu("4")),
				kpAdmitted("c2-low-2", -1, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "c1",
		},
		{
			name: "preempting locally and borrowing other resources in cohort, without cohort candidates",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-low", -1, "c1", "default", cpu("4")),
				kpAdmitted("c2-low-1", -1, "c2", "default", cpu("4")),
				kpAdmitted("c2-high-2", 1, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, kpRes{"cpu": "4", "memory": "5Gi"}), target: "c1",
			want: "c1-low:InClusterQueue", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			name: "preempting locally and borrowing same resource in cohort",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-med", 0, "c1", "default", cpu("4")),
				kpAdmitted("c1-low", -1, "c1", "default", cpu("4")),
				kpAdmitted("c2-low-1", -1, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "c1",
			want: "c1-low:InClusterQueue", flavors: onDefault,
		},
		{
			name: "preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort",
			admitted: []*kueue.Workload{
				kpAdmitted("d1-med", 0, "d1", "default", cpu("4")),
				kpAdmitted("d1-low", -1, "d1", "default", cpu("4")),
				kpAdmitted("d2-low-1", -1, "d2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "d1",
			want: "d1-low:InClusterQueue", flavors: onDefault,
		},
		{
			name: "preempting locally and borrowing other resources in cohort, with cohort candidates",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-med", 0, "c1", "default", cpu("4")),
				kpAdmitted("c2-low-1", -1, "c2", "default", cpu("5")),
				kpAdmitted("c2-low-2", -1, "c2", "default", cpu("1")),
				kpAdmitted("c2-low-3", -1, "c2", "default", cpu("1")),
			},
			incoming: kpIncoming(1, kpRes{"cpu": "2", "memory": "5Gi"}), target: "c1",
			want: "c1-med:InClusterQueue", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			name: "preempting locally and not borrowing same resource in 1-queue cohort",
			admitted: []*kueue.Workload{
				kpAdmitted("l1-med", 0, "l1", "default", cpu("4")),
				kpAdmitted("l1-low", -1, "l1", "default", cpu("2")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "l1",
			want: "l1-med:InClusterQueue", flavors: onDefault,
		},
		{
			name: "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority",
			admitted: []*kueue.Workload{
				kpAdmitted("c1", 0, "c1", "default", cpu("2")),
				kpAdmitted("c2-1", 0, "c2", "default", cpu("4")),
				kpAdmitted("c2-2", 0, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "c1",
		},
		{
			name: "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-1", 0, "c1", "default", cpu("4")),
				kpAdmitted("c1-2", 1, "c1", "default", cpu("4")),
				kpAdmitted("c2", 0, "c2", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "c2",
			want: "c1-1:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "preempt from all ClusterQueues in cohort",
			admitted: []*kueue.Workload{
				kpAdmitted("c1-low", -1, "c1", "default", cpu("3")),
				kpAdmitted("c1-mid", 0, "c1", "default", cpu("2")),
				kpAdmitted("c2-low", -1, "c2", "default", cpu("3")),
				kpAdmitted("c2-mid", 0, "c2", "default", cpu("4")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "c1",
			want: "c1-low:InClusterQueue,c2-low:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "can't preempt workloads in ClusterQueue for withinClusterQueue=Never",
			admitted: []*kueue.Workload{
				kpAdmitted("c2-low", -1, "c2", "default", cpu("3")),
			},
			incoming: kpIncoming(1, cpu("4")), target: "c2",
			// c2 borrows 1 of the cohort's 9 unused cpus.
			admit: true, flavors: onDefault,
		},
		{
			name: "each podset preempts a different flavor",
			admitted: []*kueue.Workload{
				kpAdmitted("low-alpha", -1, "standalone", "alpha", mem("2Gi")),
				kpAdmitted("low-beta", -1, "standalone", "beta", mem("2Gi")),
			},
			incoming: MakeWorkload(kpNS, "in").Priority(0).
				PodSet("launcher", 1).Request("memory", "2Gi").
				PodSet("workers", 2).Request("memory", "1Gi"),
			target: "standalone",
			want:   "low-alpha:InClusterQueue,low-beta:InClusterQueue",
			flavors: []kpFl{
				{"memory": "alpha"},
				{"memory": "beta"},
			},
		},
		{
			name: "preempt newer workloads with the same priority",
			admitted: []*kueue.Workload{
				kpAdmitted("wl1", 2, "preventStarvation", "default", cpu("2")),
				kpWorkload("wl2", 1, cpu("2")).Created(0).Queue("preventStarvation").
					ReserveQuota("preventStarvation", "default").QuotaReservedAt(time.Second).Obj(),
				kpWorkload("wl3", 1, cpu("2")).Created(0).Queue("preventStarvation").
					ReserveQuota("preventStarvation", "default").QuotaReservedAt(0).Obj(),
			},
			incoming: MakeWorkload(kpNS, "in").Priority(1).Created(-15*time.Second).
				PodSet("launcher", 1).Request("cpu", "2"),
			target: "preventStarvation",
			want:   "wl2:InClusterQueue", flavors: onDefault,
		},
		{
			name: "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing",
			admitted: []*kueue.Workload{
				kpAdmitted("a_best_effort_low", -1, "a_best_effort", "default", cpu("10")),
				kpAdmitted("b_best_effort_low", -1, "b_best_effort", "default", cpu("1")),
			},
			incoming: kpIncoming(0, cpu("10")), target: "a_standard",
			want: "a_best_effort_low:InCohortReclaimWhileBorrowing", flavors: onDefault,
		},
		{
			name: "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is required even after the preemption",
			admitted: []*kueue.Workload{
				kpAdmitted("b_standard", 1, "b_standard", "default", cpu("10")),
			},
			incoming: kpIncoming(2, cpu("10")), target: "a_standard",
		},
		{
			name: "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is not required after the preemption",
			admitted: []*kueue.Workload{
				kpAdmitted("b_standard", 1, "b_standard", "default", cpu("13")),
			},
			incoming: kpIncoming(2, cpu("1")), target: "a_standard",
			want: "b_standard:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue",
			admitted: []*kueue.Workload{
				kpAdmitted("a_standard", 1, "a_standard", "default", cpu("13")),
			},
			incoming: kpIncoming(2, cpu("1")), target: "a_standard",
		},
		{
			name: "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal",
			admitted: []*kueue.Workload{
				kpAdmitted("a_standard_1", 1, "a_standard", "default", cpu("10")),
				kpAdmitted("a_standard_2", 1, "a_standard", "default", cpu("1")),
				kpAdmitted("b_standard_1", 1, "b_standard", "default", cpu("1")),
				kpAdmitted("b_standard_2", 2, "b_standard", "default", cpu("1")),
			},
			incoming: kpIncoming(3, cpu("1")), target: "b_standard",
			want: "b_standard_1:InClusterQueue", flavors: onDefault,
		},
		{
			name: "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold",
			admitted: []*kueue.Workload{
				kpAdmitted("b_standard_high", 2, "b_standard", "default", cpu("10")),
				kpAdmitted("b_standard_mid", 1, "b_standard", "default", cpu("1")),
				kpAdmitted("a_best_effort_low", -1, "a_best_effort", "default", cpu("1")),
				kpAdmitted("a_best_effort_lower", -2, "a_best_effort", "default", cpu("1")),
			},
			incoming: kpIncoming(2, cpu("2")), target: "b_standard",
			want: "a_best_effort_lower:InCohortReclaimWhileBorrowing,b_standard_mid:InClusterQueue", flavors: onDefault,
		},
		{
			name: "reclaim quota from lender",
			admitted: []*kueue.Workload{
				kpAdmitted("lend1-low", -1, "lend1", "default", cpu("3")),
				kpAdmitted("lend2-mid", 0, "lend2", "default", cpu("3")),
				kpAdmitted("lend2-high", 1, "lend2", "default", cpu("4")),
			},
			incoming: kpIncoming(1, cpu("3")), target: "lend1",
			want: "lend2-mid:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "preempt from all ClusterQueues in cohort-lend",
			admitted: []*kueue.Workload{
				kpAdmitted("lend1-low", -1, "lend1", "default", cpu("3")),
				kpAdmitted("lend1-mid", 0, "lend1", "default", cpu("2")),
				kpAdmitted("lend2-low", -1, "lend2", "default", cpu("3")),
				kpAdmitted("lend2-mid", 0, "lend2", "default", cpu("4")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "lend1",
			want: "lend1-low:InClusterQueue,lend2-low:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit",
			admitted: []*kueue.Workload{
				kpAdmitted("lend2-low", -1, "lend2", "default", cpu("10")),
			},
			incoming: kpIncoming(0, cpu("9")), target: "lend1",
		},
		{
			name: "preemptions from cq when target queue is exhausted for the single requested resource",
			admitted: []*kueue.Workload{
				kpAdmitted("a1", -2, "a", "default", cpu("1")),
				kpAdmitted("a2", -2, "a", "default", cpu("1")),
				kpAdmitted("a3", -1, "a", "default", cpu("1")),
				kpAdmitted("b1", 0, "b", "default", cpu("1")),
				kpAdmitted("b2", 0, "b", "default", cpu("1")),
				kpAdmitted("b3", 0, "b", "default", cpu("1")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "a",
			want: "a1:InClusterQueue,a2:InClusterQueue", flavors: onDefault,
		},
		{
			name: "preemptions from cq when target queue is exhausted for two requested resources",
			admitted: []*kueue.Workload{
				kpAdmitted("a1", -2, "a", "default", kpRes{"cpu": "1", "memory": "1"}),
				kpAdmitted("a2", -2, "a", "default", kpRes{"cpu": "1", "memory": "1"}),
				kpAdmitted("a3", -1, "a", "default", kpRes{"cpu": "1", "memory": "1"}),
				kpAdmitted("b1", 0, "b", "default", kpRes{"cpu": "1", "memory": "1"}),
				kpAdmitted("b2", 0, "b", "default", kpRes{"cpu": "1", "memory": "1"}),
				kpAdmitted("b3", 0, "b", "default", kpRes{"cpu": "1", "memory": "1"}),
			},
			incoming: kpIncoming(0, kpRes{"cpu": "2", "memory": "2"}), target: "a",
			want: "a1:InClusterQueue,a2:InClusterQueue", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			name: "preemptions from cq when target queue is exhausted for one requested resource, but not the other",
			admitted: []*kueue.Workload{
				kpAdmitted("a1", -2, "a", "default", cpu("1")),
				kpAdmitted("a2", -2, "a", "default", cpu("1")),
				kpAdmitted("a3", -1, "a", "default", cpu("1")),
				kpAdmitted("b1", 0, "b", "default", cpu("1")),
				kpAdmitted("b2", 0, "b", "default", cpu("1")),
				kpAdmitted("b3", 0, "b", "default", cpu("1")),
			},
			incoming: kpIncoming(0, kpRes{"cpu": "2", "memory": "2"}), target: "a",
			want: "a1:InClusterQueue,a2:InClusterQueue", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			name: "allow preemption from other cluster queues if target cq is not exhausted for the requested resource",
			admitted: []*kueue.Workload{
				kpAdmitted("a1", -1, "a", "default", cpu("1")),
				kpAdmitted("b1", 0, "b", "default", cpu("1")),
				kpAdmitted("b2", 0, "b", "default", cpu("1")),
				kpAdmitted("b3", 0, "b", "default", cpu("1")),
				kpAdmitted("b4", 0, "b", "default", cpu("1")),
				kpAdmitted("b5", -1, "b", "default", cpu("1")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "a",
			want: "a1:InClusterQueue,b5:InCohortReclamation", flavors: onDefault,
		},
		{
			name: "long range preemption",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-left").Cohort("cohort-left").Quota("default", "cpu", "10").
					Preemption(kpAny, kpNever).Obj(),
				MakeClusterQueue("cq-right").Cohort("cohort-right").Quota("default", "cpu", "0").Obj(),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("cohort-left").Parent("root").Obj(),
				MakeCohort("cohort-right").Parent("root").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("to-be-preempted", 0, "cq-right", "default", cpu("5")),
			},
			incoming: kpIncoming(0, cpu("8")), target: "cq-left",
			want: "to-be-preempted:InCohortReclamation", flavors: onDefault,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kpRun(t, tc)
		})
	}
}

// Kueue: pkg/scheduler/preemption/preemption_test.go, TestCandidatesOrdering.
// Kueue sorts candidate lists directly; here each ordering shows in which
// workload a preemptor that needs one victim (or, for "old workloads last",
// two) takes first. The preemptor's priority is above every candidate's, so
// that the order alone decides.
func TestKueuePreemptionCandidatesOrdering(t *testing.T) {
	one := kpRes{"cpu": "1"}
	// preemptor is a ClusterQueue with room for two one-cpu workloads.
	preemptor := func() *ClusterQueueWrapper {
		return MakeClusterQueue("preemptor").Cohort("cohort").Quota("default", "cpu", "2").Preemption(kpAny, kpLower)
	}
	cases := []kpCase{
		{
			name: "workloads sorted by priority",
			cqs:  []*kueue.ClusterQueue{preemptor().Obj()},
			admitted: []*kueue.Workload{
				kpAdmitted("high", 10, "preemptor", "default", one),
				kpAdmitted("low", -10, "preemptor", "default", one),
			},
			incoming: kpIncoming(11, one), target: "preemptor",
			want: "low:InClusterQueue", flavors: []kpFl{{"cpu": "default"}},
		},
		{
			// "other" borrows the preemptor's second cpu.
			name: "workload from different CQ first",
			cqs: []*kueue.ClusterQueue{
				preemptor().Obj(),
				MakeClusterQueue("other").Cohort("cohort").Quota("default", "cpu", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("preemptorCq", 10, "preemptor", "default", one),
				kpAdmitted("other", 10, "other", "default", one),
			},
			incoming: kpIncoming(11, one), target: "preemptor",
			want: "other:InCohortReclamation", flavors: []kpFl{{"cpu": "default"}},
		},
		{
			name: "old workloads last",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("preemptor").Quota("default", "cpu", "3").Preemption(kpNever, kpLower).Obj(),
			},
			admitted: []*kueue.Workload{
				kpWorkload("older", 0, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(-time.Second).Obj(),
				kpWorkload("younger", 0, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(time.Second).Obj(),
				kpWorkload("current", 0, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj(),
			},
			incoming: kpIncoming(1, kpRes{"cpu": "2"}), target: "preemptor",
			want: "current:InClusterQueue,younger:InClusterQueue", flavors: []kpFl{{"cpu": "default"}},
		},
		{
			// Admission fair sharing on, as in Kueue's case; LocalQueue usage
			// is not compared across ClusterQueues. different_cq borrows the
			// preemptor's second cpu.
			name: "workloads from different CQ are sorted based on priority and timestamp",
			opts: kpAFSOptions(),
			cqs: []*kueue.ClusterQueue{
				preemptor().AdmissionFairSharing().Obj(),
				MakeClusterQueue("different_cq").Cohort("cohort").Quota("default", "cpu", "0").AdmissionFairSharing().Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("mid_lq_usage", 10, "preemptor", "default", one),
				kpAdmitted("high_lq_usage_different_cq", 1, "different_cq", "default", one),
			},
			incoming: kpIncoming(11, one), target: "preemptor",
			want: "high_lq_usage_different_cq:InCohortReclamation", flavors: []kpFl{{"cpu": "default"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kpRun(t, tc)
		})
	}

	// With admission fair sharing, a ClusterQueue's candidates from the
	// LocalQueue with the higher usage go first, before priority: mid_usage_lq
	// has held three cpus for an hour, low_usage_lq one.
	t.Run("workloads with higher LQ usage first", func(t *testing.T) {
		s := world(t, kpAFSOptions(), MakeFlavor("default").Obj(),
			MakeClusterQueue("preemptor").Quota("default", "cpu", "4").Preemption(kpNever, kpLower).AdmissionFairSharing().Obj(),
			MakeLocalQueue(kpNS, "low_usage_lq", "preemptor").Obj(),
			MakeLocalQueue(kpNS, "mid_usage_lq", "preemptor").Obj(),
			MakeLocalQueue(kpNS, "preemptor", "preemptor").Obj())
		apply(t, s, kpWorkload("low_lq_usage", 1, one).Queue("low_usage_lq").
			ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj())
		apply(t, s, kpWorkload("mid_lq_usage", 10, one).Queue("mid_usage_lq").
			ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj())
		apply(t, s, kpWorkload("mid_lq_keep", 100, kpRes{"cpu": "2"}).Queue("mid_usage_lq").
			ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj())
		// Cycles every ten minutes for an hour sample the LocalQueues' usage.
		for i := range 7 {
			if ds := s.Cycle(now.Add(time.Duration(i-6) * 10 * time.Minute)); len(preempts(ds)) != 0 {
				t.Fatalf("preemptions while building usage: %v", ds)
			}
		}
		apply(t, s, kpIncoming(11, one).Queue("preemptor").UID("wl-in").Obj())
		ds := s.Cycle(now.Add(time.Minute))
		if got := victimNames(ds); got != "mid_lq_usage:InClusterQueue" {
			t.Fatalf("victims %q, want mid_lq_usage:InClusterQueue; decisions %v", got, ds)
		}
	})

	// Quokka's deliberate difference: Kueue lists workloads already being
	// evicted first; Quokka never offers a victim of a preemption in flight as a
	// candidate. "first" preempts "evicted" (the most recently admitted); "in",
	// in the same cycle, takes "other" instead of "evicted" again.
	t.Run("evicted workload first", func(t *testing.T) {
		s := world(t, Options{}, MakeFlavor("default").Obj(),
			MakeClusterQueue("preemptor").Quota("default", "cpu", "2").Preemption(kpNever, kpLower).Obj(),
			MakeLocalQueue(kpNS, "preemptor", "preemptor").Obj())
		apply(t, s, kpWorkload("other", 10, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj())
		apply(t, s, kpWorkload("evicted", 10, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(time.Minute).Obj())
		apply(t, s, kpWorkload("first", 11, one).Queue("preemptor").Created(-time.Hour).Obj())
		apply(t, s, kpIncoming(11, one).Queue("preemptor").UID("wl-in").Obj())
		ds := s.Cycle(now)
		got := map[string]string{}
		for _, p := range preempts(ds) {
			var vs []string
			for _, v := range p.Victims {
				vs = append(vs, v.Workload.Name+":"+v.Reason)
			}
			got[p.Preemptor.Name] = strings.Join(vs, ",")
		}
		want := map[string]string{"first": "evicted:InClusterQueue", "in": "other:InClusterQueue"}
		if !maps.Equal(got, want) {
			t.Fatalf("preemptions %v, want %v; decisions %v", got, want, ds)
		}
	})
	// The same with RecomputeAssignmentUponPreemptionTargetsOverlap off, as
	// Kueue before v0.20 decides: in's search lists evicted first, as Kueue's
	// ordering does, overlaps first's preemption and waits; other stays.
	t.Run("evicted workload first (RecomputeAssignmentUponPreemptionTargetsOverlap=false)", func(t *testing.T) {
		s := world(t, Options{WaitOnOverlappingTargets: true}, MakeFlavor("default").Obj(),
			MakeClusterQueue("preemptor").Quota("default", "cpu", "2").Preemption(kpNever, kpLower).Obj(),
			MakeLocalQueue(kpNS, "preemptor", "preemptor").Obj())
		apply(t, s, kpWorkload("other", 10, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(0).Obj())
		apply(t, s, kpWorkload("evicted", 10, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(time.Minute).Obj())
		apply(t, s, kpWorkload("first", 11, one).Queue("preemptor").Created(-time.Hour).Obj())
		apply(t, s, kpIncoming(11, one).Queue("preemptor").UID("wl-in").Obj())
		ds := s.Cycle(now)
		if got := kiVictims(ds, true); !slices.Equal(got, []string{"evicted:InClusterQueue"}) {
			t.Fatalf("victims %v, want only evicted (for first); decisions %v", got, ds)
		}
		if d := kiPendingOf(t, ds, "in"); d.Message != overlappingTargetsMessage {
			t.Fatalf("in pending with %q, want the overlapping-targets message", d.Message)
		}
	})
}

// kpAFSOptions turns admission fair sharing on: a half-life of ten minutes,
// sampled every minute.
func kpAFSOptions() Options {
	return Options{AdmissionFairSharing: &config.AdmissionFairSharing{
		UsageHalfLifeTime:     metav1.Duration{Duration: 10 * time.Minute},
		UsageSamplingInterval: metav1.Duration{Duration: time.Minute},
	}}
}
