//go:build integration

package jobs

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

func TestLocalQueueToMissingClusterQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	lq := &kueue.LocalQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "research-gpu", Namespace: ns},
		Spec:       kueue.LocalQueueSpec{ClusterQueue: "does-not-exist"},
	}
	if err := c.Create(context.Background(), lq); err != nil {
		t.Fatalf("a LocalQueue pointing at a missing ClusterQueue was rejected: %v", err)
	}
	if !warnings.contains(`ClusterQueue "does-not-exist" does not exist`) {
		t.Errorf("warnings %v; want one about the missing ClusterQueue", warnings.messages)
	}
}

func TestJobNamingAMissingLocalQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	j := gpuJob(ns, "lost", "no-such-queue")
	if err := c.Create(context.Background(), j); err != nil {
		t.Fatalf("a Job naming a missing LocalQueue was rejected: %v", err)
	}
	if !warnings.contains(`LocalQueue "no-such-queue" does not exist`) {
		t.Errorf("warnings %v; want one about the missing LocalQueue", warnings.messages)
	}
}

func TestWorkloadNamingAMissingLocalQueueIsAllowedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
	c, warnings := warningClient(t)
	j := gpuJob(ns, "template", "")
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "by-hand", Namespace: ns},
		Spec: kueue.WorkloadSpec{
			QueueName: "no-such-queue",
			PodSets:   []kueue.PodSet{{Name: kueue.DefaultPodSetName, Count: 1, Template: j.Spec.Template}},
		},
	}
	if err := c.Create(context.Background(), wl); err != nil {
		t.Fatalf("a Workload naming a missing LocalQueue was rejected: %v", err)
	}
	if !warnings.contains(`spec.queueName: LocalQueue "no-such-queue" does not exist`) {
		t.Errorf("warnings %v; want one about the missing LocalQueue", warnings.messages)
	}
}

// Kueue: the Job webhook's checks of kueue.x-k8s.io/max-exec-time-seconds
// (jobframework validateCreateForMaxExecTime, validateUpdateForMaxExecTime),
// through the API server: a value that is not a positive integer is refused
// at creation, naming the label, and a valid one reaches the Workload's
// spec.maximumExecutionTimeSeconds (Kueue's job_controller_test.go "the
// maximum execution time is passed to the created workload"). A change as
// the Job starts running is refused.
func TestKueueMaxExecTimeLabel(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	bad := gpuJob(ns, "bad", "research-gpu")
	bad.Labels[kueue.MaxExecTimeSecondsLabel] = "0"
	err := k8s.Create(ctx, bad)
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), kueue.MaxExecTimeSecondsLabel) ||
		!strings.Contains(err.Error(), "should be greater than 0") {
		t.Fatalf("creating a Job with max-exec-time-seconds 0: err = %v, want Invalid naming the label", err)
	}

	j := gpuJob(ns, "train", "research-gpu")
	j.Labels[kueue.MaxExecTimeSecondsLabel] = "10"
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	wl := waitForWorkload(t, j)
	if got := ptr.Deref(wl.Spec.MaximumExecutionTimeSeconds, 0); got != 10 {
		t.Errorf("spec.maximumExecutionTimeSeconds = %d, want 10 from the label", got)
	}

	// Unsuspending the Job and changing the label in one write: refused.
	// (The job integration writes the Job too, so a conflict is retried.)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		starting := getJob(t, client.ObjectKeyFromObject(j))
		starting.Spec.Suspend = ptr.To(false)
		starting.Labels[kueue.MaxExecTimeSecondsLabel] = "20"
		return k8s.Update(ctx, starting)
	})
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("changing max-exec-time-seconds as the Job starts: err = %v, want Invalid (immutable)", err)
	}
}

// Kueue's partial admission annotation through the Job webhook and the API
// server (Kueue: pkg/controller/jobs/job/job_webhook_test.go, "invalid
// partial admission annotation (badValue)"; test/integration/singlecluster/
// webhook/jobs/job_webhook_test.go, "should allow unsuspending a partially
// admissible job with its minimum parallelism" and "... with a parallelism
// lower then minimum"): a minimum at or above the pod count is refused,
// naming the annotation; a valid one becomes the Workload's minCount, and the
// Job may be unsuspended with its minimum or fewer pods, as the Job
// integration does after a partial admission.
func TestKueuePartialAdmissionAnnotation(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	partial := func(name, minParallelism string, parallelism int32) *batchv1.Job {
		j := gpuJob(ns, name, "research-gpu")
		j.Spec.Parallelism, j.Spec.Completions = ptr.To(parallelism), ptr.To(parallelism)
		j.Annotations = map[string]string{kueue.JobMinParallelismAnnotation: minParallelism}
		return j
	}
	err := k8s.Create(ctx, partial("bad", "5", 4))
	if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), kueue.JobMinParallelismAnnotation) ||
		!strings.Contains(err.Error(), "should be between 0 and 3") {
		t.Fatalf("creating a Job with job-min-parallelism 5 of 4 pods: err = %v, want Invalid naming the annotation", err)
	}
	for _, tc := range []struct {
		name        string
		parallelism int32
	}{{"at-minimum", 4}, {"below-minimum", 3}} {
		j := partial(tc.name, "4", 6)
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if wl := waitForWorkload(t, j); ptr.Deref(wl.Spec.PodSets[0].MinCount, 0) != 4 || wl.Spec.PodSets[0].Count != 6 {
			t.Fatalf("%s: workload pod set %d pods, minCount %v; want 6 and 4", tc.name, wl.Spec.PodSets[0].Count, wl.Spec.PodSets[0].MinCount)
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			starting := getJob(t, client.ObjectKeyFromObject(j))
			starting.Spec.Parallelism = ptr.To(tc.parallelism)
			starting.Spec.Suspend = ptr.To(false)
			return k8s.Update(ctx, starting)
		})
		if err != nil {
			t.Errorf("%s: unsuspending with parallelism %d: %v, want it allowed", tc.name, tc.parallelism, err)
		}
	}
}

// Kueue: test/integration/singlecluster/webhook/core/workload_test.go
// (v0.17.0), "should not request num-pods resource", through the API server:
// the Workload webhook refuses a container requesting the pods resource,
// naming it.
func TestKueueWorkloadShouldNotRequestNumPods(t *testing.T) {
	ns := newNamespace(t)
	j := gpuJob(ns, "template", "")
	tmpl := j.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Resources.Requests[corev1.ResourcePods] = resource.MustParse("1")
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: ns},
		Spec:       kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "bad", Count: 1, Template: *tmpl}}},
	}
	err := k8s.Create(context.Background(), wl)
	if err == nil || !strings.Contains(err.Error(), "resources.requests[pods]") || !strings.Contains(err.Error(), "reserved for internal kueue use") {
		t.Fatalf("a Workload requesting pods: err = %v; want Kueue's refusal naming the request", err)
	}
}

// Kueue: test/integration/singlecluster/webhook/core/cohort_test.go (v0.17.0),
// the two "@cpu" entries of "Validate Cohort on creation", through the API
// server: the Cohort webhook refuses an unqualified resource name, naming the
// field, and an extended resource with a qualified name is created.
func TestKueueCohortUnqualifiedResourceName(t *testing.T) {
	ctx := context.Background()
	cohort := func(name, resource string) *kueue.Cohort {
		return &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.CohortSpec{
			ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceName(resource)},
				Flavors: []kueue.FlavorQuotas{{Name: "x86", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceName(resource)}}}}}}}}
	}
	err := k8s.Create(ctx, cohort("unqualified", "@cpu"))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.resourceGroups[0].flavors[0].resources[0].name") {
		t.Fatalf("a Cohort naming @cpu: err = %v; want Invalid naming spec.resourceGroups[0].flavors[0].resources[0].name", err)
	}
	ok := cohort("extended", "example.com/gpu")
	if err := k8s.Create(ctx, ok); err != nil {
		t.Fatalf("a Cohort naming example.com/gpu: %v", err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ok) })
	ok.Spec.ResourceGroups[0].Flavors[0].Resources[0].Name = "@gpu"
	ok.Spec.ResourceGroups[0].CoveredResources[0] = "@gpu"
	if err := k8s.Update(ctx, ok); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.resourceGroups[0].coveredResources[0]") {
		t.Errorf("renaming the Cohort's resource to @gpu: err = %v; want Invalid naming spec.resourceGroups[0].coveredResources[0]", err)
	}
}
