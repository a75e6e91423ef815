//go:build integration

package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Spec 002: "spec.nodeLabels ties a flavor to nodes. When a Workload is
// admitted, Kueue adds these labels to its pod template's nodeSelector, so the
// pods run where the quota was charged." Kueue's e2e case "Should unsuspend a
// job and set nodeSelectors", here with a real scheduler and nodes: two pools
// of 2 CPUs, a ClusterQueue with 2 CPUs of each flavor, three Jobs of two
// 1-CPU pods. The first takes on-demand, the second spot, the third waits
// with no pods; when the first two finish their quota comes back and the
// third runs. Every pod runs on a node of the flavor its Workload was charged.
func TestJobsRunOnTheNodesOfTheirFlavors(t *testing.T) {
	ns := "flavors"
	applyDir(t, "flavors")
	nodesReady(t, "on-demand-1", "spot-1")

	for _, j := range []*batchv1.Job{
		cpuJob(ns, "first", "main", 2, "8s"),
		cpuJob(ns, "second", "main", 2, "8s"),
		cpuJob(ns, "third", "main", 2, "1s"),
	} {
		if err := k8s.Create(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		// Creation times order the queue.
		time.Sleep(1100 * time.Millisecond)
	}
	until(t, "first admitted on on-demand", wantFlavor(ns, "first", "on-demand"))
	until(t, "second admitted on spot", wantFlavor(ns, "second", "spot"))
	until(t, "first's pods run", podsRunning(ns, "first", 2))
	until(t, "second's pods run", podsRunning(ns, "second", 2))

	// While both run, the third has neither quota nor pods.
	if f, err := admittedFlavor(ns, "third"); err == nil {
		t.Fatalf("third admitted on %s while first and second hold all the quota", f)
	}
	if pods, err := podsOf(ns, "third"); err != nil || len(pods) != 0 {
		t.Fatalf("third has pods %v (%v) while it is not admitted", podNames(pods), err)
	}

	until(t, "first completes", jobComplete(ns, "first"))
	until(t, "second completes", jobComplete(ns, "second"))
	until(t, "third completes", jobComplete(ns, "third"))
	for _, name := range []string{"first", "second", "third"} {
		flavor, err := admittedFlavor(ns, name)
		if err != nil {
			t.Fatal(err)
		}
		checkPlacement(t, ns, name, flavor)
		until(t, name+"'s Workload finished", workloadFinished(ns, name))
	}
}

// Kueue's integration case "Should preempt Workloads with lower priority when
// there is not enough quota" (withinClusterQueue: LowerPriority), on one node
// of 2 CPUs with 2 CPUs of quota: a high-priority Job preempts the running
// low-priority one, whose pods take 5 seconds to exit. The victim's Job is
// suspended, and its quota is handed to the preemptor only once the Job
// controller reports no active pod, as Kueue's job framework does (a pod that
// is terminating is not active: the preemptor's pods may wait for the node in
// the scheduler meanwhile). The preemptor runs on the node, and when it
// finishes the victim is admitted again and runs.
func TestPreemptedJobStopsBeforeThePreemptorIsAdmitted(t *testing.T) {
	ns := "preemption"
	applyDir(t, "preemption")
	nodesReady(t, "pool-1")

	low := cpuJob(ns, "low", "main", 2, "1h")
	low.Labels[kueue.PriorityClassLabel] = "batch-low"
	low.Spec.Template.Annotations[exitAfterAnnotation] = "5s"
	if err := k8s.Create(context.Background(), low); err != nil {
		t.Fatal(err)
	}
	until(t, "low's pods run", podsRunning(ns, "low", 2))

	rec := recordChanges(t, ns, &batchv1.JobList{}, &kueue.WorkloadList{})
	high := cpuJob(ns, "high", "main", 2, "2s")
	high.Labels[kueue.PriorityClassLabel] = "batch-high"
	if err := k8s.Create(context.Background(), high); err != nil {
		t.Fatal(err)
	}
	until(t, "low's Workload preempted", func() error {
		wl, err := workloadOf(ns, "low")
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPreempted); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("low's Workload is not preempted: %v", wl.Status.Conditions)
		}
		return nil
	})
	until(t, "high's pods run", podsRunning(ns, "high", 2))
	changes := rec.stop()

	// The order in which the API server committed the changes: the Job of
	// the victim stopped (suspended, no active pod) before the preemptor's
	// Workload got its admission.
	stopped := firstChange(changes, func(o client.Object) bool {
		j, ok := o.(*batchv1.Job)
		return ok && j.Name == "low" && ptr.Deref(j.Spec.Suspend, false) && j.Status.Active == 0
	})
	admitted := firstChange(changes, func(o client.Object) bool {
		wl, ok := o.(*kueue.Workload)
		owner := metav1.GetControllerOf(o)
		return ok && owner != nil && owner.Name == "high" && wl.Status.Admission != nil
	})
	switch {
	case stopped == nil:
		t.Errorf("low's Job never showed suspended with no active pod (%d changes seen)", len(changes))
	case admitted == nil:
		t.Errorf("high's Workload never showed an admission (%d changes seen)", len(changes))
	case admitted.rv < stopped.rv:
		t.Errorf("high admitted at resourceVersion %d, before low's Job stopped at %d", admitted.rv, stopped.rv)
	}

	pods, err := podsOf(ns, "low")
	if err != nil {
		t.Fatal(err)
	}
	if live := livePods(pods); len(live) != 0 {
		t.Fatalf("low still has pods %v while high runs", live)
	}
	until(t, "high completes", jobComplete(ns, "high"))
	highPods, err := podsOf(ns, "high")
	if err != nil {
		t.Fatal(err)
	}
	var events corev1.EventList
	if err := k8s.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range highPods {
		if p.Spec.NodeName != "pool-1" {
			t.Errorf("high's pod %s ran on %q, want pool-1", p.Name, p.Spec.NodeName)
		}
		// Admitted while low's pods were still exiting, it found the node
		// full at first: the scheduler records each failed attempt.
		waited := false
		for _, e := range events.Items {
			waited = waited || (e.InvolvedObject.Name == p.Name && e.Reason == "FailedScheduling")
		}
		if !waited {
			t.Errorf("high's pod %s was scheduled at once, though low's pods take 5s to exit", p.Name)
		}
	}
	until(t, "low admitted again and running", podsRunning(ns, "low", 2))
}

// Spec 002, Common mistakes: "nodeLabels that no longer match nodes, produce
// admitted pods that stay Pending." The quota is charged at admission,
// whatever the nodes: the pods stay unschedulable while the Job holds it, and
// the next Job waits. Deleting the Job (its pods and Workload go with it, by
// the garbage collector) gives the quota back.
func TestAdmittedPodsStayPendingWhenNoNodeHasTheFlavorsLabels(t *testing.T) {
	ns := "stale"
	applyDir(t, "stale")

	if err := k8s.Create(context.Background(), cpuJob(ns, "stuck", "main", 2, "1s")); err != nil {
		t.Fatal(err)
	}
	until(t, "stuck admitted on retired-gen", wantFlavor(ns, "stuck", "retired-gen"))
	until(t, "stuck's pods unschedulable", podsUnschedulable(ns, "stuck", 2))
	pods, err := podsOf(ns, "stuck")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.Spec.NodeSelector["instance-type"] != "retired-gen" {
			t.Errorf("pod %s has nodeSelector %v, want the flavor's nodeLabels", p.Name, p.Spec.NodeSelector)
		}
	}

	if err := k8s.Create(context.Background(), cpuJob(ns, "next", "main", 2, "1s")); err != nil {
		t.Fatal(err)
	}
	until(t, "next waits for quota", func() error {
		wl, err := workloadOf(ns, "next")
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
		if c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("next's QuotaReserved is %+v, want False", c)
		}
		return nil
	})
	if f, err := admittedFlavor(ns, "next"); err == nil {
		t.Fatalf("next admitted on %s while stuck holds the quota", f)
	}

	var stuck batchv1.Job
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "stuck"}, &stuck); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(context.Background(), &stuck, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	until(t, "next admitted once stuck is deleted", wantFlavor(ns, "next", "retired-gen"))
	until(t, "stuck's pods deleted", func() error {
		pods, err := podsOf(ns, "stuck")
		if err != nil {
			return err
		}
		if len(pods) != 0 {
			return fmt.Errorf("stuck still has pods %v", podNames(pods))
		}
		return nil
	})
}

// Spec 002, Common mistakes: "Quota that does not match the hardware. Nominal
// sums above allocatable GPUs [...] produce admitted pods that stay Pending."
// 4 CPUs of quota for a node of 2: both Jobs are admitted, the second's pods
// find no room and wait in the scheduler while it holds its quota, and run
// once the first Job's pods have finished.
func TestQuotaAboveTheNodesLeavesAdmittedPodsPending(t *testing.T) {
	ns := "overpromised"
	applyDir(t, "overpromised")
	nodesReady(t, "small-1")

	if err := k8s.Create(context.Background(), cpuJob(ns, "first", "main", 2, "6s")); err != nil {
		t.Fatal(err)
	}
	until(t, "first's pods run", podsRunning(ns, "first", 2))
	if err := k8s.Create(context.Background(), cpuJob(ns, "second", "main", 2, "1s")); err != nil {
		t.Fatal(err)
	}
	until(t, "second admitted on small-pool", wantFlavor(ns, "second", "small-pool"))
	until(t, "second's pods wait for room", podsUnschedulable(ns, "second", 2))
	until(t, "first completes", jobComplete(ns, "first"))
	until(t, "second completes once first's pods are gone", jobComplete(ns, "second"))
}

// A Job that fails (backoffLimit 0, its pods exit 1) ends its Workload with
// Finished=True, reason Failed and the Job controller's message ("Job has
// reached the specified backoff limit"), as Kueue's job framework does; the
// quota is released and the next Job runs.
func TestFailedJobReleasesItsQuota(t *testing.T) {
	ns := "failing"
	applyDir(t, "failing")
	nodesReady(t, "fail-1")

	broken := cpuJob(ns, "broken", "main", 2, "1s")
	broken.Spec.BackoffLimit = ptr.To[int32](0)
	broken.Spec.Template.Annotations[exitCodeAnnotation] = "1"
	if err := k8s.Create(context.Background(), broken); err != nil {
		t.Fatal(err)
	}
	until(t, "broken admitted", wantFlavor(ns, "broken", "failing-pool"))
	if err := k8s.Create(context.Background(), cpuJob(ns, "next", "main", 2, "1s")); err != nil {
		t.Fatal(err)
	}
	until(t, "broken's Workload finished as failed", func() error {
		wl, err := workloadOf(ns, "broken")
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "Failed" || !strings.Contains(c.Message, "backoff limit") {
			return fmt.Errorf("broken's Finished condition is %+v, want True, Failed, with the Job's message", c)
		}
		return nil
	})
	until(t, "next completes on the quota broken released", jobComplete(ns, "next"))
}

// wantFlavor returns a check: nil once the Job's Workload is admitted on flavor.
func wantFlavor(ns, jobName, flavor string) func() error {
	return func() error {
		got, err := admittedFlavor(ns, jobName)
		if err != nil {
			return err
		}
		if got != flavor {
			return fmt.Errorf("job %s admitted on %s, want %s", jobName, got, flavor)
		}
		return nil
	}
}

// workloadFinished returns a check: nil once the Job's Workload has
// Finished=True.
func workloadFinished(ns, jobName string) func() error {
	return func() error {
		wl, err := workloadOf(ns, jobName)
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			return fmt.Errorf("workload of %s is not finished: %v", jobName, wl.Status.Conditions)
		}
		return nil
	}
}

// checkPlacement fails the test unless every pod of the Job selects the
// flavor's nodeLabels and ran on a node that has them.
func checkPlacement(t *testing.T, ns, jobName, flavor string) {
	t.Helper()
	ctx := context.Background()
	var rf kueue.ResourceFlavor
	if err := k8s.Get(ctx, client.ObjectKey{Name: flavor}, &rf); err != nil {
		t.Fatal(err)
	}
	pods, err := podsOf(ns, jobName)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) == 0 {
		t.Fatalf("job %s has no pods", jobName)
	}
	for _, p := range pods {
		var node corev1.Node
		if err := k8s.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, &node); err != nil {
			t.Fatalf("pod %s of %s: node %q: %v", p.Name, jobName, p.Spec.NodeName, err)
		}
		for k, v := range rf.Spec.NodeLabels {
			if p.Spec.NodeSelector[k] != v {
				t.Errorf("pod %s of %s (flavor %s): nodeSelector %v lacks %s=%s", p.Name, jobName, flavor, p.Spec.NodeSelector, k, v)
			}
			if node.Labels[k] != v {
				t.Errorf("pod %s of %s (flavor %s) ran on %s, labelled %v, not %s=%s", p.Name, jobName, flavor, node.Name, node.Labels, k, v)
			}
		}
	}
}

// livePods names the pods that are not being deleted and not finished.
func livePods(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p.Name)
		}
	}
	return out
}

func podNames(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
