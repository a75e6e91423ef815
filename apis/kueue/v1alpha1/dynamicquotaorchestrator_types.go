package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DynamicQuotaOrchestratorSpec says where capacity comes from and, optionally,
// which subtree of ClusterQueues and Cohorts receives it.
type DynamicQuotaOrchestratorSpec struct {
	// capacityDiscovery specifies capacity aggregation.
	CapacityDiscovery CapacityDiscovery `json:"capacityDiscovery"`

	// capacityDistribution specifies how aggregated capacity is distributed. When
	// omitted the DQO is discovery-only: it reports effectiveCapacity but writes no
	// effectiveQuotas.
	// +optional
	CapacityDistribution *CapacityDistribution `json:"capacityDistribution,omitempty"`
}

// CapacityDiscovery lists the providers whose capacity is added up.
type CapacityDiscovery struct {
	// providers lists CapacityProvider objects consumed by this DQO, 1 to 8.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Providers []ProviderContribution `json:"providers"`
}

// ProviderContribution is one provider and the multiplier of its capacity.
type ProviderContribution struct {
	// name identifies a CapacityProvider.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// effectiveCapacityMultiplier is applied to the provider's capacity: 0.95 keeps
	// 5% headroom, 0.5 takes half of a shared pool, above 1 overbooks. Defaults to 1;
	// must be 0 or more. Write fractions as strings ("0.95"), as for any quantity.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="!quantity(string(self)).isLessThan(quantity('0'))",message="effectiveCapacityMultiplier must be 0 or more"
	EffectiveCapacityMultiplier *resource.Quantity `json:"effectiveCapacityMultiplier,omitempty"`
}

// CapacityDistribution names the subtree that receives the capacity.
type CapacityDistribution struct {
	// subtreeRootQuotaRef identifies the root of the quota subtree.
	SubtreeRootQuotaRef SubtreeRootQuotaRef `json:"subtreeRootQuotaRef"`
}

// QuotaNodeKind is ClusterQueue or Cohort.
// +kubebuilder:validation:Enum=ClusterQueue;Cohort
type QuotaNodeKind string

const (
	ClusterQueueKind QuotaNodeKind = "ClusterQueue"
	CohortKind       QuotaNodeKind = "Cohort"
)

// SubtreeRootQuotaRef names a ClusterQueue or Cohort.
type SubtreeRootQuotaRef struct {
	// kind indicates the kind of the quota node, i.e. ClusterQueue or Cohort.
	Kind QuotaNodeKind `json:"kind"`
	// name indicates the name of the quota node, i.e. ClusterQueue or Cohort.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// DynamicQuotaOrchestratorStatus is the observed state of a DQO.
type DynamicQuotaOrchestratorStatus struct {
	// conditions: EffectiveCapacityComputed, Distributed.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// effectiveCapacity is the combined capacity of the providers, each multiplied
	// by its multiplier. Cleared when a provider is missing or not ready.
	// +optional
	EffectiveCapacity *EffectiveCapacity `json:"effectiveCapacity,omitempty"`
}

// EffectiveCapacity is the total capacity per flavor and resource.
type EffectiveCapacity struct {
	// flavors contains the total capacity for each flavor, up to 128.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Flavors []FlavorCapacity `json:"flavors"`
}

// DynamicQuotaOrchestrator condition types and reasons.
const (
	EffectiveCapacityComputed = "EffectiveCapacityComputed"
	Distributed               = "Distributed"

	ReasonComputed                            = "Computed"
	ReasonProviderNotReady                    = "ProviderNotReady"
	ReasonMisconfigured                       = "Misconfigured"
	ReasonAggregationFailed                   = "AggregationFailed"
	ReasonQuotasDistributed                   = "QuotasDistributed"
	ReasonEffectiveCapacityNotComputed        = "EffectiveCapacityNotComputed"
	ReasonConflictingDynamicQuotaOrchestrator = "ConflictingDynamicQuotaOrchestrator"
	ReasonEffectiveQuotasConflict             = "EffectiveQuotasConflict"

	// MaxEffectiveCapacityFlavors is the most distinct flavors one DQO aggregates.
	MaxEffectiveCapacityFlavors = 128
)

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName={dqo}
// +kubebuilder:printcolumn:name="Computed",JSONPath=".status.conditions[?(@.type=='EffectiveCapacityComputed')].status",type=string
// +kubebuilder:printcolumn:name="Distributed",JSONPath=".status.conditions[?(@.type=='Distributed')].status",type=string

// DynamicQuotaOrchestrator adds up provider capacity and splits it over a subtree.
type DynamicQuotaOrchestrator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired state of the DynamicQuotaOrchestrator.
	Spec DynamicQuotaOrchestratorSpec `json:"spec"`
	// status defines the observed state of the DynamicQuotaOrchestrator.
	// +optional
	Status DynamicQuotaOrchestratorStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DynamicQuotaOrchestratorList is a list of DynamicQuotaOrchestrators.
type DynamicQuotaOrchestratorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DynamicQuotaOrchestrator `json:"items"`
}
