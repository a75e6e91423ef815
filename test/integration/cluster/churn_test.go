//go:build integration

package cluster

import (
	"context"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Sixty one-pod Jobs of one CPU, submitted at once to a ClusterQueue whose 16
// CPUs of quota are what its four nodes hold, each running 2 seconds. No
// Workload is lost (every Job completes and every Workload finishes), and the
// quota held reaches 16 CPUs but never exceeds them at any commit (replayed in
// resourceVersion order from the Workloads' changes; with 20 CPUs of quota the
// same replay reports 20).
func TestChurnKeepsQuotaAndNodesInStep(t *testing.T) {
	ns := "churn"
	applyDir(t, "churn")
	nodesReady(t, "churn-1", "churn-2", "churn-3", "churn-4")
	rec := recordChanges(t, ns, &kueue.WorkloadList{})

	const jobs = 60
	for i := range jobs {
		if err := k8s.Create(context.Background(), cpuJob(ns, fmt.Sprintf("j%03d", i), "main", 1, "2s")); err != nil {
			t.Fatal(err)
		}
	}
	until(t, "every Job completes", func() error {
		var list batchv1.JobList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		done := 0
		for _, j := range list.Items {
			if jobComplete(ns, j.Name)() == nil {
				done++
			}
		}
		if done != jobs {
			return fmt.Errorf("%d of %d Jobs complete", done, jobs)
		}
		return nil
	})
	// The manager marks a Workload Finished after its Job completes: wait
	// for the last of those writes before the recorder stops.
	until(t, "every Workload finishes", func() error {
		var list kueue.WorkloadList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		done := 0
		for _, wl := range list.Items {
			if meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
				done++
			}
		}
		if done < jobs {
			return fmt.Errorf("%d of %d Workloads finished", done, jobs)
		}
		return nil
	})
	changes := rec.stop()

	// Replay the Workloads' commits: what each holds after every one.
	held := map[string]int64{}
	var most, total int64
	finished := map[string]bool{}
	for _, c := range changes {
		wl := c.obj.(*kueue.Workload)
		var now int64
		done := meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished)
		if wl.Status.Admission != nil && !done && wl.DeletionTimestamp == nil {
			for _, psa := range wl.Status.Admission.PodSetAssignments {
				q := psa.ResourceUsage[corev1.ResourceCPU]
				now += q.Value()
			}
		}
		total += now - held[wl.Name]
		held[wl.Name] = now
		most = max(most, total)
		if done {
			finished[wl.Name] = true
		}
	}
	if most > 16 {
		t.Errorf("the Workloads held %d CPUs at once, more than the ClusterQueue's 16", most)
	}
	if most < 16 {
		t.Errorf("the Workloads never held more than %d CPUs at once: the queue was never full, the test proves little", most)
	}
	if len(finished) != jobs {
		t.Errorf("%d Workloads finished, want %d", len(finished), jobs)
	}
}
