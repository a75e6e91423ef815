package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Value",JSONPath=".value",type=integer

// WorkloadPriorityClass gives workloads a priority independent of pod priority.
type WorkloadPriorityClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// value is the priority of workloads that name this class.
	Value int32 `json:"value"`

	// description says when to use this class.
	// +optional
	Description string `json:"description,omitempty"`
}

// +kubebuilder:object:root=true

// WorkloadPriorityClassList is a list of WorkloadPriorityClasses.
type WorkloadPriorityClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WorkloadPriorityClass `json:"items"`
}
