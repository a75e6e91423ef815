package v1beta2

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Jobs without a queue name, as Kueue v0.17 handles them: with
// manageJobsWithoutQueueName, a Job without the kueue.x-k8s.io/queue-name
// label in a namespace that managedJobsNamespaceSelector matches is suspended
// at creation and gets a Workload with no LocalQueue, which waits until the
// label is added; the selector defaults to every namespace but kube-system
// and the manager's own, which it may never match.

var managedJobsNamespaceSelectorPath = field.NewPath("managedJobsNamespaceSelector")

// setManagedJobsDefaults defaults managedJobsNamespaceSelector as Kueue does:
// every namespace but kube-system and the manager's.
func setManagedJobsDefaults(c *Configuration) {
	if c.ManagedJobsNamespaceSelector != nil {
		return
	}
	c.ManagedJobsNamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key:      corev1.LabelMetadataName,
		Operator: metav1.LabelSelectorOpNotIn,
		Values:   []string{metav1.NamespaceSystem, *c.Namespace},
	}}}
}

// validateManagedJobs checks managedJobsNamespaceSelector as Kueue does: a
// valid label selector that does not match kube-system or the manager's
// namespace (so that system Jobs are never suspended).
func validateManagedJobs(c *Configuration) field.ErrorList {
	sel := c.ManagedJobsNamespaceSelector
	if sel == nil {
		return nil
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, managedJobsNamespaceSelectorPath)
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return errs
	}
	prohibited := []string{metav1.NamespaceSystem}
	if c.Namespace != nil && *c.Namespace != "" {
		prohibited = append(prohibited, *c.Namespace)
	}
	for _, ns := range prohibited {
		if selector.Matches(labels.Set{corev1.LabelMetadataName: ns}) {
			errs = append(errs, field.Invalid(managedJobsNamespaceSelectorPath, sel, fmt.Sprintf("should not match the %q namespace", ns)))
		}
	}
	return errs
}

// LocalQueueMetricsEnabled tells whether the LocalQueue gauges are exported:
// the LocalQueueMetrics gate and metrics.localQueueMetrics.enable, as Kueue's
// LocalQueueMetricsConfig.IsEnabled.
func (c *Configuration) LocalQueueMetricsEnabled() bool {
	lq := c.Metrics.LocalQueueMetrics
	return c.FeatureGate(FeatureLocalQueueMetrics) && (lq == nil || lq.Enable)
}

// LocalQueueMetricsSelector is metrics.localQueueMetrics.localQueueSelector
// as a selector, nil when unset (every LocalQueue). Call it on a validated
// Configuration.
func (c *Configuration) LocalQueueMetricsSelector() labels.Selector {
	lq := c.Metrics.LocalQueueMetrics
	if lq == nil || lq.LocalQueueSelector == nil {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(lq.LocalQueueSelector)
	if err != nil {
		return labels.Nothing()
	}
	return s
}

// ManagedNamespaces is managedJobsNamespaceSelector as a selector, for the
// job integrations (nil when unset, which matches every namespace). Call it on
// a validated Configuration.
func (c *Configuration) ManagedNamespaces() labels.Selector {
	if c.ManagedJobsNamespaceSelector == nil {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(c.ManagedJobsNamespaceSelector)
	if err != nil {
		return labels.Nothing()
	}
	return s
}
