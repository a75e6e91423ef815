package scheduler

import "quokka.dev/quokka/engine/quota"

// treeChanges counts, per Cohort tree, the changes that may change a
// preemption search's answer there: workloads admitted to (or added
// admitted in) its queues, quota released, preemptions issued, quota held or
// reserved within a cycle, and the deferral machinery's temporary releases.
// The preemption oracle's memo (oracle.go) holds while the count stands.
type treeChanges struct {
	count map[treeKey]uint64
	// ownHolds counts, per ClusterQueue, the changes that were holds of its
	// own workloads, which its own assignments do not see (withoutOwnHolds).
	ownHolds map[string]uint64
}

// noteTreeChange records a change in the tree of ClusterQueue cq.
func (s *Scheduler) noteTreeChange(cq string) {
	tc := &s.treeChanges
	if tc.count == nil {
		tc.count, tc.ownHolds = map[treeKey]uint64{}, map[string]uint64{}
	}
	tc.count[s.treeOf(cq)]++
}

// noteHold records a hold of a workload of q: a change of its tree that q's
// own assignments do not see.
func (s *Scheduler) noteHold(q *quota.ClusterQueue) {
	s.noteTreeChange(q.Name())
	s.treeChanges.ownHolds[q.Name()]++
}

// othersChanges counts the changes in q's tree but q's own holds.
func (s *Scheduler) othersChanges(q *quota.ClusterQueue) uint64 {
	return s.treeChanges.count[s.treeOf(q.Name())] - s.treeChanges.ownHolds[q.Name()]
}
