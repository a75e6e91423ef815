package v1beta2

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of Kueue's current API.
	GroupVersion = schema.GroupVersion{Group: "kueue.x-k8s.io", Version: "v1beta2"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&ResourceFlavor{}, &ResourceFlavorList{},
		&ClusterQueue{}, &ClusterQueueList{},
		&LocalQueue{}, &LocalQueueList{},
		&Cohort{}, &CohortList{},
		&Workload{}, &WorkloadList{},
		&WorkloadPriorityClass{}, &WorkloadPriorityClassList{},
	)
}
