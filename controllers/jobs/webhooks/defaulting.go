package webhooks

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/job"
)

// Jobs created without the queue-name label, as Kueue v0.17's job webhook
// handles them (its ApplyDefaultLocalQueue and ApplyDefaultForSuspend):
//
//   - in a namespace with a LocalQueue named "default", the Job gets the
//     label kueue.x-k8s.io/queue-name: default (Kueue's LocalQueueDefaulting,
//     GA and always on in v0.17), and so is managed like any labelled Job;
//   - otherwise, with the Configuration's manageJobsWithoutQueueName, a Job
//     in a namespace managedJobsNamespaceSelector matches is suspended, and
//     the Job integration gives it a Workload with no LocalQueue, which waits
//     until a queue-name label is added;
//   - a Job whose controller is itself a Job (a kind the integration
//     manages) is left alone: its parent is the one queued.

// DefaultLocalQueue is the LocalQueue a Job without the queue-name label is
// sent to when its namespace has one of that name (Kueue's
// DefaultLocalQueueName).
const DefaultLocalQueue = "default"

// ownerManaged tells whether the Job's controller is of a kind the Job
// integration manages, whose Workload then stands for both.
func ownerManaged(j *batchv1.Job) bool {
	ref := metav1.GetControllerOf(j)
	return ref != nil && ref.APIVersion == batchv1.SchemeGroupVersion.String() && ref.Kind == "Job"
}

// hasDefaultLocalQueue tells whether namespace has a LocalQueue named
// "default".
func hasDefaultLocalQueue(ctx context.Context, c client.Reader, namespace string) (bool, error) {
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: DefaultLocalQueue}, &kueue.LocalQueue{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("looking up LocalQueue %s/%s: %w", namespace, DefaultLocalQueue, err)
	}
}

// defaultLocalQueue labels a Job that names no LocalQueue with the
// namespace's "default" one, when there is one and managedJobsNamespaceSelector
// matches the namespace (Kueue's ApplyDefaultLocalQueue: Kueue manages no Job
// elsewhere, so it gives none a queue there).
func (w *JobWebhook) defaultLocalQueue(ctx context.Context, j *batchv1.Job) error {
	if job.QueueName(j) != "" || ownerManaged(j) {
		return nil
	}
	ok, err := hasDefaultLocalQueue(ctx, w.Client, j.Namespace)
	if err != nil || !ok {
		return err
	}
	if managed, err := namespaceManaged(ctx, w.Client, w.ManagedNamespaces, j.Namespace); err != nil || !managed {
		return err
	}
	if j.Labels == nil {
		j.Labels = map[string]string{}
	}
	j.Labels[kueue.QueueNameLabel] = DefaultLocalQueue
	return nil
}

// shouldSuspend is Kueue's WorkloadShouldBeSuspended for a Job being
// created: one that names a LocalQueue, or, with manageJobsWithoutQueueName,
// one in a managed namespace; never one whose parent is managed.
func (w *JobWebhook) shouldSuspend(ctx context.Context, j *batchv1.Job) (bool, error) {
	if ownerManaged(j) {
		return false, nil
	}
	if job.QueueName(j) != "" {
		return true, nil
	}
	if !w.ManageJobsWithoutQueueName {
		return false, nil
	}
	return namespaceManaged(ctx, w.Client, w.ManagedNamespaces, j.Namespace)
}

// namespaceManaged tells whether the selector matches the namespace's labels
// (a nil selector matches every namespace).
func namespaceManaged(ctx context.Context, c client.Reader, sel labels.Selector, namespace string) (bool, error) {
	if sel == nil {
		return true, nil
	}
	ns := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, fmt.Errorf("getting namespace %s: %w", namespace, err)
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

// validateQueueNameKept is Kueue's rule that a Job's queue-name label may not
// be removed in a namespace with a "default" LocalQueue (the Job would only
// get it back).
func (w *JobWebhook) validateQueueNameKept(ctx context.Context, old, j *batchv1.Job) (field.ErrorList, error) {
	if job.QueueName(j) != "" || job.QueueName(old) == "" {
		return nil, nil
	}
	ok, err := hasDefaultLocalQueue(ctx, w.Client, old.Namespace)
	if err != nil || !ok {
		return nil, err
	}
	return field.ErrorList{field.Invalid(queueLabelPath, "", "queue-name must not be empty in namespace with default queue")}, nil
}

// defaultPriorityClass labels a Job created without the priority-class label
// with the WorkloadPriorityClass named "default", when there is one (Kueue's
// ApplyDefaultWorkloadPriorityClass, behind its WorkloadPriorityClassDefaulting
// gate, on by default since v0.20). The label then decides the Workload's
// priority as a label set by the Job's author does, ahead of a pod priority
// class. A Job whose parent is managed is left alone, as its parent is the
// one queued. Kueue applies it to every Job its webhook sees, managed or not;
// so does this one. A failed lookup leaves the Job unlabelled, as in Kueue.
func (w *JobWebhook) defaultPriorityClass(ctx context.Context, j *batchv1.Job) error {
	if !w.DefaultPriorityClass || j.Labels[kueue.PriorityClassLabel] != "" || ownerManaged(j) {
		return nil
	}
	err := w.Client.Get(ctx, client.ObjectKey{Name: kueue.DefaultWorkloadPriorityClass}, &kueue.WorkloadPriorityClass{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		// As Kueue: the Job is created without the label rather than
		// refused for a lookup that failed.
		log.FromContext(ctx).V(2).Error(err, "looking up the default WorkloadPriorityClass", "job", client.ObjectKeyFromObject(j))
		return nil
	}
	if j.Labels == nil {
		j.Labels = map[string]string{}
	}
	j.Labels[kueue.PriorityClassLabel] = kueue.DefaultWorkloadPriorityClass
	return nil
}
