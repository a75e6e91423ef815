package webhooks

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// WorkloadWebhook warns when a Workload names a LocalQueue that does not exist,
// in spec.queueName or, for Workloads written by hand, in the queue-name label.
type WorkloadWebhook struct {
	// Client reads LocalQueues.
	Client client.Reader
}

var _ admission.Validator[*kueue.Workload] = (*WorkloadWebhook)(nil)

// ValidateCreate warns about a missing LocalQueue.
func (w *WorkloadWebhook) ValidateCreate(ctx context.Context, wl *kueue.Workload) (admission.Warnings, error) {
	return w.missingLocalQueue(ctx, wl), nil
}

// ValidateUpdate warns only when the queue changes, so that the core's frequent
// status writes are not answered with the same warning again and again.
func (w *WorkloadWebhook) ValidateUpdate(ctx context.Context, old, wl *kueue.Workload) (admission.Warnings, error) {
	if old.Spec.QueueName == wl.Spec.QueueName && old.Labels[kueue.QueueNameLabel] == wl.Labels[kueue.QueueNameLabel] {
		return nil, nil
	}
	return w.missingLocalQueue(ctx, wl), nil
}

// ValidateDelete allows every deletion.
func (w *WorkloadWebhook) ValidateDelete(context.Context, *kueue.Workload) (admission.Warnings, error) {
	return nil, nil
}

func (w *WorkloadWebhook) missingLocalQueue(ctx context.Context, wl *kueue.Workload) admission.Warnings {
	if q := string(wl.Spec.QueueName); q != "" {
		return missingLocalQueueWarning(ctx, w.Client, wl.Namespace, q, field.NewPath("spec", "queueName"))
	}
	return missingLocalQueueWarning(ctx, w.Client, wl.Namespace, wl.Labels[kueue.QueueNameLabel], queueLabelPath)
}
