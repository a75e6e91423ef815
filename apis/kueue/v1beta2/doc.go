// Package v1beta2 holds the kueue.x-k8s.io/v1beta2 API that Quokka serves: the same
// group, kinds, JSON field names, defaults and validation as Kueue, so that Kueue
// manifests apply unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=kueue.x-k8s.io
package v1beta2
