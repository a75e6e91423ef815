//go:build integration

package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/webhook/jobs/job_webhook_test.go, "Job
// Webhook with WorkloadPriorityClassDefaulting enabled" (the gate's default):
// "Should set the default WorkloadPriorityClass label when the default WPC
// exists" (and the Job's Workload takes its priority), "Should not override an
// existing WorkloadPriorityClass label", and "Should not set the label when
// the default WPC does not exist". The It with the gate off is
// TestKueueApplyDefaultWorkloadPriorityClass's case (controllers/jobs/webhooks).
func TestKueueJobWebhookWithWorkloadPriorityClassDefaulting(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	defaultWPC := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: kueue.DefaultWorkloadPriorityClass}, Value: 100}
	if err := k8s.Create(ctx, defaultWPC); err != nil {
		t.Fatal(err)
	}
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			_ = k8s.Delete(context.Background(), defaultWPC)
		}
	})
	createIgnoringExisting(t, &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "wpc-high"}, Value: 1000})

	t.Run("Should set the default WorkloadPriorityClass label when the default WPC exists", func(t *testing.T) {
		// The webhook reads the class from the manager's cache: a Job
		// created before the cache has it is not labelled, so retry with a
		// new Job until one is.
		var labelled bool
		for i := 0; i < 50 && !labelled; i++ {
			j := gpuJob(ns, fmt.Sprintf("job-without-wpc-%d", i), "research-gpu")
			if err := k8s.Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			if j.Labels[kueue.PriorityClassLabel] != kueue.DefaultWorkloadPriorityClass {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			labelled = true
			wl := waitForWorkload(t, j)
			want := kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: "default"}
			if wl.Spec.PriorityClassRef == nil || *wl.Spec.PriorityClassRef != want || ptr.Deref(wl.Spec.Priority, 0) != 100 {
				t.Errorf("workload priority %v from %+v; want 100 from %+v", wl.Spec.Priority, wl.Spec.PriorityClassRef, want)
			}
		}
		if !labelled {
			t.Fatal("no Job got the default WorkloadPriorityClass label")
		}
	})

	t.Run("Should not override an existing WorkloadPriorityClass label", func(t *testing.T) {
		j := gpuJob(ns, "job-with-wpc", "research-gpu")
		j.Labels[kueue.PriorityClassLabel] = "wpc-high"
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if got := j.Labels[kueue.PriorityClassLabel]; got != "wpc-high" {
			t.Errorf("priority-class label %q, want wpc-high", got)
		}
	})

	t.Run("Should not set the label when the default WPC does not exist", func(t *testing.T) {
		if err := k8s.Delete(ctx, defaultWPC); err != nil {
			t.Fatal(err)
		}
		deleted = true
		// Until the manager's cache sees the deletion, a Job may still be
		// labelled: each attempt is a new Job.
		var unlabelled bool
		for i := 0; i < 50 && !unlabelled; i++ {
			j := gpuJob(ns, fmt.Sprintf("job-no-default-wpc-%d", i), "research-gpu")
			if err := k8s.Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			if unlabelled = j.Labels[kueue.PriorityClassLabel] == ""; !unlabelled {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if !unlabelled {
			t.Fatal("every Job got the label after the default WorkloadPriorityClass was deleted")
		}
	})
}
