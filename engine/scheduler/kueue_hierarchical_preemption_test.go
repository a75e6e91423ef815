package scheduler

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// kpHQueue is a ClusterQueue of Kueue's hierarchical table: a cpu quota in
// flavor default (Kueue's queues without quota get "0" here, since the flavor
// assigner needs a resource group covering cpu), withinClusterQueue
// LowerPriority and reclaimWithinCohort Any.
func kpHQueue(name, cohort, cpu string, opts ...QuotaOption) *ClusterQueueWrapper {
	return MakeClusterQueue(name).Cohort(cohort).Quota("default", "cpu", cpu, opts...).Preemption(kpAny, kpLower)
}

// kpHQueueBWC is kpHQueue with borrowWithinCohort LowerPriority up to
// priority 0.
func kpHQueueBWC(name, cohort, cpu string) *ClusterQueueWrapper {
	return kpHQueue(name, cohort, cpu).BorrowWithinCohort(kpPtr(0))
}

// kpCohortCPU is a cohort with parent (none for "") and an own cpu quota
// ("" for none).
func kpCohortCPU(name, parent, cpu string) *kueue.Cohort {
	c := MakeCohort(name)
	if parent != "" {
		c.Parent(parent)
	}
	if cpu != "" {
		c.Quota("default", "cpu", cpu)
	}
	return c.Obj()
}

// kpEvicted adds an Evicted=True condition at Epoch.
func kpEvicted(w *kueue.Workload) *kueue.Workload {
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadEvicted,
		Status: metav1.ConditionTrue, Reason: "Preempted", LastTransitionTime: metav1.NewTime(Epoch)})
	return w
}

// Kueue: pkg/scheduler/preemption/preemption_hierarchical_test.go,
// TestHierarchicalPreemptions.
func TestKueueHierarchicalPreemption(t *testing.T) {
	cpu := func(q string) kpRes { return kpRes{"cpu": q} }
	onDefault := []kpFl{{"cpu": "default"}}
	// r has no quota; c (under r) has 2 cpus.
	rc2 := []*kueue.Cohort{kpCohortCPU("r", "", ""), kpCohortCPU("c", "r", "2")}
	cases := []kpCase{
		{
			// r ─ c(2) ─ q ; r ─ q_borrowing(0)
			name:    "preempt with hierarchical advantage",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted2", 0, "q_borrowing", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "q",
			want: "admitted2:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ q ; r ─ q_borrowing(0) ; r ─ q_nominal(2)
			name:    "avoid queues within nominal quota",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q_nominal", "r", "2").Obj(),
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted1", -10, "q_nominal", "default", cpu("2")),
				kpAdmitted("admitted2", 0, "q_borrowing", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "q",
			want: "admitted2:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ q ; r ─ q_borrowing(0)
			name:    "preempt multiple with hierarchical advantage",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted1", 1, "q_borrowing", "default", cpu("1")),
				kpAdmitted("admitted2", 2, "q_borrowing", "default", cpu("1")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "q",
			want: "admitted1:InCohortReclamation,admitted2:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(3) ─ {q, q_same_cohort}. admitted_preemptible requests
			// one cpu but its admission records two, as in Kueue's case.
			name:    "preempt in cohort and own CQ",
			cohorts: []*kueue.Cohort{kpCohortCPU("r", "", ""), kpCohortCPU("c", "r", "3")},
			cqs: []*kueue.ClusterQueue{
				kpHQueueBWC("q", "c", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_not_preemptible", 1, "q_same_cohort", "default", cpu("1")),
				kpWithUsage(kpAdmitted("admitted_preemptible", 0, "q_same_cohort", "default", cpu("1")), "cpu", "2"),
				kpAdmitted("admitted_own_queue", -1, "q", "default", cpu("1")),
			},
			incoming: kpIncoming(1, cpu("2")), target: "q",
			want: "admitted_own_queue:InClusterQueue,admitted_preemptible:InCohortReclaimWhileBorrowing", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ q ; r ─ q_borrowing(0)
			name:    "prefer to preempt hierarchical candidate",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", 1, "q_borrowing", "default", cpu("1")),
				kpAdmitted("admitted_same_queue", -2, "q", "default", cpu("1")),
			},
			incoming: kpIncoming(0, cpu("1")), target: "q",
			want: "admitted_borrowing:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ {q, q_same_cohort} ; r ─ q_nominal(2)
			name:    "forced to preempt priority candidate",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueueBWC("q", "c", "0").Obj(),
				kpHQueue("q_nominal", "r", "2").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_nominal", -10, "q_nominal", "default", cpu("2")),
				kpAdmitted("admitted_same_cohort", -1, "q_same_cohort", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "q",
			want: "admitted_same_cohort:InCohortReclaimWhileBorrowing", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ {q(4), q_same_cohort(0)} ; r ─ q_borrowing(0)
			name:    "incoming workload fits in CQ nominal quota",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "4").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", 10, "q_borrowing", "default", cpu("3")),
				kpAdmitted("admitted_same_cohort", 10, "q_same_cohort", "default", cpu("3")),
			},
			incoming: kpIncoming(0, cpu("4")), target: "q",
			want: "admitted_borrowing:InCohortReclamation,admitted_same_cohort:InCohortReclamation", flavors: onDefault,
		},
		{
			// r(1) ─ c(4) ─ {q, q_same_cohort} ; r ─ q_borrowing(0)
			name:    "preempt hierarchical and priority candidates",
			cohorts: []*kueue.Cohort{kpCohortCPU("r", "", "1"), kpCohortCPU("c", "r", "4")},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("q").Cohort("c").Quota("default", "cpu", "0").
					Preemption(kpLower, kpLower).BorrowWithinCohort(kpPtr(0)).Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", -1, "q_borrowing", "default", cpu("2")),
				kpAdmitted("admitted_same_cohort_preemptible", -1, "q_same_cohort", "default", cpu("1")),
				kpAdmitted("admitted_borrowing_not_preemptible", 1, "q_borrowing", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("3")), target: "q",
			want:    "admitted_borrowing:InCohortReclamation,admitted_same_cohort_preemptible:InCohortReclaimWhileBorrowing",
			flavors: onDefault,
		},
		{
			// r(1) ─ c(4) ─ {q, q_same_cohort} ; r ─ q_borrowing(0)
			name:    "preempt hierarchical candidates and inside CQ",
			cohorts: []*kueue.Cohort{kpCohortCPU("r", "", "1"), kpCohortCPU("c", "r", "4")},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("q").Cohort("c").Quota("default", "cpu", "0").
					Preemption(kpLower, kpLower).BorrowWithinCohort(kpPtr(0)).Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", -1, "q_borrowing", "default", cpu("2")),
				kpAdmitted("admitted_same_queue_preemptible", -1, "q", "default", cpu("1")),
				kpAdmitted("admitted_borrowing_not_preemptible", 1, "q_borrowing", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("3")), target: "q",
			want:    "admitted_borrowing:InCohortReclamation,admitted_same_queue_preemptible:InClusterQueue",
			flavors: onDefault,
		},
		{
			// r ─ c(3) ─ q ; r ─ q_borrowing(0) ; r ─ q_nominal(2)
			name:    "reclaim nominal quota from lowest priority workload, excluding non-borrowing",
			cohorts: []*kueue.Cohort{kpCohortCPU("r", "", ""), kpCohortCPU("c", "r", "3")},
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
				kpHQueue("q_nominal", "r", "2").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing_prio_8", 8, "q_borrowing", "default", cpu("1")),
				kpAdmitted("admitted_borrowing_prio_9", 9, "q_borrowing", "default", cpu("1")),
				kpAdmitted("admitted_borrowing_prio_10", 9, "q_borrowing", "default", cpu("1")),
				kpAdmitted("admitted_nominal", -2, "q_nominal", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("1")), target: "q",
			want: "admitted_borrowing_prio_8:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ {q, q_same_cohort} ; r ─ c_other(2) ─ q_other
			name: "infeasible preemption all available workloads in pruned subtrees",
			cohorts: []*kueue.Cohort{
				kpCohortCPU("r", "", ""), kpCohortCPU("c", "r", "2"), kpCohortCPU("c_other", "r", "2"),
			},
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q_other", "c_other", "0").Obj(),
				kpHQueue("q", "c", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_other_1", -10, "q_other", "default", cpu("1")),
				kpAdmitted("admitted_other_2", -10, "q_other", "default", cpu("1")),
				kpAdmitted("admitted_same_cohort", 0, "q_same_cohort", "default", cpu("2")),
			},
			incoming: kpIncoming(0, cpu("2")), target: "q",
		},
		{
			// r(3 cpu) ─ c(4 cpu, 4Gi) ─ {q, q_same_cohort} ; r ─ q_borrowing
			name: "hiearchical preemption with multiple resources",
			cohorts: []*kueue.Cohort{
				kpCohortCPU("r", "", "3"),
				MakeCohort("c").Parent("r").Quota("default", "cpu", "4").Quota("default", "memory", "4Gi").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "0").Quota("default", "memory", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Quota("default", "memory", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Quota("default", "memory", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", 0, "q_borrowing", "default", kpRes{"cpu": "3", "memory": "1Gi"}),
				kpAdmitted("admitted_same_cohort", -2, "q_same_cohort", "default", kpRes{"cpu": "1", "memory": "3Gi"}),
			},
			incoming: kpIncoming(-2, kpRes{"cpu": "2", "memory": "1Gi"}), target: "q",
			want: "admitted_borrowing:InCohortReclamation", flavors: []kpFl{{"cpu": "default", "memory": "default"}},
		},
		{
			// r ─ c(2) ─ {q, q_same_cohort} ; r ─ q_borrowing(0).
			// Quokka's deliberate difference: Kueue takes evicted_same_cohort,
			// already being evicted (Evicted=True), first, and issues no new
			// eviction. Quokka does not read the Evicted condition (a workload
			// it evicts is a victim of a preemption in flight, and never a
			// candidate again), so evicted_same_cohort is an ordinary admitted
			// workload and the hierarchical candidate goes.
			name:    "prefer to preempt evicted workloads",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueueBWC("q", "c", "0").Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
				kpHQueue("q_same_cohort", "c", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", -10, "q_borrowing", "default", cpu("1")),
				kpEvicted(kpAdmitted("evicted_same_cohort", -1, "q_same_cohort", "default", cpu("1"))),
			},
			incoming: kpIncoming(0, cpu("1")), target: "q",
			want: "admitted_borrowing:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c(2) ─ q(3, lendingLimit 2) ; r ─ q_borrowing(0)
			name:    "respect lending limits",
			cohorts: rc2,
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q", "c", "3", Lending("2")).Obj(),
				kpHQueue("q_borrowing", "r", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing", 0, "q_borrowing", "default", cpu("4")),
			},
			incoming: kpIncoming(-2, cpu("5")), target: "q",
			want: "admitted_borrowing:InCohortReclamation", flavors: onDefault,
		},
		{
			// r ─ c11(4) ─ c21(4) ─ c31(4) ─ q5
			//            │        └ c32(4) ─ q4
			//            ├ c22(4) ─ q3
			//            └ c23(4) ─ q2
			// r ─ c12(4) ─ q1
			// Only one of q2's workloads goes: once one is gone, c23 is back
			// within its quota.
			name: "reclaim in complex hierarchy",
			cohorts: []*kueue.Cohort{
				kpCohortCPU("r", "", ""),
				kpCohortCPU("c11", "r", "4"), kpCohortCPU("c12", "r", "4"),
				kpCohortCPU("c21", "c11", "4"), kpCohortCPU("c22", "c11", "4"), kpCohortCPU("c23", "c11", "4"),
				kpCohortCPU("c31", "c21", "4"), kpCohortCPU("c32", "c21", "4"),
			},
			cqs: []*kueue.ClusterQueue{
				kpHQueue("q1", "c12", "0").Obj(),
				kpHQueue("q2", "c23", "0").Obj(),
				kpHQueue("q3", "c22", "0").Obj(),
				kpHQueue("q4", "c32", "0").Obj(),
				kpHQueue("q5", "c31", "0").Obj(),
			},
			admitted: []*kueue.Workload{
				kpAdmitted("admitted_borrowing_1", -6, "q1", "default", cpu("4")),
				kpAdmitted("admitted_borrowing_2", -5, "q1", "default", cpu("4")),
				kpAdmitted("admitted_borrowing_3", -9, "q2", "default", cpu("4")),
				kpAdmitted("admitted_borrowing_4", -10, "q2", "default", cpu("4")),
				kpAdmitted("admitted_borrowing_5", -4, "q3", "default", cpu("4")),
				kpAdmitted("admitted_borrowing_6", -3, "q3", "default", cpu("3")),
				kpAdmitted("admitted_borrowing_7", 4, "q4", "default", cpu("2")),
				kpAdmitted("admitted_borrowing_8", 2, "q4", "default", cpu("3")),
			},
			incoming: kpIncoming(-2, cpu("7")), target: "q5",
			want: "admitted_borrowing_1:InCohortReclamation,admitted_borrowing_4:InCohortReclamation", flavors: onDefault,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kpRun(t, tc)
		})
	}
}
