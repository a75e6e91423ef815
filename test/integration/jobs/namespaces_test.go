//go:build integration

package jobs

import (
	"context"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's "should not reconcile a job in an unmanaged namespace"
// (ManagedJobsNamespaceSelectorAlwaysRespected, GA since v0.19), against a
// real API server with the default managedJobsNamespaceSelector, which leaves
// out kube-system: a Job there with the queue-name label is neither suspended
// (the webhook does not see kube-system) nor given a Workload, nor stopped by
// the Job integration.
func TestKueueJobInAnUnmanagedNamespaceIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	j := gpuJob("kube-system", "system-job", "research-gpu")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), j) })
	if ptr.Deref(j.Spec.Suspend, false) {
		t.Fatal("the Job in kube-system was suspended at its creation")
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		var list kueue.WorkloadList
		if err := k8s.List(ctx, &list, client.InNamespace("kube-system")); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 {
			t.Fatalf("%d Workloads in kube-system, want none", len(list.Items))
		}
		if got := getJob(t, client.ObjectKeyFromObject(j)); ptr.Deref(got.Spec.Suspend, false) {
			t.Fatal("the Job integration suspended a Job in kube-system")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
