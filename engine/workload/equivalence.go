package workload

import (
	"crypto/sha256"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// Kueue's SchedulingEquivalenceHashing (on by default since v0.18) treats
// workloads of a ClusterQueue that its scheduler cannot tell apart as one
// class: when one of them gets no flavor, or needs preemption and finds no
// victims, the others of its class wait with it in the inadmissible list,
// unevaluated, until the next requeue event (pkg/cache/queue,
// handleInadmissibleHash). A class is what Kueue's computeSchedulingHash
// reads: the workload's priority and, per pod set, its name, its pod spec's
// scheduling shape (containers' and init containers' requests and ports,
// node selector, affinity, tolerations, runtime class, pod priority,
// topology spread, overhead, resource claims, pod-level requests), its
// count after reclaimable pods, its requests as counted, and its minCount.
// The priority is resolved by the scheduler (it may come from a priority
// class), so the shape here leaves it out.

// podSetShape is one pod set's part of a workload's equivalence shape.
type podSetShape struct {
	Name     string             `json:"name"`
	Spec     podSpecShape       `json:"spec"`
	Count    int32              `json:"count"`
	Requests resources.Requests `json:"requests,omitempty"`
	MinCount int32              `json:"minCount,omitempty"`
}

// podSpecShape is the part of a pod spec that Kueue's SpecShape reads.
type podSpecShape struct {
	InitContainers            []containerShape                  `json:"initContainers,omitempty"`
	Containers                []containerShape                  `json:"containers,omitempty"`
	NodeSelector              map[string]string                 `json:"nodeSelector,omitempty"`
	Affinity                  *corev1.Affinity                  `json:"affinity,omitempty"`
	Tolerations               []corev1.Toleration               `json:"tolerations,omitempty"`
	RuntimeClassName          *string                           `json:"runtimeClassName,omitempty"`
	Priority                  *int32                            `json:"priority,omitempty"`
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	Overhead                  corev1.ResourceList               `json:"overhead,omitempty"`
	ResourceClaims            []corev1.PodResourceClaim         `json:"resourceClaims,omitempty"`
	Resources                 corev1.ResourceList               `json:"resources,omitempty"`
}

type containerShape struct {
	Requests corev1.ResourceList    `json:"requests,omitempty"`
	Ports    []corev1.ContainerPort `json:"ports,omitempty"`
}

func containersShape(cs []corev1.Container) []containerShape {
	out := make([]containerShape, 0, len(cs))
	for i := range cs {
		out = append(out, containerShape{Requests: cs[i].Resources.Requests, Ports: cs[i].Ports})
	}
	return out
}

// Shape is the digest of a workload's pod sets as its class reads them: a
// fixed-size key, which a scheduler's maps hash at little cost.
type Shape [16]byte

// equivalenceShape is the key of wl's class but for its priority (see
// above), from its pod sets as info counts them; the zero Shape if it cannot
// be told, which puts the workload in no class, as Kueue's "unknown" hash
// does.
func equivalenceShape(wl *kueue.Workload, info *Info) Shape {
	shapes := make([]podSetShape, 0, len(wl.Spec.PodSets))
	for i := range wl.Spec.PodSets {
		ps := &wl.Spec.PodSets[i]
		spec := &ps.Template.Spec
		sh := podSetShape{
			Spec: podSpecShape{
				InitContainers:            containersShape(spec.InitContainers),
				Containers:                containersShape(spec.Containers),
				NodeSelector:              spec.NodeSelector,
				Affinity:                  spec.Affinity,
				Tolerations:               spec.Tolerations,
				RuntimeClassName:          spec.RuntimeClassName,
				Priority:                  spec.Priority,
				TopologySpreadConstraints: spec.TopologySpreadConstraints,
				Overhead:                  spec.Overhead,
				ResourceClaims:            spec.ResourceClaims,
			},
		}
		if spec.Resources != nil {
			sh.Spec.Resources = spec.Resources.Requests
		}
		if i < len(info.PodSets) {
			counted := &info.PodSets[i]
			sh.Name, sh.Count, sh.Requests, sh.MinCount = counted.Name, counted.Count, counted.PerPod, counted.MinCount
		}
		shapes = append(shapes, sh)
	}
	b, err := json.Marshal(shapes)
	if err != nil {
		return Shape{}
	}
	sum := sha256.Sum256(b)
	return Shape(sum[:16])
}
