package manifest

import (
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// IsKoordUnit reports whether a job (a Workload, or the Workload that stands for a
// batch/v1 Job) is queued by Koord-Queue rather than Kueue: it carries the label
// quota.scheduling.koordinator.sh/name (even with an empty value, which Koord-Queue
// reads as no quota) and names no LocalQueue, neither through the label
// kueue.x-k8s.io/queue-name nor through spec.queueName. A job that names a
// LocalQueue stays with Kueue, whatever its other labels.
func IsKoordUnit(wl *kueue.Workload) bool {
	_, quota := wl.Labels[koordv1alpha1.QuotaNameLabel]
	return quota && wl.Labels[kueue.QueueNameLabel] == "" && wl.Spec.QueueName == ""
}

// hasQuotaLabel reports whether labels carry the Koord-Queue quota label.
func hasQuotaLabel(labels map[string]string) bool {
	_, ok := labels[koordv1alpha1.QuotaNameLabel]
	return ok
}
