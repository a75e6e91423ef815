package scheduler

import (
	"strings"

	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// A sleeping queue whose workload's preemption search found no victims in
// its own queue (scopeOwn, or none at all) waits for its tree to free enough
// quota (see sleep.go). A preemption made in the same cycle does: a search
// counts the victims of preemptions in flight as gone, so in a walk of every
// queue that sleeping queue's workloads evaluated after the preemption may
// find victims, where those evaluated before it found none.
//
// So when a workload preempts, every such sleeping queue of its tree is
// walked from where a walk of every queue would be at that moment. Until
// then its workloads decide nothing (they are unfit, as when it fell asleep,
// and find no victims), so the heads popped from the tree's heap so far are
// the same as in a walk of every queue, only without the sleeping queue's:
// replaying them (walk.pops) against the queue's workloads in order tells
// which of those would have been taken from the top before (headLess), and
// which would be the queue's head now. The workloads passed over get no
// decision, as a sleeping queue's workloads do; the head goes into the heap,
// to be evaluated again after the preemption like every other head, and the
// queue is walked on from there and whole in the next cycle.
//
// The replay compares heads by their keys now, which is exact only while a
// sleeping workload's key cannot have changed since the cycle began: its
// borrowing level, with its queue's usage unchanged, depends on the usage of
// the Cohorts above only when there is more than one (BorrowHeight), and on
// the victims preemption would take in its queue, which change only with a
// preemption. So only queues directly under their root Cohort sleep with
// such a search (see settleUnfit), and the first preemption in a tree wakes
// every one of them, whether or not its victims help.
//
// StrictFIFO queues, queues under admission fair sharing and queues that
// hold quota for their waiting workloads never sleep with such a search.

// treeWalk is what lateWalks needs of the tree scheduleTree is walking.
type treeWalk struct {
	h    *headHeap
	runs *[]*run
	ver  *uint64
	// root is the tree's root Cohort, "" for a queue without one.
	root string
	// track is set when the tree has sleeping queues that a preemption
	// would catch up; pops then keeps the keys of the heads taken from the
	// top of the heap, in order.
	track bool
	pops  []popKey
	// popping is set once every queue's walk has pushed its first head
	// and heads are taken from the top (see settlesAhead).
	popping bool
	// oneShotHeld is set once a BestEffortFIFO workload of the tree held
	// quota in this cycle, which it does for this cycle only (WantsCycle);
	// laterWait once a head was skipped beside such a hold. Kueue requeues
	// the skipped head at once and its next cycle, where the hold is gone,
	// takes it with the queues' next heads in its order; so the heads of
	// later rounds wait for the next Cycle too (see scheduleTree).
	oneShotHeld, laterWait bool
	// moved holds the heads skipped because their nomination no longer
	// fits where another assignment would (see scheduleTree): Kueue's
	// next cycle, which they wait for, begins with the first head of a
	// later round (nextRound), or when none is left.
	moved     []*head
	nextRound bool
}

// popKey is what headLess reads of a head.
type popKey struct {
	level int
	r     *record
	q     string
}

// beginWalk starts the bookkeeping of a tree's walk.
func (s *Scheduler) beginWalk(t *tree, h *headHeap, runs *[]*run, ver *uint64) {
	pops, moved := s.walk.pops[:0], s.walk.moved[:0]
	s.walk = treeWalk{h: h, runs: runs, ver: ver, pops: pops, moved: moved}
	root, ok := strings.CutPrefix(t.key, "cohort/")
	if !ok || s.opts.DisableIncrementalCycle {
		return
	}
	s.walk.root = root
	for _, sl := range s.sleep.byRoot[root] {
		if sl.searched {
			s.walk.track = true
			return
		}
	}
}

// notePop records a head taken from the top of the heap.
func (w *treeWalk) notePop(hd *head) {
	if w.track {
		w.pops = append(w.pops, popKey{level: level(&hd.res), r: hd.r, q: hd.run.q.Name()})
	}
}

// takenAfter tells whether hd would be taken from the top of the heap
// before the head p was (headLess).
func (p popKey) takenAfter(hd *head) bool {
	if l := level(&hd.res); l != p.level {
		return l < p.level
	}
	if c := compareHeadOrder(hd.r, p.r); c != 0 {
		return c < 0
	}
	return hd.run.q.Name() < p.q
}

// lateWalk is a sleeping queue caught up to a preemptor's turn: its run and
// the head it has then (nil when none is left).
type lateWalk struct {
	sl *sleeper
	rn *run
	hd *head
}

// lateWalks catches up, before the preemption is recorded, the sleeping
// queues of the tree whose workloads ran a preemption search.
func (s *Scheduler) lateWalks() []lateWalk {
	w := &s.walk
	if !w.track {
		return nil
	}
	set := s.sleep.byRoot[w.root]
	var late []lateWalk
	for _, name := range sortedKeys(set) {
		sl := set[name]
		if !sl.searched || s.walkedNow(name) {
			continue
		}
		l, ok := s.lists[name]
		if !ok {
			continue
		}
		l.prepare()
		rn := s.runs.get()
		*rn = run{q: sl.q, list: l}
		rn.outcome.active = true
		hd := s.nextContender(rn)
		for _, p := range w.pops {
			for hd != nil && p.takenAfter(hd) {
				// Settled before the preemption: it found no victims.
				s.parkIfDue(rn, hd.r)
				hd = s.nextContender(rn)
			}
		}
		late = append(late, lateWalk{sl: sl, rn: rn, hd: hd})
	}
	return late
}

// walkedNow tells whether the queue has a walk in the tree being scheduled.
func (s *Scheduler) walkedNow(name string) bool {
	for _, rn := range *s.walk.runs {
		if rn.q.Name() == name {
			return true
		}
	}
	return false
}

// nextContender advances rn to its next workload that would go into the
// heap (see pushNext) and returns it as a head; the workloads before it
// would have been settled on the spot. nil when none is left.
func (s *Scheduler) nextContender(rn *run) *head {
	for {
		e, ok := s.nextEntry(rn)
		if !ok {
			return nil
		}
		if _, filtered := s.filterWalk(rn, e.r); filtered {
			continue
		}
		s.noteTurn(rn, e.r)
		skip := false
		s.withoutHolds(func() { skip, _ = s.skipFor(rn, e.r) })
		if skip {
			s.parkIfDue(rn, e.r) // as the walk at its place would have
			continue
		}
		res, skipped := s.assign(rn.q, e.r, !rn.took, s.freshView(rn, e.r))
		if skipped {
			return nil // walked no further in this cycle (see skipped)
		}
		if !res.Fits && !s.contends(rn.q, &res) {
			s.parkIfDue(rn, e.r)
			continue
		}
		return s.newHead(rn, e.r, res, *s.walk.ver)
	}
}

// wakeLate, once the preemption is recorded, puts the caught-up queues'
// heads into the heap and takes the queues out of the sleepers: they are
// walked from there on. The tree has no such sleeper left for the rest of
// the cycle.
func (s *Scheduler) wakeLate(late []lateWalk) {
	w := &s.walk
	set := s.sleep.byRoot[w.root]
	for _, lw := range late {
		s.lateWakes++
		delete(set, lw.sl.q.Name())
		delete(s.sleep.holders, lw.sl.q.Name())
		*w.runs = append(*w.runs, lw.rn)
		if lw.hd != nil {
			w.h.push(lw.hd)
		}
	}
	if len(late) > 0 {
		w.track = false
		w.pops = w.pops[:0]
	}
}

// flatTree tells whether q is directly under its root Cohort, or has none
// (see the comment at the top of this file).
func flatTree(q *quota.ClusterQueue) bool {
	var buf [8]*quota.Cohort
	return len(q.Ancestors(buf[:])) <= 1
}

// sleepsSearched tells whether q may sleep although an unfit workload's
// preemption search ran, the oracle having judged its flavor (res).
func (s *Scheduler) sleepsSearched(rn *run, res *flavorassigner.Result) bool {
	return !res.OracleChose && !s.mayHold(rn.q) && !rn.strict && rn.byLQ == nil && flatTree(rn.q)
}
