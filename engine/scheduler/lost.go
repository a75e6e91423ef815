package scheduler

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// On a loaded Cohort tree every finished job frees quota that dozens of
// sleeping queues could use: each of them holds a job small enough. The cycle
// walks them all, each one's head fits, one is admitted, and every other head
// is evaluated again when it reaches the top of the heap, no longer fits, has
// its preemption checked, and its queue walks the rest of its list: a
// generated week spent most of its time so, with 34 queues walked per cycle
// for about one admission in two.
//
// In a quiet cycle, a head that reaches the top after admissions of others,
// in a queue that only freed quota woke, is dropped without that evaluation
// when what the root and the Cohorts above the queue have unused now (victims
// in flight counted, as for waking) no longer has room for any of the
// blockers its sleeper kept (mayChange): each of its workloads got no flavor
// when last evaluated, for want of room for one of those resources, and
// still gets none. Evaluated, the head and everything behind it would get no
// flavor: the queue would decide nothing. So it goes back to sleep with the
// sleeper it had, whose needs still hold: its pending and admitted workloads
// are those they were computed for. No queue is dropped while workloads hold
// quota in the cycle, nor one whose workloads held in the walk its sleeper
// comes from.
//
// Only quiet cycles drop heads so: the dropped queue's workloads get no
// Pending decision, and its sleeper keeps needs from an earlier walk.
//
// Deferring a woken queue's first walk (deferred.go) needs more: that none of
// its workloads can preempt or hold quota whatever happens in the cycle.
// That holds when
//
//   - each did not fit when last evaluated (its memo), has one pod set whose
//     resources one group covers, and cannot get a flavor by preemption for
//     the rest of the cycle (flavorassigner.NeverPreempts: in every flavor
//     some resource asks for more than the queue could ever get, or does not
//     fit and may not be preempted for, or every resource may not be
//     preempted for): it may fit, but it never searches for victims nor
//     holds quota;
//   - none of its own preemptions is in flight and it does not use admission
//     fair sharing.

// hopelessThroughout tells whether none of q's pending workloads can preempt
// or hold quota now, by the conditions above.
func (s *Scheduler) hopelessThroughout(q *quota.ClusterQueue, l *pendingList) bool {
	name := q.Name()
	if len(l.sorted) == 0 || s.usesAFS(q) || s.hasInflight(name) {
		return false
	}
	// The answer depends on the queue's pending and admitted workloads, the
	// structure and the tree's usage, which only grows within a cycle: a yes
	// is remembered for the cycle, until the queue is woken (wake marks every
	// change of its workloads) or the structure changes.
	gen := s.sleep.gen[name]
	if m, ok := s.hopelessMemo[name]; ok && m.gen == gen && m.structVer == s.structVer && m.cycle == s.cycle && m.ok {
		return true
	}
	ok, borrows := s.workloadsHopeless(q, l)
	s.hopelessMemo[name] = hopelessAnswer{gen: gen, structVer: s.structVer, cycle: s.cycle, ok: ok, borrows: borrows}
	return ok
}

// hopelessAnswer is hopelessThroughout's remembered answer for a queue, and,
// when ok, whether each of its workloads would borrow whatever flavor it got
// (see deferred.go).
type hopelessAnswer struct {
	gen, structVer, cycle uint64
	ok, borrows           bool
}

// workloadsHopeless is hopelessThroughout's condition on each pending
// workload; borrows tells whether each would take q above nominal quota in
// every flavor of its group.
func (s *Scheduler) workloadsHopeless(q *quota.ClusterQueue, l *pendingList) (ok, borrows bool) {
	borrows = true
	for _, e := range l.sorted {
		r := e.r
		if !e.valid() {
			continue
		}
		m := r.memo
		if m == nil || m.q != q || m.info != r.info || m.structVer != s.structVer || m.res.Fits || len(r.info.PodSets) != 1 ||
			s.partialOK(r) {
			return false, false
		}
		group := -1
		for res := range r.info.PodSets[0].Total {
			g := q.GroupOf(res)
			if g < 0 || (group >= 0 && g != group) {
				return false, false
			}
			group = g
		}
		if group < 0 || !flavorassigner.NeverPreempts(s.cache, q, &r.info.PodSets[0], s.kindOptions(q)) {
			return false, false
		}
		borrows = borrows && borrowsEverywhere(q, group, &r.info.PodSets[0])
	}
	return true, borrows
}

// lostForGood tells whether the queue of rn, due to be evaluated now (its
// stale head or its placeholder at the top of the heap, or its walk; see
// deferred.go), can be dropped as explained above, and if so puts the queue
// back to sleep.
func (s *Scheduler) lostForGood(rn *run) bool {
	if !s.quiet || s.opts.DisableIncrementalCycle || rn.byLQ != nil {
		return false
	}
	q := rn.q
	name := q.Name()
	sl, woken := s.sleep.freed[name]
	if !woken {
		return false
	}
	st := &s.sleep
	root, ok := s.cache.TreeRoot(q)
	if !ok {
		return false
	}
	// While any workload holds quota, a head that gets a flavor without the
	// holds and does not fit with them is skipped (see assign), which keeps
	// its queue awake: rootBound, which counts the holds, cannot tell.
	if len(s.holds) > 0 {
		return false
	}
	if best, ok := s.rootBound(q, root); !ok || sl.holds || s.mayChange(sl, best) {
		return false
	}
	set, ok := st.byRoot[root]
	if !ok {
		set = map[string]*sleeper{}
		st.byRoot[root] = set
	}
	set[name] = sl
	s.lost++
	return true
}
