package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
)

// lifecycleFamilies are Kueue's families of a workload's life after its
// admission: finished, execution time, pods ready, eviction latency. All are
// registered by default in Kueue; the LocalQueue twins only with LocalQueue
// metrics. The finished gauges are read at scrape time with the other gauges
// (finishedGauges), from the same snapshot.
type lifecycleFamilies struct {
	opts Options

	finished, lqFinished                     *prometheus.CounterVec
	execution, lqExecution                   *prometheus.HistogramVec
	readyWait, lqReadyWait                   *prometheus.HistogramVec
	admittedUntilReady, lqAdmittedUntilReady *prometheus.HistogramVec
	podsReadyToEvicted, evictionLatency      *prometheus.HistogramVec
}

func newLifecycleFamilies(opts Options) *lifecycleFamilies {
	cqLabels := []string{"cluster_queue", "priority_class", "replica_role"}
	lqLabels := []string{"name", "namespace", "priority_class", "replica_role"}
	histogram := func(name, help string, buckets int, labels []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: kueueBuckets(buckets)}, labels)
	}
	return &lifecycleFamilies{
		opts: opts,
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_finished_workloads_total",
			Help: "The total number of workloads that finished, per cluster_queue (of their admission, empty if never admitted) and priority_class",
		}, cqLabels),
		lqFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueue_local_queue_finished_workloads_total",
			Help: "The total number of admitted workloads that finished, per LocalQueue and priority_class",
		}, lqLabels),
		execution: histogram("kueue_execution_time_seconds",
			"The total execution time of an admitted workload that finished, from its admission to its completion plus the time of its earlier admissions (across evictions), per cluster_queue and priority_class",
			16, cqLabels),
		lqExecution: histogram("kueue_local_queue_execution_time_seconds",
			"The total execution time of an admitted workload that finished, from its admission to its completion plus the time of its earlier admissions (across evictions), per LocalQueue and priority_class",
			16, lqLabels),
		readyWait: histogram("kueue_ready_wait_time_seconds",
			"The time between a workload was created or requeued until its pods were ready, per cluster_queue and priority_class",
			14, cqLabels),
		lqReadyWait: histogram("kueue_local_queue_ready_wait_time_seconds",
			"The time between a workload was created or requeued until its pods were ready, per LocalQueue and priority_class",
			14, lqLabels),
		admittedUntilReady: histogram("kueue_admitted_until_ready_wait_time_seconds",
			"The time between a workload was admitted until its pods were ready, per cluster_queue and priority_class",
			14, cqLabels),
		lqAdmittedUntilReady: histogram("kueue_local_queue_admitted_until_ready_wait_time_seconds",
			"The time between a workload was admitted until its pods were ready, per LocalQueue and priority_class",
			14, lqLabels),
		podsReadyToEvicted: histogram("kueue_pods_ready_to_evicted_time_seconds",
			"The time between a workload's pods were ready and its eviction, per cluster_queue, reason and underlying_cause (as kueue_evicted_workloads_total's)",
			14, []string{"cluster_queue", "reason", "underlying_cause", "replica_role"}),
		evictionLatency: histogram("kueue_workload_eviction_latency_seconds",
			"The time from a workload's eviction (its Evicted condition turning True) until it is pending again with its quota released, per cluster_queue (of the admission it lost) and reason (its Evicted condition's)",
			14, []string{"cluster_queue", "reason", "replica_role"}),
	}
}

// collectors returns what to register: the LocalQueue twins only with
// LocalQueue metrics, as Kueue's RegisterLQMetrics.
func (l *lifecycleFamilies) collectors() []prometheus.Collector {
	out := []prometheus.Collector{l.finished, l.execution, l.readyWait, l.admittedUntilReady,
		l.podsReadyToEvicted, l.evictionLatency}
	if l.opts.LocalQueue {
		out = append(out, l.lqFinished, l.lqExecution, l.lqReadyWait, l.lqAdmittedUntilReady)
	}
	return out
}

// Finished counts a workload whose Finished condition turned True. w's
// ClusterQueue is its admission's, empty for a workload never admitted,
// which Kueue counts under cluster_queue="" and in no LocalQueue; the caller
// leaves w.LocalQueue empty when the LocalQueue does not exist (Kueue's
// ShouldExposeLocalQueueMetricsForWorkload).
func (m *Metrics) Finished(w Workload) {
	role := m.role()
	m.lifecycle.finished.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Inc()
	if w.ClusterQueue != "" && m.localQueue(w) {
		m.lifecycle.lqFinished.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Inc()
	}
}

// Executed records how long a finished, admitted workload ran in all, at
// least 0 (a finish written before the admission's time, clocks skewed).
func (m *Metrics) Executed(w Workload, d time.Duration) {
	role := m.role()
	s := max(0, d.Seconds())
	m.lifecycle.execution.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Observe(s)
	if w.ClusterQueue != "" && m.localQueue(w) {
		m.lifecycle.lqExecution.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Observe(s)
	}
}

// PodsReady records, when a workload's pods first became ready after its
// admission, how long it had been queued (since its creation or its last
// requeue) and how long since its admission.
func (m *Metrics) PodsReady(w Workload, queued, sinceAdmission time.Duration) {
	role := m.role()
	m.lifecycle.readyWait.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Observe(queued.Seconds())
	m.lifecycle.admittedUntilReady.WithLabelValues(w.ClusterQueue, w.PriorityClass, role).Observe(sinceAdmission.Seconds())
	if w.ClusterQueue != "" && m.localQueue(w) {
		m.lifecycle.lqReadyWait.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Observe(queued.Seconds())
		m.lifecycle.lqAdmittedUntilReady.WithLabelValues(w.LocalQueue, w.Namespace, w.PriorityClass, role).Observe(sinceAdmission.Seconds())
	}
}

// PodsReadyToEvicted records, at the eviction of a workload whose pods were
// ready, how long they had been; reason and underlyingCause are
// kueue_evicted_workloads_total's.
func (m *Metrics) PodsReadyToEvicted(clusterQueue, reason, underlyingCause string, d time.Duration) {
	m.lifecycle.podsReadyToEvicted.WithLabelValues(clusterQueue, reason, underlyingCause, m.role()).Observe(d.Seconds())
}

// EvictionLatency records how long an evicted workload took to release its
// quota, at least 0 (the condition's time is the API server's clock).
func (m *Metrics) EvictionLatency(clusterQueue, reason string, d time.Duration) {
	m.lifecycle.evictionLatency.WithLabelValues(clusterQueue, reason, m.role()).Observe(max(0, d.Seconds()))
}

// LocalQueueKey names a LocalQueue.
type LocalQueueKey struct{ Namespace, Name string }

// FinishedWorkloads counts the finished Workloads that exist now, by the
// LocalQueue their spec.queueName names.
type FinishedWorkloads map[LocalQueueKey]int

// finishedGauges are kueue_finished_workloads and its LocalQueue twin, the
// finished Workloads that exist now (Kueue's queue manager counts them from
// their Finished condition until their deletion), per existing LocalQueue and
// per the ClusterQueue that LocalQueue points to: a finished Workload whose
// LocalQueue does not exist is in neither, as in Kueue.
type finishedGauges struct {
	cq, lq *prometheus.Desc
}

func newFinishedGauges() finishedGauges {
	return finishedGauges{
		cq: prometheus.NewDesc("kueue_finished_workloads",
			"The number of finished workloads that exist, per cluster_queue (of their LocalQueue)",
			[]string{"cluster_queue", "replica_role"}, nil),
		lq: prometheus.NewDesc("kueue_local_queue_finished_workloads",
			"The number of finished workloads that exist, per LocalQueue",
			[]string{"name", "namespace", "replica_role"}, nil),
	}
}

func (f finishedGauges) describe(ch chan<- *prometheus.Desc, opts Options) {
	ch <- f.cq
	if opts.LocalQueue {
		ch <- f.lq
	}
}

// collect reports every ClusterQueue and every LocalQueue the selector keeps,
// at 0 without finished Workloads; nothing when the snapshot could not count
// them.
func (f finishedGauges) collect(snap Snapshot, opts Options, gauge func(*prometheus.Desc, float64, ...string)) {
	if snap.Finished == nil {
		return
	}
	perCQ := map[string]int{}
	for _, lq := range snap.LocalQueues {
		n := snap.Finished[LocalQueueKey{Namespace: lq.Namespace, Name: lq.Name}]
		perCQ[lq.ClusterQueue] += n
		if !opts.LocalQueue {
			continue
		}
		if sel := opts.LocalQueueSelector; sel != nil && !sel.Matches(labels.Set(lq.Labels)) {
			continue
		}
		gauge(f.lq, float64(n), lq.Name, lq.Namespace, snap.ReplicaRole)
	}
	for _, cq := range snap.ClusterQueues {
		gauge(f.cq, float64(perCQ[cq.Name]), cq.Name, snap.ReplicaRole)
	}
}
