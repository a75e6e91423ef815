//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's UnadmittedWorkloadsObservability gate (on by default in its main
// branch, as in Quokka), through the manager: a workload short of quota has
// QuotaReserved=False with WaitingForQuota and the engine's message,
// Admitted=False with NoReservation, and a Warning event named by the reason
// (Kueue: pkg/scheduler/scheduler.go, requeueAndUpdate; TestRequeueAndUpdate,
// "workload didn't fit"); one whose LocalQueue is missing says Misconfigured
// (getQueueBlocker). kueue_unadmitted_workloads and its LocalQueue twin count
// them by reason and underlying cause, and forget a deleted one
// (pkg/cache/queue/unadmitted_workloads.go; test/integration/singlecluster/scheduler/observability_test.go,
// "Should correctly report and prune unadmitted workload metrics", and the same
// It with UnadmittedWorkloadsExplicitStatus disabled, which Quokka does not
// have: a workload gets its first condition from the scheduler).
func TestKueueUnadmittedWorkloadsObservability(t *testing.T) {
	ns := "unadmitted"
	cpuQueue(t, ns, "1")
	mgr := startManager(t, nil)
	create(t, makeWL(ns, "fits", "q", "cpu", "1"))
	waitAdmitted(t, ns, "fits")
	// Kueue's workload controller tests (test/integration/singlecluster/controller/core/workload_controller_test.go,
	// "Should update status when workloads are created" when the queue is not
	// defined, doesn't exist, or names a ClusterQueue that doesn't exist):
	// Misconfigured and NoReservation. The messages are the engine's, which say
	// what to fix.
	create(t, makeLQ(ns, "to-nowhere", "no-such-cq"))
	create(t, makeWL(ns, "waits", "q", "cpu", "1"), makeWL(ns, "no-lq", "missing", "cpu", "1"),
		makeWL(ns, "no-queue", "", "cpu", "1"), makeWL(ns, "no-cq", "to-nowhere", "cpu", "1"))
	waitPending(t, ns, "waits", kueue.WorkloadQuotaReservedReasonWaitingForQuota)
	for _, name := range []string{"no-lq", "no-queue", "no-cq"} {
		waitPending(t, ns, name, kueue.WorkloadQuotaReservedReasonMisconfigured)
	}
	for _, name := range []string{"waits", "no-lq", "no-queue", "no-cq"} {
		wl := getWL(t, ns, name)
		if a := cond(wl, kueue.WorkloadAdmitted); a == nil || a.Status != metav1.ConditionFalse ||
			a.Reason != kueue.WorkloadAdmittedReasonNoReservation || a.Message != "The workload has no reservation" {
			t.Errorf("%s: Admitted = %+v, want False, NoReservation", name, a)
		}
	}
	q := cond(getWL(t, ns, "waits"), kueue.WorkloadQuotaReserved)
	if q.Message == "" {
		t.Errorf("waits: QuotaReserved without a message")
	}
	waitForEvent(t, ns, "waits", corev1.EventTypeWarning, kueue.WorkloadQuotaReservedReasonWaitingForQuota, q.Message)

	byCQ := map[string]string{"cluster_queue": ns, "reason": kueue.WorkloadAdmittedReasonNoReservation,
		"underlying_cause": kueue.WorkloadQuotaReservedReasonWaitingForQuota}
	byLQ := map[string]string{"name": "q", "namespace": ns, "cluster_queue": ns,
		"reason": kueue.WorkloadAdmittedReasonNoReservation, "underlying_cause": kueue.WorkloadQuotaReservedReasonWaitingForQuota}
	waitForSample(t, mgr, "kueue_unadmitted_workloads", byCQ, 1)
	waitForSample(t, mgr, "kueue_local_queue_unadmitted_workloads", byLQ, 1)
	// No ClusterQueue resolves for no-lq: neither gauge counts it.
	text := scraped(t, mgr)
	for _, name := range []string{"kueue_unadmitted_workloads", "kueue_local_queue_unadmitted_workloads"} {
		if v, ok := sample(text, name, map[string]string{"cluster_queue": ""}); ok {
			t.Errorf("%s counts a workload without ClusterQueue: %v", name, v)
		}
	}

	// Kueue's "Should correctly report and prune unadmitted workload
	// metrics": deleting the pending workload clears both gauges.
	if err := env.Client.Delete(context.Background(), getWL(t, ns, "waits")); err != nil {
		t.Fatalf("deleting waits: %v", err)
	}
	waitForSample(t, mgr, "kueue_unadmitted_workloads", byCQ, 0)
	waitForSample(t, mgr, "kueue_local_queue_unadmitted_workloads", byLQ, 0)
	finishWorkloadsAtEnd(t, ns)
}

// With the gate off, the reasons are Kueue v0.19's: Pending for what the
// scheduler writes, Inadmissible for a missing LocalQueue, no Admitted
// condition on a workload never admitted (SyncAdmittedCondition), a Warning
// event named Pending, and no kueue_unadmitted_workloads
// (pkg/util/testing/observability.go, AdjustConditionsForDisabledObservabilityInScheduler).
func TestKueueUnadmittedReasonsWithTheGateOff(t *testing.T) {
	ns := "unadmitted-off"
	cpuQueue(t, ns, "1")
	mgr := startManager(t, func(cfg *configapi.Configuration) {
		cfg.FeatureGates = map[string]bool{string(configapi.FeatureUnadmittedWorkloadsObservability): false}
	})
	create(t, makeWL(ns, "fits", "q", "cpu", "1"))
	waitAdmitted(t, ns, "fits")
	create(t, makeWL(ns, "waits", "q", "cpu", "1"), makeWL(ns, "no-lq", "missing", "cpu", "1"))
	waitPending(t, ns, "waits", kueue.WorkloadPending)
	waitPending(t, ns, "no-lq", kueue.WorkloadInadmissible)
	for _, name := range []string{"waits", "no-lq"} {
		if a := cond(getWL(t, ns, name), kueue.WorkloadAdmitted); a != nil {
			t.Errorf("%s: Admitted = %+v, want none", name, a)
		}
	}
	q := cond(getWL(t, ns, "waits"), kueue.WorkloadQuotaReserved)
	waitForEvent(t, ns, "waits", corev1.EventTypeWarning, kueue.WorkloadPending, q.Message)
	if v, ok := sample(scraped(t, mgr), "kueue_unadmitted_workloads", map[string]string{"cluster_queue": ns}); ok {
		t.Errorf("kueue_unadmitted_workloads exported with the gate off: %v", v)
	}
	finish(t, getWL(t, ns, "fits"))
	waitAdmitted(t, ns, "waits")
	finishWorkloadsAtEnd(t, ns)
}

// scraped is the metrics endpoint's text once it serves, so that a sample's
// absence means something.
func scraped(t *testing.T, mgr *runningManager) string {
	t.Helper()
	var text string
	eventually(t, 10*time.Second, func() string {
		if text = mgr.scrape(t); text == "" {
			return "metrics endpoint not serving"
		}
		return ""
	})
	return text
}
