package webhooks

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// unsuspendedJob is a Job named "test-job" in ns, with the queue-name label
// when queue is set.
func unsuspendedJob(ns, queue string) *batchv1.Job {
	j := labelledJob(queue, false)
	j.Name, j.Namespace = "test-job", ns
	return j
}

func namespaceObj(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}}}
}

// Kueue: pkg/controller/jobframework/defaults_test.go (v0.17.0),
// TestWorkloadShouldBeSuspended: which Jobs the webhook suspends at creation,
// with managedJobsNamespaceSelector matching every namespace but
// unmanaged-ns.
func TestKueueWorkloadShouldBeSuspended(t *testing.T) {
	t.Parallel()
	notUnmanaged, err := labels.NewRequirement(corev1.LabelMetadataName, selection.NotIn, []string{"unmanaged-ns"})
	if err != nil {
		t.Fatal(err)
	}
	selector := labels.NewSelector().Add(*notUnmanaged)
	withParent := unsuspendedJob("managed-ns", "")
	withParent.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "parent", UID: "parent", Controller: ptr.To(true)}}
	cases := []struct {
		name       string
		job        *batchv1.Job
		manageJobs bool
		want       bool
	}{
		{"job with queue name", unsuspendedJob("managed-ns", "default"), false, true},
		{"job with queue name manageJobs", unsuspendedJob("managed-ns", "default"), true, true},
		{"job without queue name", unsuspendedJob("managed-ns", ""), false, false},
		{"job without queue name with manageJobs", unsuspendedJob("managed-ns", ""), true, true},
		{"job without queue name but with managed parent with manageJobs", withParent, true, false},
		// LocalQueueDefaulting is GA in Kueue v0.17: "with feature disabled"
		// decides as with it on.
		{"job without queue name with manageJobs with feature disabled", unsuspendedJob("managed-ns", ""), true, true},
		{"job without queue name with manageJobs in unmanaged ns", unsuspendedJob("unmanaged-ns", ""), true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &JobWebhook{Client: reader(namespaceObj("managed-ns"), namespaceObj("unmanaged-ns")),
				ManageJobsWithoutQueueName: tc.manageJobs, ManagedNamespaces: selector}
			if err := w.Default(context.Background(), tc.job); err != nil {
				t.Fatal(err)
			}
			if got := ptr.Deref(tc.job.Spec.Suspend, false); got != tc.want {
				t.Errorf("suspended %v, want %v", got, tc.want)
			}
		})
	}
}

// Kueue: pkg/controller/jobframework/base_webhook_test.go (v0.17.0),
// TestBaseWebhookDefault, its cases without MultiKueue: a Job with a
// queue name is suspended either way; one without gets the namespace's
// "default" LocalQueue when there is one (and is then suspended), and is
// left alone otherwise.
func TestKueueBaseWebhookDefault(t *testing.T) {
	t.Parallel()
	defaultLQ := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "research", Name: "default"}}
	cases := []struct {
		name           string
		manageJobs     bool
		defaultLqExist bool
		queue          string
		wantQueue      string
		wantSuspend    bool
	}{
		{name: "update the suspend field with 'manageJobsWithoutQueueName=false'", queue: "queue", wantQueue: "queue", wantSuspend: true},
		{name: "update the suspend field 'manageJobsWithoutQueueName=true'", manageJobs: true, queue: "queue", wantQueue: "queue", wantSuspend: true},
		{name: "default lq is created, job doesn't have queue label", defaultLqExist: true, wantQueue: "default", wantSuspend: true},
		{name: "default lq is created, job has queue label", defaultLqExist: true, queue: "queue", wantQueue: "queue", wantSuspend: true},
		{name: "default lq isn't created, job doesn't have queue label"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := []client.Object{namespaceObj("research")}
			if tc.defaultLqExist {
				objs = append(objs, defaultLQ)
			}
			j := labelledJob(tc.queue, false)
			w := &JobWebhook{Client: reader(objs...), ManageJobsWithoutQueueName: tc.manageJobs}
			if err := w.Default(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			if got := j.Labels[kueue.QueueNameLabel]; got != tc.wantQueue {
				t.Errorf("queue-name label %q, want %q", got, tc.wantQueue)
			}
			if got := ptr.Deref(j.Spec.Suspend, false); got != tc.wantSuspend {
				t.Errorf("suspended %v, want %v", got, tc.wantSuspend)
			}
		})
	}
}

// Kueue's validateUpdateForQueueName: in a namespace with a "default"
// LocalQueue, a Job's queue-name label may not be removed; elsewhere it may.
func TestKueueQueueNameMustNotBeEmptyWithDefaultQueue(t *testing.T) {
	t.Parallel()
	defaultLQ := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "research", Name: "default"}}
	old := labelledJob("team-a", true)
	removed := old.DeepCopy()
	delete(removed.Labels, kueue.QueueNameLabel)
	_, err := (&JobWebhook{Client: reader(defaultLQ)}).ValidateUpdate(context.Background(), old, removed)
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "queue-name must not be empty in namespace with default queue") {
		t.Fatalf("removing the label with a default LocalQueue: err = %v; want Kueue's message", err)
	}
	if _, err := (&JobWebhook{Client: reader()}).ValidateUpdate(context.Background(), old, removed); err != nil {
		t.Fatalf("removing the label without a default LocalQueue: %v", err)
	}
}

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), "should not request num-pods resource": a container or init
// container requesting the pods resource is refused, naming it.
func TestKueueWorkloadShouldNotRequestNumPods(t *testing.T) {
	t.Parallel()
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "research", Name: "bad"},
		Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "bad", Count: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}},
			Containers:     []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}},
		}}}}}}
	w := &WorkloadWebhook{Client: reader()}
	_, err := w.ValidateCreate(context.Background(), wl)
	if err == nil || !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "spec.podSets[0].template.spec.initContainers[0].resources.requests[pods]") ||
		!strings.Contains(err.Error(), "spec.podSets[0].template.spec.containers[0].resources.requests[pods]") {
		t.Fatalf("err = %v; want both requests named", err)
	}
	if _, err := w.ValidateUpdate(context.Background(), wl, wl); err == nil {
		t.Error("an update keeping the pods request was accepted")
	}
	wl.Spec.PodSets[0].Template.Spec.InitContainers = nil
	wl.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	if _, err := w.ValidateCreate(context.Background(), wl); err != nil {
		t.Errorf("a cpu request refused: %v", err)
	}
}
