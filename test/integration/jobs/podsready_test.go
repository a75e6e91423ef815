//go:build integration

package jobs

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's job framework keeps the PodsReady condition of a running Job's
// Workload (jobframework's generatePodsReadyCondition, Kueue's Job.PodsReady:
// ready + succeeded pods reach the pods the Job runs at once): True
// "Started" once all are ready, False "WaitForRecovery" when one stops being
// ready, True "Recovered" when all are ready again. The core's
// waitForPodsReady timeouts read it. (The Job controller is not running
// here: the test writes the Job's status as it would.)
func TestKueueRunningJobKeepsItsWorkloadsPodsReadyCondition(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	createIgnoringExisting(t, h100())
	j := gpuJob(ns, "train", "research-gpu")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(j)
	wl := waitForWorkload(t, j)
	writeStatus(t, wl, admit("h100"))
	eventually(t, "job started", func() error {
		if ptr.Deref(getJob(t, key).Spec.Suspend, true) {
			return fmt.Errorf("still suspended")
		}
		return nil
	})

	setReady := func(n int32) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			got := getJob(t, key)
			got.Status.Active, got.Status.Ready = n, ptr.To(n)
			if got.Status.StartTime == nil {
				got.Status.StartTime = &metav1.Time{Time: got.CreationTimestamp.Time}
			}
			return k8s.Status().Update(ctx, got)
		})
		if err != nil {
			t.Fatalf("setting the job's ready pods to %d: %v", n, err)
		}
	}
	want := func(what string, status metav1.ConditionStatus, reason, message string) {
		t.Helper()
		eventually(t, what, func() error {
			got := &kueue.Workload{}
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(wl), got); err != nil {
				return err
			}
			c := meta.FindStatusCondition(got.Status.Conditions, kueue.WorkloadPodsReady)
			if c == nil || c.Status != status || c.Reason != reason || c.Message != message {
				return fmt.Errorf("PodsReady = %+v", c)
			}
			return nil
		})
	}
	setReady(1)
	setReady(2)
	want("all pods ready", metav1.ConditionTrue, kueue.WorkloadStarted, "All pods reached readiness and the workload is running")
	setReady(1)
	want("a pod lost", metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, "At least one pod has failed, waiting for recovery")
	setReady(2)
	want("recovered", metav1.ConditionTrue, kueue.WorkloadRecovered, "All pods reached readiness and the workload is running")
}
