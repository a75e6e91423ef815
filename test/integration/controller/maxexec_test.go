//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/controller/core/workload_controller_test.go,
// "the workload has a maximum execution time set" / "should deactivate the
// workload when the time expires": once admitted for
// spec.maximumExecutionTimeSeconds, the workload gets spec.active=false and
// Evicted=True with reason DeactivatedDueToMaximumExecutionTimeExceeded and
// message "The workload is deactivated due to exceeding the maximum execution
// time". Quokka's admission replaces the test's hand-written reservation.
// Also checked: Kueue's Warning event, the eviction metric's underlying cause,
// the quota handed to the next workload, and Requeued=False (a deactivated
// workload is not queued again).
func TestKueueMaximumExecutionTimeDeactivatesTheWorkload(t *testing.T) {
	ns := "max-exec"
	cpuQueue(t, ns, "1")
	wl := makeWL(ns, "wl", "q", "cpu", "1")
	wl.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](2)
	next := makeWL(ns, "next", "q", "cpu", "1")
	create(t, wl)
	mgr := startManager(t, nil)
	waitAdmitted(t, ns, "wl")
	create(t, next)

	eventually(t, 20*time.Second, func() string {
		got := getWL(t, ns, "wl")
		if ptr.Deref(got.Spec.Active, true) {
			return "wl still active"
		}
		e := cond(got, kueue.WorkloadEvicted)
		if e == nil || e.Status != metav1.ConditionTrue || e.Reason != "DeactivatedDueToMaximumExecutionTimeExceeded" ||
			e.Message != "The workload is deactivated due to exceeding the maximum execution time" {
			return fmt.Sprintf("wl Evicted = %+v", e)
		}
		if cond(got, kueue.WorkloadDeactivationTarget) != nil {
			return "the eviction left the DeactivationTarget condition"
		}
		return ""
	})
	waitAdmitted(t, ns, "next")
	eventually(t, 10*time.Second, func() string {
		got := getWL(t, ns, "wl")
		r := cond(got, kueue.WorkloadRequeued)
		if got.Status.Admission != nil || r == nil || r.Status != metav1.ConditionFalse {
			return fmt.Sprintf("wl: admission %v, Requeued %+v; want released and not requeued", got.Status.Admission, r)
		}
		if p := ptr.Deref(got.Status.AccumulatedPastExecutionTimeSeconds, -1); p < 1 || p > 4 {
			return fmt.Sprintf("accumulatedPastExecutionTimeSeconds = %d, want the last admission's 1-4 s", p)
		}
		return ""
	})
	waitForSample(t, mgr, "kueue_evicted_workloads_total", map[string]string{"cluster_queue": ns,
		"reason": "Deactivated", "underlying_cause": "MaximumExecutionTimeExceeded"}, 1)
	waitForEvent(t, ns, "wl", corev1.EventTypeWarning, "MaximumExecutionTimeExceeded", "The maximum execution time (2s) exceeded")

	// Kueue's TestReconcile, "should set the WorkloadRequeued condition to
	// true on re-activated": spec.active back to true queues it again.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := getWL(t, ns, "wl")
		w.Spec.Active = ptr.To(true)
		return env.Client.Update(context.Background(), w)
	})
	if err != nil {
		t.Fatalf("reactivating wl: %v", err)
	}
	eventually(t, 10*time.Second, func() string {
		r := cond(getWL(t, ns, "wl"), kueue.WorkloadRequeued)
		if r == nil || r.Status != metav1.ConditionTrue || r.Reason != "Reactivated" || r.Message != "The workload was reactivated" {
			return fmt.Sprintf("Requeued = %+v after reactivation", r)
		}
		return ""
	})
}

// Kueue: the same file, "should deactivate the workload when the time expires
// with multiple admissions": an eviction adds the admission's time to
// status.accumulatedPastExecutionTimeSeconds, and a later admission is
// deactivated once that time and its own reach the maximum (30 s here,
// 29 of them accumulated).
func TestKueueMaximumExecutionTimeCountsEarlierAdmissions(t *testing.T) {
	ns := "max-exec-again"
	cpuQueue(t, ns, "1")
	wl := makeWL(ns, "wl", "q", "cpu", "1")
	wl.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](30)
	create(t, wl)
	startManager(t, nil)
	waitAdmitted(t, ns, "wl")
	admitted := cond(getWL(t, ns, "wl"), kueue.WorkloadAdmitted)
	time.Sleep(time.Until(admitted.LastTransitionTime.Add(time.Second)))

	// An eviction by someone else (Kueue's test writes one "ByTest"); the
	// workload has no owner, so the manager releases it at once.
	updateStatus(t, ns, "wl", func(w *kueue.Workload) {
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadEvicted,
			Status: metav1.ConditionTrue, Reason: "ByTest", Message: "by test"})
	})
	eventually(t, 20*time.Second, func() string {
		if p := ptr.Deref(getWL(t, ns, "wl").Status.AccumulatedPastExecutionTimeSeconds, 0); p <= 0 {
			return fmt.Sprintf("accumulatedPastExecutionTimeSeconds = %d after the eviction, want > 0", p)
		}
		return ""
	})
	updateStatus(t, ns, "wl", func(w *kueue.Workload) {
		w.Status.AccumulatedPastExecutionTimeSeconds = ptr.To(*w.Spec.MaximumExecutionTimeSeconds - 1)
	})
	eventually(t, 20*time.Second, func() string {
		got := getWL(t, ns, "wl")
		if ptr.Deref(got.Spec.Active, true) {
			return fmt.Sprintf("wl still active; conditions %+v", got.Status.Conditions)
		}
		return ""
	})
}

// updateStatus changes a Workload's status as another client would,
// retrying on conflicts with the manager's writes.
func updateStatus(t *testing.T, ns, name string, change func(*kueue.Workload)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := &kueue.Workload{}
		if err := env.Client.Get(context.Background(), keyOf(ns, name), w); err != nil {
			return err
		}
		change(w)
		return env.Client.Status().Update(context.Background(), w)
	})
	if err != nil {
		t.Fatalf("updating the status of %s/%s: %v", ns, name, err)
	}
}
