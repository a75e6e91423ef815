package enginetest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// QuotaOption sets a limit on one resource quota.
type QuotaOption func(*kueue.ResourceQuota)

// Borrowing sets borrowingLimit.
func Borrowing(q string) QuotaOption {
	return func(r *kueue.ResourceQuota) { v := resource.MustParse(q); r.BorrowingLimit = &v }
}

// Lending sets lendingLimit.
func Lending(q string) QuotaOption {
	return func(r *kueue.ResourceQuota) { v := resource.MustParse(q); r.LendingLimit = &v }
}

// addQuota puts a quota into resource groups: into the group that already lists
// the flavor, else the group that covers the resource, else a new group. Calling
// it for cpu, memory and nvidia.com/gpu of h100 thus builds one group.
func addQuota(groups []kueue.ResourceGroup, flavor string, res corev1.ResourceName, nominal string, opts []QuotaOption) []kueue.ResourceGroup {
	rq := kueue.ResourceQuota{Name: res, NominalQuota: resource.MustParse(nominal)}
	for _, o := range opts {
		o(&rq)
	}
	for gi := range groups {
		g := &groups[gi]
		for fi := range g.Flavors {
			if string(g.Flavors[fi].Name) == flavor {
				if !covers(g, res) {
					g.CoveredResources = append(g.CoveredResources, res)
				}
				g.Flavors[fi].Resources = append(g.Flavors[fi].Resources, rq)
				return groups
			}
		}
	}
	for gi := range groups {
		g := &groups[gi]
		if covers(g, res) {
			g.Flavors = append(g.Flavors, kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(flavor), Resources: []kueue.ResourceQuota{rq}})
			return groups
		}
	}
	return append(groups, kueue.ResourceGroup{
		CoveredResources: []corev1.ResourceName{res},
		Flavors:          []kueue.FlavorQuotas{{Name: kueue.ResourceFlavorReference(flavor), Resources: []kueue.ResourceQuota{rq}}},
	})
}

func covers(g *kueue.ResourceGroup, res corev1.ResourceName) bool {
	for _, r := range g.CoveredResources {
		if r == res {
			return true
		}
	}
	return false
}

// ClusterQueueWrapper builds a ClusterQueue. New queues select every namespace
// ({}), since that is what most tests want; use NoNamespaceSelector for unset.
type ClusterQueueWrapper struct{ kueue.ClusterQueue }

// MakeClusterQueue starts a ClusterQueue.
func MakeClusterQueue(name string) *ClusterQueueWrapper {
	w := &ClusterQueueWrapper{}
	w.Name = name
	w.Spec.NamespaceSelector = &metav1.LabelSelector{}
	return w
}

// Obj returns a copy of the object.
func (w *ClusterQueueWrapper) Obj() *kueue.ClusterQueue { return w.ClusterQueue.DeepCopy() }

// Cohort sets spec.cohortName.
func (w *ClusterQueueWrapper) Cohort(name string) *ClusterQueueWrapper {
	w.Spec.CohortName = kueue.CohortReference(name)
	return w
}

// Quota adds a quota for a flavor and resource.
func (w *ClusterQueueWrapper) Quota(flavor string, res corev1.ResourceName, nominal string, opts ...QuotaOption) *ClusterQueueWrapper {
	w.Spec.ResourceGroups = addQuota(w.Spec.ResourceGroups, flavor, res, nominal, opts)
	return w
}

// EffectiveQuota adds a quota to status.effectiveQuotas (creating it).
func (w *ClusterQueueWrapper) EffectiveQuota(flavor string, res corev1.ResourceName, nominal string, opts ...QuotaOption) *ClusterQueueWrapper {
	w.EmptyEffectiveQuotas()
	w.Status.EffectiveQuotas.ResourceGroups = addQuota(w.Status.EffectiveQuotas.ResourceGroups, flavor, res, nominal, opts)
	return w
}

// EmptyEffectiveQuotas sets status.effectiveQuotas with no resource groups.
func (w *ClusterQueueWrapper) EmptyEffectiveQuotas() *ClusterQueueWrapper {
	if w.Status.EffectiveQuotas == nil {
		w.Status.EffectiveQuotas = &kueue.EffectiveQuotas{OrchestratorRef: kueue.OrchestratorReference{
			APIGroup: "kueue.x-k8s.io", Kind: "DynamicQuotaOrchestrator", Name: "dqo"}}
	}
	return w
}

// Strategy sets spec.queueingStrategy.
func (w *ClusterQueueWrapper) Strategy(s kueue.QueueingStrategy) *ClusterQueueWrapper {
	w.Spec.QueueingStrategy = s
	return w
}

// WhenCanBorrow sets spec.flavorFungibility.whenCanBorrow.
func (w *ClusterQueueWrapper) WhenCanBorrow(p kueue.FlavorFungibilityPolicy) *ClusterQueueWrapper {
	if w.Spec.FlavorFungibility == nil {
		w.Spec.FlavorFungibility = &kueue.FlavorFungibility{}
	}
	w.Spec.FlavorFungibility.WhenCanBorrow = p
	return w
}

// StopPolicy sets spec.stopPolicy.
func (w *ClusterQueueWrapper) StopPolicy(p kueue.StopPolicy) *ClusterQueueWrapper {
	w.Spec.StopPolicy = &p
	return w
}

// NamespaceSelector sets a matchLabels selector.
func (w *ClusterQueueWrapper) NamespaceSelector(labels map[string]string) *ClusterQueueWrapper {
	w.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: labels}
	return w
}

// NoNamespaceSelector leaves spec.namespaceSelector unset (selects nothing).
func (w *ClusterQueueWrapper) NoNamespaceSelector() *ClusterQueueWrapper {
	w.Spec.NamespaceSelector = nil
	return w
}

// CohortWrapper builds a Cohort.
type CohortWrapper struct{ kueue.Cohort }

// MakeCohort starts a Cohort.
func MakeCohort(name string) *CohortWrapper {
	w := &CohortWrapper{}
	w.Name = name
	return w
}

// Obj returns a copy of the object.
func (w *CohortWrapper) Obj() *kueue.Cohort { return w.Cohort.DeepCopy() }

// Parent sets spec.parentName.
func (w *CohortWrapper) Parent(name string) *CohortWrapper {
	w.Spec.ParentName = kueue.CohortReference(name)
	return w
}

// Quota adds a quota for a flavor and resource to the cohort's own pool.
func (w *CohortWrapper) Quota(flavor string, res corev1.ResourceName, nominal string, opts ...QuotaOption) *CohortWrapper {
	w.Spec.ResourceGroups = addQuota(w.Spec.ResourceGroups, flavor, res, nominal, opts)
	return w
}

// LocalQueueWrapper builds a LocalQueue.
type LocalQueueWrapper struct{ kueue.LocalQueue }

// MakeLocalQueue starts a LocalQueue in a namespace pointing at a ClusterQueue.
func MakeLocalQueue(namespace, name, clusterQueue string) *LocalQueueWrapper {
	w := &LocalQueueWrapper{}
	w.Namespace, w.Name = namespace, name
	w.Spec.ClusterQueue = kueue.ClusterQueueReference(clusterQueue)
	return w
}

// Obj returns a copy of the object.
func (w *LocalQueueWrapper) Obj() *kueue.LocalQueue { return w.LocalQueue.DeepCopy() }

// StopPolicy sets spec.stopPolicy.
func (w *LocalQueueWrapper) StopPolicy(p kueue.StopPolicy) *LocalQueueWrapper {
	w.Spec.StopPolicy = &p
	return w
}

// FlavorWrapper builds a ResourceFlavor.
type FlavorWrapper struct{ kueue.ResourceFlavor }

// MakeFlavor starts a ResourceFlavor.
func MakeFlavor(name string) *FlavorWrapper {
	w := &FlavorWrapper{}
	w.Name = name
	return w
}

// Obj returns a copy of the object.
func (w *FlavorWrapper) Obj() *kueue.ResourceFlavor { return w.ResourceFlavor.DeepCopy() }

// NodeLabel adds spec.nodeLabels[k]=v.
func (w *FlavorWrapper) NodeLabel(k, v string) *FlavorWrapper {
	if w.Spec.NodeLabels == nil {
		w.Spec.NodeLabels = map[string]string{}
	}
	w.Spec.NodeLabels[k] = v
	return w
}

// Taint adds a node taint.
func (w *FlavorWrapper) Taint(key, value string, effect corev1.TaintEffect) *FlavorWrapper {
	w.Spec.NodeTaints = append(w.Spec.NodeTaints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return w
}

// Preemption sets spec.preemption's reclaimWithinCohort and withinClusterQueue.
func (w *ClusterQueueWrapper) Preemption(reclaim, within kueue.PreemptionPolicy) *ClusterQueueWrapper {
	if w.Spec.Preemption == nil {
		w.Spec.Preemption = &kueue.ClusterQueuePreemption{}
	}
	w.Spec.Preemption.ReclaimWithinCohort = reclaim
	w.Spec.Preemption.WithinClusterQueue = within
	return w
}

// BorrowWithinCohort sets spec.preemption.borrowWithinCohort to LowerPriority
// with an optional threshold (nil for none).
func (w *ClusterQueueWrapper) BorrowWithinCohort(threshold *int32) *ClusterQueueWrapper {
	if w.Spec.Preemption == nil {
		w.Spec.Preemption = &kueue.ClusterQueuePreemption{}
	}
	w.Spec.Preemption.BorrowWithinCohort = &kueue.BorrowWithinCohort{Policy: kueue.BorrowWithinCohortPolicyLowerPriority, MaxPriorityThreshold: threshold}
	return w
}

// Preference sets spec.flavorFungibility.preference.
func (w *ClusterQueueWrapper) Preference(p kueue.FlavorFungibilityPreference) *ClusterQueueWrapper {
	if w.Spec.FlavorFungibility == nil {
		w.Spec.FlavorFungibility = &kueue.FlavorFungibility{}
	}
	w.Spec.FlavorFungibility.Preference = &p
	return w
}

// WhenCanPreempt sets spec.flavorFungibility.whenCanPreempt.
func (w *ClusterQueueWrapper) WhenCanPreempt(p kueue.FlavorFungibilityPolicy) *ClusterQueueWrapper {
	if w.Spec.FlavorFungibility == nil {
		w.Spec.FlavorFungibility = &kueue.FlavorFungibility{}
	}
	w.Spec.FlavorFungibility.WhenCanPreempt = p
	return w
}

// FairWeight sets spec.fairSharing.weight.
func (w *ClusterQueueWrapper) FairWeight(q string) *ClusterQueueWrapper {
	v := resource.MustParse(q)
	w.Spec.FairSharing = &kueue.FairSharing{Weight: &v}
	return w
}

// AdmissionFairSharing sets spec.admissionScope.admissionMode to
// UsageBasedAdmissionFairSharing.
func (w *ClusterQueueWrapper) AdmissionFairSharing() *ClusterQueueWrapper {
	w.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
	return w
}

// FairWeight sets the Cohort's spec.fairSharing.weight.
func (w *CohortWrapper) FairWeight(q string) *CohortWrapper {
	v := resource.MustParse(q)
	w.Spec.FairSharing = &kueue.FairSharing{Weight: &v}
	return w
}

// FairWeight sets the LocalQueue's spec.fairSharing.weight.
func (w *LocalQueueWrapper) FairWeight(q string) *LocalQueueWrapper {
	v := resource.MustParse(q)
	w.Spec.FairSharing = &kueue.FairSharing{Weight: &v}
	return w
}

// ConsumedResources sets status.fairSharing.admissionFairSharingStatus, the
// usage a manager wrote before (quantities as strings, by resource).
func (w *LocalQueueWrapper) ConsumedResources(at time.Time, usage map[corev1.ResourceName]string) *LocalQueueWrapper {
	list := corev1.ResourceList{}
	for r, q := range usage {
		list[r] = resource.MustParse(q)
	}
	if w.Status.FairSharing == nil {
		w.Status.FairSharing = &kueue.FairSharingStatus{}
	}
	w.Status.FairSharing.AdmissionFairSharingStatus = &kueue.AdmissionFairSharingStatus{
		ConsumedResources: list, LastUpdate: metav1.NewTime(at)}
	return w
}

// Label sets a label of the ClusterQueue (for clusterQueueSelector).
func (w *ClusterQueueWrapper) Label(k, v string) *ClusterQueueWrapper {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[k] = v
	return w
}

// PreemptionConfig references a PreemptionConfig through the
// kueue.x-k8s.io/preemption-config-name annotation.
func (w *ClusterQueueWrapper) PreemptionConfig(name string) *ClusterQueueWrapper {
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	w.Annotations[kueuev1alpha1.PreemptionConfigNameAnnotation] = name
	return w
}
