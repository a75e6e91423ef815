package metrics

import "github.com/prometheus/client_golang/prometheus"

// cohortFamilies are Kueue's Cohort families (gate MetricsForCohorts).
type cohortFamilies struct {
	opts     Options
	snapshot func() Snapshot
}

func newCohortFamilies(opts Options, snapshot func() Snapshot) *cohortFamilies {
	return &cohortFamilies{opts: opts, snapshot: snapshot}
}

// collectors returns what to register: none unless Options.Cohorts.
func (c *cohortFamilies) collectors() []prometheus.Collector {
	return nil
}
