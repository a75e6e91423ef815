package core

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// An admission is written as Kueue writes it: quantities in users' units, the
// flavor of each resource and the pod count.
func TestAdmissionForWritesQuantitiesFlavorsAndCount(t *testing.T) {
	t.Parallel()
	adm := (scheduler.Admit{
		Workload:     types.NamespacedName{Namespace: "research", Name: "train"},
		ClusterQueue: "research",
		PodSets: []scheduler.PodSetAssignment{{
			Name:    "main",
			Flavors: map[corev1.ResourceName]string{"nvidia.com/gpu": "h100", "cpu": "h100", "memory": "h100"},
			Usage: resources.Requests{"nvidia.com/gpu": 8, "cpu": 96000,
				"memory": resources.MustCanonical("memory", "960Gi")},
			Count: 1,
		}},
	}).Admission()
	if adm.ClusterQueue != "research" || len(adm.PodSetAssignments) != 1 {
		t.Fatalf("admission = %+v", adm)
	}
	psa := adm.PodSetAssignments[0]
	for r, want := range map[corev1.ResourceName]string{"nvidia.com/gpu": "8", "cpu": "96", "memory": "960Gi"} {
		if got := psa.ResourceUsage[r]; got.String() != want {
			t.Errorf("resourceUsage[%s] = %s, want %s", r, got.String(), want)
		}
		if psa.Flavors[r] != "h100" {
			t.Errorf("flavors[%s] = %s, want h100", r, psa.Flavors[r])
		}
	}
	if psa.Count == nil || *psa.Count != 1 {
		t.Errorf("count = %v, want 1", psa.Count)
	}
}

// A readmitted workload must not look evicted, or the lifecycle would evict it
// again: Evicted and Preempted turn False as in Kueue.
func TestSetAdmittedEndsAPreviousEviction(t *testing.T) {
	t.Parallel()
	wl := &kueue.Workload{}
	setCondition(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPreemption, "by x")
	setCondition(wl, kueue.WorkloadPreempted, metav1.ConditionTrue, kueue.InCohortReclamationReason, "by x")
	setRequeued(wl, kueue.WorkloadEvictedByPreemption, "by x", time.Now(), true)
	setAdmitted(wl, &kueue.Admission{ClusterQueue: "q"}, "reserved")
	for _, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadPreempted} {
		if meta.IsStatusConditionTrue(wl.Status.Conditions, typ) {
			t.Errorf("%s still True after readmission", typ)
		}
	}
	if !isTrue(wl, kueue.WorkloadQuotaReserved) || !isTrue(wl, kueue.WorkloadAdmitted) || wl.Status.Admission == nil {
		t.Errorf("not admitted: %+v", wl.Status)
	}
}

// Pending writes are skipped when the object already says it is pending for
// the same reason; a new message alone (the amounts of an insufficient quota)
// is not written (issue 15: "pending conditions written once per change of
// reason, not of message details").
func TestPendingUnchanged(t *testing.T) {
	t.Parallel()
	wl := &kueue.Workload{}
	if pendingUnchanged(wl, "InsufficientQuota", "m") {
		t.Error("no condition yet, but reported unchanged")
	}
	setCondition(wl, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, "InsufficientQuota", "m")
	if !pendingUnchanged(wl, "InsufficientQuota", "m") {
		t.Error("same reason and message reported as changed")
	}
	if !pendingUnchanged(wl, "InsufficientQuota", "other") {
		t.Error("a new message alone reported as a change")
	}
	if pendingUnchanged(wl, "LocalQueueNotFound", "m") {
		t.Error("a new reason reported as unchanged")
	}
}

// Kueue's job framework (pkg/controller/jobframework/reconciler.go, "The
// requeued condition status set to true only on EvictedByPreemption"): when an
// eviction finishes, Requeued is True after a preemption and False after any
// other eviction, and False after a preemption too while the workload is
// inactive or in a PodsReady back-off.
func TestKueueRequeuedOnlyAfterAPreemption(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		reason   string
		inactive bool
		backoff  time.Duration
		want     metav1.ConditionStatus
	}{
		{"preempted", kueue.WorkloadEvictedByPreemption, false, 0, metav1.ConditionTrue},
		{"ClusterQueue stopped", kueue.WorkloadEvictedByClusterQueueStopped, false, 0, metav1.ConditionFalse},
		{"LocalQueue stopped", kueue.WorkloadEvictedByLocalQueueStopped, false, 0, metav1.ConditionFalse},
		{"PodsReady timeout", kueue.WorkloadEvictedByPodsReadyTimeout, false, time.Minute, metav1.ConditionFalse},
		{"deactivated", "DeactivatedDueToMaximumExecutionTimeExceeded", true, 0, metav1.ConditionFalse},
		{"preempted while inactive", kueue.WorkloadEvictedByPreemption, true, 0, metav1.ConditionFalse},
		{"preempted in a back-off", kueue.WorkloadEvictedByPreemption, false, time.Minute, metav1.ConditionFalse},
		{"preempted after its back-off", kueue.WorkloadEvictedByPreemption, false, -time.Minute, metav1.ConditionTrue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl := &kueue.Workload{}
			wl.Spec.Active = ptr.To(!tc.inactive)
			if tc.backoff != 0 {
				wl.Status.RequeueState = &kueue.RequeueState{RequeueAt: &metav1.Time{Time: now.Add(tc.backoff)}}
			}
			setRequeued(wl, tc.reason, "m", now, true)
			c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued)
			if c == nil || c.Status != tc.want || c.Reason != tc.reason {
				t.Errorf("Requeued = %+v, want %s with reason %s", c, tc.want, tc.reason)
			}
		})
	}
}

// Once an evicted workload has stopped, Kueue's job framework releases its
// quota with QuotaReserved=False, reason PendingEvaluation (Pending with the
// UnadmittedWorkloadsObservability gate off) and the eviction's message, and
// SyncAdmittedCondition turns Admitted False with NoReservation, whatever the
// eviction's reason, which stays on Evicted and Requeued
// (pkg/controller/jobframework/reconciler.go; pkg/workload/admissionchecks.go).
func TestKueueEvictionEndsWithKueuesConditions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tiered bool
		want   string
	}{{true, kueue.WorkloadQuotaReservedReasonPendingEvaluation}, {false, kueue.WorkloadPending}} {
		wl := &kueue.Workload{}
		setAdmitted(wl, &kueue.Admission{ClusterQueue: "q"}, "reserved")
		setCondition(wl, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByClusterQueueStopped, "The ClusterQueue is stopped")
		setRequeued(wl, kueue.WorkloadEvictedByClusterQueueStopped, "The ClusterQueue is stopped", time.Now(), tc.tiered)
		qr := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if qr == nil || qr.Status != metav1.ConditionFalse || qr.Reason != tc.want || qr.Message != "The ClusterQueue is stopped" {
			t.Errorf("tiered %v: QuotaReserved = %+v, want False, %s, the eviction's message", tc.tiered, qr, tc.want)
		}
		ad := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted)
		if ad == nil || ad.Status != metav1.ConditionFalse || ad.Reason != kueue.WorkloadAdmittedReasonNoReservation ||
			ad.Message != "The workload has no reservation" {
			t.Errorf("tiered %v: Admitted = %+v, want False, NoReservation", tc.tiered, ad)
		}
		if rq := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued); rq == nil || rq.Reason != kueue.WorkloadEvictedByClusterQueueStopped {
			t.Errorf("tiered %v: Requeued = %+v, want the eviction's reason", tc.tiered, rq)
		}
		if wl.Status.Admission != nil {
			t.Errorf("tiered %v: admission kept", tc.tiered)
		}
	}
}

// Kueue's eviction counts each eviction in status.schedulingStats.evictions
// by reason and underlying cause (pkg/workload/evict, workloadEvictionStateInc),
// and kueue_evicted_workloads_once_total counts a workload's first for them.
func TestKueueEvictionCountsInSchedulingStats(t *testing.T) {
	t.Parallel()
	wl := &kueue.Workload{}
	for i, tc := range []struct {
		reason, cause string
		first         bool
	}{
		{kueue.WorkloadEvictedByPreemption, "", true},
		{kueue.WorkloadEvictedByPodsReadyTimeout, "WaitForStart", true},
		{kueue.WorkloadEvictedByPreemption, "", false},
		{kueue.WorkloadEvictedByPodsReadyTimeout, "WaitForRecovery", true},
	} {
		if got := countEviction(wl, tc.reason, tc.cause); got != tc.first {
			t.Errorf("eviction %d (%s/%s): first = %v, want %v", i, tc.reason, tc.cause, got, tc.first)
		}
	}
	want := []kueue.WorkloadSchedulingStatsEviction{
		{Reason: kueue.WorkloadEvictedByPreemption, Count: 2},
		{Reason: kueue.WorkloadEvictedByPodsReadyTimeout, UnderlyingCause: "WaitForStart", Count: 1},
		{Reason: kueue.WorkloadEvictedByPodsReadyTimeout, UnderlyingCause: "WaitForRecovery", Count: 1},
	}
	if got := wl.Status.SchedulingStats.Evictions; !reflect.DeepEqual(got, want) {
		t.Errorf("evictions %+v, want %+v", got, want)
	}
}
