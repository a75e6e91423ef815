// Package v1alpha1 holds Koord-Queue's Queue and QueueUnit kinds of
// scheduling.x-k8s.io/v1alpha1 (see the spec's 004 document).
//
// +kubebuilder:object:generate=true
// +groupName=scheduling.x-k8s.io
package v1alpha1
