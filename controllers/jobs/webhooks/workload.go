package webhooks

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// PriorityBoost is Kueue's PriorityBoost gate: with it on, the
	// kueue.x-k8s.io/priority-boost annotation must be a signed integer.
	PriorityBoost bool
}

var _ admission.Validator[*kueue.Workload] = (*WorkloadWebhook)(nil)

// ValidateCreate refuses a pod set whose containers request the reserved
// "pods" resource, and warns about a missing LocalQueue.
func (w *WorkloadWebhook) ValidateCreate(ctx context.Context, wl *kueue.Workload) (admission.Warnings, error) {
	if err := w.invalid(wl); err != nil {
		return nil, err
	}
	return w.missingLocalQueue(ctx, wl), nil
}

// ValidateUpdate refuses what ValidateCreate refuses, and warns only when the
// queue changes, so that the core's frequent status writes are not answered
// with the same warning again and again.
func (w *WorkloadWebhook) ValidateUpdate(ctx context.Context, old, wl *kueue.Workload) (admission.Warnings, error) {
	if err := w.invalid(wl); err != nil {
		return nil, err
	}
	if old.Spec.QueueName == wl.Spec.QueueName && old.Labels[kueue.QueueNameLabel] == wl.Labels[kueue.QueueNameLabel] {
		return nil, nil
	}
	return w.missingLocalQueue(ctx, wl), nil
}

// invalid is the webhook's refusals: a pod set requesting "pods", and with
// the PriorityBoost gate on a priority-boost annotation that is no signed
// 32-bit integer (Kueue's workload webhook; the empty string too: "0" says
// no boost).
func (w *WorkloadWebhook) invalid(wl *kueue.Workload) error {
	if err := podsRequestedError(wl); err != nil {
		return err
	}
	if !w.PriorityBoost {
		return nil
	}
	if _, err := kueue.PriorityBoost(wl.Annotations); err != nil {
		v := wl.Annotations[kueue.PriorityBoostAnnotation]
		msg := "must be a valid signed integer"
		if v == "" {
			msg += "; use \"0\" explicitly, empty string is not allowed"
		}
		path := field.NewPath("metadata", "annotations").Key(kueue.PriorityBoostAnnotation)
		return apierrors.NewInvalid(kueue.GroupVersion.WithKind("Workload").GroupKind(), wl.Name, field.ErrorList{field.Invalid(path, v, msg)})
	}
	return nil
}

// podsRequestedError is Kueue's validateContainer: no container or init
// container may request the "pods" resource, which Kueue counts itself
// (a ClusterQueue's pods quota is one per pod). CEL cannot say it: the
// API server's cost estimate for a rule over every container of a pod
// template is over its budget.
func podsRequestedError(wl *kueue.Workload) error {
	var errs field.ErrorList
	for i := range wl.Spec.PodSets {
		spec := &wl.Spec.PodSets[i].Template.Spec
		base := field.NewPath("spec", "podSets").Index(i).Child("template", "spec")
		for _, list := range []struct {
			name       string
			containers []corev1.Container
		}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
			for ci := range list.containers {
				if _, ok := list.containers[ci].Resources.Requests[corev1.ResourcePods]; ok {
					errs = append(errs, field.Invalid(base.Child(list.name).Index(ci).Child("resources", "requests").Key(string(corev1.ResourcePods)),
						corev1.ResourcePods, "the key is reserved for internal kueue use"))
				}
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(kueue.GroupVersion.WithKind("Workload").GroupKind(), wl.Name, errs)
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
