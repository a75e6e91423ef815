package scheduler

import (
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: pkg/scheduler/scheduler_recompute_preemption_test.go,
// TestScheduleRecomputePreemptionTargets: what a preemptor does when its
// targets overlap those of a preemptor processed before it in the cycle,
// with the RecomputeAssignmentUponPreemptionTargetsOverlap gate on (it
// recomputes with the other's victims gone, and waits when it then fits:
// DeferredFit) and off (it is skipped). Each case runs one Cycle on the fair
// sharing table's world (kfRunSchedule) with the case's own queues.
func TestKueueScheduleRecomputePreemptionTargets(t *testing.T) {
	// defaultCohorts: root-cohort (3005 cpu of its own) over parent-cohort-a
	// (cq-hero, 3000 cpu, and cq-noisy, none), parent-cohort-b (cq-tiny, 50)
	// and parent-cohort-c (cq-rest, none).
	defaultCohorts := []*kueue.Cohort{
		MakeCohort("root-cohort").Quota("default", kfCPU, "3005").Obj(),
		MakeCohort("parent-cohort-a").Parent("root-cohort").Quota("default", kfCPU, "0").Obj(),
		MakeCohort("parent-cohort-b").Parent("root-cohort").Obj(),
		MakeCohort("parent-cohort-c").Parent("root-cohort").Obj(),
	}
	suiteCQs := []*kueue.ClusterQueue{
		MakeClusterQueue("cq-hero").Cohort("parent-cohort-a").Quota("default", kfCPU, "3000").Preemption(kfAny, kfLower).Obj(),
		MakeClusterQueue("cq-noisy").Cohort("parent-cohort-a").Quota("default", kfCPU, "0").Preemption(kfAny, kfLower).Obj(),
		MakeClusterQueue("cq-tiny").Cohort("parent-cohort-b").Quota("default", kfCPU, "50").Preemption(kfAny, kfLower).Obj(),
		MakeClusterQueue("cq-rest").Cohort("parent-cohort-c").Quota("default", kfCPU, "0").Preemption(kfAny, kfLower).Obj(),
	}
	suiteLQs := []*kueue.LocalQueue{
		MakeLocalQueue("eng-alpha", "lq-hero", "cq-hero").Obj(),
		MakeLocalQueue("eng-alpha", "lq-noisy", "cq-noisy").Obj(),
		MakeLocalQueue("eng-alpha", "lq-tiny", "cq-tiny").Obj(),
		MakeLocalQueue("eng-alpha", "lq-rest", "cq-rest").Obj(),
	}
	// wl-rest-admitted borrows everything the tree has (3005 + 3000 + 50);
	// wl-tiny-pending reclaims cq-tiny's 50 from it, and wl-hero, created a
	// second later, would reclaim 2950 of cq-hero's 3000 from it too.
	restAdmitted := func(priority int32) *kueue.Workload {
		return MakeWorkload("eng-alpha", "wl-rest-admitted").Queue("lq-rest").Priority(priority).Request(kfCPU, "6055").
			ReserveQuota("cq-rest", "default").QuotaReservedAt(kfSchedNow).Obj()
	}
	hero := MakeWorkload("eng-alpha", "wl-hero").Queue("lq-hero").Request(kfCPU, "2950").Created(kfSchedNow + time.Second).Obj()
	tiny := MakeWorkload("eng-alpha", "wl-tiny-pending").Queue("lq-tiny").Request(kfCPU, "50").Created(kfSchedNow).Obj()

	// The world of the flavor-stickiness and legacy cases: cq-1 borrows
	// cq-2's quota of both flavors with one workload in each.
	stickyCQs := []*kueue.ClusterQueue{
		MakeClusterQueue("cq-1").Cohort("root").Preemption(kfAny, kfLower).
			Quota("default", kfCPU, "5").Quota("on-demand", kfCPU, "5").Obj(),
		MakeClusterQueue("cq-2").Cohort("root").Preemption(kfAny, kfLower).
			Quota("default", kfCPU, "5").Quota("on-demand", kfCPU, "5").Obj(),
	}
	stickyLQs := []*kueue.LocalQueue{
		MakeLocalQueue("default", "lq-1", "cq-1").Obj(),
		MakeLocalQueue("default", "lq-2", "cq-2").Obj(),
	}
	stickyWLs := []*kueue.Workload{
		MakeWorkload("default", "wl-admitted-default").Queue("lq-1").Request(kfCPU, "10").
			ReserveQuota("cq-1", "default").QuotaReservedAt(kfSchedNow).Obj(),
		MakeWorkload("default", "wl-admitted-on-demand").Queue("lq-1").Request(kfCPU, "10").
			ReserveQuota("cq-1", "on-demand").QuotaReservedAt(kfSchedNow).Obj(),
		MakeWorkload("default", "wl-pending-high-prio-1").Queue("lq-1").Priority(11).Request(kfCPU, "10").
			Created(kfSchedNow).Obj(),
		MakeWorkload("default", "wl-pending-high-prio-2").Queue("lq-2").Priority(10).Request(kfCPU, "10").
			Created(kfSchedNow + time.Second).Obj(),
	}

	cases := []kfScheduleCase{
		{
			// Kueue: cq-noisy borrows cq-hero's 3000, cq-tiny 10 beyond its
			// 50 and cq-rest 2995 from the root. wl-tiny-pending (fair
			// sharing takes it first) preempts wl-rest-admitted; wl-hero,
			// within cq-hero's nominal quota, first chose that same victim,
			// recomputes with it gone and preempts wl-noisy-admitted in the
			// same cycle.
			name:    "with fair sharing: hierarchical nominal-first prefers non-borrowing leaf CQ",
			cohorts: defaultCohorts,
			cqs:     suiteCQs,
			lqs:     suiteLQs,
			workloads: []*kueue.Workload{
				MakeWorkload("eng-alpha", "wl-noisy-admitted").Queue("lq-noisy").Request(kfCPU, "3000").
					ReserveQuota("cq-noisy", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-alpha", "wl-tiny-admitted").Queue("lq-tiny").Request(kfCPU, "60").
					ReserveQuota("cq-tiny", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-alpha", "wl-rest-admitted").Queue("lq-rest").Request(kfCPU, "2995").
					ReserveQuota("cq-rest", "default").QuotaReservedAt(kfSchedNow).Obj(),
				MakeWorkload("eng-alpha", "wl-hero").Queue("lq-hero").Request(kfCPU, "2990").Created(kfSchedNow + time.Second).Obj(),
				MakeWorkload("eng-alpha", "wl-tiny-pending").Queue("lq-tiny").Request(kfCPU, "10").Created(kfSchedNow).Obj(),
			},
			wantPreempt: []string{
				"eng-alpha/wl-tiny-pending<-eng-alpha/wl-rest-admitted:" + PreemptionInCohortFairSharing,
				"eng-alpha/wl-hero<-eng-alpha/wl-noisy-admitted:" + PreemptionInCohortReclamation,
			},
			wantPending: []string{"eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending"},
		},
		{
			// Kueue, gate on, fair sharing: wl-pending-high-prio-2 (cq-2,
			// the lower share, processed first) preempts wl-admitted-default
			// on default for fair sharing. wl-pending-high-prio-1 (cq-1)
			// overlaps, and its recomputed assignment keeps to the flavor it
			// was nominated for (default, where nothing is left): it stays
			// pending rather than preempt wl-admitted-on-demand on on-demand.
			// Kueue's "…and TAS disabled" and "…and TAS recomputation
			// disabled" cases are this one with topology-aware scheduling's
			// gates off, which Quokka does not have. Quokka chooses the flavor
			// with the victims in flight listed, as Kueue's nomination does
			// (default, whose search finds wl-admitted-default), and then
			// searches that flavor with them gone: nothing is left there.
			name:        "flavor stickiness with RecomputePreemptionTargetsUponOverlap",
			cohorts:     []*kueue.Cohort{MakeCohort("root").Obj()},
			cqs:         stickyCQs,
			lqs:         stickyLQs,
			workloads:   stickyWLs,
			wantPreempt: []string{"default/wl-pending-high-prio-2<-default/wl-admitted-default:" + PreemptionInCohortFairSharing},
			wantPending: []string{"default/wl-pending-high-prio-1", "default/wl-pending-high-prio-2"},
		},
		{
			// Kueue: wl-tiny-pending is processed first (it does not borrow)
			// and preempts wl-rest-admitted; wl-hero's targets overlap,
			// its recomputed assignment fits once that eviction completes:
			// DeferredFit, "Workload has overlapping preemption targets with
			// another workload, but will fit after these preemptions
			// complete". Quokka's wl-hero waits for the same eviction
			// (WaitingForPreemption) without preempting.
			name:        "two workloads reclaim nominal quota; RecomputePreemptionTargetsUponOverlap enabled",
			noFS:        true,
			cohorts:     defaultCohorts,
			cqs:         suiteCQs,
			lqs:         suiteLQs,
			workloads:   []*kueue.Workload{restAdmitted(0), hero, tiny},
			wantPreempt: []string{"eng-alpha/wl-tiny-pending<-eng-alpha/wl-rest-admitted:" + PreemptionInCohortReclamation},
			wantPending: []string{"eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending"},
			wantReason:  map[string]string{"eng-alpha/wl-hero": ReasonWaitingForPreemption},
		},
		{
			// The same with fair sharing, and wl-rest-pending (4000 cpu,
			// priority 10) in cq-rest, which has no quota of its own: it
			// neither preempts nor is admitted.
			name:    "with fair sharing: two workloads reclaim nominal quota; RecomputePreemptionTargetsUponOverlap enabled",
			cohorts: defaultCohorts,
			cqs:     suiteCQs,
			lqs:     suiteLQs,
			workloads: []*kueue.Workload{restAdmitted(0), hero, tiny,
				MakeWorkload("eng-alpha", "wl-rest-pending").Queue("lq-rest").Priority(10).Request(kfCPU, "4000").
					Created(kfSchedNow + 2*time.Second).Obj()},
			wantPreempt: []string{"eng-alpha/wl-tiny-pending<-eng-alpha/wl-rest-admitted:" + PreemptionInCohortReclamation},
			wantPending: []string{"eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending", "eng-alpha/wl-rest-pending"},
			wantReason:  map[string]string{"eng-alpha/wl-hero": ReasonWaitingForPreemption},
		},
		{
			// Kueue, with the gate off and fair sharing: cq-1 borrows cq-2's
			// quota of both flavors. wl-pending-high-prio-2 (cq-2, the lower
			// share, processed first) preempts wl-admitted-default for fair
			// sharing; wl-pending-high-prio-1 (cq-1) would preempt that same
			// workload within its queue (priority 11 against 0), overlaps, and
			// is skipped: "Workload has overlapping preemption targets with
			// another workload". wl-admitted-on-demand stays.
			name:         "legacy overlap skip with RecomputePreemptionTargetsUponOverlap disabled",
			overlapWaits: true,
			cohorts:      []*kueue.Cohort{MakeCohort("root").Obj()},
			cqs:          stickyCQs,
			lqs:          stickyLQs,
			workloads:    stickyWLs,
			wantPreempt:  []string{"default/wl-pending-high-prio-2<-default/wl-admitted-default:" + PreemptionInCohortFairSharing},
			wantPending:  []string{"default/wl-pending-high-prio-1", "default/wl-pending-high-prio-2"},
			wantMessage:  map[string]string{"default/wl-pending-high-prio-1": overlappingTargetsMessage},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { kfRunSchedule(t, tc) })
	}
}
