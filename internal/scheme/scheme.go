// Package scheme builds the one runtime.Scheme that the manager, the controllers
// and the tests share, so that a kind registered for one is registered for all.
package scheme

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	koordqueuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordschedulingv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueuev1beta2 "quokka.dev/quokka/apis/kueue/v1beta2"
)

// AddToScheme registers the built-in Kubernetes kinds (Jobs, Pods, Namespaces,
// Leases, ...) and every Quokka API group: kueue.x-k8s.io v1beta2 and v1alpha1,
// scheduling.sigs.k8s.io v1alpha1 (ElasticQuota) and scheduling.x-k8s.io
// v1alpha1 (Queue, QueueUnit). The Configuration file's group is not included:
// it is read from disk, never served.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []struct {
		group string
		fn    func(*runtime.Scheme) error
	}{
		{"client-go", clientgoscheme.AddToScheme},
		{kueuev1beta2.GroupVersion.String(), kueuev1beta2.AddToScheme},
		{kueuev1alpha1.GroupVersion.String(), kueuev1alpha1.AddToScheme},
		{koordschedulingv1alpha1.GroupVersion.String(), koordschedulingv1alpha1.AddToScheme},
		{koordqueuev1alpha1.GroupVersion.String(), koordqueuev1alpha1.AddToScheme},
	} {
		if err := add.fn(s); err != nil {
			return fmt.Errorf("registering %s: %w", add.group, err)
		}
	}
	return nil
}

// New returns a fresh scheme with everything AddToScheme registers. Registration
// of static Go types only fails on a programming error (two types for one kind),
// which every test would hit, so New panics rather than make callers handle it.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}
