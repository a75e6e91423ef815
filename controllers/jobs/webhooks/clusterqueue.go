package webhooks

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// ClusterQueueWebhook rejects what a ClusterQueue's schema cannot know because it
// depends on the manager's Configuration: with fair sharing on, borrowWithinCohort
// must stay Never (002: "borrowWithinCohort is classic-only"; "borrowWithinCohort
// combined with fair sharing ... is rejected").
type ClusterQueueWebhook struct {
	Config *configapi.Configuration
}

var _ admission.Validator[*kueue.ClusterQueue] = (*ClusterQueueWebhook)(nil)

// ValidateCreate applies the Configuration's rules.
func (w *ClusterQueueWebhook) ValidateCreate(_ context.Context, cq *kueue.ClusterQueue) (admission.Warnings, error) {
	return nil, w.validate(cq)
}

// ValidateUpdate applies the Configuration's rules to the new object.
func (w *ClusterQueueWebhook) ValidateUpdate(_ context.Context, _, cq *kueue.ClusterQueue) (admission.Warnings, error) {
	return nil, w.validate(cq)
}

// ValidateDelete allows every deletion.
func (w *ClusterQueueWebhook) ValidateDelete(context.Context, *kueue.ClusterQueue) (admission.Warnings, error) {
	return nil, nil
}

func (w *ClusterQueueWebhook) validate(cq *kueue.ClusterQueue) error {
	errs := w.Config.ValidateClusterQueue(cq)
	errs = append(errs, validateClusterQueueNames(cq)...)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: kueue.GroupVersion.Group, Kind: "ClusterQueue"}, cq.Name, errs)
}

// validateClusterQueueNames is the part of Kueue's ClusterQueue webhook that
// the CRD's schema cannot say (a pattern does not apply to corev1's
// ResourceName, and CEL has no qualified-name check): resource names are
// qualified names, and the namespaceSelector is a valid label selector.
func validateClusterQueueNames(cq *kueue.ClusterQueue) field.ErrorList {
	errs := validateResourceNames(cq.Spec.ResourceGroups, field.NewPath("spec", "resourceGroups"))
	if sel := cq.Spec.NamespaceSelector; sel != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{},
			field.NewPath("spec", "namespaceSelector"))...)
	}
	return errs
}

// validateResourceNames refuses resource names that are not qualified names,
// in coveredResources and in every flavor's resources, as Kueue's
// validateResourceGroups does for ClusterQueues and Cohorts alike.
func validateResourceNames(groups []kueue.ResourceGroup, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	qualified := func(p *field.Path, name corev1.ResourceName) {
		for _, msg := range validation.IsQualifiedName(string(name)) {
			errs = append(errs, field.Invalid(p, name, msg))
		}
	}
	for i, g := range groups {
		for j, r := range g.CoveredResources {
			qualified(path.Index(i).Child("coveredResources").Index(j), r)
		}
		for j, f := range g.Flavors {
			for k, r := range f.Resources {
				qualified(path.Index(i).Child("flavors").Index(j).Child("resources").Index(k).Child("name"), r.Name)
			}
		}
	}
	return errs
}
