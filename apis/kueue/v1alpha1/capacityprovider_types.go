package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceFlavorReference is the name of a ResourceFlavor.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
type ResourceFlavorReference string

// CapacityProviderSpec names the controller that publishes capacity and the
// flavors it orchestrates.
type CapacityProviderSpec struct {
	// orchestratedFlavors identifies the ResourceFlavors for which this provider may
	// publish capacity. DQO ignores other flavors in status.capacity.flavors, and
	// capacity not reported for a listed flavor is zero.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	OrchestratedFlavors []OrchestratedFlavor `json:"orchestratedFlavors"`

	// controllerName identifies the controller publishing capacity. Immutable.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="controllerName is immutable"
	ControllerName string `json:"controllerName"`

	// parameters optionally references implementation-specific configuration.
	// DQO does not read or validate the referenced object.
	// +optional
	Parameters *ParametersReference `json:"parameters,omitempty"`
}

// OrchestratedFlavor names a ResourceFlavor managed by a provider.
type OrchestratedFlavor struct {
	// name identifies the ResourceFlavor managed by this provider.
	Name ResourceFlavorReference `json:"name"`
}

// ParametersReference points at a provider's own configuration object.
type ParametersReference struct {
	// apiGroup is the group for the resource being referenced.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	APIGroup string `json:"apiGroup"`
	// kind is the type of the resource being referenced.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`
	// name is the name of the resource being referenced.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// CapacityProviderStatus is the capacity a provider controller publishes.
type CapacityProviderStatus struct {
	// conditions: CapacitySynchronized.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// capacity is the normalized capacity published by the provider.
	// +optional
	Capacity *Capacity `json:"capacity,omitempty"`
}

// Capacity is capacity per flavor and resource.
type Capacity struct {
	// flavors reports capacity for each flavor; at least one.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Flavors []FlavorCapacity `json:"flavors"`
}

// FlavorCapacity is the capacity of one flavor. An empty resources map means zero
// capacity for all resources of the flavor.
type FlavorCapacity struct {
	// name identifies the ResourceFlavor whose capacity is reported.
	Name ResourceFlavorReference `json:"name"`

	// resources contains total capacity by resource name; an unlisted resource has
	// zero capacity.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) == string ? !quantity(self[r]).isLessThan(quantity('0')) : self[r] >= 0)",message="resources: capacity must be non-negative"
	Resources corev1.ResourceList `json:"resources"`
}

// CapacityProvider condition types and reasons.
const (
	CapacitySynchronized = "CapacitySynchronized"

	CapacityProviderReasonSynchronized      = "Synchronized"
	CapacityProviderReasonSourceUnavailable = "SourceUnavailable"
	CapacityProviderReasonInvalidCapacity   = "InvalidCapacity"
	CapacityProviderReasonMisconfigured     = "Misconfigured"
)

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName={cp}
// +kubebuilder:printcolumn:name="Controller",JSONPath=".spec.controllerName",type=string
// +kubebuilder:printcolumn:name="Synchronized",JSONPath=".status.conditions[?(@.type=='CapacitySynchronized')].status",type=string

// CapacityProvider holds capacity reported by a provider controller.
type CapacityProvider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired state of the CapacityProvider.
	Spec CapacityProviderSpec `json:"spec"`
	// status defines the capacity observed and published by the provider.
	// +optional
	Status CapacityProviderStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CapacityProviderList is a list of CapacityProviders.
type CapacityProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CapacityProvider `json:"items"`
}
