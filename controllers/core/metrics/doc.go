// Package metrics defines Quokka's Prometheus metrics with Kueue's names and
// labels, so that Kueue dashboards and the spec's chargeback queries work
// unchanged. Counters and histograms are updated by the scheduling loop; the
// gauges are read from a snapshot of the engine at scrape time, so they can
// never drift from the engine or keep series of deleted queues.
package metrics
