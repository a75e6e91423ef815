package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/workload"
)

// resourceRequests is Kueue's status.resourceRequests for a pending workload:
// what each pod set counts as against quota, all its pods together, with the
// Configuration's resources block, the namespace's LimitRange defaults and
// the RuntimeClasses' overheads applied by the engine's own reading of the
// Workload (so that it says what the engine charges). False when the
// Workload's requests cannot be read (the engine explains that itself).
func resourceRequests(wl *kueue.Workload, rules *workload.ResourceRules, env *workload.Environment) ([]kueue.PodSetRequest, bool) {
	info, err := workload.FromAPIIn(wl, rules, env)
	if err != nil {
		return nil, false
	}
	out := make([]kueue.PodSetRequest, 0, len(info.PodSets))
	for _, ps := range info.PodSets {
		r := kueue.PodSetRequest{Name: kueue.PodSetReference(ps.Name)}
		if len(ps.Total) > 0 {
			r.Resources = corev1.ResourceList{}
			for name, v := range ps.Total {
				r.Resources[name] = quantity(name, v)
			}
		}
		out = append(out, r)
	}
	return out, true
}

// sameRequests compares two resourceRequests semantically (a quantity
// written as 1Gi reads back as 1073741824).
func sameRequests(a, b []kueue.PodSetRequest) bool {
	return equality.Semantic.DeepEqual(a, b)
}
