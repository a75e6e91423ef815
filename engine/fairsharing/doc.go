// Package fairsharing computes Kueue's dominant resource shares (DRS) of
// ClusterQueues and Cohorts, compares queues at their almost-lowest-common-
// ancestors, and holds the fair-sharing preemption strategies. Shares are
// fixed-point integers, so that decisions never depend on float rounding.
package fairsharing
