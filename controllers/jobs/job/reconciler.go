package job

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Reconciler keeps a managed Job and its Workload in step. It is level-triggered:
// every pass reads the Job and the Workload and makes at most one write, the
// first one that differs from what the pair calls for, so an interrupted pass is
// finished by the next one.
type Reconciler struct {
	Client client.Client
	// Recorder, when set, reports what happened to a Job on the Job, where
	// `kubectl describe job` shows it.
	Recorder events.EventRecorder
	// WaitForPodsReady makes it keep the PodsReady condition of a running
	// Job's Workload (see podsready.go), which the core's waitForPodsReady
	// timeouts read.
	WaitForPodsReady bool
	// AfterDeactivatedByKueue, when set, deletes a Job that long after the
	// manager deactivated its Workload (see retention.go).
	AfterDeactivatedByKueue *time.Duration
	// ManageJobsWithoutQueueName and ManagedNamespaces are the
	// Configuration's manageJobsWithoutQueueName and
	// managedJobsNamespaceSelector (nil matches every namespace; see
	// queuename.go).
	ManageJobsWithoutQueueName bool
	ManagedNamespaces          labels.Selector
	// LabelKeysToCopy are the Configuration's integrations.labelKeysToCopy:
	// the Job's labels its Workload is created with.
	LabelKeysToCopy []string
	// NoReclaimablePods is the ReclaimablePods gate off: the Workload's
	// status.reclaimablePods is not written (see reclaimable.go).
	NoReclaimablePods bool
	// CreationLatency, when set, observes how long after its Job each
	// Workload is created (kueue_workload_creation_latency_seconds).
	CreationLatency *CreationLatency
	// Now is the clock for AfterDeactivatedByKueue; nil means time.Now.
	Now func() time.Time
}

// event records a Normal or Warning event on the Job, if a recorder is set.
func (r *Reconciler) event(job *batchv1.Job, eventType, reason, note string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(job, nil, eventType, reason, reason, note, args...)
	}
}

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;update;delete
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=workloads,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=workloads/status,verbs=update
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=resourceflavors;workloadpriorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile handles one Job.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	job := &batchv1.Job{}
	if err := r.Client.Get(ctx, req.NamespacedName, job); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, r.deleteWorkloadsOf(ctx, req.Namespace, req.Name)
		}
		return ctrl.Result{}, fmt.Errorf("getting job %s: %w", req.NamespacedName, err)
	}
	if !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if managed, err := r.manages(ctx, job); !managed || err != nil {
		return ctrl.Result{}, err
	}

	wl := &kueue.Workload{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: workloadNameFor(job)}, wl)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.createWorkload(ctx, job)
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("getting workload of job %s: %w", req.NamespacedName, err)
	}

	if cond, done := finishedCondition(job, wl.Generation); done {
		return ctrl.Result{}, r.finishWorkload(ctx, wl, cond)
	}
	if meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
		return ctrl.Result{}, nil
	}
	if res, done, err := r.deleteDeactivated(ctx, job, wl); done || err != nil {
		return res, err
	}
	if !r.NoReclaimablePods {
		if wrote, err := r.syncReclaimable(ctx, job, wl); wrote || err != nil {
			return ctrl.Result{}, err
		}
	}
	if IsAdmitted(wl) {
		if r.WaitForPodsReady && !ptr.Deref(job.Spec.Suspend, false) {
			return ctrl.Result{}, r.syncPodsReady(ctx, job, wl)
		}
		return ctrl.Result{}, r.startJob(ctx, job, wl)
	}
	if stale, why := isStale(job, wl); stale {
		return ctrl.Result{}, r.replaceWorkload(ctx, wl, why)
	}
	if wrote, err := r.syncQueueName(ctx, job, wl); wrote || err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.stopJob(ctx, job, wl)
}

// replaceWorkload deletes a Workload that no longer describes its pending Job;
// the next pass creates a new one from the Job, as Kueue does.
func (r *Reconciler) replaceWorkload(ctx context.Context, wl *kueue.Workload, why string) error {
	if err := r.deleteWorkload(ctx, wl); err != nil {
		return fmt.Errorf("deleting stale workload %s/%s (%s): %w", wl.Namespace, wl.Name, why, err)
	}
	log.FromContext(ctx).V(2).Info("replacing stale workload", "workload", wl.Name, "reason", why)
	return nil
}

// deleteWorkload deletes a Workload this integration made, its finalizer first,
// as Kueue's job framework does: the Job no longer needs the Workload, and the
// core forgets its quota on the deletion event.
func (r *Reconciler) deleteWorkload(ctx context.Context, wl *kueue.Workload) error {
	if controllerutil.ContainsFinalizer(wl, kueue.ResourceInUseFinalizerName) {
		patch := client.MergeFromWithOptions(wl.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.RemoveFinalizer(wl, kueue.ResourceInUseFinalizerName)
		if err := r.Client.Patch(ctx, wl, patch); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	return client.IgnoreNotFound(r.Client.Delete(ctx, wl, client.Preconditions{UID: &wl.UID}))
}

// IsAdmitted reports whether the Workload may run: quota is reserved
// (status.admission), Admitted is True and it is not being evicted.
func IsAdmitted(wl *kueue.Workload) bool {
	return wl.Status.Admission != nil &&
		meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) &&
		!meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted)
}

// createWorkload creates the Workload of a Job that has none yet. A Job created
// unsuspended (the webhook was down, or the label was added later) is stopped
// first by the next pass, since its Workload is not admitted.
func (r *Reconciler) createWorkload(ctx context.Context, job *batchv1.Job) error {
	if _, done := finishedCondition(job, 0); done {
		return nil
	}
	wl, err := NewWorkload(ctx, r.Client, job)
	if err != nil {
		r.event(job, corev1.EventTypeWarning, "CreateWorkloadFailed", "%v", err)
		return fmt.Errorf("building workload of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	CopyLabels(wl, job, r.LabelKeysToCopy)
	if err := r.Client.Create(ctx, wl); apierrors.IsAlreadyExists(err) {
		// An earlier pass created it and the cache has not caught up: the
		// event was recorded then.
		return nil
	} else if err != nil {
		return fmt.Errorf("creating workload %s/%s: %w", wl.Namespace, wl.Name, err)
	}
	r.event(job, corev1.EventTypeNormal, "CreatedWorkload", "Created Workload %s for LocalQueue %s", wl.Name, wl.Spec.QueueName)
	r.CreationLatency.observe(job, wl)
	log.FromContext(ctx).V(2).Info("created workload", "workload", wl.Name, "queue", wl.Spec.QueueName)
	return nil
}

// finishWorkload sets Finished=True, which releases the Workload's quota.
func (r *Reconciler) finishWorkload(ctx context.Context, wl *kueue.Workload, cond metav1.Condition) error {
	existing := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
	if existing != nil && existing.Status == cond.Status && existing.Reason == cond.Reason {
		return nil
	}
	meta.SetStatusCondition(&wl.Status.Conditions, cond)
	if err := r.Client.Status().Update(ctx, wl); err != nil {
		return fmt.Errorf("finishing workload %s/%s: %w", wl.Namespace, wl.Name, err)
	}
	log.FromContext(ctx).V(2).Info("workload finished", "workload", wl.Name, "reason", cond.Reason)
	return nil
}

// startJob injects the admitted flavors into a suspended Job's template, sets
// the parallelism it was admitted with (partial admission), and unsuspends
// it, in one write: the template may change only while the Job is
// suspended and has not started (JobMutableNodeSchedulingDirectives).
func (r *Reconciler) startJob(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) error {
	if !ptr.Deref(job.Spec.Suspend, false) {
		return nil
	}
	if done, err := r.clearStartTime(ctx, job); done || err != nil {
		return err
	}
	original, err := originalPlacement(wl)
	if err != nil {
		return err
	}
	flavors, err := admittedFlavors(ctx, r.Client, wl)
	if err != nil {
		return err
	}
	admitted, err := admittedPlacement(original, flavors)
	if err != nil {
		r.event(job, corev1.EventTypeWarning, "FlavorInjectionFailed", "%v", err)
		return fmt.Errorf("placing job %s/%s on its admitted flavors: %w", job.Namespace, job.Name, err)
	}
	applyPlacement(&job.Spec.Template, admitted)
	setInjected(job, true)
	setParallelism(job, admittedCount(wl))
	job.Spec.Suspend = ptr.To(false)
	if err := r.Client.Update(ctx, job); err != nil {
		return fmt.Errorf("starting job %s/%s: %w", job.Namespace, job.Name, err)
	}
	r.event(job, corev1.EventTypeNormal, "Started", "Admitted by ClusterQueue %s", wl.Status.Admission.ClusterQueue)
	log.FromContext(ctx).V(2).Info("started job", "workload", wl.Name, "clusterQueue", wl.Status.Admission.ClusterQueue)
	return nil
}

// stopJob keeps a Job whose Workload is not admitted (pending, or evicted)
// suspended with its template and parallelism as submitted. Suspending comes first and alone,
// because the API server accepts a template change only on a suspended Job; the
// restoration follows on the next pass.
func (r *Reconciler) stopJob(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) error {
	if !ptr.Deref(job.Spec.Suspend, false) {
		job.Spec.Suspend = ptr.To(true)
		if err := r.Client.Update(ctx, job); err != nil {
			return fmt.Errorf("suspending job %s/%s: %w", job.Namespace, job.Name, err)
		}
		r.event(job, corev1.EventTypeNormal, "Stopped", "%s", stopReason(wl))
		log.FromContext(ctx).V(2).Info("suspended job", "workload", wl.Name,
			"evicted", meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted))
		return nil
	}
	if done, err := r.clearStartTime(ctx, job); done || err != nil {
		return err
	}
	original, err := originalPlacement(wl)
	if err != nil {
		return err
	}
	changed := applyPlacement(&job.Spec.Template, original)
	if _, injected := job.Annotations[InjectedAnnotation]; injected {
		// Started by Quokka, maybe with fewer pods: the submitted count back.
		if ps := mainPodSet(wl); ps != nil && setParallelism(job, ps.Count) {
			changed = true
		}
	}
	if !setInjected(job, false) && !changed {
		return nil
	}
	if err := r.Client.Update(ctx, job); err != nil {
		return fmt.Errorf("restoring the pod template of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	log.FromContext(ctx).V(2).Info("restored job template", "workload", wl.Name)
	return nil
}

// stopReason says why a Job is stopped: the eviction's message, or that its
// Workload is not admitted.
func stopReason(wl *kueue.Workload) string {
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue {
		return fmt.Sprintf("Workload evicted (%s): %s", c.Reason, c.Message)
	}
	return "Workload is not admitted"
}

// clearStartTime resets status.startTime of a suspended Job, as Kueue does: the
// API server lets the template's scheduling directives change only on a Job that
// has not started, and the Job controller may not have cleared it yet after a
// suspension. done says a write happened and the pass should end.
func (r *Reconciler) clearStartTime(ctx context.Context, job *batchv1.Job) (done bool, err error) {
	if job.Status.StartTime == nil {
		return false, nil
	}
	job.Status.StartTime = nil
	if err := r.Client.Status().Update(ctx, job); err != nil {
		return false, fmt.Errorf("clearing the start time of suspended job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return true, nil
}

// deleteWorkloadsOf deletes the Workloads of a Job that is gone. In a cluster
// the garbage collector does it through the owner reference; doing it here too
// frees the quota at once and also works where no collector runs.
func (r *Reconciler) deleteWorkloadsOf(ctx context.Context, namespace, jobName string) error {
	var list kueue.WorkloadList
	if err := r.Client.List(ctx, &list, client.InNamespace(namespace), client.MatchingFields{OwnerJobIndex: jobName}); err != nil {
		return fmt.Errorf("listing workloads of deleted job %s/%s: %w", namespace, jobName, err)
	}
	for i := range list.Items {
		wl := &list.Items[i]
		if err := r.deleteWorkload(ctx, wl); err != nil {
			return fmt.Errorf("deleting workload %s/%s of deleted job %s: %w", namespace, wl.Name, jobName, err)
		}
		log.FromContext(ctx).V(2).Info("deleted workload of deleted job", "workload", wl.Name)
	}
	return nil
}
