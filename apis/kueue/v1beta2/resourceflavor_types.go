package v1beta2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceFlavorReference is the name of a ResourceFlavor.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
type ResourceFlavorReference string

// ResourceFlavorSpec ties a flavor to nodes. nodeLabels are injected into the pod
// template's nodeSelector of admitted workloads, tolerations are injected too, and
// nodeTaints restrict the flavor to workloads that already tolerate them.
type ResourceFlavorSpec struct {
	// nodeLabels are the labels of the nodes that provide this flavor.
	// +optional
	// +mapType=atomic
	// +kubebuilder:validation:MaxProperties=8
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$'))",message="nodeLabels: every key must be a qualified label name (an optional DNS prefix and a name of alphanumerics, '-', '_' and '.')"
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`

	// nodeTaints are the taints of the nodes that provide this flavor. A workload
	// can use the flavor only when its pod template tolerates all of them; Kueue
	// does not inject these tolerations.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",message="spec.nodeTaints: effect must be one of NoSchedule, PreferNoSchedule or NoExecute"
	NodeTaints []corev1.Taint `json:"nodeTaints,omitempty"`

	// tolerations are added to the pod templates of workloads admitted with this
	// flavor, so that they land on tainted nodes of the flavor.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(x, !has(x.operator) || x.operator != 'Exists' || !has(x.value) || size(x.value) == 0)",message="spec.tolerations: value must be empty when operator is Exists"
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// topologyName names the Topology of this flavor (topology-aware scheduling).
	// Quokka accepts the field for compatibility and does not use it yet.
	// +optional
	TopologyName *string `json:"topologyName,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName={flavor,flavors,rf}

// ResourceFlavor is a variant of a resource, typically one node pool or GPU model.
type ResourceFlavor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ResourceFlavorSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// ResourceFlavorList is a list of ResourceFlavors.
type ResourceFlavorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceFlavor `json:"items"`
}
