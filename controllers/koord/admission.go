package koord

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

// admissionLoop is Koord-Queue's scheduler in the manager: it keeps an
// engine/elasticquota Scheduler in step with the ElasticQuotas, Queues and
// QueueUnits of the cluster, runs a cycle whenever one of them changes, and
// writes the decisions. It needs leadership: one replica admits.
type admissionLoop struct {
	log       logr.Logger
	client    client.Client
	apiReader client.Reader
	cache     cache.Cache
	recorder  record.EventRecorder
	metrics   *metrics
	opts      Options
	changed   chan struct{}

	// state is rebuilt from the API each time the loop starts (a start or a
	// leader change), so it is not shared with anything else.
	state *syncState
}

var _ manager.LeaderElectionRunnable = (*admissionLoop)(nil)

func (l *admissionLoop) NeedLeaderElection() bool { return true }

// poke asks for a cycle; pokes that arrive while one is pending merge.
func (l *admissionLoop) poke() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Start rebuilds usage from every QueueUnit with admissions, read from the API
// server rather than a cache, before the first cycle: nothing admitted by an
// earlier leader is admitted twice. It then cycles until ctx ends.
func (l *admissionLoop) Start(ctx context.Context) error {
	if !l.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("koord-queue admission: informer caches did not sync")
	}
	l.state = newSyncState(l.opts.OversellRate)
	l.state.sched.SetReclaimProtectTime(l.opts.ReclaimProtectTime)
	if err := l.sync(ctx, l.apiReader); err != nil {
		return fmt.Errorf("koord-queue admission: rebuilding from the API: %w", err)
	}
	l.log.Info("Koord-Queue usage rebuilt from the API; admitting",
		"admittedUnits", l.state.sched.AdmittedCount(), "pendingUnits", l.state.sched.PendingCount())
	resync := time.NewTicker(l.opts.Resync)
	defer resync.Stop()
	var retry <-chan time.Time
	first := true
	for {
		if !first {
			select {
			case <-ctx.Done():
				return nil
			case <-l.changed:
			case <-resync.C:
			case <-retry:
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(l.opts.Debounce):
			}
			select {
			case <-l.changed:
			default:
			}
			if err := l.sync(ctx, l.client); err != nil {
				l.log.Error(err, "reading Koord-Queue objects")
				retry = time.After(time.Second)
				continue
			}
		}
		first = false
		retry = nil
		if failed := l.cycle(ctx); failed {
			retry = time.After(time.Second)
		}
	}
}

// sync reads quotas, queues and units through r and brings the engine in step.
func (l *admissionLoop) sync(ctx context.Context, r client.Reader) error {
	var quotas koordv1alpha1.ElasticQuotaList
	if err := r.List(ctx, &quotas); err != nil {
		return fmt.Errorf("listing ElasticQuotas: %w", err)
	}
	var queues queuev1alpha1.QueueList
	if err := r.List(ctx, &queues, client.InNamespace(l.opts.Namespace)); err != nil {
		return fmt.Errorf("listing Queues: %w", err)
	}
	var units queuev1alpha1.QueueUnitList
	if err := r.List(ctx, &units); err != nil {
		return fmt.Errorf("listing QueueUnits: %w", err)
	}
	for _, err := range l.state.syncQuotas(quotas.Items, queues.Items) {
		l.log.Error(err, "ElasticQuota left out of admission")
	}
	for _, err := range l.state.syncUnits(units.Items) {
		l.log.Error(err, "QueueUnit left out of admission")
	}
	return nil
}

// cycle runs the engine once and applies its decisions; it reports whether a
// write failed.
func (l *admissionLoop) cycle(ctx context.Context) bool {
	start := l.opts.Now()
	if l.flushMarks(ctx) {
		return true
	}
	l.state.sched.SetNow(start)
	decisions := l.state.sched.Cycle()
	failed := l.apply(ctx, decisions)
	l.publishUsage(ctx)
	l.metrics.observe(l.state, decisions, l.opts.Now().Sub(start))
	return failed
}

// SetupWithManager-style wiring: every change of a quota, queue or unit pokes
// the loop.
func setupAdmission(mgr manager.Manager, opts Options, recorder record.EventRecorder, m *metrics) error {
	l := &admissionLoop{
		log:       mgr.GetLogger().WithName("koord-queue-admission"),
		client:    mgr.GetClient(),
		apiReader: mgr.GetAPIReader(),
		cache:     mgr.GetCache(),
		recorder:  recorder,
		metrics:   m,
		opts:      opts,
		changed:   make(chan struct{}, 1),
	}
	if err := mgr.Add(l); err != nil {
		return fmt.Errorf("adding the Koord-Queue admission loop: %w", err)
	}
	pokeOnChange := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		l.poke()
		return nil
	})
	err := ctrl.NewControllerManagedBy(mgr).
		Named("koord-queue-admission").
		Watches(&queuev1alpha1.QueueUnit{}, pokeOnChange).
		Watches(&koordv1alpha1.ElasticQuota{}, pokeOnChange).
		Watches(&queuev1alpha1.Queue{}, pokeOnChange).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, nil
		}))
	if err != nil {
		return fmt.Errorf("watching Koord-Queue objects for the admission loop: %w", err)
	}
	return nil
}
