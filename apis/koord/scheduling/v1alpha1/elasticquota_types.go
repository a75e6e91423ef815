package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations of the Koord-Queue quota mapping.
const (
	// QuotaNameLabel on a job names the ElasticQuota it is charged to.
	QuotaNameLabel = "quota.scheduling.koordinator.sh/name"
	// ParentLabel on an ElasticQuota names its parent quota.
	ParentLabel = "quota.scheduling.koordinator.sh/parent"
	// IsParentLabel marks a quota that has children.
	IsParentLabel = "quota.scheduling.koordinator.sh/is-parent"
	// RootQuotaName is the implicit root of every quota tree; it has no parent.
	RootQuotaName = "koordinator-root-quota"
)

// ElasticQuotaSpec is the guaranteed (min) and maximum (max) quota.
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min.all(r, !(r in self.max) || quantity(string(self.min[r])).compareTo(quantity(string(self.max[r]))) <= 0)",message="min: every resource must be less than or equal to its max",fieldPath=".min"
type ElasticQuotaSpec struct {
	// min is the guaranteed quota.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Min corev1.ResourceList `json:"min,omitempty"`
	// max is the upper bound of the quota.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Max corev1.ResourceList `json:"max,omitempty"`
}

// ElasticQuotaStatus reports the quota's usage.
type ElasticQuotaStatus struct {
	// used is the quota in use.
	// +optional
	Used corev1.ResourceList `json:"used,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName={eq,eqs}
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=https://github.com/kubernetes-sigs/scheduler-plugins/pull/52"

// ElasticQuota is a Koordinator quota with a guaranteed min and a max.
type ElasticQuota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ElasticQuotaSpec `json:"spec,omitempty"`
	// +optional
	Status ElasticQuotaStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ElasticQuotaList is a list of ElasticQuotas.
type ElasticQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ElasticQuota `json:"items"`
}
