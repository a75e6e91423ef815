package elasticquota

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

func batchJob(parallelism, completions *int32, cpuPerPod string) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "j",
		Labels: map[string]string{koordv1alpha1.QuotaNameLabel: "team-a"}}}
	j.Spec.Parallelism, j.Spec.Completions = parallelism, completions
	j.Spec.Suspend = ptr.To(true)
	j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpuPerPod)}}}}
	return j
}

// koord-queue pkg/jobext/handles/job.go, Resources: "for i := 0; i <
// int(*parallel); i++ { util.AddResourceList(scaledRequest, request) }" — the
// unit requests parallelism pods, even when fewer completions remain; the pod
// set count is min(parallelism, completions − succeeded).
func TestJobUnitRequestIsParallelismTimesPod(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                     string
		parallelism, completions *int32
		wantCPU                  int64
		wantCount                int32
	}{
		{"parallelism 4, completions 2", ptr.To[int32](4), ptr.To[int32](2), 4, 2},
		{"parallelism 3, completions unset", ptr.To[int32](3), nil, 3, 3},
		{"parallelism unset defaults to 1", nil, ptr.To[int32](5), 1, 1},
	}
	for _, tc := range cases {
		spec, err := JobUnitSpec(batchJob(tc.parallelism, tc.completions, "1"), nil)
		if err != nil {
			t.Fatal(err)
		}
		req, err := RequestOf(spec.Resource)
		if err != nil {
			t.Fatal(err)
		}
		if req[corev1.ResourceCPU] != tc.wantCPU*1000 || spec.PodSet[0].Count != tc.wantCount {
			t.Errorf("%s: request %v, count %d; want %d CPUs and count %d", tc.name, spec.Resource, spec.PodSet[0].Count, tc.wantCPU, tc.wantCount)
		}
	}
}

// koord-queue pkg/jobext/handles/job.go, Priority: the PriorityClass's value
// when the template names one that exists ("priority = &priorityClassInstance.Value"),
// else the template's priority; a class that does not exist is ignored ("can
// not find priority class name %v in k8s, we will ignore it").
func TestJobUnitPriorityFromPriorityClass(t *testing.T) {
	t.Parallel()
	classes := map[string]int32{"high": 1000}
	lookup := func(name string) (int32, bool) { v, ok := classes[name]; return v, ok }
	cases := []struct {
		name      string
		className string
		priority  *int32
		want      *int32
	}{
		{"the class's value", "high", nil, ptr.To[int32](1000)},
		{"the class wins over the template's priority", "high", ptr.To[int32](7), ptr.To[int32](1000)},
		{"a missing class is ignored: the template's priority", "missing", ptr.To[int32](7), ptr.To[int32](7)},
		{"a missing class and no priority: none", "missing", nil, nil},
		{"no class: the template's priority", "", ptr.To[int32](3), ptr.To[int32](3)},
	}
	for _, tc := range cases {
		j := batchJob(nil, nil, "1")
		j.Spec.Template.Spec.PriorityClassName, j.Spec.Template.Spec.Priority = tc.className, tc.priority
		spec, err := JobUnitSpec(j, lookup)
		if err != nil {
			t.Fatal(err)
		}
		if (spec.Priority == nil) != (tc.want == nil) || (tc.want != nil && *spec.Priority != *tc.want) {
			t.Errorf("%s: priority %v, want %v", tc.name, ptr.Deref(spec.Priority, -1), ptr.Deref(tc.want, -1))
		}
		if spec.PriorityClassName != tc.className {
			t.Errorf("%s: priorityClassName %q, want %q", tc.name, spec.PriorityClassName, tc.className)
		}
	}
}

// koord-queue ManagedByQueue: "return job.Status.StartTime == nil &&
// job.Spec.Suspend != nil && *job.Spec.Suspend" — a labelled Job created
// unsuspended is not queued (it runs unqueued and is never charged); either
// quota label counts (getQuotaName falls back to alibabacloud.com/quota-name).
func TestUnsuspendedLabelledJobIsUnqueued(t *testing.T) {
	t.Parallel()
	for _, label := range []string{koordv1alpha1.QuotaNameLabel, FallbackQuotaNameLabel} {
		j := batchJob(nil, nil, "1")
		j.Labels = map[string]string{label: "team-a"}
		if got := RouteJob(FactsOf(j)); got != RouteKoord {
			t.Errorf("%s, suspended: route %v, want RouteKoord", label, got)
		}
		j.Spec.Suspend = nil
		if got := RouteJob(FactsOf(j)); got != RouteUnqueued {
			t.Errorf("%s, suspend unset: route %v, want RouteUnqueued", label, got)
		}
		j.Spec.Suspend = ptr.To(false)
		if got := RouteJob(FactsOf(j)); got != RouteUnqueued {
			t.Errorf("%s, suspend false: route %v, want RouteUnqueued", label, got)
		}
	}
}
