//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue counts a pod set as its pods will be created (workload.AdjustResources
// and ValidateLimitRange), and so does the manager, against a real API
// server: in a namespace whose LimitRange gives containers a default request
// of 2 cpu, two workloads that request nothing take 2 cpu each, so in a
// ClusterQueue of 3 cpu the second waits, its status.resourceRequests saying
// 2 cpu; a workload above a LimitRange's maximum is never admitted, with
// Kueue's message; a RuntimeClass's overhead is charged to pod sets that
// name it; and a LimitRange changed while a workload waits counts for it.
func TestLimitRangesAndRuntimeClassesCountAsInKueue(t *testing.T) {
	ns := "environment"
	cpuQueue(t, ns, "3")
	create(t, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "defaults"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}})
	// Kueue's scheduler case "container does not satisfy limitRange
	// constraints", in a namespace of its own (a pending workload's reason
	// is written when it heads its queue).
	capped := "environment-max"
	cpuQueue(t, capped, "3")
	create(t, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: capped, Name: "alpha"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")}}}}})
	startManager(t, nil)
	// With a limit of its own: the API server defaults a LimitRange's
	// default to its maximum, which a container without a limit would get
	// (300m, below its request: Kueue then says "requests must not exceed
	// its limits" first, as the engine does).
	capWL := makeWL(capped, "new", "q", "cpu", "500m")
	capWL.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
	create(t, capWL)
	eventually(t, 20*time.Second, func() string {
		c := cond(getWL(t, capped, "new"), kueue.WorkloadQuotaReserved)
		want := `resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be above the limitRange max`
		if c == nil || c.Status != metav1.ConditionFalse || c.Message != want {
			return fmt.Sprintf("new's QuotaReserved %+v, want False with %q", c, want)
		}
		return ""
	})

	create(t, makeWL(ns, "first", "q"))
	waitAdmitted(t, ns, "first")
	create(t, makeWL(ns, "second", "q"))
	waitPendingAsking(t, ns, "second", "2")
	if u := getWL(t, ns, "first").Status.Admission.PodSetAssignments[0].ResourceUsage.Cpu(); !u.Equal(resource.MustParse("2")) {
		t.Fatalf("first's admission charges %s cpu, want the LimitRange's default 2", u)
	}

	// A RuntimeClass's overhead: 1 cpu besides the default 2.
	create(t, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}})
	finish(t, getWL(t, ns, "first"))
	// second takes 2 of the 3 cpu; kata-job would take 3 (2 and its overhead).
	kata := makeWL(ns, "kata-job", "q")
	kata.Spec.PodSets[0].Template.Spec.RuntimeClassName = ptr.To("kata")
	waitAdmitted(t, ns, "second")
	create(t, kata)
	waitPendingAsking(t, ns, "kata-job", "3")
	finish(t, getWL(t, ns, "second"))
	waitAdmitted(t, ns, "kata-job")
	if u := getWL(t, ns, "kata-job").Status.Admission.PodSetAssignments[0].ResourceUsage.Cpu(); !u.Equal(resource.MustParse("3")) {
		t.Fatalf("kata-job's admission charges %s cpu, want 3", u)
	}

	// A LimitRange changed while a workload waits counts for it.
	create(t, makeWL(ns, "waiting", "q"))
	eventually(t, 20*time.Second, func() string {
		if c := cond(getWL(t, ns, "waiting"), kueue.WorkloadQuotaReserved); c == nil || c.Status != metav1.ConditionFalse {
			return "waiting not pending yet"
		}
		return ""
	})
	lr := &corev1.LimitRange{}
	if err := env.Client.Get(context.Background(), keyOf(ns, "defaults"), lr); err != nil {
		t.Fatal(err)
	}
	lr.Spec.Limits[0].Default = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	lr.Spec.Limits[0].DefaultRequest = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	if err := env.Client.Update(context.Background(), lr); err != nil {
		t.Fatal(err)
	}
	// It now asks for 1 cpu, the new default: once kata-job finishes, it
	// and a workload of 2 cpu fit together in the 3 cpu (at 2 cpu it would
	// leave the other waiting).
	filler := makeWL(ns, "filler", "q", "cpu", "2")
	filler.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	create(t, filler)
	finish(t, getWL(t, ns, "kata-job"))
	waitAdmitted(t, ns, "waiting", "filler")
	if u := getWL(t, ns, "waiting").Status.Admission.PodSetAssignments[0].ResourceUsage.Cpu(); !u.Equal(resource.MustParse("1")) {
		t.Fatalf("waiting's admission charges %s cpu, want the changed LimitRange's default 1", u)
	}
}

// waitPendingAsking waits until workload name is pending with
// status.resourceRequests of cpu, failing if it is admitted meanwhile.
func waitPendingAsking(t *testing.T, ns, name, cpu string) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		wl := getWL(t, ns, name)
		if isAdmitted(wl) {
			return name + " admitted"
		}
		if len(wl.Status.ResourceRequests) != 1 || !wl.Status.ResourceRequests[0].Resources.Cpu().Equal(resource.MustParse(cpu)) {
			return fmt.Sprintf("%s's resourceRequests %+v, want %s cpu", name, wl.Status.ResourceRequests, cpu)
		}
		return ""
	})
}
