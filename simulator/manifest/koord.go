package manifest

import (
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/elasticquota"
)

// IsKoordUnit reports whether a job (a Workload, or the Workload that stands for a
// batch/v1 Job) is queued by Koord-Queue rather than Kueue: it carries the label
// quota.scheduling.koordinator.sh/name or Koord-Queue's fallback label
// alibabacloud.com/quota-name (even with an empty value, which Koord-Queue reads
// as no quota) and names no LocalQueue, neither through the label
// kueue.x-k8s.io/queue-name nor through spec.queueName. A job that names a
// LocalQueue stays with Kueue, whatever its other labels. Whether Koord-Queue
// then queues a Job depends on how it was created (elasticquota.RouteJob).
func IsKoordUnit(wl *kueue.Workload) bool {
	return hasQuotaLabel(wl.Labels) && wl.Labels[kueue.QueueNameLabel] == "" && wl.Spec.QueueName == ""
}

// hasQuotaLabel reports whether labels carry one of Koord-Queue's quota labels.
func hasQuotaLabel(labels map[string]string) bool {
	_, main := labels[koordv1alpha1.QuotaNameLabel]
	_, fallback := labels[elasticquota.FallbackQuotaNameLabel]
	return main || fallback
}

// validateQueue checks a Koord-Queue Queue. Koord-Queue lists Queues in its own
// namespace only, so a Queue elsewhere would be silently ignored by it: the
// simulator says so instead.
func validateQueue(q *queuev1alpha1.Queue) field.ErrorList {
	errs := validateRequiredName(q.Name, false)
	if q.Namespace != queuev1alpha1.DefaultQueueNamespace {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), q.Namespace,
			"Koord-Queue reads Queues in namespace "+queuev1alpha1.DefaultQueueNamespace+" only"))
	}
	return errs
}

// validateQueueUnit checks a QueueUnit that stands on its own: its name, its
// labels and spec.resource, the request Koord-Queue charges.
func validateQueueUnit(qu *queuev1alpha1.QueueUnit) field.ErrorList {
	errs := validateRequiredName(qu.Name, false)
	errs = append(errs, metav1validation.ValidateLabels(qu.Labels, field.NewPath("metadata", "labels"))...)
	spec := field.NewPath("spec")
	errs = append(errs, validateResourceList(qu.Spec.Resource, 64, spec.Child("resource"))...)
	return append(errs, validateResourceList(qu.Spec.Request, 64, spec.Child("request"))...)
}
