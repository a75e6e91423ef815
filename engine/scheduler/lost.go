package scheduler

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
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
// when two things hold. What the root has unused now (victims in flight
// counted, as for waking) no longer meets the needs the queue's sleeper kept:
// then none of its workloads can fit (sleeper.mayFit). And none of its
// workloads can preempt, whatever happens in the rest of the cycle
// (hopelessThroughout). Evaluated, the head and everything behind it would
// not fit and would find no victims: the queue would decide nothing. So it
// goes back to sleep with the sleeper it had, whose needs still hold: its
// pending and admitted workloads are those they were computed for.
//
// A queue's workloads cannot preempt in the cycle when
//
//   - each did not fit when last evaluated (its memo, which outlives a later
//     fit for this reason), has one pod set whose resources one group covers
//     (so the flavor preemption would target is the first one within
//     potential quota: it depends on quotas only), and either may not preempt
//     at all, or its queue holds no workload the withinClusterQueue policy
//     lets it take and every cell of that flavor would take the queue above
//     nominal quota: scopeOf's hopeless case, which holds while the queue's
//     own usage does not shrink;
//   - none of its admitted workloads is the victim of a preemption in flight
//     (a search counts those as gone, which shrinks the queue's usage), none
//     of its own preemptions is in flight, no PreemptionConfig's rules and no
//     borrowWithinCohort widen its searches, and it does not use admission
//     fair sharing.
//
// That is checked at the moment the head is dropped, which is when the cycle
// would have evaluated the queue's remaining workloads, all at once; what
// happens later in the cycle does not concern them.
//
// Only quiet cycles drop heads so: the dropped queue's workloads get no
// Pending decision, and its sleeper keeps needs from an earlier walk.
//
// The same test also spares such a queue its first walk: see deferred.go.

// hopelessThroughout tells whether none of q's pending workloads can preempt
// now, by the conditions above.
func (s *Scheduler) hopelessThroughout(q *quota.ClusterQueue, l *pendingList) bool {
	name := q.Name()
	if len(l.sorted) == 0 || s.usesAFS(q) || s.hasInflight(name) || s.rulesOf(q) != nil {
		return false
	}
	if bwc := q.Preemption.BorrowWithinCohort; bwc != nil && bwc.Policy == kueue.BorrowWithinCohortPolicyLowerPriority {
		return false
	}
	for v := range s.victimOf {
		if vr, ok := s.workloads[v]; ok && vr.holdsQuota() && vr.admission.ClusterQueue == name {
			return false
		}
	}
	// The rest depends on the queue's pending and admitted workloads and the
	// structure only: it is remembered until the queue is woken (wake marks
	// every change of those) or the structure changes.
	gen := s.sleep.gen[name]
	if m, ok := s.hopelessMemo[name]; ok && m.gen == gen && m.structVer == s.structVer {
		return m.ok
	}
	ok, borrows := s.workloadsHopeless(q, l)
	s.hopelessMemo[name] = hopelessAnswer{gen: gen, structVer: s.structVer, ok: ok, borrows: borrows}
	return ok
}

// hopelessAnswer is hopelessThroughout's remembered answer for a queue, and,
// when ok, whether each of its workloads would borrow whatever flavor it got
// (see deferred.go).
type hopelessAnswer struct {
	gen, structVer uint64
	ok, borrows    bool
}

// workloadsHopeless is hopelessThroughout's condition on each pending
// workload; borrows tells whether each would take q above nominal quota in
// every flavor of its group. Both depend on q's usage, which only changes
// with its admitted workloads.
func (s *Scheduler) workloadsHopeless(q *quota.ClusterQueue, l *pendingList) (ok, borrows bool) {
	name := q.Name()
	canPreempt := s.canPreempt(q)
	pol := q.Preemption.WithinClusterQueue
	var lowest *record
	if adm := s.byPriority(name); len(adm) > 0 {
		lowest = adm[0]
	}
	borrows = true
	for _, e := range l.sorted {
		r := e.r
		if !e.valid() {
			continue
		}
		m := r.memo
		if m == nil || m.q != q || m.info != r.info || m.structVer != s.structVer || m.res.Fits || len(r.info.PodSets) != 1 {
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
		borrows = borrows && group >= 0 && borrowsEverywhere(q, group, &r.info.PodSets[0])
		if m.res.Preemption == nil || !canPreempt {
			continue
		}
		if pol != kueue.PreemptionPolicyNever && lowest != nil &&
			(lowest.priority < r.priority || (lowest.priority == r.priority && pol == kueue.PreemptionPolicyLowerOrNewerEqualPriority)) {
			return false, false
		}
		for fr, v := range m.res.Preemption.Usage {
			if q.Usage(fr)+v <= q.Nominal(fr) {
				return false, false
			}
		}
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
	if best, ok := s.rootBound(q, root); !ok || sl.mayFit(best) {
		return false
	}
	if !s.hopelessThroughout(q, rn.list) {
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
