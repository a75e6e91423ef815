//go:build integration

package api

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), "Should set default podSet name" and "Shouldn't set podSet name
// if multiple", and localqueue_test.go, "Should reject bad value for
// spec.clusterQueue" and "Should reject the change of spec.clusterQueue":
// Kueue's webhooks; Quokka's CRD (defaults and CEL) decides the same.
func TestKueueWorkloadAndLocalQueueDefaultsAndImmutability(t *testing.T) {
	ctx := context.Background()
	noName := "- count: 1\n  template: {spec: {containers: [{name: c, image: busybox}]}}\n"
	workload := func(name, podSets string) *unstructured.Unstructured {
		return mustObject(t, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: "+name+", namespace: default}\nspec:\n  podSets:\n"+indent(podSets, 2))
	}

	t.Run("Should set default podSet name", func(t *testing.T) {
		obj := workload("default-podset-name", noName)
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
		var wl kueue.Workload
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &wl); err != nil {
			t.Fatal(err)
		}
		if wl.Spec.PodSets[0].Name != kueue.DefaultPodSetName {
			t.Errorf("pod set name %q, want %q", wl.Spec.PodSets[0].Name, kueue.DefaultPodSetName)
		}
	})
	t.Run("Shouldn't set podSet name if multiple", func(t *testing.T) {
		obj := workload("two-unnamed-podsets", noName+noName)
		err := env.Client.Create(ctx, obj)
		if err == nil {
			_ = env.Client.Delete(ctx, obj)
			t.Fatal("two pod sets without names were accepted")
		}
		if !strings.Contains(err.Error(), "spec.podSets") {
			t.Errorf("the error does not name spec.podSets: %v", err)
		}
	})

	lq := func(name, cq string) *unstructured.Unstructured {
		return mustObject(t, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: "+name+", namespace: default}\nspec: {clusterQueue: "+cq+"}\n")
	}
	t.Run("Should reject bad value for spec.clusterQueue", func(t *testing.T) {
		obj := lq("bad-cq-name", "invalid_name")
		err := env.Client.Create(ctx, obj)
		if err == nil {
			_ = env.Client.Delete(ctx, obj)
			t.Fatal("a LocalQueue naming invalid_name was accepted")
		}
		if !strings.Contains(err.Error(), "spec.clusterQueue") {
			t.Errorf("the error does not name spec.clusterQueue: %v", err)
		}
	})
	t.Run("Should reject the change of spec.clusterQueue", func(t *testing.T) {
		obj := lq("immutable-cq", "foo")
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
		if err := unstructured.SetNestedField(obj.Object, "bar", "spec", "clusterQueue"); err != nil {
			t.Fatal(err)
		}
		err := env.Client.Update(ctx, obj)
		if err == nil || !strings.Contains(err.Error(), "clusterQueue") {
			t.Fatalf("changing spec.clusterQueue: err = %v; want a refusal naming it", err)
		}
	})
}
