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
		s.noteParkedForGood(q, r)
	}
}

// A workload of a queue is the queue's head in Kueue's cycle only when it is
// the first the queue's walk evaluates that is not parked already: Kueue
// pops one head per queue per cycle from its heap, which holds no parked
// workload, so the engine's later workloads of a queue are heads of Kueue's
// later cycles, which see the admissions of this one as preemption
// candidates (the engine's searches do not: deliberate difference 3). Kueue
// parks such a workload only after that later try. So a queue's later
// workload that failed is parked only if its tree admitted nothing in the
// cycle; otherwise it searches again next cycle, where those admissions are
// candidates (decisions run dec-77, s37-3). As the tree's later admissions
// are not known when a workload fails, its parking is tentative until the
// tree's walk ends (settleTentative). A workload parked in an earlier cycle
// at the tree's current release epoch stays parked whatever the tree
// admits: it is in Kueue's inadmissible list, which an admission does not
// requeue. Queues under admission fair sharing, whose walk order is not
// Kueue's heap order, park every workload.

// noteTurn records that rn's walk evaluates r in this cycle, its queue's
// turn-th workload, or that r is parked from an earlier cycle and so no
// head of this one (keptCycle).
func (s *Scheduler) noteTurn(rn *run, r *record) {
	if r.parkedCycle < s.cycle && s.ownParked(rn.q, r) || s.classParked(rn.q, r) {
		r.keptCycle = s.cycle
		return
	}
	rn.turns++
	r.turn, r.turnCycle = rn.turns, s.cycle
}

// parkIfDue parks r after a failed evaluation in rn's walk (see park), for
// now if it is not its queue's first workload of the cycle.
func (s *Scheduler) parkIfDue(rn *run, r *record) {
	if rn.strict {
		s.unpark(r)
		return
	}
	s.park(rn.q, r)
	if s.classParked(rn.q, r) {
		// Never evaluated by Kueue before the next requeue event: it
		// holds nothing either (see hold).
		r.heldAt = r.parked
	} else if rn.byLQ == nil && r.keptCycle != s.cycle && !(r.turnCycle == s.cycle && r.turn <= 1) {
		r.tentativeCycle = s.cycle
		s.tentative = append(s.tentative, tentativePark{rn: rn, r: r})
		return
	}
	s.noteParkedForGood(rn.q, r)
}

// laterInQueue tells whether r, evaluated in rn's walk, comes after the
// workload Kueue takes from its queue as this cycle's head: it is a head of
// a later Kueue cycle, and what it holds is a later hold (see run.took),
// though its queue took nothing yet, its head having got no flavor.
func (s *Scheduler) laterInQueue(rn *run, r *record) bool {
	return rn.byLQ == nil && r.turnCycle == s.cycle && r.turn > 1
}

// tentativePark is a later workload of a queue parked until the end of its
// tree's walk.
type tentativePark struct {
	rn *run
	r  *record
}

// settleTentative, at the end of a tree's walk, unparks the queues' later
// workloads parked in it if the tree admitted a workload in the cycle, and
// keeps their queues awake: they search again next cycle.
func (s *Scheduler) settleTentative() {
	for _, t := range s.tentative {
		t.r.tentativeCycle = 0
		if s.treeAdmittedIn(t.rn.q, s.cycle) && t.r.parkedCycle == s.cycle {
			s.unpark(t.r)
			t.rn.outcome.active = true
		} else if s.ownParked(t.rn.q, t.r) {
			s.noteParkedForGood(t.rn.q, t.r)
		}
	}
	clear(s.tentative)
	s.tentative = s.tentative[:0]
}

// noteTreeAdmission records that q's tree admitted a workload in this cycle.
func (s *Scheduler) noteTreeAdmission(q *quota.ClusterQueue) {
	if s.treeAdmits == nil {
		s.treeAdmits = map[treeKey]*admitCycles{}
	}
	k := s.treeOf(q.Name())
	a := s.treeAdmits[k]
	if a == nil {
		a = &admitCycles{}
		s.treeAdmits[k] = a
	}
	if a.last != s.cycle {
		a.prev, a.last = a.last, s.cycle
		a.count++
	}
}

// treeAdmitCount is how many cycles so far admitted in tree k.
func (s *Scheduler) treeAdmitCount(k treeKey) uint64 {
	if a := s.treeAdmits[k]; a != nil {
		return a.count
	}
	return 0
}

// treeAdmittedIn tells whether q's tree admitted a workload in cycle c, the
// running one or the one before.
func (s *Scheduler) treeAdmittedIn(q *quota.ClusterQueue, c uint64) bool {
	a := s.treeAdmits[s.treeOf(q.Name())]
	return a != nil && c != 0 && (a.last == c || a.prev == c)
}

// admitCycles are the last two cycles in which a tree admitted, and how
// many cycles did.
type admitCycles struct {
	last, prev, count uint64
}

// parkedInLastWalk tells whether walks of every queue would have left r,
// unfit, parked by the end of the previous cycle, when the release epoch of
// that cycle began after q's last walk (see noteTurn). At the epoch's first
// cycle every workload of q was requeued; each cycle of the epoch since
// parked the first of them not parked yet, and the others too if the tree
// admitted nothing in it. So after k cycles that all admitted, the first k
// workloads are parked; after any cycle that admitted nothing, all are.
func (s *Scheduler) parkedInLastWalk(q *quota.ClusterQueue, r *record) bool {
	if s.usesAFS(q) {
		return true
	}
	begun, admitsBefore := s.lastEpochStart(q)
	if l := s.lists[q.Name()]; l == nil || l.walked >= begun {
		// Walked in the epoch and asleep since: everything unfit was
		// parked, and one that could be evaluated only later was the
		// first workload not parked then.
		return true
	}
	admits := s.treeAdmitCount(s.treeOf(q.Name())) - admitsBefore
	if s.treeAdmittedIn(q, s.cycle) && admits > 0 {
		admits-- // this cycle's own admissions do not count
	}
	if cycles := s.cycle - begun; admits < cycles {
		return true
	}
	return s.amongFirst(q, r, admits)
}

// lastEpochStart is the first cycle of the release epoch that q's tree was
// at in the previous cycle's walk, and how many of the tree's cycles had
// admitted before it. A change of structure wakes every queue, so only
// releases matter for a queue that slept through the previous cycle.
func (s *Scheduler) lastEpochStart(q *quota.ClusterQueue) (begun, admitsBefore uint64) {
	rc := s.releases[s.treeOf(q.Name())]
	switch {
	case rc == nil:
		return 0, 0
	case rc.cycle+1 == s.cycle:
		// Released after the previous cycle's walk: that walk was in
		// the epoch the release before began.
		return rc.prevCycle + 1, rc.prevAdmits
	default:
		return rc.cycle + 1, rc.admits
	}
}

// amongFirst tells whether the first n turns of q's walks park r: r takes
// one of them, or, under SchedulingEquivalenceHashing, a workload of its
// class does (the others of the class take no turn).
func (s *Scheduler) amongFirst(q *quota.ClusterQueue, r *record, n uint64) bool {
	l, ok := s.lists[q.Name()]
	if !ok {
		return false
	}
	var parked map[class]bool // the classes the turns so far parked
	byClass := s.classesApply(q)
	for _, e := range l.sorted {
		if n == 0 {
			break
		}
		if !e.valid() {
			continue
		}
		if _, filtered := s.filter(q, e.r); filtered {
			continue
		}
		c, classed := e.r.classOf()
		classed = classed && byClass
		if classed && parked[c] {
			if e.r == r {
				return true
			}
			continue
		}
		if e.r == r {
			return true
		}
		n--
		if classed {
			if parked == nil {
				parked = map[class]bool{}
			}
			parked[c] = true
		}
	}
	if c, ok := r.classOf(); byClass && ok {
		return parked[c]
	}
	return false
}

// unpark records that r's evaluation did not park it: Kueue requeued it at
// once (it preempted, or was skipped for the cycle).
func (s *Scheduler) unpark(r *record) {
	r.parked, r.parkedCycle = holdMark{}, s.cycle
}

// parkedNow tells whether r, pending in q, is parked: its last evaluation
// failed and no release happened in its tree since, or a workload of its
// class is parked (equivalence.go).
func (s *Scheduler) parkedNow(q *quota.ClusterQueue, r *record) bool {
	return s.ownParked(q, r) || s.classParked(q, r)
}

// ownParked tells whether r, pending in q, is parked by its own evaluation.
func (s *Scheduler) ownParked(q *quota.ClusterQueue, r *record) bool {
	return s.ownParkedAt(q, r, s.holdEpoch(q))
}

// ownParkedAt is ownParked with q's release epoch given.
func (s *Scheduler) ownParkedAt(q *quota.ClusterQueue, r *record, mark holdMark) bool {
	if q.Strategy == kueue.StrictFIFO {
		return false
	}
	at := s.parkedAt(q, r)
	return at.valid && at == mark
}

// parkedAt is the release epoch r is parked at, as a walk of every queue
// would have it: a queue that slept through the last cycle would have been
// evaluated in it, its unfit workloads (those queued before it, and not
// filtered out) parked again at that cycle's epoch or, where Kueue would
// try them again (parkedInLastWalk), not parked.
func (s *Scheduler) parkedAt(q *quota.ClusterQueue, r *record) holdMark {
	if r.parkedCycle < s.cycle && r.queuedCycle+2 <= s.cycle && !r.excluded && s.sleptLastCycle(q) {
		last := s.lastWalkEpoch(q)
		if r.parked == last {
			return last // parked through the previous cycle
		}
		if !s.parkedInLastWalk(q, r) {
			return holdMark{}
		}
		return last
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
		for _, e := range l.sorted {
			if r := e.r; e.valid() && r.parkedCycle < s.cycle {
				r.parked, r.parkedCycle = s.parkedAt(rn.q, r), s.cycle-1
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
	s.withoutHolds(func() { s.asSearchSees(func() { scope, own = s.scopeOf(q, r, res.Preemption) }) })
	if remember {
		memo.scope, memo.own = scope, own
		s.rememberFailed(q.Name(), memo)
	}
	return scope, own
}

// releaseCount counts a tree's releases of quota; atWalk is the count
// before the first release after cycle number cycle began, and admits the
// tree's count of admitting cycles then (treeAdmitCount); prevCycle and
// prevAdmits are cycle and admits of the batch of releases before.
type releaseCount struct {
	now, atWalk, cycle    uint64
	admits                uint64
	prevCycle, prevAdmits uint64
}
