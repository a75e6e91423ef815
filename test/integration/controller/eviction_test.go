//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/internal/scheme"
)

// A HoldAndDrain ClusterQueue evicts its admitted workloads (Evicted=True,
// ClusterQueueStopped). The quota stays held while the owning Job runs; once the
// job integration has suspended it and no pod is active, the admission is
// cleared and the workload is requeued.
func TestHoldAndDrainWaitsForTheJobToStop(t *testing.T) {
	ns := "drain"
	cpuQueue(t, ns, "2")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job"},
		Spec: batchv1.JobSpec{Suspend: ptr.To(false), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}},
	}
	create(t, job)
	owned := makeWL(ns, "owned", "q", "cpu", "1")
	if err := controllerutil.SetControllerReference(job, owned, scheme.New()); err != nil {
		t.Fatal(err)
	}
	create(t, owned, makeWL(ns, "free", "q", "cpu", "1"))
	mgr := startManager(t, nil)
	waitAdmitted(t, ns, "owned", "free")

	setStopPolicy(t, &kueue.ClusterQueue{}, keyOf("", ns), kueue.HoldAndDrain)
	// The workload without owner stops at once.
	eventually(t, 20*time.Second, func() string {
		wl := getWL(t, ns, "free")
		if wl.Status.Admission != nil || !heldBackFor(wl, kueue.WorkloadEvictedByClusterQueueStopped) {
			return fmt.Sprintf("free: admission %v, conditions %+v", wl.Status.Admission, wl.Status.Conditions)
		}
		return ""
	})
	// The Job's workload keeps its admission while the job runs.
	eventually(t, 20*time.Second, func() string {
		e := cond(getWL(t, ns, "owned"), kueue.WorkloadEvicted)
		if e == nil || e.Status != metav1.ConditionTrue || e.Reason != kueue.WorkloadEvictedByClusterQueueStopped {
			return fmt.Sprintf("owned Evicted = %+v", e)
		}
		return ""
	})
	consistently(t, 2*time.Second, func() string {
		if getWL(t, ns, "owned").Status.Admission == nil {
			return "owned lost its admission while its job still runs"
		}
		return ""
	})
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(job), job); err != nil {
			return err
		}
		job.Spec.Suspend = ptr.To(true)
		return env.Client.Update(context.Background(), job)
	})
	if err != nil {
		t.Fatalf("suspending job: %v", err)
	}
	eventually(t, 20*time.Second, func() string {
		wl := getWL(t, ns, "owned")
		if wl.Status.Admission != nil || !heldBackFor(wl, kueue.WorkloadEvictedByClusterQueueStopped) {
			return fmt.Sprintf("owned after suspension: admission %v, conditions %+v", wl.Status.Admission, wl.Status.Conditions)
		}
		return ""
	})
	waitForSample(t, mgr, "kueue_evicted_workloads_total", map[string]string{"cluster_queue": ns, "reason": "ClusterQueueStopped"}, 2)
	// As Kueue's eviction: counted in status.schedulingStats.evictions in the
	// eviction's write, and a first eviction for its reason counted once.
	waitForSample(t, mgr, "kueue_evicted_workloads_once_total", map[string]string{"cluster_queue": ns, "reason": "ClusterQueueStopped"}, 2)
	for _, name := range []string{"free", "owned"} {
		st := getWL(t, ns, name).Status.SchedulingStats
		if st == nil || len(st.Evictions) != 1 || st.Evictions[0].Reason != "ClusterQueueStopped" ||
			st.Evictions[0].UnderlyingCause != "" || st.Evictions[0].Count != 1 {
			t.Errorf("%s: schedulingStats %+v, want one ClusterQueueStopped eviction", name, st)
		}
	}
	eventually(t, 10*time.Second, func() string {
		var events corev1.EventList
		if err := env.Client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
		seen := map[string]bool{}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "free" {
				seen[e.Reason] = true
			}
		}
		// One Admitted event per admission (Kueue records QuotaReserved too).
		for _, r := range []string{"Admitted", "Evicted"} {
			if !seen[r] {
				return fmt.Sprintf("no %s event on workload free (saw %v)", r, seen)
			}
		}
		return ""
	})

	// Kueue's TestReconcile, "should set the WorkloadRequeued condition to
	// true on ClusterQueue started": restarting the queue says so, and its
	// workloads are admitted again.
	setStopPolicy(t, &kueue.ClusterQueue{}, keyOf("", ns), kueue.None)
	eventually(t, 20*time.Second, func() string {
		wl := getWL(t, ns, "free")
		r := cond(wl, kueue.WorkloadRequeued)
		if r == nil || r.Status != metav1.ConditionTrue || r.Reason != "ClusterQueueRestarted" ||
			r.Message != "The ClusterQueue was restarted after being stopped" {
			return fmt.Sprintf("free's Requeued = %+v after the restart", r)
		}
		return ""
	})
	waitAdmitted(t, ns, "free")
}

// heldBackFor: the eviction finished (QuotaReserved False, and Admitted False
// with Kueue's NoReservation) and, as in Kueue for every eviction but a
// preemption, Requeued is False with its reason until what holds the workload
// back is gone.
func heldBackFor(wl *kueue.Workload, reason string) bool {
	r, q, a := cond(wl, kueue.WorkloadRequeued), cond(wl, kueue.WorkloadQuotaReserved), cond(wl, kueue.WorkloadAdmitted)
	return r != nil && r.Status == metav1.ConditionFalse && r.Reason == reason &&
		q != nil && q.Status == metav1.ConditionFalse &&
		a != nil && a.Status == metav1.ConditionFalse && a.Reason == kueue.WorkloadAdmittedReasonNoReservation
}

// Past the loop's budget for Admitted events, admissions record none: with a
// budget of one event (a rate of 0.01 a second), five workloads admitted
// together leave exactly one Admitted event, while each is admitted.
func TestAdmittedEventsBeyondTheBudgetAreSkipped(t *testing.T) {
	ns := "event-budget"
	cpuQueue(t, ns, "5")
	for i := range 5 {
		create(t, makeWL(ns, fmt.Sprintf("wl-%d", i), "q", "cpu", "1"))
	}
	startManagerOpts(t, nil, nil, core.LoopOptions{AdmittedEventsPerSecond: 0.01})
	waitAdmitted(t, ns, "wl-0", "wl-1", "wl-2", "wl-3", "wl-4")
	admittedEvents := func() int {
		var events corev1.EventList
		if err := env.Client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			t.Fatalf("listing events: %v", err)
		}
		n := 0
		for _, e := range events.Items {
			if e.Reason == "Admitted" {
				n += int(max(1, e.Count))
			}
		}
		return n
	}
	eventually(t, 10*time.Second, func() string {
		if n := admittedEvents(); n != 1 {
			return fmt.Sprintf("%d Admitted events, want 1", n)
		}
		return ""
	})
	consistently(t, 2*time.Second, func() string {
		if n := admittedEvents(); n != 1 {
			return fmt.Sprintf("%d Admitted events, want 1", n)
		}
		return ""
	})
}

// Kueue's TestReconcile, "should set the WorkloadRequeued condition to true on
// LocalQueue started", through the manager: a HoldAndDrain LocalQueue evicts
// its workload (Requeued=False, LocalQueueStopped); restarting it says so
// (LocalQueueRestarted) and the workload is admitted again.
func TestKueueLocalQueueRestartRequeuesItsWorkloads(t *testing.T) {
	ns := "lq-restart"
	cpuQueue(t, ns, "1")
	create(t, makeWL(ns, "wl", "q", "cpu", "1"))
	startManager(t, nil)
	waitAdmitted(t, ns, "wl")
	setStopPolicy(t, &kueue.LocalQueue{}, keyOf(ns, "q"), kueue.HoldAndDrain)
	eventually(t, 20*time.Second, func() string {
		if wl := getWL(t, ns, "wl"); wl.Status.Admission != nil || !heldBackFor(wl, kueue.WorkloadEvictedByLocalQueueStopped) {
			return fmt.Sprintf("wl: admission %v, conditions %+v", wl.Status.Admission, wl.Status.Conditions)
		}
		return ""
	})
	setStopPolicy(t, &kueue.LocalQueue{}, keyOf(ns, "q"), kueue.None)
	eventually(t, 20*time.Second, func() string {
		r := cond(getWL(t, ns, "wl"), kueue.WorkloadRequeued)
		if r == nil || r.Status != metav1.ConditionTrue || r.Reason != "LocalQueueRestarted" ||
			r.Message != "The LocalQueue was restarted after being stopped" {
			return fmt.Sprintf("wl's Requeued = %+v after the restart", r)
		}
		return ""
	})
	waitAdmitted(t, ns, "wl")
}

// setStopPolicy sets the stopPolicy of a ClusterQueue or LocalQueue. The
// manager writes the queue's status meanwhile, so the edit retries on a
// conflict like any client would.
func setStopPolicy(t *testing.T, q client.Object, key client.ObjectKey, p kueue.StopPolicy) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(context.Background(), key, q); err != nil {
			return err
		}
		switch q := q.(type) {
		case *kueue.ClusterQueue:
			q.Spec.StopPolicy = ptr.To(p)
		case *kueue.LocalQueue:
			q.Spec.StopPolicy = ptr.To(p)
		}
		return env.Client.Update(context.Background(), q)
	})
	if err != nil {
		t.Fatalf("setting the stopPolicy of %T %s to %s: %v", q, key, p, err)
	}
}
