package webhooks

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: pkg/controller/jobframework/defaults_test.go,
// TestApplyDefaultWorkloadPriorityClass, through the Job webhook's Default: a
// Job without the priority-class label gets the WorkloadPriorityClass named
// "default" when it exists and the WorkloadPriorityClassDefaulting gate is
// on; a label already set, a missing "default" class, the gate off, or a
// parent Job that Kueue manages leave it alone.
func TestKueueApplyDefaultWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	defaultWPC := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: kueue.DefaultWorkloadPriorityClass}, Value: 100}
	child := func() *batchv1.Job {
		j := labelledJob("", false)
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "parent", UID: "parent", Controller: ptrTrue()}}
		return j
	}
	withClass := func(name string) *batchv1.Job {
		j := labelledJob("", false)
		j.Labels[kueue.PriorityClassLabel] = name
		return j
	}
	cases := []struct {
		name      string
		job       *batchv1.Job
		objs      []client.Object
		gate      bool
		wantLabel string
	}{
		{name: "feature gate enabled, no label, default WPC exists", job: labelledJob("", false), objs: []client.Object{defaultWPC}, gate: true, wantLabel: "default"},
		{name: "feature gate disabled, no label, default WPC exists", job: labelledJob("", false), objs: []client.Object{defaultWPC}},
		{name: "feature gate enabled, label already set", job: withClass("high"), objs: []client.Object{defaultWPC}, gate: true, wantLabel: "high"},
		{name: "feature gate enabled, no label, default WPC does not exist", job: labelledJob("", false), gate: true},
		{name: "feature gate enabled, owner managed by kueue", job: child(), objs: []client.Object{defaultWPC}, gate: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &JobWebhook{Client: reader(append(tc.objs, namespaceObj("research"))...), DefaultPriorityClass: tc.gate}
			if err := w.Default(context.Background(), tc.job); err != nil {
				t.Fatal(err)
			}
			if got := tc.job.Labels[kueue.PriorityClassLabel]; got != tc.wantLabel {
				t.Errorf("priority-class label %q, want %q", got, tc.wantLabel)
			}
		})
	}
}

func ptrTrue() *bool { b := true; return &b }

// Kueue: test/integration/singlecluster/webhook/jobs/job_webhook_test.go,
// "Should not inject default queue label for a Job in an unmanaged
// namespace": a Job without the queue-name label in a namespace with a
// "default" LocalQueue gets it only where managedJobsNamespaceSelector
// matches (Kueue's ApplyDefaultLocalQueue), and is then not suspended.
func TestKueueDefaultLocalQueueOnlyInManagedNamespaces(t *testing.T) {
	t.Parallel()
	selector := labels.SelectorFromSet(labels.Set{"managed-by-kueue": "true"})
	defaultLQ := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "research", Name: "default"}}
	for _, tc := range []struct {
		name    string
		labels  map[string]string
		wantLQ  string
		suspend bool
	}{
		{"unmanaged namespace", nil, "", false},
		{"managed namespace", map[string]string{"managed-by-kueue": "true"}, "default", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "research", Labels: tc.labels}}
			j := labelledJob("", false)
			w := &JobWebhook{Client: reader(ns, defaultLQ), ManagedNamespaces: selector}
			if err := w.Default(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			if got := j.Labels[kueue.QueueNameLabel]; got != tc.wantLQ {
				t.Errorf("queue-name label %q, want %q", got, tc.wantLQ)
			}
			if got := ptr.Deref(j.Spec.Suspend, false); got != tc.suspend {
				t.Errorf("suspended %v, want %v", got, tc.suspend)
			}
		})
	}
}
