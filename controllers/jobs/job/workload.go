package job

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// jobGVK is the kind of the Workloads' owner reference.
var jobGVK = batchv1.SchemeGroupVersion.WithKind("Job")

// IsManaged reports whether Quokka manages the Job: only Jobs that name a
// LocalQueue are queued, every other Job runs as if Quokka were not installed.
func IsManaged(job *batchv1.Job) bool {
	return QueueName(job) != ""
}

// QueueName is the LocalQueue that the Job's label names, or "".
func QueueName(job *batchv1.Job) string {
	return job.Labels[kueue.QueueNameLabel]
}

// MaxExecutionTime is the Job's kueue.x-k8s.io/max-exec-time-seconds label as
// its Workload's spec.maximumExecutionTimeSeconds: nil when the label is
// absent or not a positive integer. The webhook refuses such a label on a
// managed Job; one that got past it (created before the webhook was
// registered) runs without a maximum, as in Kueue's job framework.
func MaxExecutionTime(job *batchv1.Job) *int32 {
	v, ok := job.Labels[kueue.MaxExecTimeSecondsLabel]
	if !ok {
		return nil
	}
	n, err := kueue.ParseMaxExecTimeSeconds(v)
	if err != nil {
		return nil
	}
	return ptr.To(n)
}

// minPodCount is the pod set's minCount: the Job's
// kueue.x-k8s.io/job-min-parallelism annotation (partial admission), as
// Kueue reads it; nil when it is absent, not a number, or outside 1 to the
// pod count (the Job webhook refuses such values; a Workload with them would
// be refused too).
func minPodCount(job *batchv1.Job) *int32 {
	m := kueue.JobMinParallelism(job.Annotations)
	if m == nil || *m < 1 || *m > kueue.JobPodCount(job) {
		return nil
	}
	return m
}

// CopyLabels gives wl the Job's labels of the keys listed (Kueue's
// integrations.labelKeysToCopy); a key the Job does not have is skipped. It is
// applied when the Workload is created only: a later change of the Job's
// label is not carried over, as in Kueue.
func CopyLabels(wl *kueue.Workload, job *batchv1.Job, keys []string) {
	for _, k := range keys {
		if v, ok := job.Labels[k]; ok {
			if wl.Labels == nil {
				wl.Labels = map[string]string{}
			}
			wl.Labels[k] = v
		}
	}
}

// NewWorkload builds the Workload of a managed Job: one pod set "main" with the
// Job's pod template as submitted (before any flavor is injected, which is what
// makes it the record to restore the template from on eviction) and the
// minimum parallelism of its annotation as minCount, the queue of the Job's
// label, the priority of its class and the maximum execution time of
// its label. It reads the priority classes
// through c and does not create anything.
func NewWorkload(ctx context.Context, c client.Reader, job *batchv1.Job) (*kueue.Workload, error) {
	if len(job.UID) == 0 {
		return nil, fmt.Errorf("job %s/%s has no UID: it must be read from the API server", job.Namespace, job.Name)
	}
	ref, priority, err := resolvePriority(ctx, c, job)
	if err != nil {
		return nil, err
	}
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{
			Name:            workloadNameFor(job),
			Namespace:       job.Namespace,
			Labels:          map[string]string{JobUIDLabel: string(job.UID)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, jobGVK)},
			// Created with the finalizer, as Kueue's job framework does, so
			// that no later write is needed to add it.
			Finalizers: []string{kueue.ResourceInUseFinalizerName},
		},
		Spec: kueue.WorkloadSpec{
			PodSets: []kueue.PodSet{{
				Name:     kueue.DefaultPodSetName,
				Template: *job.Spec.Template.DeepCopy(),
				Count:    kueue.JobPodCount(job),
				MinCount: minPodCount(job),
			}},
			QueueName:                   kueue.LocalQueueName(QueueName(job)),
			PriorityClassRef:            ref,
			Priority:                    &priority,
			MaximumExecutionTimeSeconds: MaxExecutionTime(job),
		},
	}
	return wl, nil
}
