package v1beta2

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceGroup is a set of resources that are always charged to the same flavor,
// and the ordered list of flavors that provide them.
// +kubebuilder:validation:XValidation:rule="self.flavors.all(f, size(f.resources) == size(self.coveredResources) && f.resources.map(r, r.name) == self.coveredResources)",message="flavors: every flavor must list every resource of coveredResources, in the same order"
type ResourceGroup struct {
	// coveredResources lists the resources of this group.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	CoveredResources []corev1.ResourceName `json:"coveredResources"`

	// flavors lists the flavors that provide the covered resources, tried in order.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Flavors []FlavorQuotas `json:"flavors"`
}

// FlavorQuotas holds the quota of each covered resource in one flavor.
type FlavorQuotas struct {
	// name of the ResourceFlavor.
	Name ResourceFlavorReference `json:"name"`

	// resources lists the quota per covered resource.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Resources []ResourceQuota `json:"resources"`
}

// ResourceQuota is the quota of one resource in one flavor. A ClusterQueue's
// lendingLimit may not exceed its nominalQuota (a rule on
// ClusterQueueSpec.resourceGroups); a Cohort's may, as in Kueue, since it
// bounds what the Cohort's whole subtree lends to its parent.
type ResourceQuota struct {
	// name of the resource.
	Name corev1.ResourceName `json:"name"`

	// nominalQuota is what the queue (or cohort) can use at any time.
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="nominalQuota must be non-negative"
	NominalQuota resource.Quantity `json:"nominalQuota"`

	// borrowingLimit is the most this queue may borrow from unused quota in its
	// cohort; unset means unlimited. It must be unset when there is no cohort.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="borrowingLimit must be non-negative"
	BorrowingLimit *resource.Quantity `json:"borrowingLimit,omitempty"`

	// lendingLimit is the most of its unused quota that this queue lends; it keeps
	// nominalQuota - lendingLimit for exclusive use. Unset means all is lendable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="lendingLimit must be non-negative"
	LendingLimit *resource.Quantity `json:"lendingLimit,omitempty"`
}

// FairSharing holds the fair-sharing properties of a ClusterQueue, Cohort or LocalQueue.
type FairSharing struct {
	// weight scales the share of this node when competing for unused resources;
	// 0 makes any borrowing an infinite share.
	// +kubebuilder:default=1
	// +optional
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="weight must be non-negative"
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isGreaterThan(quantity('0')) || quantity(string(self)).isGreaterThan(quantity('1n'))",message="When not 0, weight must be > 10e-9"
	Weight *resource.Quantity `json:"weight,omitempty"`
}

// FairSharingStatus reports the state of a node in fair sharing.
type FairSharingStatus struct {
	// weightedShare is the dominant resource share divided by the weight, per
	// thousand, rounded up. Infinite (weight 0 and borrowing) is reported as the
	// largest int64.
	WeightedShare int64 `json:"weightedShare"`

	// admissionFairSharingStatus holds the decayed usage of a LocalQueue.
	// +optional
	AdmissionFairSharingStatus *AdmissionFairSharingStatus `json:"admissionFairSharingStatus,omitempty"`
}

// AdmissionFairSharingStatus is the decayed historical usage of a LocalQueue.
type AdmissionFairSharingStatus struct {
	// consumedResources is the decayed usage per resource.
	ConsumedResources corev1.ResourceList `json:"consumedResources"`
	// lastUpdate is when consumedResources was last updated.
	LastUpdate metav1.Time `json:"lastUpdate"`
}

// EffectiveQuotas holds quotas that a component (a DynamicQuotaOrchestrator)
// computed for a ClusterQueue or Cohort. When the DynamicQuotaOrchestration feature
// gate is on they replace spec.resourceGroups, even when the list is empty.
type EffectiveQuotas struct {
	// orchestratorRef names the component that wrote these quotas.
	OrchestratorRef OrchestratorReference `json:"orchestratorRef"`

	// lastUpdateTime is when the quotas were last written.
	// +optional
	LastUpdateTime *metav1.Time `json:"lastUpdateTime,omitempty"`

	// resourceGroups are the quotas to use in place of spec.resourceGroups.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +optional
	ResourceGroups []ResourceGroup `json:"resourceGroups"`
}

// OrchestratorReference names the object that manages effective quotas.
type OrchestratorReference struct {
	// apiGroup of the orchestrator, kueue.x-k8s.io for a DynamicQuotaOrchestrator.
	// +kubebuilder:validation:MaxLength=253
	APIGroup string `json:"apiGroup"`
	// kind of the orchestrator, DynamicQuotaOrchestrator.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`
	// name of the orchestrator.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// FlavorUsage is the usage of one flavor.
type FlavorUsage struct {
	// name of the flavor.
	Name ResourceFlavorReference `json:"name"`
	// resources lists the usage per resource.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Resources []ResourceUsage `json:"resources"`
}

// ResourceUsage is the usage of one resource in a flavor.
type ResourceUsage struct {
	// name of the resource.
	Name corev1.ResourceName `json:"name"`
	// total is the quota in use, including what is borrowed.
	// +optional
	Total resource.Quantity `json:"total,omitempty"`
	// borrowed is the part of total above nominalQuota.
	// +optional
	Borrowed resource.Quantity `json:"borrowed,omitempty"`
}

// StopPolicy stops admission in a queue.
// +kubebuilder:validation:Enum=None;Hold;HoldAndDrain
type StopPolicy string

const (
	// None admits as usual.
	None StopPolicy = "None"
	// Hold admits nothing new; admitted workloads run to completion.
	Hold StopPolicy = "Hold"
	// HoldAndDrain admits nothing new and evicts admitted workloads.
	HoldAndDrain StopPolicy = "HoldAndDrain"
)
