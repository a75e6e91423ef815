package core

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
)

func unadmittedWorkload(name string, conds ...metav1.Condition) kueue.Workload {
	wl := kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	wl.Spec.QueueName = "lq"
	wl.Status.Conditions = conds
	return wl
}

// Kueue: pkg/cache/queue/manager_test.go, TestUpdateUnadmittedWorkload. Each
// workload of LocalQueue lq (ClusterQueue cq) is counted once with the reasons
// its conditions give, and no longer once it is admitted. The last two cases'
// conditions come from admission checks and topology, which Quokka does not
// write; a Workload that Kueue wrote may carry them, and is counted as Kueue
// counts it.
func TestKueueUpdateUnadmittedWorkload(t *testing.T) {
	t.Parallel()
	lqs := map[types.NamespacedName]string{{Namespace: "ns", Name: "lq"}: "cq"}
	for _, tc := range []struct {
		name          string
		conds         []metav1.Condition
		reason, cause string
	}{
		{"workload with empty status conditions (fresh / disabled explicit status FG)", nil,
			kueue.WorkloadAdmittedReasonNoReservation, kueue.WorkloadQuotaReservedReasonPendingEvaluation},
		{"workload pending with QuotaReserved=False/WaitingForQuota and missing Admitted condition",
			[]metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: kueue.WorkloadQuotaReservedReasonWaitingForQuota}},
			kueue.WorkloadAdmittedReasonNoReservation, kueue.WorkloadQuotaReservedReasonWaitingForQuota},
		{"workload unadmitted due to unsatisfied checks",
			[]metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue},
				{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionFalse, Reason: "UnsatisfiedAdmissionChecks"}},
			"UnsatisfiedAdmissionChecks", ""},
		{"workload unadmitted due to pending delayed topology requests",
			[]metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue},
				{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionFalse, Reason: "PendingDelayedTopologyRequests"}},
			"PendingDelayedTopologyRequests", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wl := unadmittedWorkload("wl", tc.conds...)
			got := countUnadmitted([]kueue.Workload{wl}, lqs)
			want := metrics.Unadmitted{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq",
				Reason: tc.reason, UnderlyingCause: tc.cause, Count: 1}
			if len(got) != 1 || got[0].ClusterQueue != want.ClusterQueue || got[0].LocalQueue != want.LocalQueue ||
				got[0].Namespace != want.Namespace || got[0].Reason != want.Reason ||
				got[0].UnderlyingCause != want.UnderlyingCause || got[0].Count != 1 {
				t.Fatalf("counted %+v, want %+v", got, want)
			}
			wl.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue}}
			if got := countUnadmitted([]kueue.Workload{wl}, lqs); len(got) != 0 {
				t.Errorf("admitted workload still counted: %+v", got)
			}
		})
	}
}

// Kueue: the same file, TestDeleteLocalQueue_UnadmittedWorkloads. Once its
// LocalQueue is gone a workload has no ClusterQueue, and neither gauge counts
// it; finished and deleting workloads are not unadmitted
// (getUnadmittedWorkloadStatus).
func TestKueueDeleteLocalQueueUnadmittedWorkloads(t *testing.T) {
	t.Parallel()
	wl := unadmittedWorkload("wl")
	got := countUnadmitted([]kueue.Workload{wl}, map[types.NamespacedName]string{})
	if len(got) != 1 || got[0].ClusterQueue != "" || got[0].LocalQueue != "" {
		t.Errorf("a workload without LocalQueue counted as %+v, want no queue", got)
	}
	finished := unadmittedWorkload("done", metav1.Condition{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue})
	deleting := unadmittedWorkload("deleting")
	deleting.DeletionTimestamp = &metav1.Time{}
	lqs := map[types.NamespacedName]string{{Namespace: "ns", Name: "lq"}: "cq"}
	if got := countUnadmitted([]kueue.Workload{finished, deleting}, lqs); len(got) != 0 {
		t.Errorf("finished and deleting workloads counted: %+v", got)
	}
}

// Workloads with the same LocalQueue and reasons make one count, so that the
// gauges get one sample per label set.
func TestCountUnadmittedGroupsByLocalQueueAndReasons(t *testing.T) {
	t.Parallel()
	waiting := metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: kueue.WorkloadQuotaReservedReasonWaitingForQuota}
	list := []kueue.Workload{unadmittedWorkload("a", waiting), unadmittedWorkload("b"), unadmittedWorkload("c", waiting)}
	got := countUnadmitted(list, map[types.NamespacedName]string{{Namespace: "ns", Name: "lq"}: "cq"})
	if len(got) != 2 || got[0].UnderlyingCause != kueue.WorkloadQuotaReservedReasonWaitingForQuota || got[0].Count != 2 ||
		got[1].UnderlyingCause != kueue.WorkloadQuotaReservedReasonPendingEvaluation || got[1].Count != 1 {
		t.Errorf("counts %+v, want 2 WaitingForQuota then 1 PendingEvaluation", got)
	}
}
