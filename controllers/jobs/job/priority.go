package job

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// resolvePriority finds the Workload's priority the way Kueue does: the
// WorkloadPriorityClass of the kueue.x-k8s.io/priority-class label first, which
// lets a queue order jobs without changing pod preemption; otherwise the pods'
// PriorityClass; otherwise no class and priority 0. A class that is named but
// missing is an error, so that the Workload is not queued at the wrong priority;
// the reconciler retries, and the Workload appears once the class exists.
func resolvePriority(ctx context.Context, c client.Reader, job *batchv1.Job) (*kueue.PriorityClassRef, int32, error) {
	if name := job.Labels[kueue.PriorityClassLabel]; name != "" {
		wpc := &kueue.WorkloadPriorityClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, wpc); err != nil {
			return nil, 0, fmt.Errorf("getting WorkloadPriorityClass %q of label %s: %w", name, kueue.PriorityClassLabel, err)
		}
		return &kueue.PriorityClassRef{
			Group: kueue.WorkloadPriorityClassGroup,
			Kind:  kueue.WorkloadPriorityClassKind,
			Name:  name,
		}, wpc.Value, nil
	}
	if name := job.Spec.Template.Spec.PriorityClassName; name != "" {
		pc := &schedulingv1.PriorityClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, pc); err != nil {
			return nil, 0, fmt.Errorf("getting PriorityClass %q of the pod template: %w", name, err)
		}
		return &kueue.PriorityClassRef{
			Group: kueue.PodPriorityClassGroup,
			Kind:  kueue.PodPriorityClassKind,
			Name:  name,
		}, pc.Value, nil
	}
	return nil, 0, nil
}
