package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"

	"quokka.dev/quokka/internal/version"
)

// Label values of kueue_admission_attempts_total{result} and
// kueue_pending_workloads{status}.
const (
	ResultSuccess      = "success"
	ResultInadmissible = "inadmissible"
	StatusActive       = "active"
	StatusInadmissible = "inadmissible"
)

// Label values of kueue_cluster_queue_status{status}, as Kueue's: a queue that
// cannot admit is pending, one being deleted is terminating.
const (
	StatusPending     = "pending"
	StatusTerminating = "terminating"
)

var clusterQueueStatuses = []string{StatusPending, StatusActive, StatusTerminating}

// Options select the optional metric families, as Kueue's Configuration does.
type Options struct {
	// ClusterQueueResources exports the per-flavor usage and quota gauges
	// (metrics.enableClusterQueueResources).
	ClusterQueueResources bool
	// LocalQueue exports the kueue_local_queue_* gauges (gate LocalQueueMetrics
	// and metrics.localQueueMetrics.enable).
	LocalQueue bool
	// LocalQueueSelector, when set, limits them to the LocalQueues whose
	// labels it matches (metrics.localQueueMetrics.localQueueSelector).
	LocalQueueSelector labels.Selector
	// FairSharing exports kueue_cluster_queue_weighted_share.
	FairSharing bool
	// Unadmitted exports kueue_unadmitted_workloads, and with LocalQueue
	// kueue_local_queue_unadmitted_workloads (Kueue's
	// UnadmittedWorkloadsObservability gate).
	Unadmitted bool
	// ReplicaRole gives the replica_role label of the counters and
	// histograms at the moment they change (leader, follower or
	// standalone); nil reports an empty role.
	ReplicaRole func() string
	// LocalQueueLabels gives a LocalQueue's labels for LocalQueueSelector
	// when a counter of a LocalQueue changes; nil with no selector.
	LocalQueueLabels func(namespace, name string) map[string]string
	// Cohorts exports kueue_cohort_info and kueue_cluster_queue_info
	// (Kueue's MetricsForCohorts gate).
	Cohorts bool
	// SchedulingHashes exports kueue_pending_scheduling_hashes (Kueue's
	// SchedulingEquivalenceHashing gate).
	SchedulingHashes bool
	// WorkloadCreationLatency exports kueue_workload_creation_latency_seconds
	// (Kueue's MetricForWorkloadCreationLatency gate).
	WorkloadCreationLatency bool
}

// Workload names what the counters label an admitted or evicted workload by.
type Workload struct {
	ClusterQueue string
	// Namespace and LocalQueue are its LocalQueue's.
	Namespace, LocalQueue string
	// PriorityClass is the name its spec.priorityClassRef gives (a
	// WorkloadPriorityClass or a pod PriorityClass), empty without one, as
	// Kueue's priority_class label.
	PriorityClass string
	// Cohorts are its ClusterQueue's Cohort and that Cohort's ancestors, in
	// which kueue_cohort_subtree_admitted_workloads_total counts an
	// admission (cohort.go); empty without a Cohort.
	Cohorts CohortPath
}

// Metrics holds the collectors. It registers itself when started as a manager
// runnable and unregisters when the manager stops, so that managers started one
// after another in a process (tests, restarts) can share a registry.
type Metrics struct {
	reg        prometheus.Registerer
	collectors []prometheus.Collector
	opts       Options

	admitted          *prometheus.CounterVec
	waitTime          *prometheus.HistogramVec
	quotaReserved     *prometheus.CounterVec
	quotaReservedWait *prometheus.HistogramVec
	attempts          *prometheus.CounterVec
	attemptDuration   *prometheus.HistogramVec
	preempted         *prometheus.CounterVec
	evicted           *prometheus.CounterVec
	evictedOnce       *prometheus.CounterVec
	gauges            *gaugeCollector
	// cohorts holds the Cohort families (cohort.go), lifecycle the families
	// of a workload's life after admission (lifecycle.go).
	cohorts   *cohortFamilies
	lifecycle *lifecycleFamilies
	skips     *preemptionSkips

	// The LocalQueue families, registered only with Options.LocalQueue.
	lqAdmitted          *prometheus.CounterVec
	lqWaitTime          *prometheus.HistogramVec
	lqQuotaReserved     *prometheus.CounterVec
	lqQuotaReservedWait *prometheus.HistogramVec
	lqEvicted           *prometheus.CounterVec
}

// kueueBuckets are Kueue's wait time buckets: 1s, then 2.5s doubling
// (generateExponentialBuckets in Kueue's pkg/metrics). Dashboards and SLOs
// read single buckets (le="10"), so the bounds must be Kueue's.
func kueueBuckets(n int) []float64 {
	return append([]float64{1}, prometheus.ExponentialBuckets(2.5, 2, n-1)...)
}

// New builds the collectors; snapshot is called at every scrape for the gauges.
// Label names and their order are Kueue's (without its custom labels).
func New(reg prometheus.Registerer, opts Options, snapshot func() Snapshot) *Metrics {
	cqLabels := []string{"cluster_queue", "priority_class", "replica_role"}
	lqLabels := []string{"name", "namespace", "priority_class", "replica_role"}
	m := &Metrics{
		reg:  reg,
		opts: opts,
		admitted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_admitted_workloads_total",
			Help: "The total number of admitted workloads per cluster_queue and priority_class",
		}, cqLabels),
		waitTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_admission_wait_time_seconds",
			Help:    "The time between a workload was created or requeued until admission, per cluster_queue and priority_class",
			Buckets: kueueBuckets(16),
		}, cqLabels),
		quotaReserved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_quota_reserved_workloads_total",
			Help: "The total number of workloads that got quota reserved, per cluster_queue and priority_class (without admission checks, the admitted ones)",
		}, cqLabels),
		quotaReservedWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_quota_reserved_wait_time_seconds",
			Help:    "The time between a workload was created or requeued until its quota was reserved, per cluster_queue and priority_class",
			Buckets: kueueBuckets(14),
		}, cqLabels),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_admission_attempts_total",
			Help: "The total number of attempts to admit workloads; result is success when at least one workload was admitted in the cycle, inadmissible otherwise",
		}, []string{"result", "replica_role"}),
		attemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_admission_attempt_duration_seconds",
			Help:    "The latency of an admission attempt (one scheduling cycle), by result",
			Buckets: prometheus.DefBuckets,
		}, []string{"result", "replica_role"}),
		preempted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_preempted_workloads_total",
			Help: "The number of preempted workloads per preempting_cluster_queue and reason",
		}, []string{"preempting_cluster_queue", "reason", "replica_role"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_evicted_workloads_total",
			Help: "The number of evicted workloads per cluster_queue, reason and priority_class; underlying_cause is the cause of a Deactivated eviction (MaximumExecutionTimeExceeded), else empty",
		}, []string{"cluster_queue", "reason", "underlying_cause", "priority_class", "replica_role"}),
		evictedOnce: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_evicted_workloads_once_total",
			Help: "The number of workloads evicted for the first time for a reason and underlying_cause, per cluster_queue and priority_class",
		}, []string{"cluster_queue", "reason", "underlying_cause", "priority_class", "replica_role"}),
		lqAdmitted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_local_queue_admitted_workloads_total",
			Help: "The total number of admitted workloads per LocalQueue and priority_class",
		}, lqLabels),
		lqWaitTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_local_queue_admission_wait_time_seconds",
			Help:    "The time between a workload was created or requeued until admission, per LocalQueue and priority_class",
			Buckets: kueueBuckets(14),
		}, lqLabels),
		lqQuotaReserved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_local_queue_quota_reserved_workloads_total",
			Help: "The total number of workloads that got quota reserved, per LocalQueue and priority_class",
		}, lqLabels),
		lqQuotaReservedWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_local_queue_quota_reserved_wait_time_seconds",
			Help:    "The time between a workload was created or requeued until its quota was reserved, per LocalQueue and priority_class",
			Buckets: kueueBuckets(14),
		}, lqLabels),
		lqEvicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_local_queue_evicted_workloads_total",
			Help: "The number of evicted workloads per LocalQueue, reason, underlying_cause and priority_class",
		}, []string{"name", "namespace", "reason", "underlying_cause", "priority_class", "replica_role"}),
		gauges:    newGaugeCollector(opts, snapshot),
		cohorts:   newCohortFamilies(opts),
		lifecycle: newLifecycleFamilies(opts),
		skips:     newPreemptionSkips(),
	}
	m.gauges.cohorts, m.gauges.skips = m.cohorts, m.skips
	m.collectors = []prometheus.Collector{m.admitted, m.waitTime, m.quotaReserved, m.quotaReservedWait,
		m.attempts, m.attemptDuration, m.preempted, m.evicted, m.evictedOnce, m.gauges, newBuildInfo(version.Get())}
	if opts.LocalQueue {
		m.collectors = append(m.collectors, m.lqAdmitted, m.lqWaitTime, m.lqQuotaReserved, m.lqQuotaReservedWait, m.lqEvicted)
	}
	m.collectors = append(m.collectors, m.lifecycle.collectors()...)
	return m
}

// NeedLeaderElection is false: followers export gauges labelled follower.
func (m *Metrics) NeedLeaderElection() bool { return false }

// Start registers the collectors until ctx ends.
func (m *Metrics) Start(ctx context.Context) error {
	return RegisterUntilDone(ctx, m.reg, m.collectors...)
}

// RegisterUntilDone registers collectors with reg, waits for ctx to end and
// unregisters them, so that managers started one after another in a process
// (tests, restarts) can share a registry. A collector another manager of the
// process still exports is an error that says so.
func RegisterUntilDone(ctx context.Context, reg prometheus.Registerer, collectors ...prometheus.Collector) error {
	var done []prometheus.Collector
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			for _, d := range done {
				reg.Unregister(d)
			}
			var already prometheus.AlreadyRegisteredError
			if errors.As(err, &already) {
				return fmt.Errorf("registering metrics: another manager in this process exports them: %w", err)
			}
			return fmt.Errorf("registering metrics: %w", err)
		}
		done = append(done, c)
	}
	<-ctx.Done()
	for _, c := range done {
		reg.Unregister(c)
	}
	return nil
}

func (m *Metrics) role() string {
	if m.opts.ReplicaRole == nil {
		return ""
	}
	return m.opts.ReplicaRole()
}

// localQueue tells whether the workload's LocalQueue gets the LocalQueue
// families: LocalQueue metrics are on and the selector, if any, matches the
// LocalQueue's labels.
func (m *Metrics) localQueue(w Workload) bool {
	if !m.opts.LocalQueue || w.LocalQueue == "" {
		return false
	}
	if sel := m.opts.LocalQueueSelector; sel != nil {
		var lqLabels map[string]string
		if m.opts.LocalQueueLabels != nil {
			lqLabels = m.opts.LocalQueueLabels(w.Namespace, w.LocalQueue)
		}
		return sel.Matches(labels.Set(lqLabels))
	}
	return true
}

// Admitted counts an admission and how long the workload waited for it.
// Quokka reserves quota and admits in one write, so the quota reservation
// families count the same moment.
func (m *Metrics) Admitted(w Workload, wait time.Duration) {
	role := m.role()
	s := wait.Seconds()
	m.admitted.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Inc()
	m.waitTime.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Observe(s)
	m.quotaReserved.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Inc()
	m.quotaReservedWait.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Observe(s)
	m.cohorts.countAdmitted(w, role)
	if !m.localQueue(w) {
		return
	}
	m.lqAdmitted.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Inc()
	m.lqWaitTime.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Observe(s)
	m.lqQuotaReserved.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Inc()
	m.lqQuotaReservedWait.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Observe(s)
}

// AdmissionAttempt records one scheduling cycle.
func (m *Metrics) AdmissionAttempt(result string, d time.Duration) {
	role := m.role()
	m.attempts.WithLabelValues(result, role).Inc()
	m.attemptDuration.WithLabelValues(result, role).Observe(d.Seconds())
}

// Preempted counts a preempted workload.
func (m *Metrics) Preempted(preemptingClusterQueue, reason string) {
	m.preempted.WithLabelValues(preemptingClusterQueue, reason, m.role()).Inc()
}

// Evicted counts an evicted workload (preemption included, as in Kueue);
// first says it is the workload's first eviction for that reason and cause
// (its status.schedulingStats.evictions count went from 0 to 1), which
// kueue_evicted_workloads_once_total counts too.
func (m *Metrics) Evicted(w Workload, reason, underlyingCause string, first bool) {
	role := m.role()
	m.evicted.WithLabelValues(w.ClusterQueue, reason, underlyingCause, w.PriorityClass, role).Inc()
	if first {
		m.evictedOnce.WithLabelValues(w.ClusterQueue, reason, underlyingCause, w.PriorityClass, role).Inc()
	}
	if m.localQueue(w) {
		m.lqEvicted.WithLabelValues(w.LocalQueue, w.Namespace, reason, underlyingCause, w.PriorityClass, role).Inc()
	}
}
