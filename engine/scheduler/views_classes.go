package scheduler

// Kueue's kueue_pending_scheduling_hashes (reported with its
// SchedulingEquivalenceHashing gate): per ClusterQueue, the number of distinct
// scheduling equivalence hashes among its pending workloads, "active" for
// those in its heap and "inadmissible" for those in its inadmissible list
// (pkg/cache/queue, schedulingHashCounts). A hash is a workload's class here
// (equivalence.go: its priority and its pod sets' shape), the heap the
// workloads that are not parked and the inadmissible list the parked ones
// (park.go), by their own evaluation or by their class. A class with
// workloads on both sides counts on both, as in Kueue. An inactive
// ClusterQueue reports every pending class as inadmissible, counted once
// (Kueue's pendingSchedulingHashesForInactiveClusterQueue). Workloads with
// spec.active=false are in no queue of Kueue's, and in neither count.

// ClusterQueuePendingClasses returns the numbers of distinct classes of a
// ClusterQueue's pending workloads that are not parked (active) and parked
// (inadmissible); ok is false for an unknown ClusterQueue.
func (s *Scheduler) ClusterQueuePendingClasses(name string) (active, inadmissible int, ok bool) {
	q, ok := s.cache.ClusterQueue(name)
	if !ok {
		return 0, 0, false
	}
	inactive := !s.cache.Status(q).Active
	act, inad := map[class]bool{}, map[class]bool{}
	for key := range s.lqsByCQ[name] {
		for _, r := range s.pendingByLQ[key] {
			c, has := r.classOf()
			if !r.info.Active || !has {
				continue
			}
			if inactive || s.parkedNow(q, r) {
				inad[c] = true
			} else {
				act[c] = true
			}
		}
	}
	return len(act), len(inad), true
}
