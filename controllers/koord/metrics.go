package koord

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	coremetrics "quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/engine/resources"
)

// metrics are the Koord-Queue path's Prometheus metrics. Counters count
// decisions; gauges are a snapshot the admission loop takes after each cycle,
// served whole at every scrape.
type metrics struct {
	reg        prometheus.Registerer
	admissions *prometheus.CounterVec
	attempts   *prometheus.CounterVec
	preemption *prometheus.CounterVec
	cycle      prometheus.Histogram

	mu       sync.Mutex
	snapshot []gaugeSample

	usedDesc, minDesc, maxDesc, pendingDesc, unresolvedDesc *prometheus.Desc
}

type gaugeSample struct {
	desc   *prometheus.Desc
	value  float64
	labels []string
}

func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		reg: reg,
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quokka_koord_queue_admissions_total",
			Help: "QueueUnits admitted (dequeued), per queue",
		}, []string{"queue"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quokka_koord_queue_admission_attempts_total",
			Help: "Usage checks of QueueUnits, per queue and result (admitted or refused)",
		}, []string{"queue", "result"}),
		preemption: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quokka_koord_queue_preempted_units_total",
			Help: "QueueUnits marked for reclaim by queue-level preemption, per queue",
		}, []string{"queue"}),
		cycle: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "quokka_koord_queue_cycle_duration_seconds",
			Help:    "Time of one Koord-Queue admission cycle, writes included",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 14),
		}),
		usedDesc: prometheus.NewDesc("quokka_koord_quota_used",
			"What admitted QueueUnits charge to an ElasticQuota and its descendants, per resource (canonical units: cpu in millicores)",
			[]string{"quota", "resource"}, nil),
		minDesc: prometheus.NewDesc("quokka_koord_quota_min",
			"An ElasticQuota's spec.min, per resource (canonical units)", []string{"quota", "resource"}, nil),
		maxDesc: prometheus.NewDesc("quokka_koord_quota_max",
			"An ElasticQuota's spec.max, per resource (canonical units), before the oversell rate", []string{"quota", "resource"}, nil),
		pendingDesc: prometheus.NewDesc("quokka_koord_queue_pending_units",
			"QueueUnits waiting in a queue, per queue and reason", []string{"queue", "reason"}, nil),
		unresolvedDesc: prometheus.NewDesc("quokka_koord_queue_unresolved_units",
			"QueueUnits that map to no queue (no quota label, or a quota that does not exist), per namespace and reason",
			[]string{"namespace", "reason"}, nil),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.admissions, m.attempts, m.preemption, m.cycle, m}
}

// NeedLeaderElection is false: a follower serves its (empty) snapshot.
func (m *metrics) NeedLeaderElection() bool { return false }

// Start registers the collectors until ctx ends.
func (m *metrics) Start(ctx context.Context) error {
	if err := coremetrics.RegisterUntilDone(ctx, m.reg, m.collectors()...); err != nil {
		return fmt.Errorf("Koord-Queue: %w", err)
	}
	return nil
}

// Describe and Collect serve the gauge snapshot.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.usedDesc, m.minDesc, m.maxDesc, m.pendingDesc, m.unresolvedDesc} {
		ch <- d
	}
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.snapshot {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, s.value, s.labels...)
	}
}

func (m *metrics) admitted(queue string)  { m.admissions.WithLabelValues(queue).Inc() }
func (m *metrics) preempted(queue string) { m.preemption.WithLabelValues(queue).Inc() }

// observe counts a cycle's attempts and replaces the gauge snapshot.
func (m *metrics) observe(state *syncState, decisions []elasticquota.Decision, took time.Duration) {
	m.cycle.Observe(took.Seconds())
	pending := map[[2]string]int{}
	unresolved := map[[2]string]int{}
	for _, d := range decisions {
		switch d := d.(type) {
		case elasticquota.Admit:
			m.attempts.WithLabelValues(d.Quota, "admitted").Inc()
		case elasticquota.Pending:
			switch d.Reason {
			case elasticquota.ReasonNoQuotaLabel, elasticquota.QueueNotFoundReason:
				unresolved[[2]string{d.Unit.Namespace, d.Reason}]++
				continue
			case elasticquota.ReasonFailedScheduling:
				m.attempts.WithLabelValues(d.Quota, "refused").Inc()
			}
			pending[[2]string{d.Quota, d.Reason}]++
		}
	}
	var samples []gaugeSample
	for _, q := range state.sched.QuotasWithRoot() {
		for desc, list := range map[*prometheus.Desc]map[string]int64{
			m.usedDesc: canonicalOf(q.Used), m.minDesc: canonicalOf(q.Min), m.maxDesc: canonicalOf(q.Max),
		} {
			for r, v := range list {
				samples = append(samples, gaugeSample{desc: desc, value: float64(v), labels: []string{q.Name, r}})
			}
		}
	}
	for k, n := range pending {
		samples = append(samples, gaugeSample{desc: m.pendingDesc, value: float64(n), labels: k[:]})
	}
	for k, n := range unresolved {
		samples = append(samples, gaugeSample{desc: m.unresolvedDesc, value: float64(n), labels: k[:]})
	}
	m.mu.Lock()
	m.snapshot = samples
	m.mu.Unlock()
}

func canonicalOf(list corev1.ResourceList) map[string]int64 {
	out := map[string]int64{}
	for name, q := range list {
		if v, err := resources.ToCanonical(name, q); err == nil {
			out[string(name)] = v
		}
	}
	return out
}
