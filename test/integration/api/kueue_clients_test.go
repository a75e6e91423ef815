//go:build integration

package api

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kueue's job integrations finish an eviction with a server-side apply of the
// Workload's status built by Kueue's workload library: QuotaReserved=False, no
// admission, and the time spent admitted so far with the eviction counted
// (accumulatedPastExecutionTimeSeconds, schedulingStats.evictions). Kueue's
// own scheduler performance runner does exactly this when Quokka evicts one of
// its workloads; a field the CRD did not declare made the API server refuse
// the whole apply ("field not declared in schema"), so the runner could never
// finish an eviction.
func TestKueueEvictionStatusApplies(t *testing.T) {
	ctx := context.Background()
	wl := mustObject(t, `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: evicted-by-kueue-client
  namespace: default
spec:
  queueName: team
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          resources:
            requests:
              cpu: "1"
`)
	if err := env.Client.Create(ctx, wl); err != nil {
		t.Fatal(err)
	}
	patch := mustObject(t, `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: evicted-by-kueue-client
  namespace: default
status:
  conditions:
  - type: QuotaReserved
    status: "False"
    reason: Pending
    message: Evicted by the test runner
    lastTransitionTime: "2026-12-02T00:00:00Z"
  accumulatedPastExecutionTimeSeconds: 3
  schedulingStats:
    evictions:
    - reason: Preempted
      underlyingCause: ""
      count: 1
`)
	//nolint:staticcheck // client.Apply is what Kueue's workload library calls
	if err := env.Client.Status().Patch(ctx, patch, client.Apply, client.FieldOwner("kueue-admission"), client.ForceOwnership); err != nil {
		t.Fatalf("applying Kueue's eviction status: %v", err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(wl.GroupVersionKind())
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(wl), got); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedInt64(got.Object, "status", "accumulatedPastExecutionTimeSeconds"); v != 3 {
		t.Errorf("status.accumulatedPastExecutionTimeSeconds = %d, want 3 kept", v)
	}
	evictions, _, _ := unstructured.NestedSlice(got.Object, "status", "schedulingStats", "evictions")
	if len(evictions) != 1 {
		t.Errorf("status.schedulingStats.evictions = %v, want the one eviction kept", evictions)
	}
}
