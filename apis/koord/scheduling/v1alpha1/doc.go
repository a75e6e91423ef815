// Package v1alpha1 holds the ElasticQuota kind of scheduling.sigs.k8s.io/v1alpha1,
// the quota object that Koord-Queue maps jobs to (see the spec's 004 document).
//
// +kubebuilder:object:generate=true
// +groupName=scheduling.sigs.k8s.io
package v1alpha1
