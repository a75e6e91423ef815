package metrics

import "github.com/prometheus/client_golang/prometheus"

// lifecycleFamilies are Kueue's families of a workload's life after its
// admission: finished, execution time, pods ready, eviction latency.
type lifecycleFamilies struct {
	opts Options
}

func newLifecycleFamilies(opts Options) *lifecycleFamilies {
	return &lifecycleFamilies{opts: opts}
}

// collectors returns what to register.
func (l *lifecycleFamilies) collectors() []prometheus.Collector {
	return nil
}
