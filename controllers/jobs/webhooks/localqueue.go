package webhooks

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// LocalQueueWebhook warns when a LocalQueue points at a ClusterQueue that does
// not exist. The CRD's CEL rules cannot see other objects, so this is the only
// place the mistake can be reported at apply time.
type LocalQueueWebhook struct {
	// Client reads ClusterQueues.
	Client client.Reader
}

var _ admission.Validator[*kueue.LocalQueue] = (*LocalQueueWebhook)(nil)

// ValidateCreate warns about a missing ClusterQueue.
func (w *LocalQueueWebhook) ValidateCreate(ctx context.Context, lq *kueue.LocalQueue) (admission.Warnings, error) {
	return w.missingClusterQueue(ctx, lq), nil
}

// ValidateUpdate warns about a missing ClusterQueue; spec.clusterQueue itself is
// immutable through CEL.
func (w *LocalQueueWebhook) ValidateUpdate(ctx context.Context, _, lq *kueue.LocalQueue) (admission.Warnings, error) {
	return w.missingClusterQueue(ctx, lq), nil
}

// ValidateDelete allows every deletion.
func (w *LocalQueueWebhook) ValidateDelete(context.Context, *kueue.LocalQueue) (admission.Warnings, error) {
	return nil, nil
}

func (w *LocalQueueWebhook) missingClusterQueue(ctx context.Context, lq *kueue.LocalQueue) admission.Warnings {
	name := string(lq.Spec.ClusterQueue)
	if name == "" {
		return nil
	}
	err := w.Client.Get(ctx, client.ObjectKey{Name: name}, &kueue.ClusterQueue{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return admission.Warnings{fmt.Sprintf("spec.clusterQueue: ClusterQueue %q does not exist; workloads of LocalQueue %s/%s stay pending until it is created", name, lq.Namespace, lq.Name)}
	default:
		return admission.Warnings{fmt.Sprintf("spec.clusterQueue: could not check that ClusterQueue %q exists: %v", name, err)}
	}
}
