package workload_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/workload"
)

// A workload's class (Kueue's computeSchedulingHash, but for the priority,
// which the scheduler adds) reads what Kueue's scheduler decides by: each
// pod set's name, count after reclaimable pods, counted requests, minCount
// and the pod spec's scheduling fields (SpecShape). Names, namespaces,
// labels and queues are not part of it, and equal quantities written
// differently are one class.
func TestEquivalenceShape(t *testing.T) {
	base := func() *WorkloadWrapper {
		return MakeWorkload("ns", "w").Queue("lq").PodSet("main", 2).Request("cpu", "1")
	}
	shape := func(t *testing.T, w *kueue.Workload) workload.Shape {
		t.Helper()
		info, err := workload.FromAPI(w)
		if err != nil {
			t.Fatal(err)
		}
		if info.EquivalenceShape == (workload.Shape{}) {
			t.Fatalf("%s has no class", w.Name)
		}
		return info.EquivalenceShape
	}
	want := shape(t, base().Obj())
	same := map[string]*kueue.Workload{
		"another name, namespace, queue and label": MakeWorkload("other", "w2").Queue("lq2").Label("team", "x").PodSet("main", 2).Request("cpu", "1").Obj(),
		"the same quantity written in millis":      MakeWorkload("ns", "w").Queue("lq").PodSet("main", 2).Request("cpu", "1000m").Obj(),
	}
	for name, w := range same {
		if got := shape(t, w); got != want {
			t.Errorf("%s: class %x, want %x", name, got, want)
		}
	}
	withPort := base().Obj()
	withPort.Spec.PodSets[0].Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080}}
	withMin := base().Obj()
	withMin.Spec.PodSets[0].MinCount = ptr.To[int32](1)
	withRuntime := base().Obj()
	withRuntime.Spec.PodSets[0].Template.Spec.RuntimeClassName = ptr.To("gvisor")
	differ := map[string]*kueue.Workload{
		"more pods":           MakeWorkload("ns", "w").Queue("lq").PodSet("main", 3).Request("cpu", "1").Obj(),
		"a bigger request":    MakeWorkload("ns", "w").Queue("lq").PodSet("main", 2).Request("cpu", "2").Obj(),
		"another pod set":     MakeWorkload("ns", "w").Queue("lq").PodSet("workers", 2).Request("cpu", "1").Obj(),
		"a node selector":     base().NodeSelector("zone", "a").Obj(),
		"a toleration":        base().Toleration(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}).Obj(),
		"a reclaimable pod":   base().Reclaimable("main", 1).Obj(),
		"a container port":    withPort,
		"a minCount":          withMin,
		"a runtime class":     withRuntime,
		"a required affinity": base().AffinityTerm("zone", corev1.NodeSelectorOpIn, "a").Obj(),
	}
	for name, w := range differ {
		if got := shape(t, w); got == want {
			t.Errorf("%s: same class as the base workload, want another", name)
		}
	}
}
