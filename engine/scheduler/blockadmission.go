package scheduler

import (
	"sort"

	"quokka.dev/quokka/engine/quota"
)

// Kueue's waitForPodsReady.blockAdmission admits workloads one at a time: a
// workload that fits is admitted only while every workload holding quota has
// PodsReady=True. Kueue's scheduler, reaching a workload that fits while one
// does not, writes it QuotaReserved=False with reason Waiting and blocks in
// place until the last one is ready (or is evicted, finished or deleted),
// then admits it and goes on with its cycle; no other cycle runs meanwhile.
// Preemptions decided before that point are issued, since a preemptor
// consumes no quota until its victims are gone.
//
// The engine has no goroutine to block, so a cycle that reaches a workload
// that fits while the unready index is not empty gives it a Pending decision
// with Kueue's reason and message and stops: no later workload of the cycle,
// in its tree or the trees after it, is looked at (waitForReady, stopCycle).
// Cycles run while the block lasts stop the same way, at the first workload
// that fits. The first cycle after the last unready workload leaves the index
// wakes every queue (unblock), since the queues the stopped cycles did not
// finish sleep without the triggers a finished walk leaves them
// (settleSleep). Where Kueue admits the workload it blocked on as it was
// assigned, the engine assigns it again in that cycle, which the workloads
// that finished meanwhile may only make easier.
//
// Kueue orders a cycle's heads across every ClusterQueue by priority and
// creation; the engine walks tree by tree, so under blockAdmission it walks
// the trees in the order of their first pending workload by the same rule
// (orderTreesForBlock): otherwise the tree first by name would take every
// admission the block lets through.

// waitingForPodsReadyMessage is Kueue's message for ReasonWaitingForPodsReady.
const waitingForPodsReadyMessage = "waiting for all admitted workloads to be in PodsReady condition"

// admissionBlocked tells whether an admission must wait: BlockAdmission is
// on (only then is the unready index kept) and a workload holding quota does
// not have PodsReady=True.
func (s *Scheduler) admissionBlocked() bool {
	return len(s.unready) > 0
}

// waitForReady is the decision for r, which fits in q while admission is
// blocked; the cycle looks at nothing more.
func (s *Scheduler) waitForReady(q *quota.ClusterQueue, r *record) Decision {
	s.blocked = true
	s.stopCycle = true
	return r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: q.Name(),
		Reason: ReasonWaitingForPodsReady, Message: waitingForPodsReadyMessage})
}

// unblock wakes every queue at the start of the first cycle after a block
// has ended.
func (s *Scheduler) unblock() {
	s.stopCycle = false
	if s.blocked && !s.admissionBlocked() {
		s.blocked = false
		s.WakeAll()
	}
}

// orderTreesForBlock sorts trees, under BlockAdmission, by their first
// pending workload in queue order (priority, then creation), trees without
// one last and ties by name. The lists are prepared (treesToSchedule).
func (s *Scheduler) orderTreesForBlock(trees []*tree) {
	if w := s.opts.WaitForPodsReady; w == nil || !w.BlockAdmission || len(trees) < 2 {
		return
	}
	first := make(map[*tree]*record, len(trees))
	for _, t := range trees {
		for _, q := range t.queues {
			l, ok := s.lists[q.Name()]
			if !ok {
				continue
			}
			for _, e := range l.sorted {
				if !e.valid() || e.r.excluded {
					continue
				}
				if b := first[t]; b == nil || compareQueueOrder(e.r, b) < 0 {
					first[t] = e.r
				}
				break
			}
		}
	}
	sort.SliceStable(trees, func(i, j int) bool {
		a, b := first[trees[i]], first[trees[j]]
		switch {
		case a == nil:
			return false
		case b == nil:
			return true
		}
		return compareQueueOrder(a, b) < 0
	})
}
