//go:build integration

package api

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// twoPodSets is Kueue's webhook test workload: ps1 of 3 pods, ps2 of 1.
func twoPodSets(t *testing.T, name string) *kueue.Workload {
	t.Helper()
	podSet := func(n kueue.PodSetReference, count int32) kueue.PodSet {
		return kueue.PodSet{Name: n, Count: count, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}
	}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: kueue.WorkloadSpec{QueueName: "q", PodSets: []kueue.PodSet{podSet("ps1", 3), podSet("ps2", 1)}}}
	if err := env.Client.Create(context.Background(), wl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), wl) })
	return wl
}

// reserveQuota writes QuotaReserved=True with an admission, as the manager does.
func reserveQuota(t *testing.T, wl *kueue.Workload) {
	t.Helper()
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{
		{Name: "ps1", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"}},
		{Name: "ps2", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"}},
	}}
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
		Status: metav1.ConditionTrue, Reason: "QuotaReserved", Message: "reserved"})
	if err := env.Client.Status().Update(context.Background(), wl); err != nil {
		t.Fatalf("reserving quota: %v", err)
	}
}

// setReclaimable writes status.reclaimablePods and returns the API server's
// answer.
func setReclaimable(wl *kueue.Workload, rps ...kueue.ReclaimablePod) error {
	wl.Status.ReclaimablePods = rps
	return env.Client.Status().Update(context.Background(), wl)
}

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), its reclaimablePods cases, and the same rules of
// pkg/webhooks/workload_webhook_test.go: a reclaimable count may not exceed
// its pod set's, nor name a pod set the workload does not have; while quota
// is reserved the counts may go up, and not down or away. Kueue refuses these
// in its webhook (403); Quokka's Workload CRD does, with CEL (422), so the
// rules hold without the webhook.
func TestKueueReclaimablePodsValidation(t *testing.T) {
	ctx := context.Background()
	refused := func(t *testing.T, err error, what string) {
		t.Helper()
		if err == nil {
			t.Fatalf("the API server accepted %s", what)
		}
		if !strings.Contains(err.Error(), "status.reclaimablePods") {
			t.Errorf("%s: the error does not name status.reclaimablePods: %v", what, err)
		}
	}

	t.Run("invalid reclaimablePods", func(t *testing.T) {
		wl := twoPodSets(t, "invalid-reclaimable")
		refused(t, setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 4}), "4 reclaimable pods of a pod set of 3")
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(wl), wl); err != nil {
			t.Fatal(err)
		}
		refused(t, setReclaimable(wl, kueue.ReclaimablePod{Name: "ps3", Count: 1}), "reclaimable pods of a pod set that does not exist")
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(wl), wl); err != nil {
			t.Fatal(err)
		}
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 3}, kueue.ReclaimablePod{Name: "ps2", Count: 1}); err != nil {
			t.Fatalf("every pod reclaimable refused: %v", err)
		}
	})

	t.Run("reclaimable pod count can change up", func(t *testing.T) {
		wl := twoPodSets(t, "reclaimable-up")
		reserveQuota(t, wl)
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 1}); err != nil {
			t.Fatal(err)
		}
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 2}, kueue.ReclaimablePod{Name: "ps2", Count: 1}); err != nil {
			t.Fatalf("raising the counts while quota is reserved: %v", err)
		}
	})

	t.Run("reclaimable pod count cannot change down", func(t *testing.T) {
		wl := twoPodSets(t, "reclaimable-down")
		reserveQuota(t, wl)
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 2}, kueue.ReclaimablePod{Name: "ps2", Count: 1}); err != nil {
			t.Fatal(err)
		}
		refused(t, setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 1}), "a lower count, and an entry removed, while quota is reserved")
	})

	// Kueue: the webhook integration test's "reclaimable pod count can go to
	// 0 if the job is suspended": once the quota is released, the counts may
	// go down.
	t.Run("reclaimable pod count can go to 0 once quota is released", func(t *testing.T) {
		wl := twoPodSets(t, "reclaimable-released")
		reserveQuota(t, wl)
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 2}, kueue.ReclaimablePod{Name: "ps2", Count: 1}); err != nil {
			t.Fatal(err)
		}
		wl.Status.Admission = nil
		meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
			Status: metav1.ConditionFalse, Reason: "Pending", Message: "evicted"})
		if err := env.Client.Status().Update(ctx, wl); err != nil {
			t.Fatalf("releasing the quota: %v", err)
		}
		if err := setReclaimable(wl, kueue.ReclaimablePod{Name: "ps1", Count: 0}, kueue.ReclaimablePod{Name: "ps2", Count: 0}); err != nil {
			t.Fatalf("lowering the counts once the quota is released: %v", err)
		}
	})
}
