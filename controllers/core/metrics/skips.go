package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// preemptionSkips is kueue_admission_cycle_preemption_skips: per
// ClusterQueue, the workloads whose preemption the last scheduling cycle
// skipped because earlier heads of the cycle needed the same room (the
// engine's Scheduler.PreemptionSkips). It is the last cycle's count, 0 for a
// ClusterQueue that had none; Kueue sets it only for the ClusterQueues that
// had some, so there a count stays until the next cycle that skips one of
// theirs. A deleted ClusterQueue has no series (the gauge collector's
// snapshot lists the existing ones).
type preemptionSkips struct {
	desc *prometheus.Desc
	mu   sync.Mutex
	last map[string]int
}

func newPreemptionSkips() *preemptionSkips {
	return &preemptionSkips{desc: prometheus.NewDesc("kueue_admission_cycle_preemption_skips",
		"The number of Workloads in the ClusterQueue that got preemption candidates but had to be skipped because other ClusterQueues needed the same resources in the same cycle (the last cycle's count)",
		[]string{"cluster_queue", "replica_role"}, nil)}
}

// PreemptionSkips records the last cycle's counts; the map is kept.
func (m *Metrics) PreemptionSkips(counts map[string]int) {
	m.skips.mu.Lock()
	defer m.skips.mu.Unlock()
	m.skips.last = counts
}

func (p *preemptionSkips) collect(snap Snapshot, gauge func(*prometheus.Desc, float64, ...string)) {
	p.mu.Lock()
	last := p.last
	p.mu.Unlock()
	for _, cq := range snap.ClusterQueues {
		gauge(p.desc, float64(last[cq.Name]), cq.Name, snap.ReplicaRole)
	}
}
