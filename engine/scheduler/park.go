package scheduler

import (
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// Kueue parks a workload of a BestEffortFIFO ClusterQueue that its cycle
// found inadmissible (no flavor, or a preemption search that found no
// victims) in the queue's inadmissible list, and only a requeue event moves
// it back to the heap: quota released in its Cohort tree (a finish, an
// eviction, a deletion), a change of structure, or a change of the workload
// (QueueAssociatedInadmissibleWorkloadsAfter; an admission requeues nothing).
// A workload that lost its room to an earlier admission of the cycle
// ("Workload no longer fits after processing another workload") or whose
// preemption was issued or skipped is requeued at once instead.
//
// Quokka's cycle evaluates every pending workload, parked or not, so that
// each one keeps an up-to-date explanation and is admitted as soon as it
// fits. What parking changes is preemption: a parked workload does not
// search for victims until its tree releases quota. An admission can make a
// parked workload's preemption possible (a newly admitted borrower becomes a
// reclaim victim); without parking the engine then preempted in its next
// cycle where Kueue waits for a release, and in one fair-sharing world
// (decisions run dec-68, seed 33, scenario 8) two queues preempted each
// other for ever where Kueue settles.
//
// A record is parked at the release epoch of its tree (holdEpoch) when its
// evaluation failed, and stays parked while the epoch stands. A queue that
// sleeps is not evaluated, but a walk of every queue would have evaluated
// its workloads in each cycle, failing again (that is why it sleeps) and
// so parking them at each cycle's epoch. The parking of a queue that slept
// through the last cycle is therefore read as of that cycle's walk
// (parkedAt); the tests that check the incremental cycle against the full
// walk hold it to that.

// park records that r's evaluation in this cycle failed the way Kueue parks
// a workload for: it searches again only after a release in its tree.
// StrictFIFO heads are tried in every cycle and never parked.
func (s *Scheduler) park(q *quota.ClusterQueue, r *record) {
	if q.Strategy == kueue.StrictFIFO {
		return
	}
	r.parked = s.holdEpoch(q)
	r.parkedCycle = s.cycle
}

// ParkWorkload marks a pending workload as Kueue's inadmissible list holds
// it: it searches for victims again only after the next requeue event in its
// tree. A scheduler that starts afresh parks nothing, as Kueue's queues do on
// startup; the decisions harness, which rebuilds an engine from Kueue's state
// at every event, marks so the workloads Kueue has parked. A workload that is
// not pending in an existing ClusterQueue is left alone.
func (s *Scheduler) ParkWorkload(key types.NamespacedName) {
	r, ok := s.workloads[key]
	if !ok || r.state != StatePending {
		return
	}
	lq, ok := s.localQueues[r.lq]
	if !ok {
		return
	}
	if q, ok := s.cache.ClusterQueue(lq.cq); ok {
		s.park(q, r)
		r.heldAt = r.parked // nor does it hold quota before then (hold.go)
	}
}

// unpark records that r's evaluation did not park it: Kueue requeued it at
// once (it preempted, or was skipped for the cycle).
func (s *Scheduler) unpark(r *record) {
	r.parked = holdMark{}
}

// parkedNow tells whether r, pending in q, is parked: its last evaluation
// failed and no release happened in its tree since.
func (s *Scheduler) parkedNow(q *quota.ClusterQueue, r *record) bool {
	if !r.parked.valid || q.Strategy == kueue.StrictFIFO {
		return false
	}
	return s.parkedAt(q, r) == s.holdEpoch(q)
}

// parkedAt is the release epoch r is parked at, as a walk of every queue
// would have it: a queue that slept through the last cycle would have been
// evaluated in it, its unfit workloads parked again at that cycle's epoch.
func (s *Scheduler) parkedAt(q *quota.ClusterQueue, r *record) holdMark {
	if r.parkedCycle < s.cycle && s.sleptLastCycle(q) {
		return s.lastWalkEpoch(q)
	}
	return r.parked
}

// sleptLastCycle tells whether q was not walked in the previous cycle.
func (s *Scheduler) sleptLastCycle(q *quota.ClusterQueue) bool {
	l, ok := s.lists[q.Name()]
	return !ok || l.walked+1 < s.cycle
}

// lastWalkEpoch is q's tree's release epoch as the previous cycle walked it.
func (s *Scheduler) lastWalkEpoch(q *quota.ClusterQueue) holdMark {
	rc := s.releases[s.treeOf(q.Name())]
	var release uint64
	if rc != nil {
		release = rc.now
		if rc.cycle+1 == s.cycle {
			// Released since the previous cycle began, which was
			// after its walk: releases happen between cycles.
			release = rc.atWalk
		}
	}
	return holdMark{release: release, structVer: s.lastWalkStruct, valid: true}
}

// noteWalked records, at the end of a tree's walk, that rn's queue was
// walked in this cycle. If it slept through the last one, the workloads the
// walk did not reach (behind a head skipped for the cycle) are parked as
// that cycle's walk would have parked them, since from now on their own
// marks are read.
func (s *Scheduler) noteWalked(rn *run) {
	l := rn.list
	if l == nil {
		return
	}
	if l.walked+1 < s.cycle {
		at := s.lastWalkEpoch(rn.q)
		for _, e := range l.sorted {
			if r := e.r; e.valid() && r.parked.valid && r.parkedCycle < s.cycle {
				r.parked, r.parkedCycle = at, s.cycle-1
			}
		}
	}
	l.walked = s.cycle
}

// parkedScope is what a parked workload's search would depend on, had it
// run (see scopeOf): the queue's sleep follows it as if the search had
// found nothing, which it would not run before the next release. A queue
// already walked next cycle whatever the answer, and worlds where scopeOf
// answers scopeTree throughout, need no answer; equal workloads of the
// queue at one epoch share it, as failed searches do.
func (s *Scheduler) parkedScope(rn *run, r *record, res *flavorassigner.Result) (scope searchScope, own *need) {
	q := rn.q
	if res.Preemption == nil || !s.canPreempt(q) {
		return scopeNone, nil
	}
	if rn.outcome.active || s.opts.DisableIncrementalCycle || s.strategies != nil || s.rulesOf(q) != nil {
		return scopeTree, nil
	}
	memo := failedSearch{epoch: s.viewEpoch(), priority: r.priority, usage: res.Preemption.Usage, unsearched: true}
	remember := q.Preemption.WithinClusterQueue != kueue.PreemptionPolicyLowerOrNewerEqualPriority
	if remember {
		for _, f := range s.failedPreemption[q.Name()] {
			if f.same(memo) {
				return f.scope, f.own
			}
		}
	}
	find := func() { scope, own = s.scopeOf(q, r, res.Preemption) }
	s.withoutHolds(func() {
		if s.opts.WaitOnOverlappingTargets {
			s.withEvictingListed(find)
		} else {
			s.withVictimsGone(find)
		}
	})
	if remember {
		memo.scope, memo.own = scope, own
		s.rememberFailed(q.Name(), memo)
	}
	return scope, own
}

// releaseCount counts a tree's releases of quota; atWalk is the count
// before the first release after cycle number cycle began.
type releaseCount struct {
	now, atWalk, cycle uint64
}
