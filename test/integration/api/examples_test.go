//go:build integration

package api

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueuealpha "quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/test/integration/framework"
)

// Issue 2: "every manifest under examples/ applies". Configuration files are not
// API objects (config.kueue.x-k8s.io is read from a file by the manager), so they
// are the one thing skipped.
func TestEveryExampleApplies(t *testing.T) {
	ctx := context.Background()
	docs, err := framework.ReadManifests(filepath.Join(framework.RepoRoot(), "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 10 {
		t.Fatalf("expected the examples to hold at least 10 objects, found %d", len(docs))
	}
	// Namespaces first, as kubectl apply -f on a directory would need them.
	namespaces := map[string]bool{}
	for _, d := range docs {
		if ns := d.Object.GetNamespace(); ns != "" {
			namespaces[ns] = true
		}
	}
	for ns := range namespaces {
		err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}
	applied := map[string]int{}
	for _, d := range docs {
		if d.Object.GroupVersionKind().Group == "config.kueue.x-k8s.io" {
			continue
		}
		if err := framework.Apply(ctx, env.Client, d.Object); err != nil {
			t.Errorf("%s does not apply: %v", d, err)
			continue
		}
		applied[d.Object.GetKind()]++
	}
	for _, kind := range []string{"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort", "CapacityProvider",
		"DynamicQuotaOrchestrator", "PreemptionConfig", "ElasticQuota", "WorkloadPriorityClass"} {
		if applied[kind] == 0 {
			t.Errorf("no example of kind %s applied; the examples must cover it", kind)
		}
	}

	// The hand-written provider status is stored as written, and its condition's
	// observedGeneration matches the object's generation, so DQO would use it.
	cp := &kueuealpha.CapacityProvider{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "h100-nodes"}, cp); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(cp.Status.Conditions, kueuealpha.CapacitySynchronized)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != cp.Generation {
		t.Errorf("CapacitySynchronized = %+v with generation %d; want True at the object's generation", cond, cp.Generation)
	}
	if cp.Status.Capacity == nil || len(cp.Status.Capacity.Flavors) != 1 {
		t.Errorf("status.capacity = %+v; want the hand-written h100 capacity", cp.Status.Capacity)
	}
}
