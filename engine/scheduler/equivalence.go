package scheduler

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/workload"
)

// Kueue's SchedulingEquivalenceHashing (on by default since v0.18): when the
// head of a BestEffortFIFO ClusterQueue gets no flavor (NoFit) or needs
// preemption and finds no victims (PreemptionNoCandidates), Kueue moves every
// workload of the queue's heap in the same class (same priority, same pod
// sets: engine/workload/equivalence.go) to the inadmissible list with it,
// and puts a workload of that class arriving later straight there, until the
// next requeue event clears the classes (pkg/cache/queue:
// requeueIfNotPresent, handleInadmissibleHash, PushOrUpdate,
// queueInadmissibleWorkloads). StrictFIFO queues keep their order and move
// nothing.
//
// In the engine a workload is parked by its class when a workload of its
// class in its queue is parked for good (not tentatively: see
// settleTentative) at the tree's current release epoch. It then runs no
// preemption search and holds no quota, as a parked workload, and is no head
// of its queue (noteTurn); its own parking is recorded when it is evaluated,
// so that it stays parked when the workload that parked its class leaves, as
// Kueue's class outlives it. As every parked workload, it is still evaluated
// and admitted as soon as it fits (deliberate difference 5).

// class is a workload's class: its priority and its pod sets' shape.
type class struct {
	priority int32
	shape    workload.Shape
}

// classOf is r's class; ok is false when r is in none.
func (r *record) classOf() (c class, ok bool) {
	if r.info.EquivalenceShape == (workload.Shape{}) {
		return class{}, false
	}
	return class{priority: r.priority, shape: r.info.EquivalenceShape}, true
}

// classIndex holds, for the queues asked about in one cycle, the workloads
// parked for good by class. Entries are checked when read, so that a
// workload admitted, unparked or gone since is passed over.
type classIndex struct {
	cycle uint64
	byCQ  map[*quota.ClusterQueue]map[class][]entry
	// lastQ's index is last: a walk asks about one queue many times in a
	// row (see epochCache).
	lastQ *quota.ClusterQueue
	last  map[class][]entry
}

// classParked tells whether a workload of r's class other than r is parked
// for good in q now.
func (s *Scheduler) classParked(q *quota.ClusterQueue, r *record) bool {
	if !s.classesApply(q) {
		return false
	}
	m := s.classesOf(q)
	if len(m) == 0 {
		return false
	}
	c, ok := r.classOf()
	if !ok {
		return false
	}
	if es := m[c]; len(es) > 0 {
		mark := s.holdEpoch(q)
		for _, e := range es {
			if e.r != r && s.parkedForGood(q, e, mark) {
				return true
			}
		}
	}
	return false
}

// classesApply tells whether q's workloads park by class: the gate is on and
// q is BestEffortFIFO. A PreemptionConfig whose rules read the preemptor's
// labels or LocalQueue tells apart workloads Kueue's class does not (spec
// 001: preemptorSelector selects workloads one by one), so q's workloads
// then park one by one.
func (s *Scheduler) classesApply(q *quota.ClusterQueue) bool {
	return !s.opts.NoEquivalenceHashing && q.Strategy != kueue.StrictFIFO && !s.rulesOf(q).ReadsPreemptor()
}

// parkedForGood tells whether e's workload, pending in q, is parked on its
// own at mark, q's release epoch, and not tentatively.
func (s *Scheduler) parkedForGood(q *quota.ClusterQueue, e entry, mark holdMark) bool {
	return e.valid() && e.r.tentativeCycle != s.cycle && s.ownParkedAt(q, e.r, mark)
}

// classesOf is q's index of parked classes for this cycle, built on first
// use from q's pending list.
func (s *Scheduler) classesOf(q *quota.ClusterQueue) map[class][]entry {
	if s.classes.cycle != s.cycle || s.classes.byCQ == nil {
		s.classes = classIndex{cycle: s.cycle, byCQ: map[*quota.ClusterQueue]map[class][]entry{}}
	} else if s.classes.lastQ == q {
		return s.classes.last
	}
	if m, ok := s.classes.byCQ[q]; ok {
		s.classes.lastQ, s.classes.last = q, m
		return m
	}
	m := map[class][]entry{}
	if l, ok := s.lists[q.Name()]; ok {
		mark, slept := s.holdEpoch(q), s.sleptLastCycle(q)
		for _, e := range l.sorted {
			if !slept && e.r.parked != mark {
				continue // not parked now (parkedAt reads its mark as it is)
			}
			if c, ok := e.r.classOf(); ok && s.parkedForGood(q, e, mark) {
				m[c] = append(m[c], e)
			}
		}
	}
	s.classes.byCQ[q] = m
	s.classes.lastQ, s.classes.last = q, m
	return m
}

// noteParkedForGood adds r, just parked for good in q, to q's index if this
// cycle has built it.
func (s *Scheduler) noteParkedForGood(q *quota.ClusterQueue, r *record) {
	if s.opts.NoEquivalenceHashing || s.classes.cycle != s.cycle {
		return
	}
	m, ok := s.classes.byCQ[q]
	if !ok {
		return
	}
	if c, ok := r.classOf(); ok {
		m[c] = append(m[c], entry{r: r, gen: r.gen})
	}
}
