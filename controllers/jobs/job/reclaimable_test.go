package job

import (
	"context"
	"reflect"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue: pkg/controller/jobs/job/job_controller_test.go, TestReclaimablePods
// (its four Indexed cases, main branch of August 2026), and Job.ReclaimablePods'
// rules for NonIndexed Jobs (v0.17.0): parallelism less the remaining
// completions once some pod is terminal and fewer remain than run at once.
func TestKueueReclaimablePods(t *testing.T) {
	indexed := func(succeeded, failed int32, completed, failedIndexes string) *batchv1.Job {
		j := makeJob("job", "ns").parallelism(8).completions(8).obj()
		j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
		j.Status.Succeeded, j.Status.Failed = succeeded, failed
		j.Status.CompletedIndexes = completed
		if failedIndexes != "" {
			j.Spec.BackoffLimitPerIndex = ptr.To[int32](0)
			j.Status.FailedIndexes = ptr.To(failedIndexes)
		}
		return j
	}
	retryable := indexed(1, 1, "0", "")
	retryable.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
	nonIndexed := func(parallelism, completions, succeeded int32) *batchv1.Job {
		j := makeJob("job", "ns").parallelism(parallelism).completions(completions).obj()
		j.Status.Succeeded = succeeded
		return j
	}
	main := func(n int32) []kueue.ReclaimablePod {
		return []kueue.ReclaimablePod{{Name: kueue.DefaultPodSetName, Count: n}}
	}
	cases := []struct {
		name string
		job  *batchv1.Job
		want []kueue.ReclaimablePod
	}{
		{"indexed Job reclaims its completed indexes", indexed(4, 0, "0-3", ""), main(4)},
		{"indexed Job holds quota for a retryable failure", retryable, main(1)},
		{"indexed Job reclaims completed and failed indexes", indexed(1, 1, "0", "1"), main(2)},
		{"indexed Job with empty terminal indexes holds quota", indexed(4, 0, "", ""), nil},
		{"overlapping completed and failed indexes count once", indexed(3, 1, "0-2", "2,9"), main(3)},
		// The job integration test's Job: parallelism 2, completions 5.
		{"4 of 5 completions done, 2 at once: 1 pod reclaimable", nonIndexed(2, 5, 4), main(1)},
		{"3 of 5 done: the 2 remaining still need both pods", nonIndexed(2, 5, 3), nil},
		{"nothing done yet", nonIndexed(2, 5, 0), nil},
		{"a single pod at a time never reclaims", nonIndexed(1, 5, 4), nil},
		{"every completion done", nonIndexed(3, 6, 6), main(3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := reclaimablePods(tc.job); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reclaimablePods = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Kueue's job framework writes the reclaimable pods before anything else for
// a Job with a Workload (step 4 of its reconciler): here a running Job whose
// completions advance gets status.reclaimablePods, one write per change. A
// count the API server would refuse to lower while quota is reserved (the
// Job admitted again with fewer pods) is left as it is; with the gate off
// nothing is written.
func TestRunningJobWritesItsReclaimablePods(t *testing.T) {
	t.Parallel()
	for _, gateOff := range []bool{false, true} {
		h := newHarness(t, makeJob("train", "research").queue("research-gpu").request("nvidia.com/gpu", "1").
			parallelism(4).completions(6).suspend(true).obj(), h100())
		h.r.NoReclaimablePods = gateOff
		h.settle()
		h.writeWorkloadStatus(func(wl *kueue.Workload) { admit(wl, "h100") })
		h.settle()
		setSucceeded := func(n int32) {
			t.Helper()
			j := h.job()
			j.Status.Succeeded = n
			if err := h.c.Status().Update(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			h.settle()
		}
		setSucceeded(1)
		if rp := h.workload().Status.ReclaimablePods; rp != nil {
			t.Fatalf("gate off %v: 5 of 6 to go with parallelism 4, yet reclaimable %+v", gateOff, rp)
		}
		setSucceeded(3)
		got := h.workload().Status.ReclaimablePods
		if gateOff {
			if got != nil {
				t.Fatalf("gate off: reclaimable pods written: %+v", got)
			}
			continue
		}
		if want := []kueue.ReclaimablePod{{Name: kueue.DefaultPodSetName, Count: 1}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("3 of 6 to go with parallelism 4: reclaimable %+v, want %+v", got, want)
		}
		// Admitted again with 2 pods after an eviction (partial admission
		// set the parallelism): the Job's rule says 0, the API server
		// refuses to go down while quota is reserved; it stays at 1.
		j := h.job()
		j.Spec.Parallelism = ptr.To[int32](2)
		if err := h.c.Update(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		h.settle()
		if got := h.workload().Status.ReclaimablePods; !reflect.DeepEqual(got, []kueue.ReclaimablePod{{Name: kueue.DefaultPodSetName, Count: 1}}) {
			t.Fatalf("reclaimable pods lowered while quota is reserved: %+v", got)
		}
	}
}
