package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is kueue.x-k8s.io/v1alpha1.
	GroupVersion = schema.GroupVersion{Group: "kueue.x-k8s.io", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&CapacityProvider{}, &CapacityProviderList{},
		&DynamicQuotaOrchestrator{}, &DynamicQuotaOrchestratorList{},
		&PreemptionConfig{}, &PreemptionConfigList{},
	)
}
