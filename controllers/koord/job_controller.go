package koord

import (
	"context"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/elasticquota"
)

// Reasons of the events the Job extension records on Jobs.
const (
	// EventNotQueued: a Job with a quota label was created unsuspended, so it
	// runs unqueued (Koord-Queue's ManagedByQueue says no) and is never charged.
	EventNotQueued = "NotQueued"
	// EventQuotaLabelIgnored: a Job names a LocalQueue and carries a quota
	// label; Kueue's path queues it and the quota label is ignored.
	EventQuotaLabelIgnored = "QuotaLabelIgnored"
)

// timestampFormat is how the koord-queue/job-*-timestamp annotations are
// written: Go's time.Time.String() layout, which Koord-Queue's job extension
// writes and parses.
const timestampFormat = "2006-01-02 15:04:05.999999999 -0700 MST"

// JobReconciler is Koord-Queue's batch/v1 Job extension: it creates the
// QueueUnit of a Job that takes the Koord-Queue path, keeps the unit's phase in
// step with the Job, resumes the Job once its unit is dequeued, and deletes the
// unit with the Job. It makes no quota decision.
type JobReconciler struct {
	Client   client.Client
	Recorder record.EventRecorder
	// Now is the wall clock (time.Now when nil).
	Now func() time.Time

	// warned remembers the Jobs already told why they are not queued, so that
	// the Warning event is recorded once per Job and reason, not on every
	// update of the Job. After a restart a Job may be told once more.
	warned sync.Map
}

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.x-k8s.io,resources=queueunits,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=scheduling.x-k8s.io,resources=queueunits/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func (r *JobReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Reconcile brings the QueueUnit of one Job in step with it.
func (r *JobReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var job batchv1.Job
	if err := r.Client.Get(ctx, req.NamespacedName, &job); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, fmt.Errorf("reading Job %s: %w", req, err)
		}
		return reconcile.Result{}, r.deleteUnit(ctx, req.NamespacedName, "")
	}
	if !job.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, r.deleteUnit(ctx, req.NamespacedName, job.UID)
	}
	facts := elasticquota.FactsOf(&job)
	switch elasticquota.RouteJob(facts) {
	case elasticquota.RouteKueue:
		if elasticquota.QuotaLabelIgnored(facts) {
			r.warnOnce(&job, EventQuotaLabelIgnored,
				"the Job names LocalQueue %q (label %s) and carries a Koord-Queue quota label: Kueue's path queues it and the quota label is ignored",
				job.Labels[kueue.QueueNameLabel], kueue.QueueNameLabel)
		}
		return reconcile.Result{}, nil
	case elasticquota.RouteUnqueued:
		r.warnOnce(&job, EventNotQueued,
			"the Job was created unsuspended: Koord-Queue queues only Jobs created with spec.suspend: true, so it runs unqueued and is not charged to quota %q",
			elasticquota.QuotaNameOf(job.Labels))
		return reconcile.Result{}, nil
	case elasticquota.RouteNone:
		return reconcile.Result{}, nil
	}
	return r.reconcileQueued(ctx, &job)
}

// reconcileQueued handles a Job on the Koord-Queue path.
func (r *JobReconciler) reconcileQueued(ctx context.Context, job *batchv1.Job) (reconcile.Result, error) {
	if job.Annotations[elasticquota.EnqueuedAnnotation] == "" {
		// The decision is sticky: once enqueued, a Job stays queued whatever
		// its suspend field says later (koord-queue job.go Enqueue).
		patch := client.MergeFrom(job.DeepCopy())
		if job.Annotations == nil {
			job.Annotations = map[string]string{}
		}
		job.Annotations[elasticquota.EnqueuedAnnotation] = "true"
		job.Annotations[elasticquota.EnqueueTimestampAnnotation] = r.now().Format(timestampFormat)
		if err := r.Client.Patch(ctx, job, patch); err != nil {
			return reconcile.Result{}, fmt.Errorf("marking Job %s/%s enqueued: %w", job.Namespace, job.Name, err)
		}
	}
	var unit queuev1alpha1.QueueUnit
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, &unit)
	switch {
	case apierrors.IsNotFound(err):
		if jobFinished(job) != "" {
			return reconcile.Result{}, nil // koord-queue: no unit for a terminated Job
		}
		return reconcile.Result{}, r.createUnit(ctx, job)
	case err != nil:
		return reconcile.Result{}, fmt.Errorf("reading QueueUnit %s/%s: %w", job.Namespace, job.Name, err)
	}
	if !ownedBy(&unit, job) {
		log.FromContext(ctx).Info("QueueUnit of the Job's name belongs to something else; leaving both alone", "queueUnit", client.ObjectKeyFromObject(&unit))
		return reconcile.Result{}, nil
	}
	if err := r.syncPhase(ctx, job, &unit); err != nil {
		return reconcile.Result{}, err
	}
	if reclaiming(&unit) {
		return reconcile.Result{}, r.reclaim(ctx, job, &unit)
	}
	return reconcile.Result{}, r.resumeIfDequeued(ctx, job, &unit)
}

// createUnit creates the Job's QueueUnit: named after the Job, in its
// namespace, owned by it, with its labels and annotations (004: "The job
// extension copies the labels and annotations of a job onto the QueueUnit that
// it creates for it"). A unit whose labels name a quota starts Enqueued; one
// that names none gets no phase at all (004: "A QueueUnit stays without a phase
// and without any event").
func (r *JobReconciler) createUnit(ctx context.Context, job *batchv1.Job) error {
	spec, err := elasticquota.JobUnitSpec(job, r.priorityLookup(ctx))
	if err != nil {
		return fmt.Errorf("deriving the QueueUnit of Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	unit := &queuev1alpha1.QueueUnit{
		ObjectMeta: metav1.ObjectMeta{
			Name: job.Name, Namespace: job.Namespace,
			Labels: job.Labels, Annotations: job.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job",
				Name: job.Name, UID: job.UID, Controller: ptr.To(true),
			}},
		},
		Spec: spec,
	}
	if err := r.Client.Create(ctx, unit); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // the next reconcile sees it
		}
		return fmt.Errorf("creating QueueUnit %s/%s: %w", job.Namespace, job.Name, err)
	}
	if elasticquota.QuotaNameOf(job.Labels) == "" {
		return nil
	}
	return r.writePhase(ctx, unit, queuev1alpha1.Enqueued, "Enqueued")
}

// syncPhase moves the unit's phase with the Job: Running once a pod of an
// admitted Job runs, Succeed or Failed when the Job ends (a unit in either
// stops counting as usage at once: the admission loop releases it). It also
// records how many of the admitted replicas run, which wait-for-pods-running
// reads.
func (r *JobReconciler) syncPhase(ctx context.Context, job *batchv1.Job, unit *queuev1alpha1.QueueUnit) error {
	switch jobFinished(job) {
	case batchv1.JobComplete:
		if unit.Status.Phase != queuev1alpha1.Succeed {
			return r.writePhase(ctx, unit, queuev1alpha1.Succeed, "Succeeded")
		}
		return nil
	case batchv1.JobFailed:
		if unit.Status.Phase != queuev1alpha1.Failed {
			return r.writePhase(ctx, unit, queuev1alpha1.Failed, "Failed")
		}
		return nil
	}
	if !dequeued(unit) {
		return nil
	}
	running := runningPods(job)
	next := unit.DeepCopy()
	changed := false
	if running > 0 && next.Status.Phase == queuev1alpha1.Dequeued {
		next.Status.Phase, next.Status.Message = queuev1alpha1.Running, "Running"
		next.Status.LastUpdateTime = &metav1.Time{Time: r.now()}
		changed = true
	}
	pending := max(int(job.Status.Active)-running, 0)
	if next.Status.PodState.Running != running || next.Status.PodState.Pending != pending {
		next.Status.PodState = queuev1alpha1.PodState{Running: running, Pending: pending}
		changed = true
	}
	left := int64(running)
	for i := range next.Status.Admissions {
		a := &next.Status.Admissions[i]
		n := min(left, a.Replicas)
		left -= n
		if a.Running != n {
			a.Running = n
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if err := r.Client.Status().Update(ctx, next); err != nil {
		return fmt.Errorf("recording the pods of QueueUnit %s/%s: %w", unit.Namespace, unit.Name, err)
	}
	*unit = *next
	return nil
}

// resumeIfDequeued unsuspends the Job of a dequeued unit and stamps the dequeue
// time (koord-queue job.go Resume).
func (r *JobReconciler) resumeIfDequeued(ctx context.Context, job *batchv1.Job, unit *queuev1alpha1.QueueUnit) error {
	if !dequeued(unit) || job.Spec.Suspend == nil || !*job.Spec.Suspend || reclaiming(unit) {
		return nil
	}
	patch := client.MergeFrom(job.DeepCopy())
	job.Spec.Suspend = ptr.To(false)
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[elasticquota.DequeueTimestampAnnotation] = r.now().Format(timestampFormat)
	if err := r.Client.Patch(ctx, job, patch); err != nil {
		return fmt.Errorf("resuming Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return nil
}

// reclaim gives back the replicas queue-level preemption marked on the unit
// (status.admissions[].reclaimState), as Koord-Queue's job extension does for
// its victims: only replicas whose pods do not run are ever marked. With none
// left the Job is suspended (its pods go) and the unit is Enqueued again;
// otherwise the Job's parallelism is lowered to what is left, and the Job
// controller removes the pods that do not run first. The unit then records the
// replicas it still holds, and a Normal event Reclaimed says so; the admission
// loop releases the difference and admits the preemptor.
func (r *JobReconciler) reclaim(ctx context.Context, job *batchv1.Job, unit *queuev1alpha1.QueueUnit) error {
	var held, marked int64
	for _, a := range unit.Status.Admissions {
		held += a.Replicas
		if a.ReclaimState != nil {
			marked += a.ReclaimState.Replicas
		}
	}
	left := max(held-marked, 0)
	patch := client.MergeFrom(job.DeepCopy())
	if left == 0 {
		job.Spec.Suspend = ptr.To(true)
	} else {
		job.Spec.Parallelism = ptr.To(int32(left))
	}
	if err := r.Client.Patch(ctx, job, patch); err != nil {
		return fmt.Errorf("reclaiming %d replicas of Job %s/%s: %w", marked, job.Namespace, job.Name, err)
	}
	next := unit.DeepCopy()
	now := metav1.NewTime(r.now())
	next.Status.LastUpdateTime = &now
	var msg string
	if left == 0 {
		next.Status.Phase, next.Status.Message = queuev1alpha1.Enqueued, "Enqueued after preempted"
		next.Status.Admissions = nil
		next.Status.PodState = queuev1alpha1.PodState{}
		msg = fmt.Sprintf("%d replicas reclaimed; none left: the Job is suspended and enqueued again", marked)
	} else {
		for i := range next.Status.Admissions {
			a := &next.Status.Admissions[i]
			if a.ReclaimState != nil {
				a.Replicas = max(a.Replicas-a.ReclaimState.Replicas, 0)
				a.ReclaimState = nil
			}
		}
		next.Status.Message = fmt.Sprintf("Reclaimed %d replicas", marked)
		msg = fmt.Sprintf("%d replicas reclaimed; %d left running", marked, left)
	}
	if err := r.Client.Status().Update(ctx, next); err != nil {
		return fmt.Errorf("recording the reclaim of QueueUnit %s/%s: %w", unit.Namespace, unit.Name, err)
	}
	r.Recorder.Event(next, corev1.EventTypeNormal, elasticquota.EventReclaimed, msg)
	return nil
}

func (r *JobReconciler) writePhase(ctx context.Context, unit *queuev1alpha1.QueueUnit, phase queuev1alpha1.QueueUnitPhase, msg string) error {
	next := unit.DeepCopy()
	next.Status.Phase, next.Status.Message = phase, msg
	next.Status.LastUpdateTime = &metav1.Time{Time: r.now()}
	if err := r.Client.Status().Update(ctx, next); err != nil {
		return fmt.Errorf("setting QueueUnit %s/%s to %s: %w", unit.Namespace, unit.Name, phase, err)
	}
	*unit = *next
	return nil
}

// deleteUnit deletes the unit of a Job that is gone (or going): the unit goes
// with it at once, whether or not a garbage collector runs. uid, when known,
// must match the unit's owner.
func (r *JobReconciler) deleteUnit(ctx context.Context, key types.NamespacedName, uid types.UID) error {
	r.warned.Range(func(k, _ any) bool {
		if w := k.(warnKey); w.job == key {
			r.warned.Delete(k)
		}
		return true
	})
	var unit queuev1alpha1.QueueUnit
	if err := r.Client.Get(ctx, key, &unit); err != nil {
		return client.IgnoreNotFound(err)
	}
	ref := metav1.GetControllerOf(&unit)
	if ref == nil || ref.Kind != "Job" || ref.Name != key.Name || (uid != "" && ref.UID != uid) {
		return nil
	}
	if err := r.Client.Delete(ctx, &unit, client.Preconditions{UID: &unit.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting QueueUnit %s of a deleted Job: %w", key, err)
	}
	return nil
}

type warnKey struct {
	job    types.NamespacedName
	uid    types.UID
	reason string
}

func (r *JobReconciler) warnOnce(job *batchv1.Job, reason, format string, args ...any) {
	k := warnKey{job: client.ObjectKeyFromObject(job), uid: job.UID, reason: reason}
	if _, seen := r.warned.LoadOrStore(k, struct{}{}); seen {
		return
	}
	r.Recorder.Eventf(job, corev1.EventTypeWarning, reason, format, args...)
}

// priorityLookup reads PriorityClasses through the cache. A class that does not
// exist is ignored, as Koord-Queue does ("can not find priority class name ...,
// we will ignore it").
func (r *JobReconciler) priorityLookup(ctx context.Context) elasticquota.PriorityLookup {
	return func(name string) (int32, bool) {
		var pc schedulingv1.PriorityClass
		if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, &pc); err != nil {
			return 0, false
		}
		return pc.Value, true
	}
}

// jobFinished returns JobComplete or JobFailed when the Job has ended, "" else.
func jobFinished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return c.Type
		}
	}
	return ""
}

// runningPods counts the Job's pods that run. The Job's status.ready is the
// count of its ready pods; Quokka reads it rather than caching every Pod of the
// cluster (docs/koord-queue.md, "Where Quokka decides otherwise").
func runningPods(job *batchv1.Job) int {
	if job.Status.Ready == nil {
		return 0
	}
	return int(*job.Status.Ready)
}

// dequeued reports whether the unit holds quota: admitted and not yet ended.
func dequeued(unit *queuev1alpha1.QueueUnit) bool {
	return unit.Status.Phase == queuev1alpha1.Dequeued || unit.Status.Phase == queuev1alpha1.Running
}

// reclaiming reports whether some replicas of the unit are marked for
// reclaim by queue-level preemption.
func reclaiming(unit *queuev1alpha1.QueueUnit) bool {
	for _, a := range unit.Status.Admissions {
		if a.ReclaimState != nil && a.ReclaimState.Replicas > 0 {
			return true
		}
	}
	return false
}

func ownedBy(unit *queuev1alpha1.QueueUnit, job *batchv1.Job) bool {
	ref := metav1.GetControllerOf(unit)
	return ref != nil && ref.Kind == "Job" && ref.UID == job.UID
}

// SetupWithManager watches every Job and the QueueUnits that Jobs own.
func (r *JobReconciler) SetupWithManager(mgr manager.Manager) error {
	err := ctrl.NewControllerManagedBy(mgr).
		Named("koord-queue-job").
		For(&batchv1.Job{}).
		Watches(&queuev1alpha1.QueueUnit{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &batchv1.Job{}, handler.OnlyControllerOwner())).
		Complete(r)
	if err != nil {
		return fmt.Errorf("creating the Koord-Queue Job extension: %w", err)
	}
	return nil
}
