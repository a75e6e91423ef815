package webhooks

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: kueue.GroupVersion.Group, Kind: "ClusterQueue"}, cq.Name, errs)
}
