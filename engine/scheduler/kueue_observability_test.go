package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: test/integration/singlecluster/scheduler/observability_test.go,
// "When evaluating multi-flavor resource assignments". A workload that fails
// one flavor for a taint and the other for quota gets the least severe of the
// two (pkg/scheduler/flavorassigner/flavorassigner.go, resolveNoFitReason:
// within a resource group, the alternative flavors' mildest obstacle), so its
// condition reads WaitingForQuota while the untainted flavor could take it once
// quota frees up, and ExceedsMaxQuota when it never could.
func TestKueueObservabilityMultiFlavorReasons(t *testing.T) {
	for _, tc := range []struct {
		name     string
		onDemand string // the untainted flavor's quota
		existing bool   // a 10-CPU workload already holds on-demand quota
		want     string
	}{
		{"Should report WaitingForQuota when one flavor has insufficient quota and another has taint mismatch", "15", true,
			kueue.WorkloadQuotaReservedReasonWaitingForQuota},
		{"Should report ExceedsMaxQuota when flavors fail due to taint mismatch and exceeding capacity", "5", false,
			kueue.WorkloadQuotaReservedReasonExceedsMaxQuota},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []any{
				MakeFlavor("on-demand").Obj(),
				MakeFlavor("spot-tainted").Taint("key", "val", corev1.TaintEffectNoSchedule).Obj(),
				MakeClusterQueue("cq").Quota("spot-tainted", corev1.ResourceCPU, "20").
					Quota("on-demand", corev1.ResourceCPU, tc.onDemand).Obj(),
				MakeLocalQueue("ns", "q", "cq").Obj(),
			}
			if tc.existing {
				objs = append(objs, MakeWorkload("ns", "existing-job").Queue("q").Request(corev1.ResourceCPU, "10").
					ReserveQuota("cq", "on-demand").Obj())
			}
			objs = append(objs, MakeWorkload("ns", "new-job").Queue("q").Request(corev1.ResourceCPU, "10").
				Created(time.Second).Obj())
			s := world(t, Options{}, objs...)
			ds := s.Cycle(now)
			if a := admits(ds); len(a) != 0 {
				t.Fatalf("admitted %v", admittedNames(ds))
			}
			p, ok := pendingFor(ds, "new-job")
			if !ok {
				t.Fatalf("new-job: no pending decision: %v", ds)
			}
			got, _ := decision.KueueQuotaReservedReason(p.Reason, true)
			if got != tc.want {
				t.Errorf("engine reason %s (%s) reads as %s, want %s", p.Reason, p.Message, got, tc.want)
			}
		})
	}
}

// Kueue's resolveNoFitReason (pkg/scheduler/flavorassigner/flavorassigner.go)
// takes, within a resource group, the mildest obstacle among its flavors, and
// across resource groups the most severe (NoMatchingFlavor > ExceedsMaxQuota >
// WaitingForQuota); a workload whose flavors would take it after a preemption
// that finds no victims waits for quota (scheduler.go, "mode == Preempt"). The
// engine's reason reads the same in each shape.
func TestKueueNoFitReasonSeverity(t *testing.T) {
	const gpuRes = corev1.ResourceName("nvidia.com/gpu")
	for _, tc := range []struct {
		name string
		cq   *kueue.ClusterQueue
		req  map[corev1.ResourceName]string
		want string
	}{
		{"every flavor tainted",
			MakeClusterQueue("cq").Quota("spot-tainted", corev1.ResourceCPU, "20").Obj(),
			map[corev1.ResourceName]string{corev1.ResourceCPU: "1"}, kueue.WorkloadQuotaReservedReasonNoMatchingFlavor},
		{"a resource no group covers",
			MakeClusterQueue("cq").Quota("on-demand", corev1.ResourceCPU, "20").Obj(),
			map[corev1.ResourceName]string{corev1.ResourceCPU: "1", gpuRes: "1"}, kueue.WorkloadQuotaReservedReasonNoMatchingFlavor},
		{"one group short now, the other never enough",
			MakeClusterQueue("cq").Quota("spot", corev1.ResourceCPU, "10").Quota("gpus", gpuRes, "2").Obj(),
			map[corev1.ResourceName]string{corev1.ResourceCPU: "5", gpuRes: "4"}, kueue.WorkloadQuotaReservedReasonExceedsMaxQuota},
		{"one flavor's resource never enough, another flavor short now",
			MakeClusterQueue("cq").Quota("on-demand", corev1.ResourceCPU, "4").Quota("spot", corev1.ResourceCPU, "10").Obj(),
			map[corev1.ResourceName]string{corev1.ResourceCPU: "5"}, kueue.WorkloadQuotaReservedReasonWaitingForQuota},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl := MakeWorkload("ns", "new-job").Queue("q").Created(time.Second)
			for r, q := range tc.req {
				wl.Request(r, q)
			}
			s := world(t, Options{},
				MakeFlavor("on-demand").Obj(), MakeFlavor("spot").Obj(), MakeFlavor("gpus").Obj(),
				MakeFlavor("spot-tainted").Taint("key", "val", corev1.TaintEffectNoSchedule).Obj(),
				tc.cq, MakeLocalQueue("ns", "q", "cq").Obj(),
				// Holds 8 of spot's 10 CPUs where the queue has spot.
				MakeWorkload("ns", "existing").Queue("q").Request(corev1.ResourceCPU, "8").ReserveQuota("cq", "spot").Obj(),
				wl.Obj())
			ds := s.Cycle(now)
			p, ok := pendingFor(ds, "new-job")
			if !ok {
				t.Fatalf("new-job: no pending decision: %v", ds)
			}
			if got, _ := decision.KueueQuotaReservedReason(p.Reason, true); got != tc.want {
				t.Errorf("engine reason %s (%s) reads as %s, want %s", p.Reason, p.Message, got, tc.want)
			}
		})
	}
}
