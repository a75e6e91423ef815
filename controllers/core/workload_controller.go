package core

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=workloads,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=workloads/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=workloads/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch

// ownerUIDIndex indexes Workloads by the UID of their controlling owner, so that a
// change to a Job finds its Workload without a scan.
const ownerUIDIndex = "core.quokka.dev/owner-uid"

// workloadReconciler mirrors Workloads into the engine on every replica and, on
// the leader only, runs their lifecycle: the finalizer's removal, and the end
// of an eviction once the workload's owner has stopped.
type workloadReconciler struct {
	client client.Client
	engine *Engine
	role   *Role
	events EventRecorder
	// now is the wall clock, for the time an admission lasted.
	now func() time.Time
	// retainFinished is how long a finished Workload is kept
	// (objectRetentionPolicies.workloads.afterFinished); nil keeps it.
	retainFinished *time.Duration
	// resync receives every Workload when this replica becomes leader, because
	// writes skipped while following must now be made.
	resync chan event.GenericEvent
	// concurrency is how many Workloads are reconciled at once
	// (workloadConcurrency).
	concurrency int
	// tieredReasons is Kueue's UnadmittedWorkloadsObservability gate (see
	// decision.KueueQuotaReservedReason).
	tieredReasons bool
}

// defaultWorkloadConcurrency is how many Workloads the core reconciles at
// once when the Configuration does not say: each reconcile mostly tells the
// engine, and under Kueue's harness a burst of 15,000 creations waited
// behind fewer.
const defaultWorkloadConcurrency = 16

// workloadConcurrency is the Configuration's controller.groupKindConcurrency
// for Workload.kueue.x-k8s.io when it names it (Kueue's shipped configuration
// says 5, and Kueue's Workload controller follows it), else
// defaultWorkloadConcurrency. Controllers without a number of their own (the
// Job integration's, the priority classes') take theirs from controller-runtime,
// which reads the same map.
func workloadConcurrency(cfg *configapi.Configuration) int {
	if c := cfg.Controller; c != nil {
		if n, ok := c.GroupKindConcurrency[kueue.GroupVersion.WithKind("Workload").GroupKind().String()]; ok && n > 0 {
			return n
		}
	}
	return defaultWorkloadConcurrency
}

func (r *workloadReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	res, err := r.reconcile(ctx, req)
	if apierrors.IsConflict(err) {
		// Someone else (often the scheduling loop's admission) wrote first;
		// the informer brings the new version and the reconcile runs again.
		return reconcile.Result{RequeueAfter: conflictRetry}, nil
	}
	return res, err
}

// conflictRetry is a safety net in case the event of the winning write is lost.
const conflictRetry = time.Second

func (r *workloadReconciler) reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	wl := &kueue.Workload{}
	err := r.client.Get(ctx, req.NamespacedName, wl)
	if apierrors.IsNotFound(err) {
		r.engine.Do(func(s *scheduler.Scheduler) { s.DeleteWorkload(req.NamespacedName) })
		r.engine.Notify()
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("reading workload %s: %w", req.NamespacedName, err)
	}
	defer r.engine.Notify()

	if !wl.DeletionTimestamp.IsZero() {
		// The engine forgets the workload first; only then may the object go.
		r.engine.Do(func(s *scheduler.Scheduler) { s.DeleteWorkload(req.NamespacedName) })
		return reconcile.Result{}, r.removeFinalizer(ctx, wl)
	}
	r.engine.Do(func(s *scheduler.Scheduler) { err = s.UpsertWorkload(wl) })
	if err != nil {
		log.FromContext(ctx).Error(err, "the engine refused the workload")
	}
	if !r.role.CanWrite() {
		return reconcile.Result{}, nil
	}
	if isTrue(wl, kueue.WorkloadFinished) {
		if err := r.removeFinalizer(ctx, wl); err != nil {
			return reconcile.Result{}, err
		}
		return r.deleteAfterRetention(ctx, wl)
	}
	if wl.Status.Admission != nil && isTrue(wl, kueue.WorkloadEvicted) {
		return reconcile.Result{}, r.finishEviction(ctx, wl)
	}
	if wrote, err := r.applyDeactivationTarget(ctx, wl); wrote || err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.markRequeuedAgain(ctx, wl)
}

// removeFinalizer lets a finished or deleted workload go. Only the leader
// removes it, after its own engine has released the quota.
func (r *workloadReconciler) removeFinalizer(ctx context.Context, wl *kueue.Workload) error {
	if !r.role.CanWrite() || !controllerutil.ContainsFinalizer(wl, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(wl.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(wl, Finalizer)
	if err := r.client.Patch(ctx, wl, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer from workload %s: %w", client.ObjectKeyFromObject(wl), err)
	}
	return nil
}

// deleteAfterRetention deletes a finished Workload once
// objectRetentionPolicies.workloads.afterFinished has passed since its
// Finished condition, as Kueue's workload controller does, and is called again
// when it will have. A Job's integration does not make a finished Job a new
// Workload.
func (r *workloadReconciler) deleteAfterRetention(ctx context.Context, wl *kueue.Workload) (reconcile.Result, error) {
	if r.retainFinished == nil {
		return reconcile.Result{}, nil
	}
	finished := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
	expires := finished.LastTransitionTime.Add(*r.retainFinished)
	if now := r.now(); now.Before(expires) {
		return reconcile.Result{RequeueAfter: expires.Sub(now)}, nil
	}
	uid := wl.UID
	if err := r.client.Delete(ctx, wl, client.Preconditions{UID: &uid}); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("deleting finished workload %s: %w", client.ObjectKeyFromObject(wl), err)
	}
	r.events.Eventf(wl, corev1.EventTypeNormal, "Deleted", "Deleted finished workload due to elapsed retention")
	return reconcile.Result{}, nil
}

// finishEviction releases the quota of an evicted workload once nothing of it
// runs any more: the admission is cleared, the time it lasted added to
// status.accumulatedPastExecutionTimeSeconds, the workload requeued, and only
// after the API accepted that is the engine told.
func (r *workloadReconciler) finishEviction(ctx context.Context, wl *kueue.Workload) error {
	stopped, err := r.ownerStopped(ctx, wl)
	if err != nil || !stopped {
		return err
	}
	evicted := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted)
	key := client.ObjectKeyFromObject(wl)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &kueue.Workload{}
		if err := r.client.Get(ctx, key, cur); err != nil {
			return err
		}
		if cur.Status.Admission == nil || !isTrue(cur, kueue.WorkloadEvicted) {
			return nil
		}
		now := r.now()
		accumulateExecution(cur, now)
		setRequeued(cur, evicted.Reason, evicted.Message, now, r.tieredReasons)
		return r.client.Status().Update(ctx, cur)
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("requeueing evicted workload %s: %w", key, err)
	}
	r.engine.Do(func(s *scheduler.Scheduler) { s.EvictWorkload(key) })
	log.FromContext(ctx).V(2).Info("evicted workload requeued", "workload", key, "reason", evicted.Reason)
	return nil
}

// ownerStopped reports whether the workload's pods are gone. A workload without a
// controlling owner stops when evicted. A batch/v1 Job has stopped once the job
// integration suspended it and no pod is active; a missing owner has stopped.
// Owners of other kinds have their own integrations, which Quokka does not have
// yet, so they are treated as stopped rather than holding quota forever.
func (r *workloadReconciler) ownerStopped(ctx context.Context, wl *kueue.Workload) (bool, error) {
	owner := metav1.GetControllerOf(wl)
	if owner == nil || owner.Kind != "Job" || owner.APIVersion != batchv1.SchemeGroupVersion.String() {
		return true, nil
	}
	job := &batchv1.Job{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: wl.Namespace, Name: owner.Name}, job)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading owner job of workload %s: %w", client.ObjectKeyFromObject(wl), err)
	}
	if job.UID != owner.UID {
		return true, nil
	}
	return ptr.Deref(job.Spec.Suspend, false) && job.Status.Active == 0, nil
}

// workloadsOfJob maps a Job event to its Workloads through the owner index.
func (r *workloadReconciler) workloadsOfJob(ctx context.Context, obj client.Object) []reconcile.Request {
	var list kueue.WorkloadList
	if err := r.client.List(ctx, &list, client.InNamespace(obj.GetNamespace()),
		client.MatchingFields{ownerUIDIndex: string(obj.GetUID())}); err != nil {
		log.FromContext(ctx).Error(err, "listing workloads of job", "job", client.ObjectKeyFromObject(obj))
		return nil
	}
	return workloadRequests(&list)
}

// workloadRequests is a reconcile request for each workload of list.
func workloadRequests(list *kueue.WorkloadList) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

func indexOwnerUID(obj client.Object) []string {
	if owner := metav1.GetControllerOf(obj); owner != nil {
		return []string{string(owner.UID)}
	}
	return nil
}

func (r *workloadReconciler) setup(ctx context.Context, mgr manager.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kueue.Workload{}, ownerUIDIndex, indexOwnerUID); err != nil {
		return fmt.Errorf("indexing workloads by owner: %w", err)
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kueue.Workload{}, stoppedRequeueIndex, indexStoppedRequeue); err != nil {
		return fmt.Errorf("indexing workloads held by stopped queues: %w", err)
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("core-workload").
		For(&kueue.Workload{}).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.workloadsOfJob)).
		// A queue's restart is a change of its spec: status writes do not
		// list the index.
		Watches(&kueue.ClusterQueue{}, handler.EnqueueRequestsFromMapFunc(r.workloadsHeldByStoppedQueues(kueue.WorkloadEvictedByClusterQueueStopped)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&kueue.LocalQueue{}, handler.EnqueueRequestsFromMapFunc(r.workloadsHeldByStoppedQueues(kueue.WorkloadEvictedByLocalQueueStopped)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesRawSource(source.Channel(r.resync, &handler.EnqueueRequestForObject{})).
		WithOptions(controller.Options{
			NeedLeaderElection:      ptr.To(false),
			SkipNameValidation:      ptr.To(true),
			MaxConcurrentReconciles: r.concurrency,
		}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("setting up workload controller: %w", err)
	}
	return nil
}
