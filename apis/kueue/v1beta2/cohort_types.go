package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CohortSpec places a Cohort in a tree and adds quota to its subtree's pool.
// +kubebuilder:validation:XValidation:rule="has(self.parentName) && size(self.parentName) > 0 || !has(self.resourceGroups) || self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit) && !has(r.lendingLimit))))",message="resourceGroups: borrowingLimit and lendingLimit must be unset on a root Cohort (no parentName)",fieldPath=".resourceGroups"
type CohortSpec struct {
	// parentName is the parent Cohort. A Cohort that is referenced but not created
	// exists implicitly, with no quota of its own.
	// +optional
	ParentName CohortReference `json:"parentName,omitempty"`

	// resourceGroups adds quota to the subtree's shared pool. On a child Cohort,
	// borrowingLimit and lendingLimit bound what the whole subtree borrows from or
	// lends to its parent.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(g1, self.filter(g2, g2.coveredResources.exists(r, r in g1.coveredResources)).size() == 1)",message="a resource may be covered by only one resource group"
	// +kubebuilder:validation:XValidation:rule="self.all(g1, g1.flavors.all(f, self.filter(g2, g2.flavors.exists(f2, f2.name == f.name)).size() == 1))",message="a flavor may appear in only one resource group"
	// +optional
	ResourceGroups []ResourceGroup `json:"resourceGroups,omitempty"`

	// fairSharing holds the Cohort's weight in fair sharing.
	// +optional
	FairSharing *FairSharing `json:"fairSharing,omitempty"`
}

// CohortStatus is the observed state of a Cohort.
type CohortStatus struct {
	// conditions of the Cohort.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// fairSharing reports the Cohort's weighted share.
	// +optional
	FairSharing *FairSharingStatus `json:"fairSharing,omitempty"`

	// effectiveQuotas, when set and the DynamicQuotaOrchestration gate is on,
	// replace spec.resourceGroups.
	// +optional
	EffectiveQuotas *EffectiveQuotas `json:"effectiveQuotas,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Parent",JSONPath=".spec.parentName",type=string

// Cohort groups ClusterQueues and other Cohorts that share quota.
type Cohort struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec CohortSpec `json:"spec,omitempty"`
	// +optional
	Status CohortStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CohortList is a list of Cohorts.
type CohortList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cohort `json:"items"`
}
