// Package v1alpha1 holds the kueue.x-k8s.io/v1alpha1 kinds of Dynamic Quota
// Orchestration (CapacityProvider, DynamicQuotaOrchestrator) and PreemptionConfig.
//
// +kubebuilder:object:generate=true
// +groupName=kueue.x-k8s.io
package v1alpha1
