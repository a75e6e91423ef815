//go:build integration

package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// updateWorkload is one pod set "main" of count pods, in queue q when set.
func updateWorkload(name, queue string, count int32) *kueue.Workload {
	return &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(queue), PodSets: []kueue.PodSet{{
			Name: kueue.DefaultPodSetName, Count: count, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}}}}}
}

func withPriorityClass(wl *kueue.Workload, ref *kueue.PriorityClassRef, priority int32) *kueue.Workload {
	wl.Spec.PriorityClassRef, wl.Spec.Priority = ref, ptr.To(priority)
	return wl
}

func podClass(name string) *kueue.PriorityClassRef {
	return &kueue.PriorityClassRef{Group: "scheduling.k8s.io", Kind: "PriorityClass", Name: name}
}

func workloadClass(name string) *kueue.PriorityClassRef {
	return &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: name}
}

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), "Validate Workload on update", the entries on pod sets, queue
// names, admissions, priorities and maximum execution times, and the Its "Should forbid the change of
// spec.queueName of an admitted workload": while its quota is reserved, a
// Workload's pod sets, queue and priority class (its presence, group and kind;
// its name for a pod PriorityClass) may not change; its priority value and a
// WorkloadPriorityClass's name may. Kueue refuses the pod set changes in its
// webhook (403) and the rest with CEL (422); Quokka's Workload CRD refuses all
// with CEL, so they hold without a webhook. (The CRD asks its questions in
// another order than Kueue's, which TestWorkloadRulesDecideAsKueueOrder in
// apis/kueue/v1beta2 checks decides the same.)
func TestKueueWorkloadUpdateValidation(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		wl      *kueue.Workload
		reserve bool
		// admit is reserve with Admitted=True too (Kueue's "admitted").
		admit  bool
		update func(*kueue.Workload)
		// refused names the field the error must name; "" when allowed.
		refused string
	}{
		{name: "podSets should not be updated when has quota reservation: count", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PodSets[0].Count = 2 }, refused: "spec.podSets"},
		{name: "podSets should not be updated: podSpec", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PodSets[0].Template.Spec.Containers[0].Name = "c-after" }, refused: "spec.podSets"},
		{name: "updating podSets before setting reserve quota for workload", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { w.Spec.PodSets[0].Template.Spec.Containers[0].Name = "c-after" }},
		{name: "Should forbid the change of spec.podSet", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PodSets[0].Count = 10 }, refused: "spec.podSets"},
		{name: "queueName can be updated when not admitted", wl: updateWorkload("", "q1", 1),
			update: func(w *kueue.Workload) { w.Spec.QueueName = "q2" }},
		{name: "queueName can be updated when admitting", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { w.Spec.QueueName = "q" }},
		{name: "queueName should not be updated once admitted", wl: updateWorkload("", "q1", 1), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.QueueName = "q2" }, refused: "spec.queueName"},
		// Kueue's entry creates the Workload with a reserved status, which a
		// create drops (status is a subresource): it is not reserved.
		{name: "queueName can be updated when admission is reset", wl: updateWorkload("", "q1", 1),
			update: func(w *kueue.Workload) { w.Spec.QueueName = "q2" }},
		{name: "Should allow to change priority when QuotaReserved=false", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { w.Spec.Priority = ptr.To[int32](10) }},
		{name: "Should allow to change priority with priorityClassRef when QuotaReserved=false", wl: withPriorityClass(updateWorkload("", "", 1), podClass("low"), 0),
			update: func(w *kueue.Workload) { w.Spec.Priority = ptr.To[int32](10) }},
		{name: "Should allow to change priority when QuotaReserved=true", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.Priority = ptr.To[int32](10) }},
		{name: "Should allow to change priority with priorityClassRef when QuotaReserved=true", wl: withPriorityClass(updateWorkload("", "", 1), podClass("low"), 0), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.Priority = ptr.To[int32](10) }},
		{name: "can set workload priorityClassRef when QuotaReserved=false", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { withPriorityClass(w, workloadClass("low"), 100) }},
		{name: "can't set workload priority class when QuotaReserved=true", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { withPriorityClass(w, workloadClass("low"), 100) }, refused: "spec.priorityClassRef"},
		{name: "can update workload priority class when QuotaReserved=false", wl: withPriorityClass(updateWorkload("", "", 1), workloadClass("high"), 1000),
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef.Name, w.Spec.Priority = "low", ptr.To[int32](100) }},
		{name: "can update workload priority class when QuotaReserved=true", wl: withPriorityClass(updateWorkload("", "", 1), workloadClass("high"), 1000), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef.Name, w.Spec.Priority = "low", ptr.To[int32](100) }},
		{name: "can delete workload priority class when QuotaReserved=false", wl: withPriorityClass(updateWorkload("", "", 1), workloadClass("high"), 1000),
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef, w.Spec.Priority = nil, nil }},
		{name: "can't delete workload priority class when quota reserved when QuotaReserved=true", wl: withPriorityClass(updateWorkload("", "", 1), workloadClass("high"), 1000), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef, w.Spec.Priority = nil, nil }, refused: "spec.priorityClassRef"},
		{name: "can set pod priority class QuotaReserved=false", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { withPriorityClass(w, podClass("low"), 100) }},
		{name: "can't set pod priority class when QuotaReserved=true", wl: updateWorkload("", "", 1), reserve: true,
			update: func(w *kueue.Workload) { withPriorityClass(w, podClass("low"), 100) }, refused: "spec.priorityClassRef"},
		{name: "can update pod priority class when QuotaReserved=false", wl: withPriorityClass(updateWorkload("", "", 1), podClass("high"), 1000),
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef.Name, w.Spec.Priority = "low", ptr.To[int32](100) }},
		{name: "can't update pod priority class when QuotaReserved=true", wl: withPriorityClass(updateWorkload("", "", 1), podClass("high"), 1000), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef.Name, w.Spec.Priority = "low", ptr.To[int32](100) }, refused: "spec.priorityClassRef.name"},
		{name: "can delete pod priority class when QuotaReserved=false", wl: withPriorityClass(updateWorkload("", "", 1), podClass("high"), 1000),
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef, w.Spec.Priority = nil, nil }},
		{name: "can't delete pod priority class when QuotaReserved=true", wl: withPriorityClass(updateWorkload("", "", 1), podClass("high"), 1000), reserve: true,
			update: func(w *kueue.Workload) { w.Spec.PriorityClassRef, w.Spec.Priority = nil, nil }, refused: "spec.priorityClassRef"},
		{name: "can add maximum execution time when not admitted", wl: updateWorkload("", "", 1),
			update: func(w *kueue.Workload) { w.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](1) }},
		{name: "can update maximum execution time when not admitted", wl: withMaxExecution(updateWorkload("", "", 1), 1),
			update: func(w *kueue.Workload) { *w.Spec.MaximumExecutionTimeSeconds = 2 }},
		{name: "cannot add maximum execution time when admitted", wl: updateWorkload("", "", 1), admit: true,
			update: func(w *kueue.Workload) { w.Spec.MaximumExecutionTimeSeconds = ptr.To[int32](1) }, refused: "maximumExecutionTimeSeconds is immutable"},
		{name: "cannot update maximum execution time when admitted", wl: withMaxExecution(updateWorkload("", "", 1), 1), admit: true,
			update: func(w *kueue.Workload) { *w.Spec.MaximumExecutionTimeSeconds = 2 }, refused: "maximumExecutionTimeSeconds is immutable"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wl := tc.wl
			wl.Name = fmt.Sprintf("update-%d", i)
			if err := env.Client.Create(ctx, wl); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, wl) })
			if tc.reserve || tc.admit {
				reserveMain(t, wl)
			}
			if tc.admit {
				admitMain(t, wl)
			}
			tc.update(wl)
			checkRefusal(t, env.Client.Update(ctx, wl), tc.refused, "update")
		})
	}

	// Kueue's "podSetAssignments must have the same number of podSets as the
	// spec": an admission that assigns fewer pod sets than the Workload has.
	t.Run("podSetAssignments must have the same number of podSets as the spec", func(t *testing.T) {
		wl := updateWorkload("update-assignments", "", 1)
		wl.Spec.PodSets = append(wl.Spec.PodSets, *wl.Spec.PodSets[0].DeepCopy())
		wl.Spec.PodSets[1].Name = "second"
		if err := env.Client.Create(ctx, wl); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, wl) })
		err := setReserved(wl)
		if err == nil || !strings.Contains(err.Error(), "podSetAssignments") {
			t.Fatalf("an admission of one pod set of two: err = %v; want a refusal naming podSetAssignments", err)
		}
	})
}

// setReserved writes QuotaReserved=True with an admission of the pod set main
// in ClusterQueue cq.
func setReserved(wl *kueue.Workload) error {
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{
		{Name: kueue.DefaultPodSetName, Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "default"}},
	}}
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
		Status: metav1.ConditionTrue, Reason: "QuotaReserved", Message: "reserved"})
	return env.Client.Status().Update(context.Background(), wl)
}

// withMaxExecution sets spec.maximumExecutionTimeSeconds.
func withMaxExecution(wl *kueue.Workload, seconds int32) *kueue.Workload {
	wl.Spec.MaximumExecutionTimeSeconds = ptr.To(seconds)
	return wl
}

// admitMain writes Admitted=True on a Workload whose quota is reserved, as
// Kueue's SyncAdmittedCondition does without admission checks, and reads it
// back.
func admitMain(t *testing.T, wl *kueue.Workload) {
	t.Helper()
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadAdmitted,
		Status: metav1.ConditionTrue, Reason: "Admitted", Message: "admitted"})
	if err := env.Client.Status().Update(context.Background(), wl); err != nil {
		t.Fatalf("admitting: %v", err)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(wl), wl); err != nil {
		t.Fatal(err)
	}
}

// reserveMain is setReserved, which must succeed, and reads the Workload back.
func reserveMain(t *testing.T, wl *kueue.Workload) {
	t.Helper()
	if err := setReserved(wl); err != nil {
		t.Fatalf("reserving quota: %v", err)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(wl), wl); err != nil {
		t.Fatal(err)
	}
}
