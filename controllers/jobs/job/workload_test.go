package job

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

func fakeClient(objs ...client.Object) client.Client {
	return fake.NewClientBuilder().
		WithScheme(scheme.New()).
		WithObjects(objs...).
		WithStatusSubresource(&kueue.Workload{}, &batchv1.Job{}).
		WithIndex(&kueue.Workload{}, OwnerJobIndex, IndexOwnerJob).
		Build()
}

func TestWorkloadNameIsKueueShapedAndValid(t *testing.T) {
	t.Parallel()
	name := WorkloadName("train", "uid-1")
	if !strings.HasPrefix(name, "job-train-") || len(name) != len("job-train-")+hashLength {
		t.Errorf("WorkloadName = %q; want job-train-<5 hex digits>", name)
	}
	if WorkloadName("train", "uid-2") == name {
		t.Error("a re-created Job (new UID) got the old Workload's name")
	}
	long := WorkloadName(strings.Repeat("a", 250), "uid")
	if errs := validation.IsDNS1123Subdomain(long); len(errs) > 0 {
		t.Errorf("name for a long Job is invalid: %v", errs)
	}
}

// Kueue: a Job's pod set counts parallelism pods, or completions when fewer.
func TestPodSetCountFromParallelismAndCompletions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		job  *batchv1.Job
		want int32
	}{
		{"defaults to one pod", makeJob("a", "ns").queue("q").obj(), 1},
		{"parallelism", makeJob("a", "ns").queue("q").parallelism(4).obj(), 4},
		{"completions below parallelism", makeJob("a", "ns").queue("q").parallelism(4).completions(2).obj(), 2},
		{"completions above parallelism", makeJob("a", "ns").queue("q").parallelism(4).completions(8).obj(), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl, err := NewWorkload(context.Background(), fakeClient(), tc.job)
			if err != nil {
				t.Fatal(err)
			}
			if got := wl.Spec.PodSets[0].Count; got != tc.want {
				t.Errorf("count = %d; want %d", got, tc.want)
			}
		})
	}
}

func TestWorkloadCarriesQueueTemplateAndOwner(t *testing.T) {
	t.Parallel()
	job := makeJob("train", "research").queue("research-gpu").request("nvidia.com/gpu", "8").obj()
	wl, err := NewWorkload(context.Background(), fakeClient(), job)
	if err != nil {
		t.Fatal(err)
	}
	if wl.Namespace != "research" || wl.Spec.QueueName != "research-gpu" {
		t.Errorf("namespace %q, queue %q; want research, research-gpu", wl.Namespace, wl.Spec.QueueName)
	}
	if wl.Labels[JobUIDLabel] != string(job.UID) {
		t.Errorf("label %s = %q; want the Job's UID", JobUIDLabel, wl.Labels[JobUIDLabel])
	}
	ps := wl.Spec.PodSets[0]
	if ps.Name != "main" || ps.Template.Spec.Containers[0].Resources.Requests.Name("nvidia.com/gpu", "").String() != "8" {
		t.Errorf("pod set %q with requests %v; want main with the Job's requests", ps.Name, ps.Template.Spec.Containers[0].Resources.Requests)
	}
	owner := metav1.GetControllerOf(wl)
	if owner == nil || owner.Kind != "Job" || owner.APIVersion != "batch/v1" || owner.Name != "train" || owner.UID != job.UID {
		t.Errorf("controller owner = %+v; want the Job", owner)
	}
}

func TestWorkloadPriority(t *testing.T) {
	t.Parallel()
	wpc := &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "pod-high"}, Value: 500}
	for _, tc := range []struct {
		name     string
		job      *batchv1.Job
		wantRef  *kueue.PriorityClassRef
		wantPrio int32
	}{
		{
			name:     "WorkloadPriorityClass label",
			job:      makeJob("a", "ns").queue("q").workloadPriority("high").obj(),
			wantRef:  &kueue.PriorityClassRef{Group: "kueue.x-k8s.io", Kind: "WorkloadPriorityClass", Name: "high"},
			wantPrio: 1000,
		},
		{
			name:     "the label wins over the pod's class",
			job:      makeJob("a", "ns").queue("q").workloadPriority("high").podPriority("pod-high").obj(),
			wantRef:  &kueue.PriorityClassRef{Group: "kueue.x-k8s.io", Kind: "WorkloadPriorityClass", Name: "high"},
			wantPrio: 1000,
		},
		{
			name:     "pod PriorityClass",
			job:      makeJob("a", "ns").queue("q").podPriority("pod-high").obj(),
			wantRef:  &kueue.PriorityClassRef{Group: "scheduling.k8s.io", Kind: "PriorityClass", Name: "pod-high"},
			wantPrio: 500,
		},
		{
			name:     "no class",
			job:      makeJob("a", "ns").queue("q").obj(),
			wantPrio: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl, err := NewWorkload(context.Background(), fakeClient(wpc, pc), tc.job)
			if err != nil {
				t.Fatal(err)
			}
			if (wl.Spec.PriorityClassRef == nil) != (tc.wantRef == nil) ||
				(tc.wantRef != nil && *wl.Spec.PriorityClassRef != *tc.wantRef) {
				t.Errorf("priorityClassRef = %+v; want %+v", wl.Spec.PriorityClassRef, tc.wantRef)
			}
			if wl.Spec.Priority == nil || *wl.Spec.Priority != tc.wantPrio {
				t.Errorf("priority = %v; want %d", wl.Spec.Priority, tc.wantPrio)
			}
		})
	}
}

func TestMissingPriorityClassIsAnError(t *testing.T) {
	t.Parallel()
	for _, job := range []*batchv1.Job{
		makeJob("a", "ns").queue("q").workloadPriority("nope").obj(),
		makeJob("a", "ns").queue("q").podPriority("nope").obj(),
	} {
		_, err := NewWorkload(context.Background(), fakeClient(), job)
		if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("err = %v; want a NotFound naming the class", err)
		}
	}
}

func TestFinishedMapping(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		job        *batchv1.Job
		want       bool
		wantReason string
		wantMsg    string
	}{
		{"running", makeJob("a", "ns").obj(), false, "", ""},
		{"complete", makeJob("a", "ns").condition(batchv1.JobComplete, "").obj(), true, "Succeeded", "Job finished successfully"},
		{"failed", makeJob("a", "ns").condition(batchv1.JobFailed, "BackoffLimitExceeded").obj(), true, "Failed", "BackoffLimitExceeded"},
		{"suspended is not finished", makeJob("a", "ns").condition(batchv1.JobSuspended, "").obj(), false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cond, ok := finishedCondition(tc.job, 3)
			if ok != tc.want {
				t.Fatalf("finished = %v; want %v", ok, tc.want)
			}
			if !ok {
				return
			}
			if cond.Type != kueue.WorkloadFinished || cond.Status != metav1.ConditionTrue || cond.Reason != tc.wantReason || cond.Message != tc.wantMsg || cond.ObservedGeneration != 3 {
				t.Errorf("condition = %+v; want Finished=True %s %q", cond, tc.wantReason, tc.wantMsg)
			}
		})
	}
}

// Kueue: pkg/controller/jobs/job/job_controller_test.go, "the maximum
// execution time is passed to the created workload" and "the maximum
// execution time is updated in the workload": the Job's
// kueue.x-k8s.io/max-exec-time-seconds label becomes the Workload's
// spec.maximumExecutionTimeSeconds, and a suspended Job whose label changed
// no longer matches its pending Workload. A label that is not a positive
// integer counts as none (jobframework.MaximumExecutionTimeSecondsForObject).
func TestKueueMaxExecTimeLabelSetsTheWorkloadsMaximum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		label string
		want  int32 // 0 for unset
	}{{"10", 10}, {"", 0}, {"0", 0}, {"-3", 0}, {"ten", 0}} {
		j := makeJob("a", "ns").queue("q").obj()
		if tc.label != "" {
			j.Labels[kueue.MaxExecTimeSecondsLabel] = tc.label
		}
		wl, err := NewWorkload(context.Background(), fakeClient(), j)
		if err != nil {
			t.Fatal(err)
		}
		if got := wl.Spec.MaximumExecutionTimeSeconds; (got == nil) != (tc.want == 0) || (got != nil && *got != tc.want) {
			t.Errorf("label %q: spec.maximumExecutionTimeSeconds = %v, want %d (0: unset)", tc.label, got, tc.want)
		}
	}

	j := makeJob("a", "ns").queue("q").suspend(true).obj()
	j.Labels[kueue.MaxExecTimeSecondsLabel] = "5"
	wl, err := NewWorkload(context.Background(), fakeClient(), j)
	if err != nil {
		t.Fatal(err)
	}
	if stale, why := isStale(j, wl); stale {
		t.Fatalf("a fresh workload is stale: %s", why)
	}
	j.Labels[kueue.MaxExecTimeSecondsLabel] = "10"
	if stale, why := isStale(j, wl); !stale || !strings.Contains(why, "maximum execution time") {
		t.Errorf("label changed 5 -> 10: stale %v (%q), want stale for the maximum execution time", stale, why)
	}
}
