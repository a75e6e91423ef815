package webhooks

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// partialJob is Kueue's webhook test Job: parallelism and completions, the
// annotations given, Indexed when indexed.
func partialJob(suspend bool, parallelism, completions int32, indexed bool, annotations ...string) *batchv1.Job {
	j := labelledJob("a", suspend)
	j.Spec.Parallelism, j.Spec.Completions = ptr.To(parallelism), ptr.To(completions)
	if indexed {
		j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	}
	j.Annotations = map[string]string{}
	for i := 0; i+1 < len(annotations); i += 2 {
		j.Annotations[annotations[i]] = annotations[i+1]
	}
	return j
}

// Kueue: pkg/controller/jobs/job/job_webhook_test.go, the partial admission
// and sync completions cases of TestValidateCreate and TestValidateUpdate.
func TestKueueJobPartialAdmissionValidation(t *testing.T) {
	t.Parallel()
	const minP, sync = kueue.JobMinParallelismAnnotation, kueue.JobCompletionsEqualParallelismAnnotation
	w := &JobWebhook{Client: reader(&kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "research"}})}
	for _, tc := range []struct {
		name    string
		job     *batchv1.Job
		field   string
		wantErr string
	}{
		{"invalid partial admission annotation (format)", partialJob(true, 4, 6, false, minP, "NaN"), minP, "Invalid value: \"NaN\": must be a whole number"},
		{"invalid partial admission annotation (badValue)", partialJob(true, 4, 6, false, minP, "5"), minP, "should be between 0 and 3"},
		{"valid partial admission annotation", partialJob(true, 4, 6, false, minP, "3"), minP, ""},
		{"invalid sync completions annotation (format)", partialJob(true, 4, 6, true, sync, "-"), sync, "must be true or false"},
		{"valid sync completions annotation, wrong completions count", partialJob(true, 4, 6, true, sync, "true"), "spec.completions", "Invalid value: 6: should be equal to parallelism"},
		{"valid sync completions annotation, wrong job completions type (default)", partialJob(true, 4, 4, false, sync, "true"), sync, "should not be enabled for NonIndexed jobs"},
		{"valid sync completions annotation", partialJob(true, 4, 4, true, sync, "true"), sync, ""},
	} {
		t.Run("create "+tc.name, func(t *testing.T) {
			_, err := w.ValidateCreate(context.Background(), tc.job)
			checkInvalidField(t, err, tc.field, tc.wantErr)
		})
	}
	for _, tc := range []struct {
		name     string
		old, new *batchv1.Job
		field    string
		wantErr  string
	}{
		{"immutable parallelism while unsuspended with partial admission enabled",
			partialJob(false, 4, 6, false, minP, "3"), partialJob(false, 5, 6, false, minP, "3"),
			"spec.parallelism", "Forbidden: cannot change when partial admission is enabled and the job is not suspended"},
		{"mutable parallelism while suspended with partial admission enabled",
			partialJob(true, 4, 6, false, minP, "3"), partialJob(true, 5, 6, false, minP, "3"), "", ""},
		{"immutable sync completion annotation while unsuspended",
			partialJob(false, 4, 6, false, sync, "true"), partialJob(false, 5, 6, false, sync, "false"),
			sync, "Forbidden: field is immutable while the job is not suspended"},
		{"mutable sync completion annotation while suspended",
			partialJob(true, 4, 6, false, sync, "true"), partialJob(false, 5, 6, false, sync, "false"), "", ""},
		// Kueue's integration tests (test/integration/singlecluster/webhook/
		// jobs/job_webhook_test.go): the Job integration unsuspends with the
		// admitted parallelism, which may be the minimum or, after pods
		// succeeded, below it; the annotation, unchanged, is not checked again.
		{"should allow unsuspending a partially admissible job with its minimum parallelism",
			partialJob(true, 6, 6, false, minP, "4"), partialJob(false, 4, 6, false, minP, "4"), "", ""},
		{"should allow unsuspending a partially admissible job with a parallelism lower then minimum",
			partialJob(true, 6, 6, false, minP, "4"), partialJob(false, 3, 6, false, minP, "4"), "", ""},
		{"a changed annotation is checked as on creation",
			partialJob(true, 4, 6, false, minP, "3"), partialJob(true, 4, 6, false, minP, "4"), minP, "should be between 0 and 3"},
	} {
		t.Run("update "+tc.name, func(t *testing.T) {
			_, err := w.ValidateUpdate(context.Background(), tc.old, tc.new)
			checkInvalidField(t, err, tc.field, tc.wantErr)
		})
	}
}
