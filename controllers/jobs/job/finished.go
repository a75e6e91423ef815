package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Reasons of the Workload's Finished condition, Kueue's values.
const (
	FinishedReasonSucceeded = "Succeeded"
	FinishedReasonFailed    = "Failed"
)

// finishedCondition maps a Job's terminal condition to the Workload's Finished
// condition, which tells the core to release the quota. ok is false while the
// Job runs: only JobComplete or JobFailed with status True end it.
func finishedCondition(job *batchv1.Job, generation int64) (cond metav1.Condition, ok bool) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return metav1.Condition{
				Type:               kueue.WorkloadFinished,
				Status:             metav1.ConditionTrue,
				Reason:             FinishedReasonSucceeded,
				Message:            "Job finished successfully",
				ObservedGeneration: generation,
			}, true
		case batchv1.JobFailed:
			msg := c.Message
			if msg == "" {
				msg = "Job failed"
			}
			return metav1.Condition{
				Type:               kueue.WorkloadFinished,
				Status:             metav1.ConditionTrue,
				Reason:             FinishedReasonFailed,
				Message:            msg,
				ObservedGeneration: generation,
			}, true
		}
	}
	return metav1.Condition{}, false
}
