package webhooks

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// CohortWebhook refuses what a Cohort's schema cannot say: a resource name in
// its resourceGroups that is not a qualified name ("@cpu"). Kueue's Cohort
// webhook refuses it; a pattern does not apply to corev1's ResourceName and CEL
// has no qualified-name check. Everything else about a Cohort is the CRD's.
type CohortWebhook struct{}

var _ admission.Validator[*kueue.Cohort] = (*CohortWebhook)(nil)

// ValidateCreate checks the resource names.
func (w *CohortWebhook) ValidateCreate(_ context.Context, c *kueue.Cohort) (admission.Warnings, error) {
	return nil, validateCohort(c)
}

// ValidateUpdate checks the new object's resource names.
func (w *CohortWebhook) ValidateUpdate(_ context.Context, _, c *kueue.Cohort) (admission.Warnings, error) {
	return nil, validateCohort(c)
}

// ValidateDelete allows every deletion.
func (w *CohortWebhook) ValidateDelete(context.Context, *kueue.Cohort) (admission.Warnings, error) {
	return nil, nil
}

func validateCohort(c *kueue.Cohort) error {
	errs := validateResourceNames(c.Spec.ResourceGroups, field.NewPath("spec", "resourceGroups"))
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: kueue.GroupVersion.Group, Kind: "Cohort"}, c.Name, errs)
}
