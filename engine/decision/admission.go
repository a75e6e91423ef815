package decision

import (
	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// AdmissionOf is the status.admission of a workload admitted to clusterQueue
// with podSets: each pod set's flavors, its count and its usage in the units
// users write. The manager writes it; the simulator rebuilds its engine from
// it. An assignment read back through the engine charges the same amounts.
func AdmissionOf(clusterQueue string, podSets []PodSetAssignment) *kueue.Admission {
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(clusterQueue)}
	for _, ps := range podSets {
		psa := kueue.PodSetAssignment{
			Name:          kueue.PodSetReference(ps.Name),
			Flavors:       make(map[corev1.ResourceName]kueue.ResourceFlavorReference, len(ps.Flavors)),
			ResourceUsage: make(corev1.ResourceList, len(ps.Usage)),
			Count:         new(ps.Count),
		}
		for r, f := range ps.Flavors {
			psa.Flavors[r] = kueue.ResourceFlavorReference(f)
		}
		for r, v := range ps.Usage {
			psa.ResourceUsage[r] = resources.ToQuantity(r, v)
		}
		adm.PodSetAssignments = append(adm.PodSetAssignments, psa)
	}
	return adm
}

// Admission is the status.admission the driver writes for d.
func (d Admit) Admission() *kueue.Admission { return AdmissionOf(d.ClusterQueue, d.PodSets) }
