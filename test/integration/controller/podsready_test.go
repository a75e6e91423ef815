//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
)

// Kueue's waitForPodsReady, through the manager (Kueue:
// test/integration/singlecluster/scheduler/podsready/, "Should requeue a
// workload which exceeded the timeout to connect" and "Should deactivate the
// workload when requeuing limit reached"): a workload whose pods are not
// ready within the timeout is evicted (PodsReadyTimeout, Kueue's message),
// waits for its back-off (status.requeueState), is admitted again, and past
// backoffLimitCount is deactivated (DeactivatedDueToRequeuingLimitExceeded).
// A workload whose PodsReady turned True in time keeps its quota. Spec 002,
// Failure modes: "nodeLabels that no longer match nodes, produce admitted pods
// that stay Pending. The gang scheduling article covers waitForPodsReady": a
// workload whose pods never start gives its quota back after the timeout.
func TestKueuePodsReadyTimeoutRequeuesThenDeactivates(t *testing.T) {
	ns := "pods-ready"
	cpuQueue(t, ns, "2")
	create(t, makeWL(ns, "slow", "q", "cpu", "1"), makeWL(ns, "ready", "q", "cpu", "1"))
	mgr := startManager(t, func(c *configapi.Configuration) {
		c.WaitForPodsReady.Timeout = metav1.Duration{Duration: 3 * time.Second}
		rs := c.WaitForPodsReady.RequeuingStrategy
		rs.BackoffBaseSeconds, rs.BackoffLimitCount = ptr.To[int32](1), ptr.To[int32](1)
	})
	waitAdmitted(t, ns, "slow", "ready")
	updateStatus(t, ns, "ready", func(w *kueue.Workload) {
		w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadPodsReady,
			Status: metav1.ConditionTrue, Reason: kueue.WorkloadStarted, Message: "All pods reached readiness and the workload is running",
			LastTransitionTime: metav1.Now()})
	})

	eventually(t, 20*time.Second, func() string {
		w := getWL(t, ns, "slow")
		e := cond(w, kueue.WorkloadEvicted)
		if e == nil || e.Reason != kueue.WorkloadEvictedByPodsReadyTimeout || e.Message != "Exceeded the PodsReady timeout "+ns+"/slow" {
			return fmt.Sprintf("slow Evicted = %+v", e)
		}
		if rs := w.Status.RequeueState; rs == nil || ptr.Deref(rs.Count, 0) != 1 {
			return fmt.Sprintf("slow requeueState = %+v, want count 1", w.Status.RequeueState)
		}
		return ""
	})
	// Readmitted after its one-second back-off, then timed out again: past
	// the limit of one requeue it is deactivated.
	eventually(t, 30*time.Second, func() string {
		w := getWL(t, ns, "slow")
		e := cond(w, kueue.WorkloadEvicted)
		if ptr.Deref(w.Spec.Active, true) || e == nil || e.Reason != "DeactivatedDueToRequeuingLimitExceeded" ||
			e.Message != "The workload is deactivated due to exceeding the maximum number of re-queuing retries" {
			return fmt.Sprintf("slow: active %v, Evicted %+v", w.Spec.Active, e)
		}
		return ""
	})
	if w := getWL(t, ns, "ready"); !isAdmitted(w) || cond(w, kueue.WorkloadEvicted) != nil {
		t.Errorf("ready lost its quota: %+v", w.Status.Conditions)
	}
	waitForSample(t, mgr, "kueue_evicted_workloads_total", map[string]string{"cluster_queue": ns,
		"reason": "PodsReadyTimeout", "underlying_cause": "WaitForStart"}, 1)
}

// Kueue's waitForPodsReady.blockAdmission through the manager (Kueue:
// test/integration/singlecluster/scheduler/podsready/, "Should unblock
// admission of new workloads in other ClusterQueues once the admitted
// workload exceeds timeout" and "Should unblock admission of new workloads
// once the admitted workload is deleted"): a workload that fits while an
// admitted one's pods are not ready waits with QuotaReserved=False, reason
// Waiting, and is admitted once that one has PodsReady=True, or is deleted.
func TestKueueBlockAdmissionWaitsForPodsReady(t *testing.T) {
	ns := "block-admission"
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}),
		makeCQ(ns+"-prod").cohort(ns).selector("team", ns).flavor("default", quota("cpu", "5", "", "")).obj(),
		makeCQ(ns+"-dev").cohort(ns).selector("team", ns).flavor("default", quota("cpu", "5", "", "")).obj(),
		makeLQ(ns, "prod-queue", ns+"-prod"), makeLQ(ns, "dev-queue", ns+"-dev"),
		makeWL(ns, "prod-wl", "prod-queue", "cpu", "2"))
	startManager(t, func(c *configapi.Configuration) {
		c.WaitForPodsReady.BlockAdmission = ptr.To(true)
		c.WaitForPodsReady.Timeout = metav1.Duration{Duration: 5 * time.Minute}
	})
	waitAdmittedBlocking(t, ns, "prod-wl")
	create(t, makeWL(ns, "dev-wl", "dev-queue", "cpu", "2"))
	waitPending(t, ns, "dev-wl", kueue.WorkloadQuotaReservedReasonWaitingForPodsReady)
	if c := cond(getWL(t, ns, "dev-wl"), kueue.WorkloadQuotaReserved); c.Message != "waiting for all admitted workloads to be in PodsReady condition" {
		t.Errorf("dev-wl QuotaReserved message %q, want Kueue's", c.Message)
	}
	consistently(t, 2*time.Second, func() string {
		if isAdmitted(getWL(t, ns, "dev-wl")) {
			return "dev-wl admitted while prod-wl's pods are not ready"
		}
		return ""
	})
	updateStatus(t, ns, "prod-wl", func(w *kueue.Workload) {
		w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadPodsReady,
			Status: metav1.ConditionTrue, Reason: kueue.WorkloadStarted, Message: "All pods reached readiness and the workload is running",
			LastTransitionTime: metav1.Now()})
	})
	waitAdmittedBlocking(t, ns, "dev-wl")

	// dev-wl's pods are not ready: the next one waits until dev-wl is deleted.
	create(t, makeWL(ns, "third-wl", "prod-queue", "cpu", "2"))
	waitPending(t, ns, "third-wl", kueue.WorkloadQuotaReservedReasonWaitingForPodsReady)
	deleteObj(t, getWL(t, ns, "dev-wl"))
	waitAdmittedBlocking(t, ns, "third-wl")
}

// blockAdmission with the Job integration, end to end but for the pods: the
// first Job is started, the second waits (its Workload's QuotaReserved=False,
// reason Waiting) while the first's pods are not ready, and starts once the
// first Job reports its pod ready, which the Job integration turns into
// PodsReady=True. (No Job controller runs here: the test writes the Job's
// status as it would.)
func TestBlockAdmissionWaitsForTheFirstJobsPods(t *testing.T) {
	ns := "block-jobs"
	cpuQueue(t, ns, "4")
	startManagerOpts(t, func(c *configapi.Configuration) {
		c.WaitForPodsReady.BlockAdmission = ptr.To(true)
		c.WaitForPodsReady.Timeout = metav1.Duration{Duration: 5 * time.Minute}
	}, prometheus.NewRegistry(), core.LoopOptions{}, job.Controller())
	cpuJob := func(name string) *batchv1.Job {
		return &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kueue.QueueNameLabel: "q"}},
			Spec: batchv1.JobSpec{Suspend: ptr.To(true), Parallelism: ptr.To[int32](1), Completions: ptr.To[int32](1),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}},
		}
	}
	started := func(name string) func() string {
		return func() string {
			var j batchv1.Job
			if err := env.Client.Get(context.Background(), keyOf(ns, name), &j); err != nil {
				return err.Error()
			}
			if ptr.Deref(j.Spec.Suspend, true) {
				return name + " is still suspended"
			}
			return ""
		}
	}
	create(t, cpuJob("first"))
	eventually(t, 20*time.Second, readyElsewhere(t, ns, started("first")))
	create(t, cpuJob("second"))
	eventually(t, 20*time.Second, func() string {
		for _, w := range listWLs(t, ns) {
			if len(w.OwnerReferences) == 0 || w.OwnerReferences[0].Name != "second" {
				continue
			}
			if c := cond(&w, kueue.WorkloadQuotaReserved); c != nil && c.Status == metav1.ConditionFalse && c.Reason == kueue.WorkloadQuotaReservedReasonWaitingForPodsReady {
				return ""
			}
			return fmt.Sprintf("second's workload: %+v", w.Status.Conditions)
		}
		return "no workload for second"
	})
	if msg := started("second")(); msg == "" {
		t.Fatal("second started while first's pod is not ready")
	}

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var j batchv1.Job
		if err := env.Client.Get(context.Background(), keyOf(ns, "first"), &j); err != nil {
			return err
		}
		j.Status.Active, j.Status.Ready = 1, ptr.To[int32](1)
		if j.Status.StartTime == nil {
			j.Status.StartTime = &metav1.Time{Time: j.CreationTimestamp.Time}
		}
		return env.Client.Status().Update(context.Background(), &j)
	})
	if err != nil {
		t.Fatalf("marking first's pod ready: %v", err)
	}
	eventually(t, 20*time.Second, readyElsewhere(t, ns, started("second")))
}

// readyElsewhere is check after PodsReady=True is given to every admitted
// Workload outside namespace ns that lacks it. blockAdmission holds
// admissions back for any workload holding quota in the cluster, as in
// Kueue; the tests run before a blockAdmission test leave queues and
// workloads behind, which that test's manager admits too (earlier managers
// are gone): their pods count as started, so that only the test's own
// workloads hold admissions back.
func readyElsewhere(t *testing.T, ns string, check func() string) func() string {
	return func() string {
		for _, w := range listWLs(t, "") {
			if c := cond(&w, kueue.WorkloadPodsReady); w.Namespace == ns || w.Status.Admission == nil || c != nil && c.Status == metav1.ConditionTrue {
				continue
			}
			updateStatus(t, w.Namespace, w.Name, func(w *kueue.Workload) {
				meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadPodsReady,
					Status: metav1.ConditionTrue, Reason: kueue.WorkloadStarted, Message: "set by the test"})
			})
		}
		return check()
	}
}

// waitAdmittedBlocking is waitAdmitted under blockAdmission (readyElsewhere).
func waitAdmittedBlocking(t *testing.T, ns string, names ...string) {
	t.Helper()
	eventually(t, 20*time.Second, readyElsewhere(t, ns, func() string {
		for _, n := range names {
			if !isAdmitted(getWL(t, ns, n)) {
				return n + " not admitted"
			}
		}
		return ""
	}))
}
