package scheduler

import (
	"slices"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
)

// On a loaded cluster new workloads arrive in every queue every few cycles,
// and each arrival used to wake its queue: the next cycle walked every one of
// its pending workloads again, to find what the queue's sleep already knew
// (none of them fits, nor finds victims) and one new workload that does not
// fit either. Under Kueue's baseline load that was three quarters of what the
// cycles of the large workloads' phase walked.
//
// So a sleeping queue that only received new workloads since it fell asleep
// is probed instead of woken: each arrival is evaluated at the start of the
// cycle, and if none of them can decide anything in the cycle, the queue
// sleeps on, its sleeper now also waiting for the arrivals' needs. Usage only
// grows in a cycle, so an arrival that does not fit at its start does not fit
// later; one whose preemption search cannot find victims now (scopeNone: it
// would borrow, only its own queue may give victims, and none of them may be
// taken for it) finds none later, as long as every cell it asks for is short
// already (a cell short later would change which cells the rules look at)
// and until a preemption in the tree, which catches up the sleeping queue as
// it would any other (late.go). Its position among the queue's workloads then
// does not matter: in a walk of every queue, each of them decides nothing
// until that preemption. The arrival gets no decision, as a sleeping queue's
// workloads do; it is explained when its queue is next walked (WakeAll at the
// latest).
//
// Where anything else could happen, the queue is woken as before: an arrival
// fits, or may hold quota, or victims are in flight anywhere (it might fit
// once they are gone), or the queue is one whose sleep rules late.go cannot
// catch up (StrictFIFO, admission fair sharing, below a Cohort that is not
// its root).

// arrive notes a new pending workload of cq: it wakes cq unless cq sleeps
// with a sleeper that the probe may keep asleep.
func (s *Scheduler) arrive(cq string, r *record) {
	st := &s.sleep
	st.gen[cq]++
	if _, awake := st.awake[cq]; awake || st.all || s.opts.DisableIncrementalCycle || s.strategies != nil {
		st.awake[cq] = struct{}{}
		return
	}
	if st.arrivals == nil {
		st.arrivals = map[string][]*record{}
	}
	st.arrivals[cq] = append(st.arrivals[cq], r)
}

// probeArrivals wakes the queues whose arrivals may decide something in this
// cycle, and folds the others' arrivals into their sleepers. It runs when the
// cycle's wakes are known, before any queue is walked.
func (s *Scheduler) probeArrivals() {
	st := &s.sleep
	if len(st.arrivals) == 0 {
		return
	}
	for _, cq := range sortedKeys(st.arrivals) {
		if _, awake := st.awake[cq]; !awake && !s.keepsSleeping(cq, st.arrivals[cq]) {
			st.awake[cq] = struct{}{}
		}
	}
	clear(st.arrivals)
}

// keepsSleeping probes a sleeping queue's arrivals (see the top of this
// file) and, when none of them can decide anything in this cycle, adds their
// needs to the queue's sleeper.
func (s *Scheduler) keepsSleeping(cq string, arrivals []*record) bool {
	q, ok := s.cache.ClusterQueue(cq)
	if !ok || len(s.victimOf) > 0 || q.Strategy == kueue.StrictFIFO || s.usesAFS(q) || !flatTree(q) {
		return false
	}
	if st := s.cache.Status(q); !st.Active {
		return false
	}
	sl := s.sleeperOf(q)
	if q.CohortName() != "" && (sl == nil || sl.holds) {
		return false
	}
	var needs []need
	searched := false
	// The arrivals' first Pending decisions: a workload kept asleep so is
	// explained in this cycle all the same, as Kueue writes a new workload's
	// reason in the first cycle that sees it, when its tree's walk leaves
	// the explanation true (probedAfterWalk).
	var decided []Decision
	for _, r := range arrivals {
		if r.state != StatePending || s.localQueues[r.lq] == nil || s.localQueues[r.lq].cq != cq {
			continue // gone or moved on: whatever did that woke its queue
		}
		if d, filtered := s.filter(q, r); filtered {
			decided = append(decided, d)
			continue
		}
		if s.partialOK(r) {
			return false // its queue does not sleep while it waits (partial.go)
		}
		res, skipped := s.assign(q, r, false, holdView{})
		if res.Fits || skipped {
			return false
		}
		decided = append(decided, r.pendingDecision(Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: cq, Reason: res.Reason, Message: res.Message}))
		if !s.contends(q, &res) {
			needs = append(needs, s.blockersOf(q, r)...)
			continue
		}
		a := res.Preemption
		if res.OracleChose || s.mayHold(q) || !s.canPreempt(q) {
			return false
		}
		for fr, v := range a.Usage {
			if v > 0 && v <= s.cache.Available(q, fr).Available {
				return false // not short of every cell it asks for
			}
		}
		scope, own := s.scope(q, r, a, true)
		if scope != scopeNone {
			return false
		}
		needs = append(needs, s.blockersOf(q, r)...)
		if own != nil {
			needs = append(needs, *own)
		}
		searched = true
	}
	s.probed++
	tree := s.treeKeyOf(q).String()
	for _, d := range decided {
		s.sleep.probed = append(s.sleep.probed, probedDecision{tree: tree, cq: cq, d: d})
	}
	for _, r := range arrivals {
		// Evaluated and unfit: parked, as the walk would have parked them.
		if r.state == StatePending && s.localQueues[r.lq] != nil && s.localQueues[r.lq].cq == cq {
			if _, filtered := s.filter(q, r); !filtered {
				s.park(q, r)
				s.noteParkedForGood(q, r)
			}
		}
	}
	if sl == nil {
		return true // without a Cohort only its own events change anything
	}
	var o runOutcome
	o.needs = sl.needs
	o.noteUnfit(needs)
	sl.needs = o.needs
	sl.searched = sl.searched || searched
	return true
}

// sleeperOf is q's sleeper, nil when it has none.
func (s *Scheduler) sleeperOf(q *quota.ClusterQueue) *sleeper {
	root, ok := s.cache.TreeRoot(q)
	if !ok {
		return nil
	}
	return s.sleep.byRoot[root][q.Name()]
}

// probedDecision is a probed arrival's Pending decision, made at the start
// of the cycle, and the key of its tree.
type probedDecision struct {
	tree, cq string
	d        Decision
	// woken tells that freed quota woke its queue after the probe
	// (markProbedAwake): the queue's walk may explain it too.
	woken bool
}

// A probe explains its arrivals in the state the cycle starts from, where a
// walk of every queue explains each at its turn, after what the tree
// admitted, reserved or preempted before it (the quota left in a Cohort is
// part of the message, and may change the reason too). So the probed
// decisions of a tree that is walked are returned after its walk, and only
// when the walk changed nothing in the cache and caught up no sleeping queue
// (late.go, which explains the caught-up queue's workloads at their turn);
// otherwise the arrivals go unexplained, as every workload of a sleeping
// queue does, until their queue is next walked. The probed decisions of a
// tree that is not walked at all are true as they are and are returned at
// once (probedUnwalked).

// markProbedAwake marks the probed decisions of the queues awake after all:
// freed quota woke them after their probe (wakeByFreedQuota), so their walk
// may explain their arrivals again, and a cycle explains a workload once
// (probedAfterWalk).
func (s *Scheduler) markProbedAwake() {
	st := &s.sleep
	for i := range st.probed {
		if _, awake := st.awake[st.probed[i].cq]; awake {
			st.probed[i].woken = true
		}
	}
}

// probedUnwalked appends the probed decisions of the trees not among trees,
// and keeps the others for probedAfterWalk.
func (s *Scheduler) probedUnwalked(trees []*tree, out []Decision) []Decision {
	kept := s.sleep.probed[:0]
	for _, p := range s.sleep.probed {
		if slices.ContainsFunc(trees, func(t *tree) bool { return t.key == p.tree }) {
			kept = append(kept, p)
			continue
		}
		out = append(out, p.d)
	}
	clear(s.sleep.probed[len(kept):])
	s.sleep.probed = kept
	return out
}

// probedAfterWalk appends t's probed decisions once t was walked, when the
// walk left them true: the cache's version is still ver, the version before
// the walk, and no sleeping queue was caught up (lateWakes is still late).
// One whose queue freed quota woke is left out when the walk, whose
// decisions are out[walked:], explained its workload itself.
func (s *Scheduler) probedAfterWalk(t *tree, ver, late uint64, out []Decision, walked int) []Decision {
	unchanged := s.cache.Version() == ver && s.lateWakes == late
	kept := s.sleep.probed[:0]
	for _, p := range s.sleep.probed {
		switch {
		case p.tree != t.key:
			kept = append(kept, p)
		case unchanged && !(p.woken && explainedIn(out[walked:], p.d)):
			out = append(out, p.d)
		}
	}
	clear(s.sleep.probed[len(kept):])
	s.sleep.probed = kept
	return out
}

// explainedIn tells whether ds holds a Pending decision for d's workload.
func explainedIn(ds []Decision, d Decision) bool {
	p, ok := d.(Pending)
	if !ok {
		return false
	}
	return slices.ContainsFunc(ds, func(o Decision) bool {
		q, ok := o.(Pending)
		return ok && q.Workload == p.Workload
	})
}
