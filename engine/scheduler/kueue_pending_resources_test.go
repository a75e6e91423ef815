package scheduler

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: pkg/cache/queue/cluster_queue_test.go, TestPendingResources. A
// ClusterQueue's pending requests sum every pending workload's, whatever its
// state in the queue (Kueue: heap, inadmissible, in flight; here one that a
// cycle found no room for counts as one waiting its turn), per resource; an
// empty queue reports its covered resources at 0 (Kueue seeds them). A
// workload with spec.active=false, which Kueue does not queue, is left out.
func TestKueuePendingResources(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "500m").Quota("default", corev1.ResourceMemory, "1Gi").Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj())
	got, ok := s.ClusterQueuePendingRequests("cq")
	if !ok || len(got) != 2 || got[corev1.ResourceCPU] != 0 || got[corev1.ResourceMemory] != 0 {
		t.Fatalf("empty queue: %v (%v), want cpu and memory at 0", got, ok)
	}
	for _, wl := range []*WorkloadWrapper{
		MakeWorkload("ns", "wl1").Queue("lq").Request(corev1.ResourceCPU, "2").Request(corev1.ResourceMemory, "1Gi"),
		MakeWorkload("ns", "wl2").Queue("lq").Request(corev1.ResourceCPU, "1").Request(corev1.ResourceMemory, "512Mi").Created(time.Second),
		MakeWorkload("ns", "wl3").Queue("lq").Request(corev1.ResourceCPU, "3").Request(corev1.ResourceMemory, "2Gi").Created(2 * time.Second),
		MakeWorkload("ns", "off").Queue("lq").Request(corev1.ResourceCPU, "5").Active(false),
	} {
		apply(t, s, wl.Obj())
	}
	s.Cycle(now) // none fits: each is pending for its own reason
	got, _ = s.ClusterQueuePendingRequests("cq")
	const gi = int64(1) << 30
	if got[corev1.ResourceCPU] != 6000 || got[corev1.ResourceMemory] != gi+gi/2+2*gi {
		t.Errorf("pending requests %v, want 6000m cpu and 3.5Gi memory", got)
	}
	if _, ok := s.ClusterQueuePendingRequests("missing"); ok {
		t.Error("a ClusterQueue that does not exist reports pending requests")
	}
}
