package scheduler

import (
	"testing"
	"time"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue's PriorityBoost gate (KEP-7990, alpha): a Workload's
// kueue.x-k8s.io/priority-boost annotation is added to its priority wherever
// priority decides. The ports run with the gate on; each is built so that the
// decision differs when the annotation is not read, and a run with the gate
// off checks that it then is not.

var boostOn = Options{PriorityBoost: true}

// boosted sets the priority-boost annotation of w.
func boosted(w *kueue.Workload, v string) *kueue.Workload {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[kueue.PriorityBoostAnnotation] = v
	return w
}

// Kueue: pkg/scheduler/preemption/preemption_test.go, TestCandidatesOrdering,
// the three priority-boost cases: candidates are ordered by effective
// priority, a missing or invalid boost counting 0. Each case has two admitted
// workloads of priority 10 in a ClusterQueue with room for both, and an
// incoming one of priority 20 that needs one's place; the boosted one was
// admitted later, so that without boosts (equal priorities, newest first) it
// would be the victim.
func TestKueuePreemptionCandidatesOrderingWithBoost(t *testing.T) {
	one := kpRes{"cpu": "1"}
	cq := func() []*kueue.ClusterQueue {
		return []*kueue.ClusterQueue{MakeClusterQueue("preemptor").Quota("default", "cpu", "2").Preemption(kpNever, kpLower).Obj()}
	}
	admitted := func(name string, at time.Duration) *kueue.Workload {
		return kpWorkload(name, 10, one).Queue("preemptor").ReserveQuota("preemptor", "default").QuotaReservedAt(at).Obj()
	}
	cases := []kpCase{
		{
			name: "workloads sorted by effective priority with boost",
			admitted: []*kueue.Workload{
				boosted(admitted("high-boost", time.Second), "100"),
				boosted(admitted("low-boost", 0), "5"),
			},
			want: "low-boost:InClusterQueue",
		},
		{
			name: "workload missing priority boost defaults to zero",
			admitted: []*kueue.Workload{
				admitted("missing-boost", 0),
				boosted(admitted("has-boost", time.Second), "5"),
			},
			want: "missing-boost:InClusterQueue",
		},
		{
			name: "invalid priority boost defaults to zero",
			admitted: []*kueue.Workload{
				boosted(admitted("invalid-boost", 0), "invalid"),
				boosted(admitted("valid-boost", time.Second), "5"),
			},
			want: "invalid-boost:InClusterQueue",
		},
	}
	for _, tc := range cases {
		tc.opts, tc.cqs, tc.target = boostOn, cq(), "preemptor"
		tc.incoming, tc.flavors = kpIncoming(20, one), []kpFl{{"cpu": "default"}}
		t.Run(tc.name, func(t *testing.T) { kpRun(t, tc) })
	}
	t.Run("gate off: the annotations are not read", func(t *testing.T) {
		tc := cases[0]
		tc.opts, tc.cqs, tc.target = Options{}, cq(), "preemptor"
		tc.incoming, tc.flavors = kpIncoming(20, one), []kpFl{{"cpu": "default"}}
		tc.want = "high-boost:InClusterQueue"
		kpRun(t, tc)
	})
}

// Kueue: pkg/scheduler/preemption/common/preemption_policy_test.go,
// TestSatisfiesPreemptionPolicy, its priority-boost cases: the
// withinClusterQueue policies compare effective priorities (and, equal, the
// creation times). The candidate holds the 2 cpu the preemptor needs: all of
// the preemptor's queue, or for Any, borrowed from it.
func TestKueueSatisfiesPreemptionPolicyWithBoost(t *testing.T) {
	cases := []struct {
		name                      string
		preemptorPrio, candPrio   int32
		preemptorBoost, candBoost string // "" sets none
		preemptorAt, candAt       time.Duration
		policy                    kueue.PreemptionPolicy
		want                      bool
		// wantOff is the decision with the gate off, which the case's
		// facts make different except where the boost cannot matter.
		wantOff bool
	}{
		{name: "LowerPriority: boost makes low-priority immune to medium-priority preemption",
			preemptorPrio: 200, candPrio: 100, candBoost: "150", policy: kpLower, want: false, wantOff: true},
		{name: "LowerPriority: boost on preemptor enables preemption of higher raw priority",
			preemptorPrio: 100, candPrio: 200, preemptorBoost: "200", policy: kpLower, want: true, wantOff: false},
		{name: "LowerOrNewerEqualPriority: boost equalizes priorities, older preemptor can preempt newer candidate",
			preemptorPrio: 100, candPrio: 200, preemptorBoost: "100", candAt: time.Second, policy: kpLowerOrNewerEqual, want: true, wantOff: false},
		{name: "LowerOrNewerEqualPriority: equal effective priority, newer preemptor cannot preempt older candidate",
			preemptorPrio: 100, candPrio: 200, preemptorBoost: "100", preemptorAt: time.Second, policy: kpLowerOrNewerEqual, want: false, wantOff: false},
		{name: "Any: always satisfies regardless of priority or boost",
			preemptorPrio: 50, candPrio: 100, candBoost: "200", policy: kpAny, want: true, wantOff: true},
	}
	for _, tc := range cases {
		for _, gate := range []bool{true, false} {
			name := tc.name
			want := tc.want
			if !gate {
				name, want = "gate off: "+name, tc.wantOff
			}
			t.Run(name, func(t *testing.T) {
				// Any is a reclaimWithinCohort policy only: the candidate
				// then borrows from the preemptor's queue, as in the port of
				// the table's other cases (TestKueueSatisfiesPreemptionPolicy).
				candQ, cqs := "q", []*kueue.ClusterQueue{MakeClusterQueue("q").Quota("default", "cpu", "2").Preemption(kpNever, tc.policy).Obj()}
				if tc.policy == kpAny {
					candQ, cqs = "b", []*kueue.ClusterQueue{
						MakeClusterQueue("q").Cohort("c").Quota("default", "cpu", "2").Preemption(kpAny, kpNever).Obj(),
						MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Obj(),
					}
				}
				cand := kpWorkload("candidate", tc.candPrio, kpRes{"cpu": "2"}).Created(tc.candAt).
					Queue(candQ).ReserveQuota(candQ, "default").QuotaReservedAt(0).Obj()
				if tc.candBoost != "" {
					boosted(cand, tc.candBoost)
				}
				in := kpIncoming(tc.preemptorPrio, kpRes{"cpu": "2"}).Created(tc.preemptorAt)
				if tc.preemptorBoost != "" {
					boosted(&in.Workload, tc.preemptorBoost)
				}
				kc := kpCase{
					opts:     Options{PriorityBoost: gate},
					cqs:      cqs,
					admitted: []*kueue.Workload{cand},
					incoming: in, target: "q", flavors: []kpFl{{"cpu": "default"}},
				}
				if want {
					kc.want = "candidate:InClusterQueue"
					if tc.policy == kpAny {
						kc.want = "candidate:InCohortReclamation"
					}
				}
				kpRun(t, kc)
			})
		}
	}
}

// Kueue: test/integration/singlecluster/scheduler/scheduler_test.go, "when
// PriorityBoost is enabled, boosting a low-priority pending workload preempts
// the running workload": in a ClusterQueue of 3 cpu that preempts lower
// priorities within it, wl-mid-1 (priority 10, 2 cpu) runs, wl-mid-2 (10) and
// wl-low (0) wait; a boost of 100 written on wl-low makes it preempt wl-mid-1
// and take its place, while wl-mid-2 still waits.
func TestKueueBoostingAPendingWorkloadPreemptsTheRunningOne(t *testing.T) {
	const ns = "default"
	s := world(t, boostOn, MakeFlavor("default").Obj(),
		MakeClusterQueue("preemption").Quota("default", "cpu", "3").Preemption(kpNever, kpLower).Obj(),
		MakeLocalQueue(ns, "preemption", "preemption").Obj())
	mk := func(name string, prio int32, at time.Duration) *kueue.Workload {
		return MakeWorkload(ns, name).Queue("preemption").Priority(prio).Request("cpu", "2").Created(at).Obj()
	}
	apply(t, s, mk("wl-mid-1", 10, 0))
	if ds := s.Cycle(now); !boostAdmits(ds, "wl-mid-1") {
		t.Fatalf("wl-mid-1 not admitted: %v", ds)
	}
	apply(t, s, mk("wl-mid-2", 10, time.Second))
	low := mk("wl-low", 0, 2*time.Second)
	apply(t, s, low)
	ds := s.Cycle(now.Add(time.Second))
	if len(admits(ds)) != 0 || len(preempts(ds)) != 0 {
		t.Fatalf("the two pending workloads should wait without preempting: %v", ds)
	}
	apply(t, s, boosted(low, "100"))
	ds = s.Cycle(now.Add(2 * time.Second))
	if got := victimNames(ds); got != "wl-mid-1:InClusterQueue" {
		t.Fatalf("victims %q, want wl-mid-1 preempted by the boosted wl-low; decisions %v", got, ds)
	}
	confirm(s, ds)
	ds = s.Cycle(now.Add(3 * time.Second))
	if !boostAdmits(ds, "wl-low") || boostAdmits(ds, "wl-mid-2") {
		t.Fatalf("want wl-low admitted and wl-mid-2 still waiting: %v", ds)
	}
}

// boostAdmits tells whether ds admit the workload named name.
func boostAdmits(ds []Decision, name string) bool {
	for _, a := range admits(ds) {
		if a.Workload.Name == name {
			return true
		}
	}
	return false
}

// 001: "mode specifies whether priority comparison uses base or boosted
// (effective) priority." With Kueue's PriorityBoost gate on, queue b holds b1
// (priority 15, never below the hero's 10) and b2 (priority 1, boosted by 20
// to 21): the hero rule, LessThan, takes b2 in Base mode and nothing in
// Boosted mode.
func TestPreemptionConfigPriorityModeWithBoost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode kueuev1alpha1.PriorityMode
		want string
	}{
		{kueuev1alpha1.BasePriority, "b2:InCohortReclaimWhileBorrowing"},
		{kueuev1alpha1.BoostedPriority, ""},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			s := pair(t, boostOn,
				MakeClusterQueue("a").Quota("default", "cpu", "2").Preemption(never, never).PreemptionConfig("hero"),
				MakeClusterQueue("b").Quota("default", "cpu", "4"))
			b2 := job("b", "b2", 2, 1)
			b2.Annotations = map[string]string{kueue.PriorityBoostAnnotation: "20"}
			admitted(t, s, "b", job("b", "b1", 2, 15), b2)
			pc := heroConfig("hero", nil)
			pc.Spec.Rules[0].CandidateSelectors[0].Priority.Mode = tc.mode
			if err := s.UpsertPreemptionConfig(pc); err != nil {
				t.Fatal(err)
			}
			apply(t, s, job("a", "hero", 4, 10).Obj())
			if got := victimNames(s.Cycle(now)); got != tc.want {
				t.Errorf("victims %q, want %q", got, tc.want)
			}
		})
	}
}
