//go:build integration

package controller

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/controller/core/workload_controller_test.go,
// When "manager is setup with long retention period":
//   - "should not delete the workload before retention period elapses":
//     kueue_finished_workloads and its LocalQueue twin are 0 while the workload
//     runs, 1 once it finished, still 1 after the manager restarts, and 0 once
//     it is deleted;
//   - "should record execution time metric when workload finishes": one
//     observation of kueue_execution_time_seconds and its LocalQueue twin;
//   - "should not record execution time metric when workload finishes
//     without being admitted": none.
//
// Besides: kueue_finished_workloads_total counts the admitted one under its
// ClusterQueue and LocalQueue and the one never admitted under
// cluster_queue="" only (Kueue's reportFinishedWorkload); the execution time
// observed is the Finished condition's time less the Admitted one's; the
// gauges count the one never admitted through its LocalQueue's ClusterQueue;
// a restarted manager counts no finish again (Kueue's Create handler counts
// nothing).
func TestKueueFinishedWorkloadsMetrics(t *testing.T) {
	ns := "lcm-finished"
	cpuQueue(t, ns, "1")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, nil)
	create(t, makeWL(ns, "done", "q", "cpu", "1"))
	waitAdmitted(t, ns, "done")
	cq := map[string]string{"cluster_queue": ns, "replica_role": "standalone"}
	lq := map[string]string{"name": "q", "namespace": ns, "replica_role": "standalone"}
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 0)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 0)

	// Run for two seconds at least, so that the execution time is not 0.
	admittedAt := cond(getWL(t, ns, "done"), kueue.WorkloadAdmitted).LastTransitionTime.Time
	time.Sleep(time.Until(admittedAt.Add(2 * time.Second)))
	finish(t, getWL(t, ns, "done"))
	withClass := func(base map[string]string) map[string]string {
		out := map[string]string{"priority_class": ""}
		for k, v := range base {
			out[k] = v
		}
		return out
	}
	waitForSample(t, mgr, "kueue_finished_workloads_total", withClass(cq), 1)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads_total", withClass(lq), 1)
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 1)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 1)
	waitForSample(t, mgr, "kueue_execution_time_seconds_count", withClass(cq), 1)
	waitForSample(t, mgr, "kueue_local_queue_execution_time_seconds_count", withClass(lq), 1)
	done := getWL(t, ns, "done")
	ran := cond(done, kueue.WorkloadFinished).LastTransitionTime.Sub(cond(done, kueue.WorkloadAdmitted).LastTransitionTime.Time)
	if ran < 2*time.Second {
		t.Fatalf("done ran %v by its conditions, want 2s at least", ran)
	}
	waitForSample(t, mgr, "kueue_execution_time_seconds_sum", withClass(cq), ran.Seconds())

	create(t, makeWL(ns, "never", "q", "cpu", "2"))
	eventually(t, 20*time.Second, func() string {
		if c := cond(getWL(t, ns, "never"), kueue.WorkloadQuotaReserved); c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Sprintf("never: QuotaReserved = %+v, want False", c)
		}
		return ""
	})
	finish(t, getWL(t, ns, "never"))
	waitForSample(t, mgr, "kueue_finished_workloads_total", map[string]string{"cluster_queue": "", "priority_class": ""}, 1)
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 2)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 2)
	text := scraped(t, mgr)
	for name, labels := range map[string]map[string]string{
		"kueue_finished_workloads_total":                 withClass(cq),
		"kueue_local_queue_finished_workloads_total":     withClass(lq),
		"kueue_execution_time_seconds_count":             withClass(cq),
		"kueue_local_queue_execution_time_seconds_count": withClass(lq),
	} {
		if v, _ := sample(text, name, labels); v != 1 {
			t.Errorf("%s%v = %v after a workload finished without admission, want still 1", name, labels, v)
		}
	}
	if v, ok := sample(text, "kueue_execution_time_seconds_count", map[string]string{"cluster_queue": ""}); ok {
		t.Errorf("execution time observed for a workload never admitted: %v", v)
	}

	// "restarting the manager" / "verifying that the metrics still keep
	// their counts".
	mgr.stop()
	mgr = startManager(t, nil)
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 2)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 2)
	if v, ok := sample(scraped(t, mgr), "kueue_finished_workloads_total", map[string]string{"cluster_queue": ns}); ok {
		t.Errorf("the restarted manager counted a finish again: %v", v)
	}

	// "deleting the workload manually" / "verifying that the metrics are
	// updated".
	deleteObj(t, getWL(t, ns, "done"))
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 1)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 1)
	deleteObj(t, getWL(t, ns, "never"))
	waitForSample(t, mgr, "kueue_finished_workloads", cq, 0)
	waitForSample(t, mgr, "kueue_local_queue_finished_workloads", lq, 0)
}

// setActive writes spec.active of ns/name.
func setActive(t *testing.T, ns, name string, active bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := getWL(t, ns, name)
		w.Spec.Active = ptr.To(active)
		return env.Client.Update(context.Background(), w)
	})
	if err != nil {
		t.Fatalf("setting spec.active=%v on %s/%s: %v", active, ns, name, err)
	}
}

// waitReleased waits until ns/name's quota is released after an eviction.
func waitReleased(t *testing.T, ns, name string) *kueue.Workload {
	t.Helper()
	var w *kueue.Workload
	eventually(t, 20*time.Second, func() string {
		if w = getWL(t, ns, name); w.Status.Admission != nil {
			return name + " still holds its admission"
		}
		return ""
	})
	return w
}

// Kueue: workload_controller_test.go, "should record cumulative execution
// time across evict/readmit cycles": admitted, evicted once it ran a second
// (here by deactivation, Quokka's own eviction), admitted again and
// finished, the workload has one observation, whose value is the time of
// both admissions: status.accumulatedPastExecutionTimeSeconds plus the last
// admission's time to the finish.
func TestKueueCumulativeExecutionTimeMetric(t *testing.T) {
	ns := "lcm-cumulative"
	cpuQueue(t, ns, "1")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, nil)
	create(t, makeWL(ns, "wl", "q", "cpu", "1"))
	waitAdmitted(t, ns, "wl")
	time.Sleep(time.Until(cond(getWL(t, ns, "wl"), kueue.WorkloadAdmitted).LastTransitionTime.Add(time.Second)))
	setActive(t, ns, "wl", false)
	if past := ptr.Deref(waitReleased(t, ns, "wl").Status.AccumulatedPastExecutionTimeSeconds, 0); past < 1 {
		t.Fatalf("accumulatedPastExecutionTimeSeconds = %d after a second of execution", past)
	}
	setActive(t, ns, "wl", true)
	waitAdmitted(t, ns, "wl")
	finish(t, getWL(t, ns, "wl"))

	labels := map[string]string{"cluster_queue": ns, "priority_class": "", "replica_role": "standalone"}
	waitForSample(t, mgr, "kueue_execution_time_seconds_count", labels, 1)
	wl := getWL(t, ns, "wl")
	want := time.Duration(ptr.Deref(wl.Status.AccumulatedPastExecutionTimeSeconds, 0))*time.Second +
		cond(wl, kueue.WorkloadFinished).LastTransitionTime.Sub(cond(wl, kueue.WorkloadAdmitted).LastTransitionTime.Time)
	waitForSample(t, mgr, "kueue_execution_time_seconds_sum", labels, want.Seconds())
}

// Kueue:
//   - test/integration/singlecluster/controller/jobs/job/job_controller_test.go,
//     the ready wait time metrics "recorded with workload priority class
//     labels": PodsReady turning True (Started) observes
//     kueue_ready_wait_time_seconds, kueue_admitted_until_ready_wait_time_seconds
//     and their LocalQueue twins under the WorkloadPriorityClass's name;
//   - test/e2e/sequential/baseline/waitforpodsready_test.go, "should continue
//     running workload if pod recovers before recoveryTimeout": after a
//     recovery (WaitForRecovery, then Recovered) the counts are still 1;
//   - test/integration/singlecluster/scheduler/podsready/scheduler_test.go,
//     "Should emit the PodsReadyToEvictedTimeSeconds metric": deactivated
//     once its pods were ready, the workload has one observation of
//     kueue_pods_ready_to_evicted_time_seconds{reason="Deactivated",underlying_cause=""}.
//
// Besides: admitted_until_ready's value is the PodsReady condition's time
// less the Admitted one's, pods_ready_to_evicted's the Evicted one's less
// the PodsReady one's; and the release of a deactivated workload's quota
// gives no kueue_workload_eviction_latency_seconds sample (Kueue's Update
// handler does not observe an inactive workload's).
func TestKueueReadyWaitAndPodsReadyToEvictedMetrics(t *testing.T) {
	ns := "lcm-ready"
	cpuQueue(t, ns, "2")
	finishWorkloadsAtEnd(t, ns)
	wpc := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "lcm-low"}, Value: 1}
	wl := makeWL(ns, "wl", "q", "cpu", "1")
	wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup,
		Kind: kueue.WorkloadPriorityClassKind, Name: wpc.Name}
	wl.Spec.Priority = ptr.To[int32](1)
	create(t, wpc)
	mgr := startManager(t, nil)
	create(t, wl)
	waitAdmitted(t, ns, "wl")
	time.Sleep(time.Until(cond(getWL(t, ns, "wl"), kueue.WorkloadAdmitted).LastTransitionTime.Add(time.Second)))
	setPodsReady := func(status metav1.ConditionStatus, reason string) {
		updateStatus(t, ns, "wl", func(w *kueue.Workload) {
			setConditionNow(w, kueue.WorkloadPodsReady, status, reason)
		})
	}
	setPodsReady(metav1.ConditionTrue, kueue.WorkloadStarted)

	cq := map[string]string{"cluster_queue": ns, "priority_class": wpc.Name, "replica_role": "standalone"}
	lq := map[string]string{"name": "q", "namespace": ns, "priority_class": wpc.Name, "replica_role": "standalone"}
	counts := map[string]map[string]string{
		"kueue_ready_wait_time_seconds_count":                            cq,
		"kueue_admitted_until_ready_wait_time_seconds_count":             cq,
		"kueue_local_queue_ready_wait_time_seconds_count":                lq,
		"kueue_local_queue_admitted_until_ready_wait_time_seconds_count": lq,
	}
	for name, labels := range counts {
		waitForSample(t, mgr, name, labels, 1)
	}
	w := getWL(t, ns, "wl")
	sinceAdmission := cond(w, kueue.WorkloadPodsReady).LastTransitionTime.Sub(cond(w, kueue.WorkloadAdmitted).LastTransitionTime.Time)
	if sinceAdmission < time.Second {
		t.Fatalf("PodsReady %v after the admission by the conditions, want 1s at least", sinceAdmission)
	}
	waitForSample(t, mgr, "kueue_admitted_until_ready_wait_time_seconds_sum", cq, sinceAdmission.Seconds())

	// A recovery is not observed again.
	setPodsReady(metav1.ConditionFalse, kueue.WorkloadWaitForRecovery)
	setPodsReady(metav1.ConditionTrue, kueue.WorkloadRecovered)
	consistently(t, 2*time.Second, func() string {
		text := mgr.scrape(t)
		for name, labels := range counts {
			if v, _ := sample(text, name, labels); v != 1 {
				return fmt.Sprintf("%s%v = %v after a recovery, want still 1", name, labels, v)
			}
		}
		return ""
	})
	// Started again, as after a readmission, is: the recovery proves the
	// handler saw the updates above.
	setPodsReady(metav1.ConditionTrue, kueue.WorkloadStarted)
	waitForSample(t, mgr, "kueue_ready_wait_time_seconds_count", cq, 2)

	// The release turns PodsReady back to WaitForStart: its time of being
	// ready is read before.
	readyAt := cond(getWL(t, ns, "wl"), kueue.WorkloadPodsReady).LastTransitionTime.Time
	setActive(t, ns, "wl", false)
	evictedLabels := map[string]string{"cluster_queue": ns, "reason": kueue.WorkloadDeactivated, "underlying_cause": "",
		"replica_role": "standalone"}
	waitForSample(t, mgr, "kueue_pods_ready_to_evicted_time_seconds_count", evictedLabels, 1)
	w = waitReleased(t, ns, "wl")
	// The eviction observes its own time, which the condition keeps to the
	// second.
	readyFor := cond(w, kueue.WorkloadEvicted).LastTransitionTime.Sub(readyAt)
	if v, _ := sample(scraped(t, mgr), "kueue_pods_ready_to_evicted_time_seconds_sum", evictedLabels); math.Abs(v-readyFor.Seconds()) >= 1 {
		t.Errorf("kueue_pods_ready_to_evicted_time_seconds_sum = %v, want %v by the conditions", v, readyFor.Seconds())
	}
	consistently(t, time.Second, func() string {
		if v, ok := sample(mgr.scrape(t), "kueue_workload_eviction_latency_seconds_count", map[string]string{"cluster_queue": ns}); ok {
			return fmt.Sprintf("eviction latency observed for a deactivated workload: %v", v)
		}
		return ""
	})
}

// setConditionNow sets a condition, transitioned now when its status changes.
func setConditionNow(w *kueue.Workload, typ string, status metav1.ConditionStatus, reason string) {
	for i := range w.Status.Conditions {
		if c := &w.Status.Conditions[i]; c.Type == typ {
			if c.Status != status {
				c.LastTransitionTime = metav1.Now()
			}
			c.Status, c.Reason, c.Message = status, reason, reason
			return
		}
	}
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: reason, LastTransitionTime: metav1.Now()})
}

// Kueue: test/integration/singlecluster/controller/core/workload_preemption_eviction_metrics_test.go,
// "should record workload_eviction_latency_seconds when a preemptee returns
// to Pending": a low priority workload preempted by a high priority one of
// the same ClusterQueue is pending again, and
// kueue_workload_eviction_latency_seconds{reason="Preempted"} has a sample
// under its ClusterQueue. Besides: its pods were never ready, so no
// kueue_pods_ready_to_evicted_time_seconds.
func TestKueueWorkloadEvictionLatencyMetric(t *testing.T) {
	ns := "lcm-latency"
	cq := makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", "4", "", "")).obj()
	cq.Spec.Preemption = &kueue.ClusterQueuePreemption{WithinClusterQueue: kueue.PreemptionPolicyLowerPriority}
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cq, makeLQ(ns, "q", ns))
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, nil)
	low := makeWL(ns, "low", "q", "cpu", "1")
	low.Spec.Priority = ptr.To[int32](-1)
	create(t, low)
	waitAdmitted(t, ns, "low")
	high := makeWL(ns, "high", "q", "cpu", "4")
	high.Spec.Priority = ptr.To[int32](1)
	create(t, high)
	waitAdmitted(t, ns, "high")
	if w := waitReleased(t, ns, "low"); cond(w, kueue.WorkloadEvicted).Reason != kueue.WorkloadEvictedByPreemption {
		t.Fatalf("low: Evicted = %+v, want Preempted", cond(w, kueue.WorkloadEvicted))
	}
	waitForSample(t, mgr, "kueue_workload_eviction_latency_seconds_count",
		map[string]string{"cluster_queue": ns, "reason": kueue.WorkloadEvictedByPreemption, "replica_role": "standalone"}, 1)
	if v, ok := sample(scraped(t, mgr), "kueue_pods_ready_to_evicted_time_seconds_count", map[string]string{"cluster_queue": ns}); ok {
		t.Errorf("pods ready to eviction observed for a workload whose pods were never ready: %v", v)
	}
}
