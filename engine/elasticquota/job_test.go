package elasticquota

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Which path a Job takes (issue 14, section 1; koord-queue job.go ManagedByQueue).
func TestRouteJob(t *testing.T) {
	quota := map[string]string{koordv1alpha1.QuotaNameLabel: "team-a"}
	fallback := map[string]string{FallbackQuotaNameLabel: "team-a"}
	both := map[string]string{koordv1alpha1.QuotaNameLabel: "team-a", kueue.QueueNameLabel: "lq"}
	enqueued := map[string]string{EnqueuedAnnotation: "true"}
	for _, tc := range []struct {
		name         string
		facts        JobFacts
		want         JobRoute
		quotaIgnored bool
	}{
		{"labelled, created suspended", JobFacts{Labels: quota, Suspended: true}, RouteKoord, false},
		{"fallback label, created suspended", JobFacts{Labels: fallback, Suspended: true}, RouteKoord, false},
		{"labelled, created unsuspended: runs unqueued", JobFacts{Labels: quota}, RouteUnqueued, false},
		{"labelled, suspended but already started: not queued", JobFacts{Labels: quota, Suspended: true, Started: true}, RouteUnqueued, false},
		{"enqueued once: sticky although now unsuspended", JobFacts{Labels: quota, Annotations: enqueued, Started: true}, RouteKoord, false},
		{"both labels: Kueue only", JobFacts{Labels: both, Suspended: true}, RouteKueue, true},
		{"no label, suspended: a silent unit", JobFacts{Suspended: true}, RouteKoord, false},
		{"no label, running", JobFacts{}, RouteNone, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RouteJob(tc.facts); got != tc.want {
				t.Errorf("RouteJob = %d, want %d", got, tc.want)
			}
			if got := QuotaLabelIgnored(tc.facts); got != tc.quotaIgnored {
				t.Errorf("QuotaLabelIgnored = %v, want %v", got, tc.quotaIgnored)
			}
		})
	}
}

// The fallback label names the quota when the main one is absent or empty
// (koord-queue getQuotaName).
func TestQuotaNameOfFallsBack(t *testing.T) {
	if got := QuotaNameOf(map[string]string{koordv1alpha1.QuotaNameLabel: "", FallbackQuotaNameLabel: "b"}); got != "b" {
		t.Errorf("got %q, want b", got)
	}
	if got := QuotaNameOf(map[string]string{koordv1alpha1.QuotaNameLabel: "a", FallbackQuotaNameLabel: "b"}); got != "a" {
		t.Errorf("got %q, want a", got)
	}
}

// spec.resource = parallelism × pod request (containers summed, the max with
// each init container, plus overhead; requests default to limits); the pod set
// counts min(parallelism, completions − succeeded); the priority is the
// PriorityClass's value when it exists, else the template's priority.
func TestJobUnitSpec(t *testing.T) {
	cpu := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns"},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](4), Completions: ptr.To[int32](5),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				PriorityClassName: "high", Priority: ptr.To[int32](7),
				Overhead:       cpu("100m"),
				InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: cpu("3")}}},
				Containers: []corev1.Container{
					{Name: "a", Resources: corev1.ResourceRequirements{Requests: cpu("1")}},
					{Name: "b", Resources: corev1.ResourceRequirements{Limits: cpu("1")}},
				},
			}},
		},
		Status: batchv1.JobStatus{Succeeded: 2},
	}
	spec, err := JobUnitSpec(job, func(name string) (int32, bool) { return 1000, name == "high" })
	if err != nil {
		t.Fatal(err)
	}
	// per pod: max(1+1, 3) + 0.1 = 3.1; × 4.
	if got := spec.Resource[corev1.ResourceCPU]; got.Cmp(resource.MustParse("12400m")) != 0 {
		t.Errorf("resource cpu = %s, want 12400m", got.String())
	}
	if got := spec.Request[corev1.ResourceCPU]; got.Cmp(resource.MustParse("12400m")) != 0 {
		t.Errorf("request cpu = %s, want 12400m", got.String())
	}
	if spec.Queue != "" {
		t.Errorf("queue = %q, want empty", spec.Queue)
	}
	if spec.Priority == nil || *spec.Priority != 1000 || spec.PriorityClassName != "high" {
		t.Errorf("priority %v class %q, want 1000 from PriorityClass high", spec.Priority, spec.PriorityClassName)
	}
	if len(spec.PodSet) != 1 || spec.PodSet[0].Count != 3 {
		t.Errorf("pod set %+v, want count min(4, 5-2) = 3", spec.PodSet)
	}
	if got := spec.PodSet[0].Template.Spec.Containers[1].Resources.Requests; got.Cpu().Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("container b requests %v, want its limits", got)
	}

	// A missing PriorityClass is ignored: the template's priority stands.
	spec, err = JobUnitSpec(job, func(string) (int32, bool) { return 0, false })
	if err != nil {
		t.Fatal(err)
	}
	if spec.Priority == nil || *spec.Priority != 7 {
		t.Errorf("priority %v, want the template's 7", spec.Priority)
	}
}
