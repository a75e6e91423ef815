//go:build integration

package controller

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// The scheduling loop writes a Workload's status with a body that carries
// only its name, namespace, uid, resourceVersion and status (controllers/core,
// workloadStatusWriter). Against a real API server the admission must then
// leave everything but status as it was: the spec, the labels and annotations,
// and the creator's ownership of its fields (its managedFields entry), while
// the manager's own entry records the status it wrote.
func TestStatusWriteKeepsSpecAndOwners(t *testing.T) {
	ns := "statuswrite"
	cpuQueue(t, ns, "2")
	wl := makeWL(ns, "a", "q", "cpu", "1")
	wl.Labels = map[string]string{"team": "statuswrite"}
	wl.Annotations = map[string]string{"note": "kept"}
	if err := env.Client.Create(context.Background(), wl, client.FieldOwner("creator")); err != nil {
		t.Fatalf("creating workload: %v", err)
	}
	before := getWL(t, ns, "a")
	creatorBefore := managedBy(before, "creator")
	if creatorBefore == nil {
		t.Fatalf("the created workload has no managedFields entry for its creator: %+v", before.ManagedFields)
	}

	startManager(t, nil)
	waitAdmitted(t, ns, "a")

	after := getWL(t, ns, "a")
	if !equality.Semantic.DeepEqual(after.Spec, before.Spec) {
		t.Errorf("spec changed by the admission:\nbefore %+v\nafter  %+v", before.Spec, after.Spec)
	}
	if after.Labels["team"] != "statuswrite" || after.Annotations["note"] != "kept" {
		t.Errorf("labels %v and annotations %v after the admission, want them as created", after.Labels, after.Annotations)
	}
	creatorAfter := managedBy(after, "creator")
	if creatorAfter == nil || !equality.Semantic.DeepEqual(creatorAfter.FieldsV1, creatorBefore.FieldsV1) {
		t.Errorf("the creator's managedFields entry changed:\nbefore %s\nafter  %v", creatorBefore.FieldsV1.Raw, creatorAfter)
	}
	var statusEntry *metav1.ManagedFieldsEntry
	for i := range after.ManagedFields {
		if e := &after.ManagedFields[i]; e.Subresource == "status" {
			statusEntry = e
		}
	}
	if statusEntry == nil || statusEntry.FieldsV1 == nil {
		t.Fatalf("no managedFields entry for the status write: %+v", after.ManagedFields)
	}
	var owned map[string]any
	if err := json.Unmarshal(statusEntry.FieldsV1.Raw, &owned); err != nil {
		t.Fatalf("decoding the status entry's fields: %v", err)
	}
	if _, ok := owned["f:status"]; !ok || len(owned) != 1 {
		t.Errorf("the status write's entry owns %s, want status alone", statusEntry.FieldsV1.Raw)
	}
}

// managedBy is wl's managedFields entry of manager for the main resource.
func managedBy(wl *kueue.Workload, manager string) *metav1.ManagedFieldsEntry {
	for i := range wl.ManagedFields {
		if e := &wl.ManagedFields[i]; e.Manager == manager && e.Subresource == "" {
			return e
		}
	}
	return nil
}
