package job

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Which Jobs the integration manages, and their queue: none in a namespace
// managedJobsNamespaceSelector does not match, labelled or not (Kueue's
// ManagedJobsNamespaceSelectorAlwaysRespected, on by default in v0.17 and GA
// since v0.19); elsewhere a Job that names a LocalQueue in the
// kueue.x-k8s.io/queue-name label, and with the Configuration's
// manageJobsWithoutQueueName also one without the label (its Workload names
// no LocalQueue and waits), unless its controller is a Job, whose Workload
// stands for both (Kueue's JobReconciler).

// manages tells whether the reconciler manages the Job.
func (r *Reconciler) manages(ctx context.Context, job *batchv1.Job) (bool, error) {
	if r.ManagedNamespaces != nil {
		ns := &corev1.Namespace{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: job.Namespace}, ns); apierrors.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("getting namespace %s: %w", job.Namespace, err)
		}
		if !r.ManagedNamespaces.Matches(labels.Set(ns.Labels)) {
			return false, nil
		}
	}
	if IsManaged(job) {
		return true, nil
	}
	return r.ManageJobsWithoutQueueName && !controlledByJob(job), nil
}

// controlledByJob tells whether the Job's controller is a Job.
func controlledByJob(job *batchv1.Job) bool {
	ref := metav1.GetControllerOf(job)
	return ref != nil && ref.APIVersion == jobGVK.GroupVersion().String() && ref.Kind == jobGVK.Kind
}

// syncQueueName moves the Workload of a suspended Job without quota to the
// LocalQueue the Job's label now names, as Kueue's job framework does (a
// label added to a Job managed without one, or changed before admission);
// it tells whether it wrote. The Workload keeps its creation time, and so its
// place in FIFO order.
func (r *Reconciler) syncQueueName(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) (bool, error) {
	q := kueue.LocalQueueName(QueueName(job))
	if wl.Spec.QueueName == q || wl.Status.Admission != nil || !ptr.Deref(job.Spec.Suspend, false) {
		return false, nil
	}
	from := wl.Spec.QueueName
	wl.Spec.QueueName = q
	if err := r.Client.Update(ctx, wl); err != nil {
		return false, fmt.Errorf("moving workload %s/%s from LocalQueue %q to %q: %w", wl.Namespace, wl.Name, from, q, err)
	}
	log.FromContext(ctx).V(2).Info("job changed queues", "workload", wl.Name, "from", from, "to", q)
	return true, nil
}
