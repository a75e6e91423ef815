package koord

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
)

// ManagedByLabel marks the Queues this controller created, so that it deletes only
// those when their quota goes away and never a Queue someone made by hand.
const ManagedByLabel = "quokka.dev/managed-by"

const managedByValue = "elasticquota"

// nameIndex indexes ElasticQuotas by name: quotas are identified by name across
// namespaces (004: "indexes them by name").
const nameIndex = "metadata.name"

// QueueReconciler reconciles the Queue of each ElasticQuota name. Requests carry
// only a name (no namespace), because the Queue follows the quota's name wherever
// the quota lives.
type QueueReconciler struct {
	Client client.Client
	// Namespace is where Queue objects live: "the namespace in which Koord-Queue is
	// deployed, which is koord-queue by default."
	Namespace string
}

// +kubebuilder:rbac:groups=scheduling.sigs.k8s.io,resources=elasticquotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.x-k8s.io,resources=queues,verbs=get;list;watch;create;update;patch;delete

// Reconcile creates, updates or deletes the Queue named req.Name.
func (r *QueueReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx).WithValues("quota", req.Name)
	var quotas koordv1alpha1.ElasticQuotaList
	if err := r.Client.List(ctx, &quotas, client.MatchingFields{nameIndex: req.Name}); err != nil {
		return reconcile.Result{}, fmt.Errorf("listing ElasticQuotas named %s: %w", req.Name, err)
	}
	eq := newest(quotas.Items)

	key := types.NamespacedName{Namespace: r.Namespace, Name: req.Name}
	var existing queuev1alpha1.Queue
	err := r.Client.Get(ctx, key, &existing)
	switch {
	case apierrors.IsNotFound(err):
		if eq == nil {
			return reconcile.Result{}, nil
		}
		q := elasticquota.DesiredQueue(eq, r.Namespace)
		q.Labels[ManagedByLabel] = managedByValue
		logger.Info("creating Queue", "namespace", r.Namespace)
		if err := r.Client.Create(ctx, q); err != nil {
			return reconcile.Result{}, fmt.Errorf("creating Queue %s: %w", key, err)
		}
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, fmt.Errorf("reading Queue %s: %w", key, err)
	}

	if eq == nil {
		// 004: "Deleting the ElasticQuota deletes the Queue."
		if existing.Labels[ManagedByLabel] != managedByValue {
			return reconcile.Result{}, nil
		}
		logger.Info("deleting Queue of a deleted quota", "namespace", r.Namespace)
		return reconcile.Result{}, client.IgnoreNotFound(r.Client.Delete(ctx, &existing))
	}
	desired := elasticquota.ReconcileQueue(&existing, eq, r.Namespace)
	desired.Labels[ManagedByLabel] = managedByValue
	if equality.Semantic.DeepEqual(existing.Spec, desired.Spec) &&
		equality.Semantic.DeepEqual(existing.Labels, desired.Labels) &&
		equality.Semantic.DeepEqual(existing.Annotations, desired.Annotations) {
		return reconcile.Result{}, nil
	}
	logger.Info("updating Queue", "namespace", r.Namespace, "policy", desired.Spec.QueuePolicy)
	if err := r.Client.Update(ctx, desired); err != nil {
		return reconcile.Result{}, fmt.Errorf("updating Queue %s: %w", key, err)
	}
	return reconcile.Result{}, nil
}

// newest picks, of the quotas sharing a name, the one changed last: 004, "the one
// that is reconciled last wins". The time of an object's last write is the latest
// time in its managedFields (creation when it has none); ties go to the namespace
// name so that the choice is deterministic.
func newest(items []koordv1alpha1.ElasticQuota) *koordv1alpha1.ElasticQuota {
	var best *koordv1alpha1.ElasticQuota
	var bestTime metav1.Time
	for i := range items {
		eq := &items[i]
		if !eq.DeletionTimestamp.IsZero() {
			continue
		}
		t := lastWrite(eq)
		if best == nil || bestTime.Before(&t) || (bestTime.Equal(&t) && eq.Namespace > best.Namespace) {
			best, bestTime = eq, t
		}
	}
	return best
}

func lastWrite(eq *koordv1alpha1.ElasticQuota) metav1.Time {
	t := eq.CreationTimestamp
	for _, mf := range eq.ManagedFields {
		if mf.Time != nil && t.Before(mf.Time) {
			t = *mf.Time
		}
	}
	return t
}

// SetupWithManager registers the reconciler: every ElasticQuota event and every
// event of a Queue in the namespace maps to the quota's name.
func (r *QueueReconciler) SetupWithManager(mgr manager.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &koordv1alpha1.ElasticQuota{}, nameIndex,
		func(o client.Object) []string { return []string{o.GetName()} }); err != nil {
		return fmt.Errorf("indexing ElasticQuotas by name: %w", err)
	}
	byName := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
	})
	inNamespace := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if o.GetNamespace() != r.Namespace {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("koord-queue").
		Watches(&koordv1alpha1.ElasticQuota{}, byName).
		Watches(&queuev1alpha1.Queue{}, inNamespace).
		Complete(r)
}
