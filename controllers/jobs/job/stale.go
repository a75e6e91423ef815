package job

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// InjectedAnnotation marks a Job whose pod template carries an admitted
// flavor's nodeSelector and tolerations. It is set with the injection and removed
// with the restoration, so that while it is present a difference between the
// Job's template and its Workload's pod set is Quokka's own doing, not a user's
// edit: eviction takes two writes (suspend, then restore), and in between the
// core may already have cleared the admission.
const InjectedAnnotation = "quokka.dev/flavor-injected"

// setInjected sets or removes InjectedAnnotation and reports a change.
func setInjected(job *batchv1.Job, injected bool) bool {
	_, has := job.Annotations[InjectedAnnotation]
	switch {
	case injected && !has:
		if job.Annotations == nil {
			job.Annotations = map[string]string{}
		}
		job.Annotations[InjectedAnnotation] = "true"
		return true
	case !injected && has:
		delete(job.Annotations, InjectedAnnotation)
		return true
	}
	return false
}

// isStale reports whether a pending Workload no longer describes its Job: the
// Job's parallelism, its minimum parallelism annotation, its maximum execution
// time label, or its nodeSelector or
// tolerations (mutable while the Job is suspended), changed after the Workload
// was made. Only a Workload without quota can be replaced, and only while the
// template is the user's own.
func isStale(job *batchv1.Job, wl *kueue.Workload) (bool, string) {
	if wl.Status.Admission != nil || !ptr.Deref(job.Spec.Suspend, false) {
		return false, ""
	}
	if _, injected := job.Annotations[InjectedAnnotation]; injected {
		return false, ""
	}
	ps := mainPodSet(wl)
	if ps == nil {
		return true, "no pod set main"
	}
	if n := kueue.JobPodCount(job); n != ps.Count {
		return true, fmt.Sprintf("pod count changed from %d to %d", ps.Count, n)
	}
	if m, was := ptr.Deref(minPodCount(job), 0), ptr.Deref(ps.MinCount, 0); m != was {
		return true, fmt.Sprintf("minimum parallelism changed from %d to %d", was, m)
	}
	if m, was := ptr.Deref(MaxExecutionTime(job), 0), ptr.Deref(wl.Spec.MaximumExecutionTimeSeconds, 0); m != was {
		return true, fmt.Sprintf("maximum execution time changed from %ds to %ds", was, m)
	}
	spec, was := job.Spec.Template.Spec, ps.Template.Spec
	if !equality.Semantic.DeepEqual(emptyToNil(spec.NodeSelector), emptyToNil(was.NodeSelector)) ||
		!equality.Semantic.DeepEqual(tolerationsOrNil(spec.Tolerations), tolerationsOrNil(was.Tolerations)) {
		return true, "nodeSelector or tolerations changed"
	}
	return false, ""
}
