package job

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

func (j *jobWrapper) annotate(k, v string) *jobWrapper {
	if j.Annotations == nil {
		j.Annotations = map[string]string{}
	}
	j.Annotations[k] = v
	return j
}

// Kueue: pkg/controller/jobs/job/job_controller_test.go, TestPodSets, "no
// partial admission" and "partial admission": the annotation becomes the pod
// set's minCount. Values Kueue's webhook refuses set none.
func TestKueuePodSetMinCountFromTheAnnotation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		annotation string
		want       *int32
	}{
		{name: "no partial admission"},
		{name: "partial admission", annotation: "2", want: ptr.To[int32](2)},
		{name: "not a number", annotation: "two"},
		{name: "above the pod count", annotation: "4"},
		{name: "zero", annotation: "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := makeJob("train", "ns").queue("q").parallelism(3)
			if tc.annotation != "" {
				j.annotate(kueue.JobMinParallelismAnnotation, tc.annotation)
			}
			wl, err := NewWorkload(context.Background(), fakeClient(), j.obj())
			if err != nil {
				t.Fatal(err)
			}
			ps := wl.Spec.PodSets[0]
			if ps.Count != 3 || !ptr.Equal(ps.MinCount, tc.want) {
				t.Errorf("pod set count %d, minCount %v; want 3, %v", ps.Count, ptr.Deref(ps.MinCount, -1), ptr.Deref(tc.want, -1))
			}
		})
	}
}

// Kueue's integration test "Should schedule jobs with partial admission", the
// Job's side: admitted with 2 of its 5 pods, the Job runs with parallelism 2;
// evicted, it is suspended with its parallelism of 5 back. With
// job-completions-equal-parallelism, completions follow.
func TestPartiallyAdmittedJobRunsWithTheAdmittedCount(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		j := makeJob("train", "ns").queue("q").parallelism(5).completions(6).suspend(true).
			annotate(kueue.JobMinParallelismAnnotation, "1")
		if sync {
			j = makeJob("train", "ns").queue("q").parallelism(5).completions(5).suspend(true).
				annotate(kueue.JobMinParallelismAnnotation, "1").annotate(kueue.JobCompletionsEqualParallelismAnnotation, "true")
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
		}
		h := newHarness(t, j.obj(), h100())
		h.settle()
		if ps := h.workload().Spec.PodSets[0]; ps.Count != 5 || ptr.Deref(ps.MinCount, 0) != 1 {
			t.Fatalf("workload pod set: count %d, minCount %v; want 5 and 1", ps.Count, ps.MinCount)
		}
		h.writeWorkloadStatus(func(wl *kueue.Workload) {
			admit(wl, "h100")
			wl.Status.Admission.PodSetAssignments[0].Count = ptr.To[int32](2)
		})
		h.settle()
		got := h.job()
		wantCompletions := int32(6)
		if sync {
			wantCompletions = 2
		}
		if ptr.Deref(got.Spec.Suspend, true) || ptr.Deref(got.Spec.Parallelism, 0) != 2 || ptr.Deref(got.Spec.Completions, 0) != wantCompletions {
			t.Fatalf("sync %v: admitted with 2 pods: suspend %v, parallelism %v, completions %v; want running with 2 and %d",
				sync, got.Spec.Suspend, ptr.Deref(got.Spec.Parallelism, 0), ptr.Deref(got.Spec.Completions, 0), wantCompletions)
		}
		h.writeWorkloadStatus(func(wl *kueue.Workload) { setCondition(wl, kueue.WorkloadEvicted, kueue.WorkloadEvictedByPreemption) })
		h.settle()
		got = h.job()
		wantCompletions = 6
		if sync {
			wantCompletions = 5
		}
		if !ptr.Deref(got.Spec.Suspend, false) || ptr.Deref(got.Spec.Parallelism, 0) != 5 || ptr.Deref(got.Spec.Completions, 0) != wantCompletions {
			t.Fatalf("sync %v: evicted: suspend %v, parallelism %v, completions %v; want suspended with 5 and %d",
				sync, got.Spec.Suspend, ptr.Deref(got.Spec.Parallelism, 0), ptr.Deref(got.Spec.Completions, 0), wantCompletions)
		}
		if h.workload().Spec.PodSets[0].Count != 5 {
			t.Fatal("the restored Job was taken for an edit and its Workload replaced")
		}
	}
}

// A Job without the annotation keeps its parallelism whatever the admission
// says, as Kueue's RunWithPodSetsInfo does.
func TestJobWithoutMinParallelismKeepsItsParallelism(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").parallelism(5).suspend(true).obj(), h100())
	h.settle()
	h.writeWorkloadStatus(func(wl *kueue.Workload) {
		admit(wl, "h100")
		wl.Status.Admission.PodSetAssignments[0].Count = ptr.To[int32](2)
	})
	h.settle()
	if got := h.job(); ptr.Deref(got.Spec.Parallelism, 0) != 5 {
		t.Fatalf("parallelism %d; want 5", ptr.Deref(got.Spec.Parallelism, 0))
	}
}

// Kueue's integration test, first steps: adding the annotation to a pending
// Job replaces its Workload with one that has the minCount.
func TestAddingMinParallelismReplacesThePendingWorkload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").parallelism(5).completions(6).suspend(true).obj())
	h.settle()
	if h.workload().Spec.PodSets[0].MinCount != nil {
		t.Fatal("minCount set without the annotation")
	}
	h.updateJob(func(j *batchv1.Job) { j.Annotations = map[string]string{kueue.JobMinParallelismAnnotation: "1"} })
	h.settle()
	if got := h.workload().Spec.PodSets[0].MinCount; ptr.Deref(got, 0) != 1 {
		t.Fatalf("minCount %v after the annotation was added; want 1", got)
	}
}
