package job

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: test/integration/singlecluster/controller/jobs/job/job_controller_test.go,
// the ManagedJobsNamespaceSelectorAlwaysRespected context (on by default in
// v0.17, GA since v0.19), through the reconciler: "should not reconcile a job
// in an unmanaged namespace" (a Job with the queue-name label gets no
// Workload when managedJobsNamespaceSelector does not match its namespace)
// and "should reconcile a job in managed namespace and create a workload". A
// Job whose namespace is gone is not managed either.
func TestKueueManagedJobsNamespaceSelectorAlwaysRespected(t *testing.T) {
	t.Parallel()
	selector := labels.SelectorFromSet(labels.Set{"managed-by-kueue": "true"})
	managed := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "research", Labels: map[string]string{"managed-by-kueue": "true"}}}
	unmanaged := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "research"}}
	for _, tc := range []struct {
		name      string
		namespace *corev1.Namespace
		wantWL    bool
	}{
		{"should not reconcile a job in an unmanaged namespace", unmanaged, false},
		{"should reconcile a job in managed namespace and create a workload", managed, true},
		{"a Job whose namespace does not exist", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []client.Object{h100()}
			if tc.namespace != nil {
				objs = append(objs, tc.namespace)
			}
			h := newHarness(t, makeJob("train", "research").queue("research-gpu").suspend(true).obj(), objs...)
			h.r.ManagedNamespaces = selector
			h.settle()
			var list kueue.WorkloadList
			if err := h.c.List(context.Background(), &list); err != nil {
				t.Fatal(err)
			}
			if got := len(list.Items) == 1; got != tc.wantWL {
				t.Fatalf("%d workloads, want a workload: %v", len(list.Items), tc.wantWL)
			}
			// An unmanaged Job is left as it is: suspended by its author here.
			if !ptr.Deref(h.job().Spec.Suspend, false) {
				t.Error("the Job was unsuspended")
			}
		})
	}
}
