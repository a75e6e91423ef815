package scheduler

import (
	"slices"

	"quokka.dev/quokka/engine/flavorassigner"
)

// A woken queue's walk evaluates every pending workload, and under a loaded
// cluster nearly all of them are equal (one priority, one shape) and settle
// the same way: they need preemption, find no victims (or, parked, search
// none) and stay pending. Under Kueue's harness such cycles evaluated some
// 8,000 workloads to admit 15, each through the heap of heads, its
// preemption memo, its deferred-fit memo and its blockers.
//
// settleMemo lets a run of equal workloads of one queue settle the way the
// first of them did, once that settling changed nothing: neither the tree
// (no admission, charge, hold or preemption: the treeStamp is the same after
// as before) nor the run (its outcome, bar the count of unfit workloads, and
// whether it took its turn). What is left per workload is what is its own:
// its turn, its parking, its Pending decision.
//
// Settling such a workload changes nothing another workload's settling
// reads, so settles of this kind commute: the walk may settle a workload
// ahead of its place among the other queues' heads, as long as no head that
// could change the tree comes before it (settlesAhead). A queue whose own
// run is of the same kind cannot change the tree before its first workload
// of another kind, whatever the order (repeatSafe, runEnd).

// treeStamp is what a settle reads of the state of the tree and the cycle:
// it moves with every admission, reservation, hold, release and preemption.
type treeStamp struct {
	ver, invalidations uint64
	state              uint64
	epoch, holdMoves   uint64
	victimsVer         uint64
	candVer            uint64
	structVer          uint64
	releaseVer         uint64
	holds, deferred    int
}

func (s *Scheduler) stampNow() treeStamp {
	w := &s.walk
	st := treeStamp{state: s.stateVersion(), epoch: s.epoch, holdMoves: s.holdMoves, victimsVer: s.victimsVer,
		candVer: s.candVer, structVer: s.structVer, releaseVer: s.releaseVer, holds: len(s.holds), deferred: len(s.deferredFits)}
	if w.ver != nil {
		st.ver = *w.ver
	}
	if w.h != nil {
		st.invalidations = w.h.invalidations
	}
	return st
}

// settleMemo is how a queue's last settled unfit workload settled, when it
// changed nothing (see above).
type settleMemo struct {
	valid bool
	stamp treeStamp
	// The workloads it stands for: same priority and shape, parked or not
	// alike, and held to the same (holdNow).
	priority int32
	shape    string
	parked   bool
	holdNow  bool
	// The assignment they get, as a check.
	reason, message string
	level           int
	// The run's state after it, equal to the state before but for unfit,
	// which grew by unfit.
	outcome runOutcome
	needs   []need
	took    bool
	unfit   int
	// park is whether it was parked (parkIfDue) or left unparked.
	park bool
	// searched is set when a preemption search for its priority and
	// assignment failed at this state: an equal workload that is not
	// parked searches in vain too, so the queue's run of them changes
	// nothing either (repeatSafe).
	searched bool
}

// settleTrace is what settleUnfit tells its caller about the path it took.
type settleTrace struct {
	// plain is set when it left the workload pending without a
	// preemption, a hold, a deferred fit or a skip.
	plain bool
	// park is set when it parked the workload (parkIfDue), wasParked when
	// the workload was parked before.
	park, wasParked bool
	// held is set when it tried to hold quota for the workload.
	held bool
}

// repeatable tells whether r, pending in rn's queue, may settle by or for a
// memo: a walk in Kueue's heap order, of a queue that holds no quota for its
// workloads, and a workload that shares its assignment with its equals.
func (s *Scheduler) repeatable(rn *run, r *record) bool {
	return !s.opts.DisableIncrementalCycle && s.strategies == nil && rn.byLQ == nil && !rn.strict && !s.mayHold(rn.q) &&
		len(s.holds) == 0 && !s.partialOK(r) && s.shareableShape(rn.q, r) != ""
}

// settleBefore is the state of the tree and of rn before a settle, for
// rememberSettle.
type settleBefore struct {
	ok      bool
	stamp   treeStamp
	outcome runOutcome
	needs   []need
	took    bool
}

// beforeSettle captures what rememberSettle compares, when r may be remembered.
func (s *Scheduler) beforeSettle(rn *run, r *record, res *flavorassigner.Result) settleBefore {
	if res.Fits || res.Preemption == nil || !s.repeatable(rn, r) {
		return settleBefore{}
	}
	b := settleBefore{ok: true, stamp: s.stampNow(), outcome: rn.outcome, took: rn.took}
	s.repeatNeeds = append(s.repeatNeeds[:0], rn.outcome.needs...)
	b.needs = s.repeatNeeds
	return b
}

// rememberSettle records how r settled (settleUnfit's trace), when that changed
// nothing but the run's count of unfit workloads.
func (s *Scheduler) rememberSettle(rn *run, r *record, res *flavorassigner.Result, holdNow bool, b settleBefore) {
	m := &rn.rep
	if !b.ok || !s.trace.plain || s.stampNow() != b.stamp || rn.took != b.took || !sameOutcome(&b.outcome, b.needs, &rn.outcome) {
		m.valid = false
		return
	}
	parked := s.trace.wasParked
	*m = settleMemo{valid: true, stamp: b.stamp, priority: r.priority, shape: r.shapeOf(), parked: parked, holdNow: holdNow,
		reason: res.Reason, message: res.Message, level: level(res), outcome: rn.outcome, needs: append(m.needs[:0], rn.outcome.needs...),
		took: rn.took, unfit: rn.outcome.unfit - b.outcome.unfit, park: s.trace.park,
		searched: !parked || s.failedSearchFor(rn, r, res)}
}

// sameOutcome compares a run's outcome before a settle (its needs copied
// apart) with the outcome after, but for the count of unfit workloads.
func sameOutcome(before *runOutcome, needs []need, after *runOutcome) bool {
	return before.active == after.active && before.holds == after.holds && before.searched == after.searched &&
		before.parked == after.parked && slices.Equal(needs, after.needs)
}

// failedSearchFor tells whether a preemption search for r's priority and
// assignment is remembered as failed at the current epoch (see tryPreempt).
func (s *Scheduler) failedSearchFor(rn *run, r *record, res *flavorassigner.Result) bool {
	if !s.canPreempt(rn.q) {
		return true // no workload of the queue searches
	}
	_, ok := s.searchedInVain(rn.q, failedSearch{epoch: s.viewEpoch(), priority: r.priority, usage: res.Preemption.Usage})
	return ok
}

// matches tells whether r, with assignment res, would settle as rn's memo
// says: nothing changed since, and r is one of the workloads it stands for.
func (s *Scheduler) matches(rn *run, r *record, res *flavorassigner.Result, holdNow bool) bool {
	return rn.rep.valid && s.matchesAt(s.stampNow(), rn, r, res, holdNow)
}

// matchesAt is matches at stamp st, the current one.
func (s *Scheduler) matchesAt(st treeStamp, rn *run, r *record, res *flavorassigner.Result, holdNow bool) bool {
	m := &rn.rep
	if !m.valid || st != m.stamp || !m.stands(r, res) || holdNow != m.holdNow || rn.took != m.took ||
		!s.repeatable(rn, r) || !sameOutcome(&m.outcome, m.needs, &rn.outcome) {
		return false
	}
	return s.parkedNow(rn.q, r) == m.parked
}

// stands tells whether m stands for r, pending with assignment res: same
// priority, shape and assignment, which needs preemption.
func (m *settleMemo) stands(r *record, res *flavorassigner.Result) bool {
	return !res.Fits && res.Preemption != nil && r.priority == m.priority && res.Reason == m.reason &&
		res.Message == m.message && level(res) == m.level && r.shapeOf() == m.shape
}

// repeatSettle settles r as rn's memo says (see matches): parked or not,
// one more unfit workload of the run, and pending with its assignment's
// reason, as settleUnfit would have left it.
func (s *Scheduler) repeatSettle(rn *run, r *record, res *flavorassigner.Result) Decision {
	m := &rn.rep
	if m.park {
		s.parkIfDue(rn, r)
	} else {
		s.unpark(r)
	}
	rn.outcome.unfit += m.unfit
	s.repeats++
	return r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: rn.q.Name(), Reason: res.Reason, Message: res.Message})
}

// settlesAhead tells whether r, the next workload of rn's walk, may be
// settled now by rn's memo instead of going into the heap: it would settle
// so when its turn came, and no head that could change the tree before then
// comes before it (aheadBound).
func (s *Scheduler) settlesAhead(rn *run, r *record, res *flavorassigner.Result) bool {
	w := &s.walk
	if !rn.rep.valid || !w.popping || w.track || s.dfr.active() || w.h == nil || len(w.h.items) > maxAheadHeads {
		return false
	}
	st := s.stampNow()
	if !s.matchesAt(st, rn, r, res, !s.nominatedFit(rn.q, res)) {
		return false
	}
	b := s.aheadBound(st)
	if !b.none && !keyLess(popKey{level: level(res), r: r, q: rn.q.Name()}, b.key) {
		return false
	}
	s.repeatsAhead++
	return true
}

// maxAheadHeads bounds the heads settlesAhead compares with: a tree of many
// queues walks one workload at a time.
const maxAheadHeads = 32

// aheadMemo is the first head or workload that could change the tree, as
// aheadBound last found it, at a stamp and a count of the heap's pushes and
// pops: a run settled ahead changes neither.
type aheadMemo struct {
	valid     bool
	stamp     treeStamp
	mutations uint64
	bound     aheadLimit
}

// aheadLimit is where settling ahead stops: before key, or nowhere (none).
type aheadLimit struct {
	none bool
	key  popKey
}

// aheadBound is the first of what could change the tree before it is
// settled: the heads in the heap, in headLess order, but for a head that
// settles by its queue's memo, whose queue changes nothing up to its first
// workload of another kind (runEnd), compared as if that workload fit
// without borrowing, the most it could. A placeholder stops everything.
func (s *Scheduler) aheadBound(st treeStamp) aheadLimit {
	h, a := s.walk.h, &s.ahead
	if a.valid && a.stamp == st && a.mutations == h.mutations {
		return a.bound
	}
	b := aheadLimit{none: true}
	note := func(k popKey) {
		if b.none || keyLess(k, b.key) {
			b = aheadLimit{key: k}
		}
	}
	for _, hd := range h.items {
		switch {
		case hd.placeholder:
			note(popKey{level: -1})
		case s.repeatSafe(st, hd):
			if x := s.runEnd(hd.run, hd.r); x != nil {
				note(popKey{r: x, q: hd.run.q.Name()})
			}
		default:
			note(popKey{level: level(&hd.res), r: hd.r, q: hd.run.q.Name()})
		}
	}
	*a = aheadMemo{valid: true, stamp: st, mutations: h.mutations, bound: b}
	return b
}

// keyLess is headLess on popKeys; a key with no workload (a placeholder's
// stop) comes first.
func keyLess(a, b popKey) bool {
	if a.level != b.level {
		return a.level < b.level
	}
	if a.r == nil || b.r == nil {
		return a.r == nil && b.r != nil
	}
	if c := compareHeadOrder(a.r, b.r); c != 0 {
		return c < 0
	}
	return a.q < b.q
}

// repeatSafe tells whether hd, in the heap at stamp st, would settle by its
// queue's memo and the equal workloads behind it in its queue would change
// nothing either: unparked, they search in vain as one of them did.
func (s *Scheduler) repeatSafe(st treeStamp, hd *head) bool {
	rn := hd.run
	m := &rn.rep
	return m.valid && m.searched && hd.ver != staleVer && hd.ver == *s.walk.ver && !hd.readyRoom && st == m.stamp &&
		m.stands(hd.r, &hd.res) && s.repeatable(rn, hd.r)
}

// runEnd is the first workload behind head r in rn's queue that is not one
// of r's equals (another priority or shape, excluded, or waiting for
// evictions), nil when there is none.
func (s *Scheduler) runEnd(rn *run, r *record) *record {
	e := &rn.end
	shape := r.shapeOf()
	if e.valid && e.priority == r.priority && e.shape == shape && rn.pos <= e.idx {
		return e.r
	}
	*e = runEndMemo{valid: true, priority: r.priority, shape: shape, idx: len(rn.list.sorted)}
	for i := rn.pos; i < len(rn.list.sorted); i++ {
		en := rn.list.sorted[i]
		if !en.valid() {
			continue
		}
		x := en.r
		if x.priority != r.priority || x.excluded || x.inflight != nil || s.partialOK(x) || x.shapeOf() != shape {
			e.idx, e.r = i, x
			break
		}
	}
	return e.r
}

// runEndMemo keeps runEnd's answer while the queue's walk is in the run.
type runEndMemo struct {
	valid    bool
	priority int32
	shape    string
	idx      int
	r        *record
}
