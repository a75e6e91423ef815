package job

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's JobReconciler (v0.17) with manageJobsWithoutQueueName: a Job
// without the queue-name label in a namespace the selector matches gets a
// Workload that names no LocalQueue and stays suspended; once the label is
// added its Workload moves to that LocalQueue (Kueue's "Job changed queues,
// updating workload"), keeping its creation. In a namespace the selector
// does not match, and without the option, such a Job is not managed.
func TestJobsWithoutQueueNameAreManagedWhenConfigured(t *testing.T) {
	t.Parallel()
	selector := labels.SelectorFromSet(labels.Set{"team": "research"})
	ns := func(name string, team string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": team}}}
	}
	for _, tc := range []struct {
		name       string
		namespace  *corev1.Namespace
		manageJobs bool
		wantWL     bool
	}{
		{"manageJobsWithoutQueueName, namespace matched", ns("research", "research"), true, true},
		{"manageJobsWithoutQueueName, namespace not matched", ns("research", "infra"), true, false},
		{"without manageJobsWithoutQueueName", ns("research", "research"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, makeJob("train", "research").request("nvidia.com/gpu", "1").suspend(true).obj(), h100(), tc.namespace)
			h.r.ManageJobsWithoutQueueName, h.r.ManagedNamespaces = tc.manageJobs, selector
			h.settle()
			var list kueue.WorkloadList
			if err := h.c.List(context.Background(), &list); err != nil {
				t.Fatal(err)
			}
			if got := len(list.Items) == 1; got != tc.wantWL {
				t.Fatalf("%d workloads, want a workload: %v", len(list.Items), tc.wantWL)
			}
			if !tc.wantWL {
				return
			}
			wl := h.workload()
			if wl.Spec.QueueName != "" || !ptr.Deref(h.job().Spec.Suspend, false) {
				t.Fatalf("workload queue %q, job suspended %v; want no queue and suspended", wl.Spec.QueueName, ptr.Deref(h.job().Spec.Suspend, false))
			}
			created := wl.CreationTimestamp
			j := h.job()
			j.Labels = map[string]string{kueue.QueueNameLabel: "research-gpu"}
			if err := h.c.Update(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			h.settle()
			wl = h.workload()
			if wl.Spec.QueueName != "research-gpu" || !wl.CreationTimestamp.Equal(&created) {
				t.Fatalf("after labelling: workload queue %q created %v; want research-gpu, the same workload", wl.Spec.QueueName, wl.CreationTimestamp)
			}
		})
	}
}

// Kueue: pkg/controller/jobs/job/job_controller_test.go (v0.17.0), "when
// workload is created, it has correct labels set" (integrations.labelKeysToCopy
// [toCopyKey, redundantToCopyKey]: the Workload gets the Job's toCopyKey, not
// its dontCopyKey, and no redundantToCopyKey, which the Job lacks), and the Job
// integration test's "checking the workload label is not updated when the job
// label is".
func TestKueueWorkloadGetsTheLabelsToCopy(t *testing.T) {
	t.Parallel()
	j := makeJob("job", "ns").queue("main").request("nvidia.com/gpu", "1").suspend(true).obj()
	j.Labels["toCopyKey"], j.Labels["dontCopyKey"] = "toCopyValue", "dontCopyValue"
	h := newHarness(t, j, h100())
	h.r.LabelKeysToCopy = []string{"toCopyKey", "redundantToCopyKey"}
	h.settle()
	want := map[string]string{JobUIDLabel: string(j.UID), "toCopyKey": "toCopyValue"}
	if got := h.workload().Labels; !reflect.DeepEqual(got, want) {
		t.Fatalf("workload labels %v, want %v", got, want)
	}
	updated := h.job()
	updated.Labels["toCopyKey"] = "newValue"
	if err := h.c.Update(context.Background(), updated); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.workload().Labels["toCopyKey"]; got != "toCopyValue" {
		t.Errorf("after the Job's label changed, the workload's is %q; want it unchanged", got)
	}
}
