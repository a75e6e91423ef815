//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// podSetsNamed are pod sets of count pods each, named as given.
func podSetsNamed(count int32, names ...string) []kueue.PodSet {
	base := updateWorkload("", "", count).Spec.PodSets[0]
	out := make([]kueue.PodSet, len(names))
	for i, n := range names {
		out[i] = *base.DeepCopy()
		out[i].Name = kueue.PodSetReference(n)
	}
	return out
}

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), "Should have valid PodSet when creating" (4), "Should have valid
// values when creating" (its entries without admission checks, and the
// topology ones aside) and "Should have valid values when setting Admission"
// (three of the four without topology; "should not request num-pods
// resource" is Kueue's webhook's, ported with Quokka's in
// controllers/jobs/webhooks): what the API server refuses when a
// Workload is created or its quota reserved. Kueue refuses some in its webhook
// (403), Quokka's CRD refuses all (422). Not ported: "assignment usage should
// be divisible by count", which CEL cannot check (its quantities have no
// division); the manager never writes such an admission.
func TestKueueWorkloadCreateValidation(t *testing.T) {
	ctx := context.Background()
	nine := numbered("ps", 9)
	pcr := func(group, kind, name string) func(*kueue.Workload) {
		return func(w *kueue.Workload) {
			w.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.PriorityClassGroup(group), Kind: kueue.PriorityClassKind(kind), Name: name}
			w.Spec.Priority = ptr.To[int32](100)
		}
	}
	cases := []struct {
		name   string
		change func(*kueue.Workload)
		// refused is what the error must name; "" when accepted.
		refused string
	}{
		{"podSets count less than 1", func(w *kueue.Workload) { w.Spec.PodSets = nil }, "spec.podSets"},
		{"podSets count more than 8", func(w *kueue.Workload) { w.Spec.PodSets = podSetsNamed(1, nine...) }, "spec.podSets"},
		{"valid podSet, count can be 0", func(w *kueue.Workload) { w.Spec.PodSets = podSetsNamed(0, "ps0", "ps1", "ps2") }, ""},
		{"valid podSet", func(w *kueue.Workload) { w.Spec.PodSets = podSetsNamed(3, "ps0", "ps1", "ps2") }, ""},
		{"valid workload", func(w *kueue.Workload) {
			w.Spec.PodSets = append(podSetsNamed(1, "driver"), podSetsNamed(100, "workers")...)
		}, ""},
		{"invalid podSet name", func(w *kueue.Workload) { w.Spec.PodSets = podSetsNamed(1, "@driver") }, "spec.podSets[0].name"},
		{"invalid priorityClassRef.name", pcr("scheduling.k8s.io", "PriorityClass", "invalid_class"), "spec.priorityClassRef.name"},
		{"invalid priorityClassRef.group", pcr("test", "PriorityClass", "low"), "spec.priorityClassRef.group"},
		{"invalid priorityClassRef.kind", pcr("scheduling.k8s.io", "test", "low"), "spec.priorityClassRef.kind"},
		{"incompatible priorityClassRef.kind (scheduling.k8s.io)", pcr("scheduling.k8s.io", "WorkloadPriorityClass", "low"), "spec.priorityClassRef"},
		{"incompatible priorityClassRef.kind (kueue.x-k8s.io)", pcr("kueue.x-k8s.io", "PriorityClass", "low"), "spec.priorityClassRef"},
		{"omitted priorityClassRef is valid", func(w *kueue.Workload) { w.Spec.Priority = ptr.To[int32](0) }, ""},
		{"priority should not be nil when priorityClassRef is set", func(w *kueue.Workload) {
			w.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: "scheduling.k8s.io", Kind: "PriorityClass", Name: "priority"}
		}, "spec.priority"},
		{"invalid queueName", func(w *kueue.Workload) { w.Spec.QueueName = "@invalid" }, "spec.queueName"},
		{"invalid podSet minCount (negative)", func(w *kueue.Workload) { w.Spec.PodSets[0].MinCount = ptr.To[int32](-1) }, "minCount"},
		{"invalid podSet minCount (too big)", func(w *kueue.Workload) {
			w.Spec.PodSets[0].Count, w.Spec.PodSets[0].MinCount = 3, ptr.To[int32](4)
		}, "minCount"},
		{"too many variable count podSets", func(w *kueue.Workload) {
			w.Spec.PodSets = podSetsNamed(3, "ps1", "ps2")
			w.Spec.PodSets[0].MinCount, w.Spec.PodSets[1].MinCount = ptr.To[int32](2), ptr.To[int32](1)
		}, "minCount"},
		{"invalid maximumExexcutionTimeSeconds", func(w *kueue.Workload) { w.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](0) }, "spec.maximumExecutionTimeSeconds"},
		{"valid maximumExexcutionTimeSeconds", func(w *kueue.Workload) { w.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](1) }, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wl := updateWorkload(fmt.Sprintf("create-%d", i), "", 1)
			tc.change(wl)
			checkRefusal(t, createAndRemove(ctx, wl), tc.refused, "Workload")
		})
	}

	admissions := []struct {
		name     string
		podSets  []kueue.PodSet
		admit    *kueue.Admission
		refused  string
		requests string
	}{
		{name: "invalid clusterQueue name", podSets: podSetsNamed(1, "main"),
			admit: &kueue.Admission{ClusterQueue: "@invalid", PodSetAssignments: []kueue.PodSetAssignment{{Name: "main"}}}, refused: "status.admission.clusterQueue"},
		{name: "invalid podSet name in status assignment", podSets: podSetsNamed(1, "main"),
			admit: &kueue.Admission{ClusterQueue: "cluster-queue", PodSetAssignments: []kueue.PodSetAssignment{{Name: "@invalid"}}}, refused: "status.admission.podSetAssignments[0].name"},
		{name: "mismatched names in admission with names in podSets", podSets: podSetsNamed(1, "main2", "main1"),
			admit:   &kueue.Admission{ClusterQueue: "cluster-queue", PodSetAssignments: []kueue.PodSetAssignment{{Name: "main1"}, {Name: "main2"}, {Name: "main3"}}},
			refused: "podSetAssignments"},
	}
	for i, tc := range admissions {
		t.Run(tc.name, func(t *testing.T) {
			wl := updateWorkload(fmt.Sprintf("admit-%d", i), "", 1)
			wl.Spec.PodSets = tc.podSets
			if err := env.Client.Create(ctx, wl); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, wl) })
			wl.Status.Admission = tc.admit
			meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
				Status: metav1.ConditionTrue, Reason: "QuotaReserved", Message: "reserved"})
			err := env.Client.Status().Update(ctx, wl)
			if err == nil {
				t.Fatal("the API server accepted the admission")
			}
			if !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("the error does not name %s: %v", tc.refused, err)
			}
		})
	}
}
