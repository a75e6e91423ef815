package scheduler

import "maps"

// Kueue's kueue_admission_cycle_preemption_skips: "the number of Workloads in
// the ClusterQueue that got preemption candidates but had to be skipped
// because other ClusterQueues needed the same resources in the same cycle".
// Kueue counts a head skipped for one of two reasons, both after its search
// found victims: its targets overlap those another head of the cycle is
// evicting ("Workload has overlapping preemption targets with another
// workload", with RecomputeAssignmentUponPreemptionTargetsOverlap off), or the
// room they would leave was taken by the cycle's earlier heads ("Workload no
// longer fits after processing another workload"). The engine's searches
// that end so are scopeOverlap and scopeContended (tryPreempt).

// noteSkip counts a skipped preemption of a workload of q in this cycle.
func (s *Scheduler) noteSkip(q string) {
	if s.skips == nil {
		s.skips = map[string]int{}
	}
	s.skips[q]++
}

// PreemptionSkips returns, per ClusterQueue, how many of its workloads the
// last cycle skipped so; a ClusterQueue without any is absent. The map is
// the caller's.
func (s *Scheduler) PreemptionSkips() map[string]int {
	return maps.Clone(s.skips)
}
