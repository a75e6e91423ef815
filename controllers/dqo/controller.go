package dqo

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
	enginedqo "quokka.dev/quokka/engine/dqo"
	"quokka.dev/quokka/internal/cli"
)

// ControllerName names the controller in logs and metrics, and the cli.Controller
// in start-up errors.
const ControllerName = "dynamicquotaorchestration"

// setKey is the one request this controller ever reconciles: "the whole set of
// orchestrators". Its name cannot collide with an object because nothing is looked
// up by it; it only appears in logs.
var setKey = reconcile.Request{NamespacedName: types.NamespacedName{Name: "all-dynamicquotaorchestrators"}}

// Controller returns the registration for `quokka manager` (controllers.All).
func Controller() cli.Controller {
	return cli.Controller{Name: ControllerName, Setup: Setup}
}

// Setup registers the reconciler with mgr when the DynamicQuotaOrchestration
// feature gate is on, and does nothing otherwise: the KEP has the gate control
// "registration and start of the DynamicQuotaOrchestration controller", so with
// the gate off no informer for the DQO kinds is even started, and effective
// quotas already stored stay as they are (000: "Turning the feature gate off does
// not remove status.effectiveQuotas").
func Setup(mgr manager.Manager, cfg *configapi.Configuration) error {
	if !cfg.FeatureGate(configapi.FeatureDynamicQuotaOrchestration) {
		// Say so once: an administrator who created orchestrators and sees no
		// status on them should find the reason in the log.
		ctrl.Log.WithName("setup").Info("not starting the DynamicQuotaOrchestration controller: feature gate is off",
			"featureGate", string(configapi.FeatureDynamicQuotaOrchestration))
		return nil
	}
	if err := NewReconciler(mgr.GetClient(), nil).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("registering with the manager: %w", err)
	}
	return nil
}

// Reconciler plans every DynamicQuotaOrchestrator of the cluster with the engine
// and writes the result. See the package documentation for why there is a single
// reconcile key.
//
// Its RBAC markers stand above Reconcile.
type Reconciler struct {
	client client.Client
	now    func() time.Time
}

// NewReconciler returns a reconciler that reads and writes through c. now stamps
// lastUpdateTime on effective quotas; nil means time.Now. Tests pass a fixed clock
// so that every write is reproducible.
func NewReconciler(c client.Client, now func() time.Time) *Reconciler {
	if now == nil {
		now = time.Now
	}
	return &Reconciler{client: c, now: now}
}

// SetupWithManager watches the four kinds the plan depends on and maps every
// relevant event to the single reconcile key.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	enqueueSet := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{setKey}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		Watches(&v1alpha1.DynamicQuotaOrchestrator{}, enqueueSet, builder.WithPredicates(orchestratorChanged)).
		Watches(&v1alpha1.CapacityProvider{}, enqueueSet, builder.WithPredicates(providerChanged)).
		Watches(&v1beta2.ClusterQueue{}, enqueueSet, builder.WithPredicates(clusterQueueChanged)).
		Watches(&v1beta2.Cohort{}, enqueueSet, builder.WithPredicates(cohortChanged)).
		Complete(r)
}

// updatesWhere passes creations, deletions and generic events, and the updates for
// which relevant reports a change the plan can see. Metadata-only updates (labels,
// annotations, managed fields) never change a plan, so they are dropped.
func updatesWhere[T client.Object](relevant func(old, new T) bool) predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, okOld := e.ObjectOld.(T)
			cur, okNew := e.ObjectNew.(T)
			if !okOld || !okNew {
				return true
			}
			return old.GetGeneration() != cur.GetGeneration() || relevant(old, cur)
		},
	}
}

// orchestratorChanged also passes status changes, so that a status edited or
// cleared by someone else is written back; our own status writes cost one extra
// reconcile that writes nothing.
var orchestratorChanged = updatesWhere(func(old, cur *v1alpha1.DynamicQuotaOrchestrator) bool {
	return !equality.Semantic.DeepEqual(old.Status, cur.Status)
})

// providerChanged passes every status change: capacity and CapacitySynchronized
// are what discovery reads.
var providerChanged = updatesWhere(func(old, cur *v1alpha1.CapacityProvider) bool {
	return !equality.Semantic.DeepEqual(old.Status, cur.Status)
})

// clusterQueueChanged passes changes of status.effectiveQuotas (an administrator
// clearing them, another component writing them) but not the usage counters and
// conditions that the core controller keeps updating.
var clusterQueueChanged = updatesWhere(func(old, cur *v1beta2.ClusterQueue) bool {
	return !enginedqo.EffectiveQuotasEqual(old.Status.EffectiveQuotas, cur.Status.EffectiveQuotas)
})

// cohortChanged is clusterQueueChanged for Cohorts.
var cohortChanged = updatesWhere(func(old, cur *v1beta2.Cohort) bool {
	return !enginedqo.EffectiveQuotasEqual(old.Status.EffectiveQuotas, cur.Status.EffectiveQuotas)
})

// conflictRetryDelay is how long to wait before planning again after a write lost
// an optimistic-lock race. The informer delivers the newer object within
// milliseconds, and its event enqueues the key anyway; the delay is a backstop.
const conflictRetryDelay = 500 * time.Millisecond

// The controller's permissions, exactly what it needs: it reads the four kinds
// through the manager's cache (list and watch, no direct get) and patches only
// their status subresources. It never creates, updates or deletes an object, and
// it reads no CapacityProvider's spec.parameters object. Markers must stand in a
// comment of their own (not a declaration's doc) for controller-gen to see them.
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=capacityproviders,verbs=list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=dynamicquotaorchestrators,verbs=list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=dynamicquotaorchestrators/status,verbs=patch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=clusterqueues,verbs=list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=clusterqueues/status,verbs=patch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=cohorts,verbs=list;watch
// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=cohorts/status,verbs=patch

// Reconcile plans every orchestrator from the cache and writes what differs. The
// request is ignored: there is only one key.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	snap, err := r.snapshot(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	outcomes := enginedqo.Plan(snap.orchestrators, snap.providers, snap.tree, metavNow(r.now()))
	res := r.apply(ctx, snap, outcomes)
	log.V(1).Info("planned dynamic quota orchestrators", "orchestrators", len(outcomes),
		"quotaWrites", res.quotaWrites, "statusWrites", res.statusWrites, "conflicts", res.conflicts)
	if res.err != nil {
		return reconcile.Result{}, res.err
	}
	if res.conflicts > 0 {
		return reconcile.Result{RequeueAfter: conflictRetryDelay}, nil
	}
	return reconcile.Result{}, nil
}
