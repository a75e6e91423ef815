// Package webhooks holds the admission webhooks of the job integration: the
// mutating webhook that suspends managed Jobs at creation, and validating
// webhooks for the checks that CEL on one object cannot make (another object must
// be read). Checks that find a missing object only warn, as Kueue's do: objects
// may be applied in any order, and a LocalQueue or ClusterQueue created later
// makes the object work.
package webhooks

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/job"
)

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=localqueues;clusterqueues;workloads,verbs=get;list;watch

// queueLabelPath is the field path of the queue-name label in error messages.
var queueLabelPath = field.NewPath("metadata", "labels").Key(kueue.QueueNameLabel)

// JobWebhook suspends and validates batch/v1 Jobs.
type JobWebhook struct {
	// Client reads LocalQueues, Namespaces and Workloads.
	Client client.Reader
	// ManageJobsWithoutQueueName and ManagedNamespaces are the
	// Configuration's manageJobsWithoutQueueName and
	// managedJobsNamespaceSelector (see defaulting.go).
	ManageJobsWithoutQueueName bool
	ManagedNamespaces          labels.Selector
	// DefaultPriorityClass is Kueue's WorkloadPriorityClassDefaulting gate
	// (see defaulting.go).
	DefaultPriorityClass bool
}

var (
	_ admission.Defaulter[*batchv1.Job] = (*JobWebhook)(nil)
	_ admission.Validator[*batchv1.Job] = (*JobWebhook)(nil)
)

// Default suspends a Job that names a LocalQueue, so that no pod starts before
// its Workload is admitted; the Job controller unsuspends it on admission. A
// Job without the label first gets the namespace's "default" LocalQueue, if
// any, and is suspended without one when the Configuration manages such Jobs
// (see defaulting.go). The webhook is called on create only.
func (w *JobWebhook) Default(ctx context.Context, j *batchv1.Job) error {
	if err := w.defaultLocalQueue(ctx, j); err != nil {
		return err
	}
	if err := w.defaultPriorityClass(ctx, j); err != nil {
		return err
	}
	suspend, err := w.shouldSuspend(ctx, j)
	if err != nil {
		return err
	}
	if suspend {
		j.Spec.Suspend = ptr.To(true)
	}
	return nil
}

// maxExecTimeLabelPath is the field path of the maximum execution time label.
var maxExecTimeLabelPath = field.NewPath("metadata", "labels").Key(kueue.MaxExecTimeSecondsLabel)

// ValidateCreate rejects a managed Job whose maximum execution time label is
// not a positive integer, as Kueue does, and warns when the Job names a
// LocalQueue that does not exist.
func (w *JobWebhook) ValidateCreate(ctx context.Context, j *batchv1.Job) (admission.Warnings, error) {
	if job.IsManaged(j) {
		var errs field.ErrorList
		if v, ok := j.Labels[kueue.MaxExecTimeSecondsLabel]; ok {
			if _, err := kueue.ParseMaxExecTimeSeconds(v); err != nil {
				errs = append(errs, field.Invalid(maxExecTimeLabelPath, v, err.Error()))
			}
		}
		errs = append(errs, validateMinParallelism(j)...)
		errs = append(errs, validateCompletionsEqualParallelism(j)...)
		if len(errs) > 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}, j.Name, errs)
		}
	}
	return missingLocalQueueWarning(ctx, w.Client, j.Namespace, job.QueueName(j), queueLabelPath), nil
}

// ValidateUpdate rejects a change of the queue-name label while the Job runs
// or its Workload holds quota (the quota was charged to the old queue's
// ClusterQueue, and moving the Job would charge the wrong one), and its
// removal in a namespace with a "default" LocalQueue.
func (w *JobWebhook) ValidateUpdate(ctx context.Context, old, j *batchv1.Job) (admission.Warnings, error) {
	// The maximum execution time counts from the admission: it may change
	// only while the Job stays suspended, as in Kueue.
	if job.IsManaged(j) && (!ptr.Deref(j.Spec.Suspend, false) || !ptr.Deref(old.Spec.Suspend, false)) {
		if errs := apivalidation.ValidateImmutableField(j.Labels[kueue.MaxExecTimeSecondsLabel],
			old.Labels[kueue.MaxExecTimeSecondsLabel], maxExecTimeLabelPath); len(errs) > 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}, j.Name, errs)
		}
	}
	if job.IsManaged(j) {
		if errs := validatePartialAdmissionUpdate(old, j); len(errs) > 0 {
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}, j.Name, errs)
		}
	}
	oldQueue, newQueue := job.QueueName(old), job.QueueName(j)
	if oldQueue == newQueue {
		return nil, nil
	}
	errs, err := w.validateQueueNameKept(ctx, old, j)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}, j.Name, errs)
	}
	// Kueue refuses any change of the label of a Job that runs (adding one
	// to a Job that runs without a queue too); Quokka also while the old
	// queue's quota is reserved.
	if oldQueue != "" || !ptr.Deref(j.Spec.Suspend, false) {
		admitted := !ptr.Deref(j.Spec.Suspend, false)
		if !admitted {
			var err error
			if admitted, err = w.isAdmitted(ctx, old); err != nil {
				return nil, err
			}
		}
		if admitted {
			errs := field.ErrorList{field.Forbidden(queueLabelPath,
				fmt.Sprintf("cannot change from %q to %q while the job is admitted; suspend it or wait until it finishes", oldQueue, newQueue))}
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}, j.Name, errs)
		}
	}
	return missingLocalQueueWarning(ctx, w.Client, j.Namespace, newQueue, queueLabelPath), nil
}

// ValidateDelete allows every deletion.
func (w *JobWebhook) ValidateDelete(context.Context, *batchv1.Job) (admission.Warnings, error) {
	return nil, nil
}

// isAdmitted: the Job runs, or its Workload has quota reserved.
func (w *JobWebhook) isAdmitted(ctx context.Context, j *batchv1.Job) (bool, error) {
	if !ptr.Deref(j.Spec.Suspend, false) {
		return true, nil
	}
	wl := &kueue.Workload{}
	err := w.Client.Get(ctx, client.ObjectKey{Namespace: j.Namespace, Name: job.WorkloadName(j.Name, j.UID)}, wl)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("getting the workload of job %s/%s: %w", j.Namespace, j.Name, err)
	}
	return wl.Status.Admission != nil, nil
}

// missingLocalQueueWarning returns a warning when queue names no LocalQueue in
// namespace. Failing to look it up only warns too: a warning must never block.
func missingLocalQueueWarning(ctx context.Context, c client.Reader, namespace, queue string, path *field.Path) admission.Warnings {
	if queue == "" {
		return nil
	}
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: queue}, &kueue.LocalQueue{})
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return admission.Warnings{fmt.Sprintf("%s: LocalQueue %q does not exist in namespace %q; the workload stays pending until it is created", path, queue, namespace)}
	default:
		return admission.Warnings{fmt.Sprintf("%s: could not check that LocalQueue %q exists: %v", path, queue, err)}
	}
}
