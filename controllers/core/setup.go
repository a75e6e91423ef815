package core

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/internal/cli"
)

// Options are what tests may change; production uses the zero value.
type Options struct {
	// Registerer receives the metrics; nil means controller-runtime's registry,
	// which the manager's metrics endpoint serves.
	Registerer prometheus.Registerer
	Loop       LoopOptions
	// Now is the wall clock used for wait times; nil means time.Now.
	Now func() time.Time
}

// NewController returns the core controllers for `quokka manager`.
func NewController() cli.Controller {
	return cli.Controller{Name: "core", Setup: func(mgr manager.Manager, cfg *configapi.Configuration) error {
		return Setup(mgr, cfg, Options{})
	}}
}

// Setup registers the feeding reconcilers, the Workload lifecycle, the scheduling
// loop and the metrics on mgr, all sharing one engine.
func Setup(mgr manager.Manager, cfg *configapi.Configuration, opts Options) error {
	if opts.Registerer == nil {
		opts.Registerer = ctrlmetrics.Registry
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	engineOpts := scheduler.OptionsFromConfiguration(cfg)
	engine := NewEngine(engineOpts)
	role := NewRole(cfg.LeaderElectionEnabled())
	if err := mgr.Add(watchElection{role: role, elected: mgr.Elected()}); err != nil {
		return fmt.Errorf("adding leader election watch: %w", err)
	}
	for _, f := range append(feeders(mgr, engine), queueFeeders(mgr, engine)...) {
		if err := f.setup(); err != nil {
			return err
		}
	}
	if err := setupEnvironment(mgr, engine); err != nil {
		return err
	}
	events := mgr.GetEventRecorderFor("kueue-admission") //nolint:staticcheck // the brief's client-go recorder; events.k8s.io later
	resync := make(chan event.GenericEvent)
	wr := &workloadReconciler{client: mgr.GetClient(), engine: engine, role: role, events: events, now: opts.Now, resync: resync,
		concurrency: workloadConcurrency(cfg), tieredReasons: cfg.FeatureGate(configapi.FeatureUnadmittedWorkloadsObservability)}
	if p := cfg.ObjectRetentionPolicies; p != nil && p.Workloads != nil && p.Workloads.AfterFinished != nil {
		wr.retainFinished = &p.Workloads.AfterFinished.Duration
	}
	if err := wr.setup(context.Background(), mgr); err != nil {
		return err
	}
	pcr := &priorityClassReconciler{client: mgr.GetClient()}
	if err := pcr.setup(context.Background(), mgr); err != nil {
		return err
	}
	pending := newPendingTracker()
	mopts := metrics.Options{
		ClusterQueueResources:   cfg.Metrics.EnableClusterQueueResources,
		LocalQueue:              cfg.LocalQueueMetricsEnabled(),
		LocalQueueSelector:      cfg.LocalQueueMetricsSelector(),
		FairSharing:             cfg.FairSharingEnabled(),
		Unadmitted:              cfg.FeatureGate(configapi.FeatureUnadmittedWorkloadsObservability),
		ReplicaRole:             role.Label,
		Cohorts:                 cfg.FeatureGate(configapi.FeatureMetricsForCohorts),
		SchedulingHashes:        cfg.FeatureGate(configapi.FeatureSchedulingEquivalenceHashing),
		WorkloadCreationLatency: cfg.FeatureGate(configapi.FeatureMetricForWorkloadCreationLatency),
	}
	var lqLabels func(namespace, name string) map[string]string
	if mopts.LocalQueue && mopts.LocalQueueSelector != nil {
		lqLabels = cachedLocalQueueLabels(mgr.GetClient())
		mopts.LocalQueueLabels = lqLabels
	}
	// The cached Workloads: the finished gauges count them at every scrape,
	// and the unadmitted ones with their gate.
	var workloads client.Reader = mgr.GetCache()
	m := metrics.New(opts.Registerer, mopts, metricsSnapshot(engine, role, pending, lqLabels, workloads, mopts.ClusterQueueResources, mopts.SchedulingHashes))
	if err := mgr.Add(m); err != nil {
		return fmt.Errorf("adding metrics: %w", err)
	}
	if err := observeLifecycle(mgr, m, role, opts.Now, cfg.WaitForPodsReady != nil); err != nil {
		return err
	}
	statusWriter, err := newWorkloadStatusWriter(mgr)
	if err != nil {
		return err
	}
	loopOpts := opts.Loop.withDefaults()
	l := &loop{
		log:            mgr.GetLogger().WithName("scheduler"),
		engine:         engine,
		client:         mgr.GetClient(),
		statusWriter:   statusWriter,
		apiReader:      mgr.GetAPIReader(),
		cache:          mgr.GetCache(),
		events:         events,
		metrics:        m,
		pending:        pending,
		deferred:       newDeferredReasons(loopOpts.PendingReasonAfter),
		admittedEvents: newEventBudget(loopOpts.AdmittedEventsPerSecond),
		writes:         newCycleWrites(loopOpts.Workers),
		resync:         resync,
		opts:           loopOpts,
		now:            opts.Now,

		fairSharing: cfg.FairSharingEnabled(),
		rules:       engineOpts.Resources,

		ignoreReclaimable: engineOpts.NoReclaimablePods,
		tieredReasons:     cfg.FeatureGate(configapi.FeatureUnadmittedWorkloadsObservability),
	}
	if cfg.AdmissionFairSharingEnabled() {
		l.sampleEvery = cfg.AdmissionFairSharing.UsageSamplingInterval.Duration
		if l.sampleEvery <= 0 {
			l.sampleEvery = 5 * time.Minute
		}
	}
	if err := mgr.Add(l); err != nil {
		return fmt.Errorf("adding scheduling loop: %w", err)
	}
	return nil
}
