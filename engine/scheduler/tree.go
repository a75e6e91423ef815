package scheduler

import (
	"fmt"
	"maps"
	"strings"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// run walks one ClusterQueue's ordered pending list during a cycle.
type run struct {
	q      *quota.ClusterQueue
	list   *pendingList
	pos    int
	strict bool
	// byLQ, for admission fair sharing, splits the list by LocalQueue.
	byLQ *lqRuns
	// outcome is what the walk learned, for whether the queue sleeps.
	outcome runOutcome
	// slept is set when the queue went back to sleep as it was, its head
	// lost for good (see lostForGood).
	slept bool
	// memo spares the walk lookups its previous entry made (walkmemo.go).
	memo walkMemo
	// turns counts the workloads the walk evaluated (see noteTurn).
	turns int
	// rep is how its last unfit workload settled, and end where the run
	// of that workload's equals ends (repeat.go).
	rep settleMemo
	end runEndMemo
	// took is set once the queue admitted, preempted for or held for a
	// workload in this cycle. Kueue's cycle takes one head per queue, so
	// the queue's next workload is a head of a later Kueue cycle: its hold
	// is a later hold (see assign), which cannot keep out the heads of
	// other queues that have not taken their turn.
	took bool
	// skippedOne is set once a workload of the queue was skipped in this
	// cycle ("no longer fits after processing another workload"). Kueue
	// requeues such a workload at once, so it is its queue's head again in
	// the next cycle, and the queue's later workloads are no heads of
	// Kueue's next cycles while what skipped it lasts (see holdView).
	skippedOne bool
}

// head is a queue's current candidate with the assignment it got when last
// evaluated, at tree version ver.
type head struct {
	run *run
	r   *record
	res flavorassigner.Result
	ver uint64
	// fair caches the head's shares under fair sharing.
	fair *fairHead
	// placeholder marks a deferred queue's bound, r its first workload and
	// res.Borrowing whether every head it could have borrows.
	placeholder bool
	// nominatedFit tells that the head fit as Kueue would have nominated
	// it, when its queue's walk reached it (see Scheduler.nominatedFit):
	// if an admission of the cycle takes its room, it holds no quota in
	// this cycle (see settleUnfit).
	nominatedFit bool
	// readyRoom tells that it fit only in the room of a ready preemptor's
	// victims, which the preemptor took first: it is skipped for the cycle
	// (see notAdmitted).
	readyRoom bool
	// since is the last hold of a StrictFIFO head made before it became a
	// head of the cycle (see holdView).
	since uint64
	// moved tells that it was skipped once in this cycle, its nomination
	// no longer fitting where another assignment would, and put back when
	// Kueue's next cycle would take it (see scheduleTree).
	moved bool
}

// newHead makes the head for a queue's candidate evaluated at ver.
func (s *Scheduler) newHead(rn *run, r *record, res flavorassigner.Result, ver uint64) *head {
	hd := s.heads.get()
	fit := s.nominatedFit(rn.q, &res)
	*hd = head{run: rn, r: r, res: res, ver: ver, nominatedFit: fit, readyRoom: fit && !res.Fits, since: s.freshView(rn, r).since}
	return hd
}

// scheduleTree admits, one at a time, the best head among the tree's queues,
// until no queue has a candidate left. Heads are kept in a heap ordered by
// Kueue's rules (non-borrowing first, then priority, creation, UID). The tree's
// version counts admissions; a head evaluated at an older version is evaluated
// again when it reaches the top. Usage only grows within a cycle, so a head can
// only turn from non-borrowing to borrowing or to not fitting (or pick a later
// flavor); re-inserting it when its key got worse keeps the heap's top exact.
//
// A head that fit when its queue's walk reached it, as Kueue nominates it, and
// that now fits only in another assignment (a later flavor, fewer pods) waits
// for the rest of Kueue's cycle: Kueue checks the nominated assignment when
// the head's turn comes, skips it ("Workload no longer fits after processing
// another workload"), lets the heads after it take what is left, and
// nominates it again in its next cycle (decisions run dec-114, seed 54,
// scenario 5). So it is put aside (moved) and back into the heap, to be
// assigned again, when the first head of a later round comes up (a queue's
// workload after the one it took its turn with, a head of Kueue's next
// cycles) or no head is left: in the same Cycle, as deliberate difference 1
// takes Kueue's later cycles. Such a head that now needs preemption still
// preempts at its turn (deliberate difference 1; see
// TestNominatedFittingHeadPreemptsInItsCycle). A queue's first head whose
// nomination beside the cycle's ready preemptors no longer fits once they
// are counted is put aside from its walk on, keyed by what it gets now, as
// Kueue's next cycle ranks it against the heads of later rounds (putAside).
func (s *Scheduler) scheduleTree(t *tree, out []Decision) []Decision {
	var ver uint64
	h := &headHeap{}
	if s.strategies != nil {
		h.fair = s
	}
	s.readyAdmits = s.readyAdmits[:0]
	out = s.admitReady(t, out)
	if s.stopCycle {
		return out
	}
	s.beginDeferral(h)
	runs := make([]*run, 0, len(t.queues))
	s.beginWalk(t, h, &runs, &ver)
	defer func() {
		s.dfr, s.walk.h, s.walk.runs, s.walk.ver, s.walk.track, s.walk.popping = nil, nil, nil, nil, false, false
	}()
	// Queues are walked in name order. Walks settle the workloads that gain
	// nothing from their turn; preemptions and holds wait for the heap.
	for _, q := range t.queues {
		rn := s.runs.get()
		*rn = run{q: q, list: s.lists[q.Name()], strict: q.Strategy == kueue.StrictFIFO, took: s.readyAdmitted(q)}
		if s.usesAFS(q) {
			rn.byLQ = splitByLQ(rn.list)
		}
		runs = append(runs, rn)
		if ph := s.placeholder(rn); ph != nil || rn.slept {
			if ph != nil {
				h.push(ph)
			}
			continue
		}
		out = s.pushNext(rn, h, ver, out)
	}
	s.walk.popping = true
	for h.Len() > 0 || len(s.walk.moved) > 0 {
		if h.Len() == 0 {
			s.walk.retryMoved()
			continue
		}
		hd := h.pop()
		if !hd.placeholder && hd.run.took {
			s.walk.nextRound = true
			if len(s.walk.moved) > 0 {
				h.push(hd)
				s.walk.retryMoved()
				continue
			}
		}
		if hd.placeholder {
			out = s.popPlaceholder(hd, ver, out)
			continue
		}
		if s.walk.laterWait && hd.run.took {
			// A head of Kueue's next cycles, which the head skipped
			// beside a one-cycle hold joins (see treeWalk.laterWait):
			// decided in the next Cycle, in their order.
			hd.run.outcome.active = true
			continue
		}
		s.dfr.notePop(hd)
		s.walk.notePop(hd)
		if hd.ver != ver && s.lostForGood(hd.run) {
			hd.run.slept = true
			continue
		}
		if hd.ver != ver {
			res, skipped := s.assign(hd.run.q, hd.r, !hd.run.took, holdView{later: s.laterCycle(hd.run, hd.r), since: hd.since})
			if skipped {
				out = s.skipped(hd.run, hd.r, out)
				continue
			}
			hd.ver = ver
			if !res.Fits && !s.contends(hd.run.q, &res) {
				out = s.notAdmitted(hd, &res, h, ver, out)
				continue
			}
			if res.Fits && hd.res.Fits && !hd.moved && !maps.Equal(res.Usage, hd.res.Usage) && !s.fitsNow(hd.run.q, hd.res.Usage) {
				// It fit as nominated, no longer does, and would now
				// fit elsewhere (another flavor, fewer pods): Kueue
				// checks the nominated assignment and skips it, to be
				// nominated again next cycle (see scheduleTree).
				hd.moved = true
				s.walk.moved = append(s.walk.moved, hd)
				continue
			}
			worse := level(&res) > level(&hd.res)
			hd.res = res
			hd.fair = nil
			if worse {
				h.push(hd)
				continue
			}
		}
		if !hd.res.Fits {
			// Its turn to preempt, or to hold what it waits for.
			out = s.notAdmitted(hd, &hd.res, h, ver, out)
			continue
		}
		if s.admissionBlocked() {
			out = append(out, s.waitForReady(hd.run.q, hd.r))
			break
		}
		out = append(out, s.admit(hd.run.q, hd.r, &hd.res))
		s.dfr.noteAdmit(hd.r)
		hd.run.outcome.active = true
		hd.run.took = true
		ver++
		if !s.walk.laterWait {
			out = s.pushNext(hd.run, h, ver, out)
		}
	}
	s.settleTentative()
	if s.stopCycle {
		return out // no settleSleep: the block's end wakes every queue
	}
	for _, rn := range runs {
		if !rn.slept {
			s.noteWalked(rn)
			s.settleSleep(rn.q, &rn.outcome)
		}
	}
	return out
}

// pushNext advances a queue to its next candidate that fits now, or that
// needs preemption (see contends), and pushes it; candidates that do not fit
// are settled as pending on the way.
func (s *Scheduler) pushNext(rn *run, h *headHeap, ver uint64, out []Decision) []Decision {
	for {
		e, ok := s.nextEntry(rn)
		if !ok {
			return out
		}
		if d, filtered := s.filterWalk(rn, e.r); filtered {
			out = append(out, d)
			continue
		}
		if d, busy := s.waiting(rn.q, e.r); busy {
			out = append(out, d)
			rn.outcome.active = true
			if rn.strict {
				return s.blockRest(rn, e.r, out)
			}
			continue
		}
		s.noteTurn(rn, e.r)
		var skip bool
		var blockers []need
		if len(s.holds) > 0 {
			s.withoutHolds(func() { skip, blockers = s.skipFor(rn, e.r) })
		} else {
			skip, blockers = s.skipFor(rn, e.r)
		}
		if skip {
			// Still gets no flavor: its last Pending stands.
			s.parkIfDue(rn, e.r)
			rn.outcome.noteUnfit(blockers)
			if rn.strict {
				return s.blockRest(rn, e.r, out)
			}
			continue
		}
		res, skipped := s.assign(rn.q, e.r, !rn.took, s.freshView(rn, e.r))
		if skipped {
			return s.skipped(rn, e.r, out)
		}
		if res.Fits || s.contends(rn.q, &res) {
			if !res.Fits && s.settlesAhead(rn, e.r, &res) {
				out = append(out, s.repeatSettle(rn, e.r, &res))
				continue
			}
			if nom, ok := s.readyNomination(rn, e.r, &res); ok {
				if h == s.walk.h && !s.fitsNow(rn.q, nom.Usage) {
					// Kueue skips it at its turn, its nomination
					// taken by the ready preemptors: it comes back
					// in the next cycle, ranked by what it gets
					// then (decisions run dec-146, seed 62,
					// scenario 1). A dropped queue's walk into a
					// scratch heap (settleDeferred) only asks where
					// its head ranks, and keeps the nomination.
					s.walk.putAside(s.newHead(rn, e.r, res, staleVer))
					return out
				}
				// Ordered and checked as Kueue nominated it, in the
				// room the ready preemptors took since: stale.
				h.push(s.newHead(rn, e.r, nom, staleVer))
				return out
			}
			h.push(s.newHead(rn, e.r, res, ver))
			return out
		}
		var charged bool
		out, charged = s.settleUnfit(rn, e.r, &res, true, out)
		if charged {
			// The preemptor's reservation (or a hold) changed the tree:
			// heads evaluated before must be evaluated again.
			h.invalidate()
		}
		if rn.strict {
			return s.blockRest(rn, e.r, out)
		}
	}
}

// overlappingTargetsMessage is the Pending message of a preemptor that waits
// for evictions in flight its victims overlap (WaitOnOverlappingTargets), in
// Kueue's words. Its reason stays the flavor assigner's: like Kueue's skipped
// workload (reason WaitingForQuota), it made no preemption of its own.
const overlappingTargetsMessage = "Workload has overlapping preemption targets with another workload"

// settleUnfit preempts for a workload that does not fit, when its queue may,
// or leaves it pending with the assigner's reason; a workload that needs
// preemption but found no victims may hold quota for the rest of the cycle
// (see hold), when holdNow. It tells whether it charged the cache (a
// preemptor's reservation or a hold).
//
// A head that fit when its queue's walk reached it, and no longer does
// because an admission of the cycle took its room, does not hold (holdNow
// false): Kueue nominated it as fitting, against the snapshot its cycle
// began with, and skips it when its turn comes ("Workload no longer fits
// after processing another workload"), so that the heads after it in the
// cycle get what is left; it holds, if it must, from the next cycle on
// (seed 3, scenario 10 of the fair-sharing runs in docs/kueue-decisions.md).
func (s *Scheduler) settleUnfit(rn *run, r *record, res *flavorassigner.Result, holdNow bool, out []Decision) ([]Decision, bool) {
	s.trace = settleTrace{}
	var preempted bool
	var scope searchScope
	var own *need
	if s.parkedNow(rn.q, r) {
		s.trace.wasParked = true
		// Kueue's inadmissible list: no search before the next release.
		scope, own = s.parkedScope(rn, r, res)
	} else {
		out, preempted, scope, own = s.tryPreempt(rn.q, r, res, !rn.took, out)
	}
	if preempted {
		s.unpark(r)
		rn.outcome.active = true
		rn.took = true
		return out, true
	}
	if scope == scopeOverlap || scope == scopeContended {
		s.noteSkip(rn.q.Name())
	}
	if scope == scopeOverlap {
		s.unpark(r)
		rn.outcome.active = true
		return append(out, r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: rn.q.Name(), Reason: res.Reason,
			Message: overlappingTargetsMessage})), false
	}
	if res.Preemption != nil && s.canPreempt(rn.q) && s.deferFit(rn.q, r, res.Preemption) {
		rn.outcome.active = true
		return append(out, Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: rn.q.Name(), Reason: ReasonWaitingForPreemption,
			Message: "fits once the workloads being evicted have let go of their quota"}), true
	}
	parked := holdNow && scope != scopeContended && !rn.strict
	if parked {
		s.parkIfDue(rn, r)
	} else {
		// Skipped for the cycle: Kueue requeues it at once.
		s.unpark(r)
	}
	held := false
	switch {
	case res.Preemption == nil || !s.mayHold(rn.q) || scope == scopeContended:
	case !holdNow:
		// Walked again next cycle, when it holds.
		rn.outcome.active = true
	default:
		// Under StrictFIFO it holds again next cycle; under BestEffortFIFO
		// after quota is released in the tree, which must wake its queue.
		rn.outcome.active = rn.outcome.active || rn.strict
		rn.outcome.holds = true
		s.trace.held = true
		held = s.hold(rn, r, res.Preemption)
		// One parked before this cycle is no head of it (noteTurn): it
		// takes the queue's turn only if it holds.
		rn.took = rn.took || held || r.keptCycle != s.cycle
	}
	// A search that found nothing in the tree may find victims once another
	// queue of the tree borrows: the queue must stay awake. One that found
	// nothing in the queue itself may once the tree frees enough of one
	// resource (see ownNeed): the queue sleeps with that need for it, as
	// well as with its blockers (it may fit).
	// A workload whose flavor the preemption oracle chose may switch to
	// a flavor where preemption finds victims as the tree changes, which no
	// single need tells: its queue stays awake too. So does one whose queue
	// holds quota for it, where the oracle's borrowing level decides when,
	// among the tree's heads, it holds, and one that a preemption in the
	// same cycle could not catch up exactly (see late.go). Otherwise the
	// oracle judged the one assignment there is, which the search settles.
	// A workload that may be admitted with fewer pods keeps its queue
	// awake too: its needs are those of all its pods (see partial.go).
	// A parked workload searches no more before a release in its tree,
	// which wakes its queue (see park.go): what the rest of the tree does
	// meanwhile cannot make it preempt, and it fits only once its tree
	// has room for one of its blockers, which they wake the queue for. A
	// preemption in the cycle may still let it fit once the victims are
	// gone (deferFit): its queue sleeps only where late.go can catch it
	// up then.
	treeBound := scope == scopeTree || (res.Oracled && !s.sleepsSearched(rn, res))
	parkedAsleep := parked && treeBound && s.sleepsSearched(rn, res)
	if parkedAsleep {
		rn.outcome.parked = true
	}
	rn.outcome.active = rn.outcome.active || (treeBound && !parkedAsleep) || scope == scopeContended || s.partialOK(r)
	if res.Preemption != nil && s.canPreempt(rn.q) {
		// Its search may find victims once a preemption of this cycle
		// frees room in the tree (see lateWalks).
		rn.outcome.searched = true
	}
	if !rn.outcome.active {
		note := func() {
			rn.outcome.noteUnfit(s.blockersFor(rn.q, r))
			if own != nil {
				rn.outcome.noteUnfit([]need{*own})
			}
		}
		if len(s.holds) > 0 {
			s.withoutHolds(note)
		} else {
			note()
		}
	}
	s.trace.plain = scope != scopeContended && !s.trace.held
	s.trace.park = parked
	msg := res.Message
	if scope == scopeContended {
		// Its victims would not make room beside what the cycle's earlier
		// heads took or hold: Kueue's check before it issues a cycle's
		// preemptions, which skips it in these words.
		msg = skippedMessage
		rn.skippedOne = true
	}
	return append(out, r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: rn.q.Name(), Reason: res.Reason, Message: msg})), held
}

// notAdmitted settles a head that stopped fitting and moves its queue on.
//
// A head that fit only in the room a ready preemptor's victims left, which
// the preemptor (admitted before the walks) took, is skipped for the cycle:
// Kueue nominates the preemptor with the other heads, against the snapshot
// where that room is free, admits it first and skips the others ("Workload
// no longer fits after processing another workload"); they neither preempt
// nor hold until the next cycle, when another queue's hold may have taken
// the room (fair-sharing decisions run, seed 3, scenario 10, event 14).
// Only queues that may hold quota count the ready preemptors so (see
// nominatedFit); Kueue's baseline has none. One whose queue may not preempt
// holds at once all the same, a later hold (see run.took): Kueue nominates
// it again in its next cycle, where it holds ahead of the workloads of
// queues that took their turn in this one, the preemptor's among them
// (decisions run, seed 5, scenario 0, event 12).
func (s *Scheduler) notAdmitted(hd *head, res *flavorassigner.Result, h *headHeap, ver uint64, out []Decision) []Decision {
	rn, r := hd.run, hd.r
	if hd.readyRoom {
		if res.Preemption != nil && !s.canPreempt(rn.q) {
			// In Kueue's next cycle it is nominated again and, finding
			// no victims it may take, holds, ahead of the workloads of
			// queues that took their turn in this one (a ready
			// preemptor's queue among them): a later hold.
			rn.took = true
			rn.outcome.holds = true
			if s.hold(rn, r, res.Preemption) {
				h.invalidate()
			}
		}
		return s.skipped(rn, r, out)
	}
	holdNow := !hd.nominatedFit
	if s.matches(rn, r, res, holdNow) {
		out = append(out, s.repeatSettle(rn, r, res))
		return s.pushNext(rn, h, ver, out)
	}
	b := s.beforeSettle(rn, r, res)
	out, charged := s.settleUnfit(rn, r, res, holdNow, out)
	if charged {
		h.invalidate()
	}
	s.rememberSettle(rn, r, res, holdNow, b)
	if rn.strict {
		return s.blockRest(rn, r, out)
	}
	return s.pushNext(rn, h, ver, out)
}

// putAside sets aside a queue's first head of the cycle, which Kueue skips
// in this cycle (see pushNext), until its next one: in the list of moved
// heads while this cycle lasts; straight into the heap once a head of a
// later round came up, where the walk of every queue would have put it by
// then (retryMoved). A deferred queue is walked only when its placeholder
// comes up, which can be after that.
func (w *treeWalk) putAside(hd *head) {
	hd.moved = true
	if w.nextRound {
		hd.ver = staleVer
		w.h.push(hd)
		return
	}
	w.moved = append(w.moved, hd)
}

// retryMoved puts the moved heads back into the heap, to be assigned again
// (see scheduleTree), and empties the list.
func (w *treeWalk) retryMoved() {
	for _, hd := range w.moved {
		hd.ver = staleVer
		w.h.push(hd)
	}
	clear(w.moved)
	w.moved = w.moved[:0]
}

// skippedMessage is Kueue's Pending message for a head that its cycle
// nominated but that no longer fit when its turn came.
const skippedMessage = "Workload no longer fits after processing another workload"

// skipped settles a head that fits without the cycle's holds but not with
// them (see assign): pending, its queue walked no further in this cycle, as
// Kueue requeues it at the head of its queue, and awake for the next.
func (s *Scheduler) skipped(rn *run, r *record, out []Decision) []Decision {
	rn.outcome.active = true
	rn.skippedOne = true
	s.walk.laterWait = s.walk.laterWait || s.walk.oneShotHeld
	s.unpark(r)
	out = append(out, r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: rn.q.Name(),
		Reason: ReasonInsufficientQuotaInCohort, Message: skippedMessage}))
	if rn.strict {
		return s.blockRest(rn, r, out)
	}
	return out
}

// blockRest settles everything behind a StrictFIFO head that does not fit.
func (s *Scheduler) blockRest(rn *run, blocker *record, out []Decision) []Decision {
	msg := fmt.Sprintf("ClusterQueue %s uses StrictFIFO and the older workload %s, which does not fit, is ahead", rn.q.Name(), blocker.info.Key)
	for {
		e, ok := s.nextEntry(rn)
		if !ok {
			return out
		}
		if d, filtered := s.filter(rn.q, e.r); filtered {
			out = append(out, d)
			continue
		}
		out = append(out, e.r.pendingDecision(Pending{Workload: e.r.pendingKey(), LocalQueue: e.r.lq.Name, ClusterQueue: rn.q.Name(), Reason: ReasonBlockedByStrictFIFOHead, Message: msg}))
	}
}

// headHeap is a binary min-heap of heads, written out so that pushes do not box
// values into interfaces as container/heap would. With fair sharing (fair set)
// the order depends on shares that every admission changes, so it is a plain
// list and pop runs the fair-sharing tournament.
type headHeap struct {
	items []*head
	fair  *Scheduler
	// invalidations counts invalidate's calls (see treeStamp), mutations
	// pushes and pops (see aheadBound).
	invalidations, mutations uint64
}

func (h *headHeap) Len() int { return len(h.items) }

// staleVer marks heads that must be evaluated again whatever the version.
const staleVer = ^uint64(0)

// invalidate marks every head for evaluation again: usage grew other than by
// an admission (a preemptor's reservation).
func (h *headHeap) invalidate() {
	h.invalidations++
	for _, hd := range h.items {
		hd.ver = staleVer
	}
}

func (h *headHeap) push(x *head) {
	h.mutations++
	h.items = append(h.items, x)
	if h.fair != nil {
		return
	}
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !headLess(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *headHeap) pop() *head {
	h.mutations++
	if h.fair != nil {
		i := h.fair.fairPick(h.items)
		top := h.items[i]
		last := len(h.items) - 1
		h.items[i] = h.items[last]
		h.items[last] = nil
		h.items = h.items[:last]
		return top
	}
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items[last] = nil
	h.items = h.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.items) && headLess(h.items[l], h.items[m]) {
			m = l
		}
		if r < len(h.items) && headLess(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// contends tells whether a workload that does not fit takes its turn among
// the heads of its tree: one whose assignment needs preemption, which may
// evict victims or hold quota when settled. As in Kueue, whose cycle orders
// every head, fitting or not, it goes when the order of heads says so, not
// before the admissions the order puts first. One that gets no flavor, or
// that its queue can neither preempt nor hold for, is settled on the spot:
// settling it changes nothing.
func (s *Scheduler) contends(q *quota.ClusterQueue, res *flavorassigner.Result) bool {
	return res.Preemption != nil && (s.canPreempt(q) || s.mayHold(q))
}

// level is a head's borrowing level: of its assignment when it fits, of the
// assignment preemption would make room for when it does not (Kueue orders
// entries by the assignment's borrowing level either way).
func level(res *flavorassigner.Result) int {
	if !res.Fits && res.Preemption != nil {
		return res.Preemption.BorrowLevel
	}
	return res.BorrowLevel
}

// headLess orders heads of different queues of one tree as Kueue does: a
// workload that borrows less far up the tree first (not at all, then from
// its own Cohort, ...), then higher priority (unless the
// PrioritySortingWithinCohort gate is off), older creation, UID, and
// finally namespace/name and queue name for a total order.
func headLess(a, b *head) bool {
	if la, lb := level(&a.res), level(&b.res); la != lb {
		return la < lb
	}
	if c := compareHeadOrder(a.r, b.r); c != 0 {
		return c < 0
	}
	return strings.Compare(a.run.q.Name(), b.run.q.Name()) < 0
}
