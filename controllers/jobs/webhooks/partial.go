package webhooks

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// The checks of Kueue's Job webhook on partial admission's annotations
// (validatePartialAdmissionCreate, validateSyncCompletionCreate and
// validatePartialAdmissionUpdate in pkg/controller/jobs/job/job_webhook.go).

var (
	minParallelismPath    = field.NewPath("metadata", "annotations").Key(kueue.JobMinParallelismAnnotation)
	syncCompletionsPath   = field.NewPath("metadata", "annotations").Key(kueue.JobCompletionsEqualParallelismAnnotation)
	parallelismPath       = field.NewPath("spec", "parallelism")
	completionsFieldPath  = field.NewPath("spec", "completions")
	suspendedOnlyMessage  = "cannot change when partial admission is enabled and the job is not suspended"
	completionsEqualUsage = "should be equal to parallelism when " + kueue.JobCompletionsEqualParallelismAnnotation + " is true"
)

// validateMinParallelism: the minimum parallelism is a whole number from 1
// to one below the Job's pod count.
func validateMinParallelism(j *batchv1.Job) field.ErrorList {
	v, ok := j.Annotations[kueue.JobMinParallelismAnnotation]
	if !ok {
		return nil
	}
	if err := kueue.ValidateJobMinParallelism(v, kueue.JobPodCount(j)); err != nil {
		return field.ErrorList{field.Invalid(minParallelismPath, v, err.Error())}
	}
	return nil
}

// validateCompletionsEqualParallelism: the annotation is a boolean and, when
// true, only for an Indexed Job whose completions equal its parallelism.
func validateCompletionsEqualParallelism(j *batchv1.Job) field.ErrorList {
	v, ok := j.Annotations[kueue.JobCompletionsEqualParallelismAnnotation]
	if !ok {
		return nil
	}
	sync, err := strconv.ParseBool(v)
	if err != nil {
		return field.ErrorList{field.Invalid(syncCompletionsPath, v, "must be true or false")}
	}
	if !sync {
		return nil
	}
	var errs field.ErrorList
	if ptr.Deref(j.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.NonIndexedCompletion {
		errs = append(errs, field.Invalid(syncCompletionsPath, v, "should not be enabled for NonIndexed jobs"))
	}
	if ptr.Deref(j.Spec.Parallelism, 1) != ptr.Deref(j.Spec.Completions, 1) {
		errs = append(errs, field.Invalid(completionsFieldPath, ptr.Deref(j.Spec.Completions, 1), completionsEqualUsage))
	}
	return errs
}

// validatePartialAdmissionUpdate: a changed minimum parallelism is checked
// as on creation; a Job that accepts partial admission may change its
// parallelism only while suspended (its Workload counts the pods it was
// admitted with); and the completions annotation may not change on a Job
// that stays unsuspended.
func validatePartialAdmissionUpdate(old, j *batchv1.Job) field.ErrorList {
	var errs field.ErrorList
	if old.Annotations[kueue.JobMinParallelismAnnotation] != j.Annotations[kueue.JobMinParallelismAnnotation] {
		errs = append(errs, validateMinParallelism(j)...)
	}
	errs = append(errs, validateCompletionsEqualParallelism(j)...)
	if _, ok := old.Annotations[kueue.JobMinParallelismAnnotation]; ok && !ptr.Deref(old.Spec.Suspend, false) &&
		ptr.Deref(old.Spec.Parallelism, 1) != ptr.Deref(j.Spec.Parallelism, 1) {
		errs = append(errs, field.Forbidden(parallelismPath, suspendedOnlyMessage))
	}
	oldSuspended, suspended := ptr.Deref(old.Spec.Suspend, false), ptr.Deref(j.Spec.Suspend, false)
	if oldSuspended == suspended && !suspended &&
		kueue.JobCompletionsEqualParallelism(old.Annotations) != kueue.JobCompletionsEqualParallelism(j.Annotations) {
		errs = append(errs, field.Forbidden(syncCompletionsPath, apivalidation.FieldImmutableErrorMsg+" while the job is not suspended"))
	}
	return errs
}
