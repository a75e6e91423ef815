package job

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Partial admission, as Kueue's Job integration does it: a Job with the
// kueue.x-k8s.io/job-min-parallelism annotation gets that minimum as its
// Workload's minCount; admitted with fewer pods than it asked for, it runs
// with the admitted count as its parallelism (and completions, when
// kueue.x-k8s.io/job-completions-equal-parallelism is "true"); stopped, it
// gets its parallelism back from the Workload's pod set, which keeps the
// count as submitted.

// admittedCount is the pod count of the admission's "main" pod set, 0 when
// there is none.
func admittedCount(wl *kueue.Workload) int32 {
	if wl.Status.Admission == nil {
		return 0
	}
	for _, psa := range wl.Status.Admission.PodSetAssignments {
		if psa.Name == kueue.DefaultPodSetName && psa.Count != nil {
			return *psa.Count
		}
	}
	return 0
}

// setParallelism sets the parallelism of a Job that accepts partial
// admission to count (and its completions with it, when the Job asks for
// that) and reports a change. Other Jobs, and a count of 0, are left alone.
func setParallelism(job *batchv1.Job, count int32) bool {
	if kueue.JobMinParallelism(job.Annotations) == nil || count <= 0 || ptr.Deref(job.Spec.Parallelism, 1) == count {
		return false
	}
	job.Spec.Parallelism = ptr.To(count)
	if kueue.JobCompletionsEqualParallelism(job.Annotations) {
		job.Spec.Completions = ptr.To(count)
	}
	return true
}
