package scheme

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNewRegistersEveryGroup(t *testing.T) {
	t.Parallel()
	s := New()
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "batch", Version: "v1", Kind: "Job"},
		{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
		{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "ClusterQueue"},
		{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "Workload"},
		{Group: "kueue.x-k8s.io", Version: "v1beta2", Kind: "Cohort"},
		{Group: "kueue.x-k8s.io", Version: "v1alpha1", Kind: "DynamicQuotaOrchestrator"},
		{Group: "kueue.x-k8s.io", Version: "v1alpha1", Kind: "CapacityProvider"},
		{Group: "kueue.x-k8s.io", Version: "v1alpha1", Kind: "PreemptionConfig"},
		{Group: "scheduling.sigs.k8s.io", Version: "v1alpha1", Kind: "ElasticQuota"},
		{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Kind: "Queue"},
		{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Kind: "QueueUnit"},
	} {
		if !s.Recognizes(gvk) {
			t.Errorf("scheme does not recognise %s", gvk)
		}
	}
	if s.Recognizes(schema.GroupVersionKind{Group: "config.kueue.x-k8s.io", Version: "v1beta2", Kind: "Configuration"}) {
		t.Error("the Configuration file's kind should not be in the scheme")
	}
}
