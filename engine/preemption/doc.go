// Package preemption chooses which admitted workloads to evict so that a
// pending one fits: Kueue's classic preemption (withinClusterQueue,
// reclaimWithinCohort, borrowWithinCohort) and fair-sharing preemption. It is
// pure: it simulates removals on the quota cache and always restores it before
// returning, and it returns targets; the scheduler turns them into decisions.
package preemption
