package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
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
}

// Metrics holds the collectors. It registers itself when started as a manager
// runnable and unregisters when the manager stops, so that managers started one
// after another in a process (tests, restarts) can share a registry.
type Metrics struct {
	reg        prometheus.Registerer
	collectors []prometheus.Collector

	admitted        *prometheus.CounterVec
	waitTime        *prometheus.HistogramVec
	attempts        *prometheus.CounterVec
	attemptDuration *prometheus.HistogramVec
	preempted       *prometheus.CounterVec
	evicted         *prometheus.CounterVec
	gauges          *gaugeCollector
}

// New builds the collectors; snapshot is called at every scrape for the gauges.
func New(reg prometheus.Registerer, opts Options, snapshot func() Snapshot) *Metrics {
	m := &Metrics{
		reg: reg,
		admitted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_admitted_workloads_total",
			Help: "The total number of admitted workloads per cluster_queue",
		}, []string{"cluster_queue"}),
		waitTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_admission_wait_time_seconds",
			Help:    "The time between a workload was created or requeued until admission, per cluster_queue",
			Buckets: prometheus.ExponentialBuckets(1, 2.5, 14),
		}, []string{"cluster_queue"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_admission_attempts_total",
			Help: "The total number of attempts to admit workloads; result is success when at least one workload was admitted in the cycle, inadmissible otherwise",
		}, []string{"result"}),
		attemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kueue_admission_attempt_duration_seconds",
			Help:    "The latency of an admission attempt (one scheduling cycle), by result",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 14),
		}, []string{"result"}),
		preempted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_preempted_workloads_total",
			Help: "The number of preempted workloads per preempting_cluster_queue and reason",
		}, []string{"preempting_cluster_queue", "reason"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_evicted_workloads_total",
			Help: "The number of evicted workloads per cluster_queue and reason; underlying_cause is the cause of a Deactivated eviction (MaximumExecutionTimeExceeded), else empty",
		}, []string{"cluster_queue", "reason", "underlying_cause"}),
		gauges: newGaugeCollector(opts, snapshot),
	}
	m.collectors = []prometheus.Collector{m.admitted, m.waitTime, m.attempts, m.attemptDuration, m.preempted, m.evicted, m.gauges}
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

// Admitted counts an admission and how long the workload waited for it.
func (m *Metrics) Admitted(clusterQueue string, wait time.Duration) {
	m.admitted.WithLabelValues(clusterQueue).Inc()
	m.waitTime.WithLabelValues(clusterQueue).Observe(wait.Seconds())
}

// AdmissionAttempt records one scheduling cycle.
func (m *Metrics) AdmissionAttempt(result string, d time.Duration) {
	m.attempts.WithLabelValues(result).Inc()
	m.attemptDuration.WithLabelValues(result).Observe(d.Seconds())
}

// Preempted counts a preempted workload.
func (m *Metrics) Preempted(preemptingClusterQueue, reason string) {
	m.preempted.WithLabelValues(preemptingClusterQueue, reason).Inc()
}

// Evicted counts an evicted workload (preemption included, as in Kueue).
func (m *Metrics) Evicted(clusterQueue, reason, underlyingCause string) {
	m.evicted.WithLabelValues(clusterQueue, reason, underlyingCause).Inc()
}
