// Package metrics defines Quokka's Prometheus metrics with Kueue's names and
// labels, so that Kueue dashboards and the spec's chargeback queries work
// unchanged. Counters and histograms are updated by the scheduling loop (and,
// for a workload's life after admission, by an observer of Workload updates,
// as Kueue's handlers do); the gauges are read from a snapshot of the engine
// and of the cached Workloads at scrape time, so they can never drift from
// the engine or keep series of deleted queues.
package metrics
