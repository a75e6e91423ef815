package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// A cycle used to walk every pending workload of every ClusterQueue. On a
// loaded cluster almost none of them fit, and nothing that happened since the
// previous cycle could have changed that: a job submitted to one team, or one
// finishing with two GPUs free while every waiting job needs eight. A week of
// 100,000 jobs on 1,000 queues spent hours of CPU finding that out again.
//
// So a ClusterQueue sleeps after a cycle in which it neither admitted nor
// preempted, as Kueue parks workloads in its inadmissible list; the next cycles
// skip it until something happens that could change the outcome of one of its
// workloads:
//
//   - its own pending list changes (a workload is updated or leaves, or one
//     is added that may decide something in the cycle: arrivals.go probes
//     new ones first);
//   - its own admitted set changes (an admission, a finish, an eviction): that
//     frees its quota or gives its workloads new victims within the queue;
//   - anything structural changes: a flavor, ClusterQueue, Cohort, LocalQueue,
//     Namespace, priority class or PreemptionConfig (wakeAll);
//   - it takes part in a preemption in flight, as preemptor or victim;
//   - a workload of its tree preempts during the cycle, when one of its own
//     workloads ran a preemption search (late.go catches it up there);
//   - quota is freed elsewhere in its Cohort tree, and the root's unused quota
//     has become at least the smallest need that all of its unfit workloads
//     share (see mayFit). Available never exceeds the root's unused quota
//     (quota.BoundedByTreeFree), so below that no workload of the queue can fit.
//
// A queue does not sleep when its outcome depends on the rest of its tree in a
// way these triggers do not see: a workload whose preemption search ran and
// found no victims where other queues may give some (another queue may start
// to borrow), unless it is parked (park.go: it searches again only after a
// release in its tree, which wakes the queue as a holder's), one whose flavor
// the preemption oracle chose among several,
// fair sharing's searches, or a lendingLimit on its chain (unused guaranteed
// quota is not seen at the root). A search that only the queue's own
// workloads can serve lets it sleep (see settleUnfit and late.go).
//
// A sleeping queue's workloads get no Pending decision: they keep the reason
// and message of their last evaluation, as Kueue's inadmissible workloads do
// (an arrival that a probe keeps asleep is explained in that cycle, as it is
// its first evaluation; see arrivals.go).
// WakeAll makes the next cycle evaluate, and so explain, everything again.
// Admissions, preemptions and evictions are the same as when every queue is
// walked every cycle (Options.DisableIncrementalCycle), which the tests check.

// sleeper is a sleeping queue that freed quota elsewhere in its tree may wake.
type sleeper struct {
	q *quota.ClusterQueue
	// needs lists the resources that block the queue's unfit workloads, each
	// with the smallest amount it blocks (see flavorassigner.NoFlavor): one of
	// them changes only once one of its blockers has room, at the root or at a
	// Cohort below it (see mayChange). Empty when none can change but by the
	// queue's own events.
	needs []need
	// holds tells that a workload of the queue holds quota while it waits
	// (hold.go): it holds again after any release of quota in the tree, so
	// the queue wakes when the tree's release epoch moves past heldAt.
	holds  bool
	heldAt holdMark
	// searched tells that a preemption search ran for one of its unfit
	// workloads: a preemption made later in a cycle may help it (lateWalks).
	searched bool
}

type need struct {
	resource corev1.ResourceName
	amount   int64
}

// sleepState is the scheduler's bookkeeping of awake and sleeping queues.
type sleepState struct {
	// all makes the next cycle walk every queue.
	all bool
	// awake holds the queues the next cycle walks.
	awake map[string]struct{}
	// byRoot holds, per root Cohort, its sleeping queues that freed quota may
	// wake, and free the root's unused quota when last looked at, counting
	// the victims in flight as gone (treeFree); unused is the root's unused
	// quota then as it stood, with the victims holding theirs.
	byRoot map[string]map[string]*sleeper
	free   map[string]resources.Amounts
	unused map[string]resources.Amounts
	// scratch is reused for TreeFree, and best for bestOf; bound tells
	// which tree and state they hold rootBound's answer for. unusedScratch
	// and unusedBest are their like for the unused quota alone.
	scratch       resources.Amounts
	best          []need
	bound         boundKey
	unusedScratch resources.Amounts
	unusedBest    []need
	// victimsAtStart are the victims in flight when the cycle began.
	victimsAtStart map[types.NamespacedName]struct{}
	// freed holds the queues this cycle walks only because freed quota woke
	// them, with their sleepers (see lost.go).
	freed map[string]*sleeper
	// gen counts, per queue, the calls to wake: every change of its pending
	// or admitted workloads makes one.
	gen map[string]uint64
	// cohortBounds keeps each Cohort's bound (see cohortBound).
	cohortBounds map[*quota.Cohort]cohortBound
	// holders are the sleeping queues whose workloads hold quota while they
	// wait, woken when their tree's release epoch moves (hold.go).
	holders map[string]*sleeper
	// arrivals are the workloads queued since the last cycle in queues that
	// slept, for probeArrivals, and probed the Pending decisions of those a
	// probe kept asleep, for the cycle to return (see probedAfterWalk).
	arrivals map[string][]*record
	probed   []probedDecision
}

func newSleepState() sleepState {
	return sleepState{all: true, awake: map[string]struct{}{}, byRoot: map[string]map[string]*sleeper{},
		free: map[string]resources.Amounts{}, unused: map[string]resources.Amounts{}, scratch: resources.Amounts{},
		unusedScratch: resources.Amounts{}, victimsAtStart: map[types.NamespacedName]struct{}{},
		freed: map[string]*sleeper{}, gen: map[string]uint64{}, holders: map[string]*sleeper{}}
}

// wake makes the next cycle walk the queue.
func (s *Scheduler) wake(cq string) {
	if cq == "" {
		return
	}
	s.sleep.awake[cq] = struct{}{}
	s.sleep.gen[cq]++
}

// wakeAll makes the next cycle walk every queue: after a change of structure,
// where working out whom it concerns is not worth it.
func (s *Scheduler) wakeAll() {
	s.sleep.all = true
	s.structVer++
	s.structChanges++
}

// WakeAll makes the next cycle evaluate every pending workload, so that its
// Pending decisions explain every one of them with the state of that moment.
// Decisions other than Pending are the same either way.
//
// With Options.QuietCycles, that next cycle is also the one that returns
// Pending decisions.
func (s *Scheduler) WakeAll() {
	// Not a change of structure (structChanges stays): waking changes no
	// decision, so it must not let a workload hold quota again (hold.go).
	s.sleep.all = true
	s.structVer++
	s.explainNext = true
}

// wakeByFreedQuota wakes the sleeping queues of every tree whose root has more
// unused quota in some cell than at the end of the previous cycle, and whose
// unfit workloads might fit in what the root has now.
//
// The comparison is against the end of the previous cycle, with the waiting
// preemptors' reservations still charged: usage only grows during a cycle, so
// that is the least unused quota any of these queues was evaluated with, and a
// tree whose root has no more than that in every cell cannot fit anything new.
func (s *Scheduler) wakeByFreedQuota() {
	st := &s.sleep
	for _, root := range sortedKeys(st.byRoot) {
		set := st.byRoot[root]
		sl := anySleeper(set)
		if sl == nil {
			delete(st.byRoot, root)
			delete(st.free, root)
			delete(st.unused, root)
			continue
		}
		grew, ok := s.freedSinceSnapshot(sl, root)
		if !ok {
			s.wakeAll() // the tree changed under us: a structural change
			return
		}
		unusedGrew := s.unusedSinceSnapshot(sl, root)
		if !grew && !unusedGrew {
			continue
		}
		best := st.best
		for name, sl := range set {
			if (grew && s.mayChange(sl, best)) || (unusedGrew && sl.mayFit(st.unusedBest)) {
				if _, awake := st.awake[name]; !awake {
					st.freed[name] = sl
				}
				st.awake[name] = struct{}{} // not wake: nothing of its own changed
				delete(set, name)
			}
		}
	}
}

// snapshotTreeFree records, at the end of a cycle, the unused quota at the root
// of every tree that has sleeping queues (see wakeByFreedQuota), counting only
// the victims that were in flight when the cycle began: a queue evaluated
// before this cycle's preemptions did not count theirs.
func (s *Scheduler) snapshotTreeFree() {
	st := &s.sleep
	for root, set := range st.byRoot {
		sl := anySleeper(set)
		if sl == nil {
			delete(st.byRoot, root)
			delete(st.free, root)
			delete(st.unused, root)
			continue
		}
		free, ok := st.free[root]
		if !ok {
			free = resources.Amounts{}
			st.free[root] = free
		}
		if !s.treeFree(sl.q, root, free, st.victimsAtStart) {
			s.wakeAll()
		}
		unused, ok := st.unused[root]
		if !ok {
			unused = resources.Amounts{}
			st.unused[root] = unused
		}
		s.cache.TreeFree(sl.q, unused)
	}
}

// unusedSinceSnapshot tells whether the unused quota at the root, the
// victims in flight holding theirs, grew in some cell since the end of the
// last cycle, and leaves bestOf it in unusedBest. treeFree counts the
// victims as gone, since a preemption search does; but the queues'
// workloads were assigned flavors with the victims holding their quota, so
// a victim that leaves (finished, or evicted with more than its preemptor
// reserved) frees room they may now fit in, though treeFree does not grow
// (the property tests' seed 17: a victim that finished instead of being
// evicted).
func (s *Scheduler) unusedSinceSnapshot(sl *sleeper, root string) bool {
	st := &s.sleep
	prev, had := st.unused[root]
	if r, ok := s.cache.TreeFree(sl.q, st.unusedScratch); !ok || r != root {
		return false
	}
	grew := !had
	for fr, v := range st.unusedScratch {
		if old, ok := prev[fr]; !ok || v > old {
			grew = true
		}
	}
	st.unusedBest = bestInto(st.unusedBest[:0], st.unusedScratch)
	return grew
}

// treeFree is the bound the sleepers of a tree are woken by: the unused quota
// at its root plus what the victims of preemptions in flight in it hold, which
// a preemption search counts as free already (withVictimsGone). A new
// preemption thus wakes the queues whose searches it may help; its victims'
// eviction moves their quota from one term to the other.
//
// only, when not nil, limits the victims counted to those in it.
func (s *Scheduler) treeFree(q *quota.ClusterQueue, root string, free resources.Amounts, only map[types.NamespacedName]struct{}) bool {
	if r, ok := s.cache.TreeFree(q, free); !ok || r != root {
		return false
	}
	for v := range s.victimOf {
		if only != nil {
			if _, ok := only[v]; !ok {
				continue
			}
		}
		vr, ok := s.workloads[v]
		if !ok || !vr.holdsQuota() || s.rootOf(vr.admission.ClusterQueue) != root {
			continue
		}
		for fr, u := range vr.admission.Usage {
			free[fr] = resources.Add(free[fr], u)
		}
	}
	return true
}

// boundKey identifies the state a tree's bound was worked out in: the cache
// version and the scheduler's count of changes to the victims in flight.
type boundKey struct {
	root         string
	ver, victims uint64
	valid        bool
}

// rootBound fills the scratch amounts with the tree's bound (treeFree, every
// victim in flight counted) and returns bestOf it. Within a cycle a herd
// asks for it once per queue at one state, so the answer is kept for that
// state. ok is false when the tree has no root any more.
func (s *Scheduler) rootBound(q *quota.ClusterQueue, root string) (best []need, ok bool) {
	st := &s.sleep
	key := boundKey{root: root, ver: s.cache.Version(), victims: s.victimsVer, valid: true}
	if st.bound == key {
		return st.best, true
	}
	st.bound = boundKey{}
	if !s.treeFree(q, root, st.scratch, nil) {
		return nil, false
	}
	best = st.bestOf(st.scratch)
	st.bound = key
	return best, true
}

// rootOf is the name of the root Cohort of a queue's tree, "" without one.
func (s *Scheduler) rootOf(cq string) string {
	q, ok := s.cache.ClusterQueue(cq)
	if !ok || q.CohortName() == "" {
		return ""
	}
	co, ok := s.cache.Cohort(q.CohortName())
	if !ok {
		return ""
	}
	return rootName(co)
}

// freedSinceSnapshot fills the scratch amounts with the tree's bound now
// (treeFree, every victim in flight counted) and tells whether some cell grew
// since the end of the last cycle; ok is false when the tree has no root any
// more.
func (s *Scheduler) freedSinceSnapshot(sl *sleeper, root string) (grew, ok bool) {
	st := &s.sleep
	if _, ok := s.rootBound(sl.q, root); !ok {
		return false, false
	}
	prev, had := st.free[root]
	grew = !had
	for fr, v := range st.scratch {
		if old, ok := prev[fr]; !ok || v > old {
			grew = true
		}
	}
	return grew, true
}

func anySleeper(set map[string]*sleeper) *sleeper {
	for _, sl := range set {
		return sl
	}
	return nil
}

// bestOf lists, per resource, the most that any flavor has of it in free,
// in the state's reused buffer: the bound mayFit compares needs with, worked
// out once for all of a tree's sleepers.
func (st *sleepState) bestOf(free resources.Amounts) []need {
	st.best = bestInto(st.best[:0], free)
	return st.best
}

// bestInto appends to out, per resource, the most that any flavor has of it
// in free.
func bestInto(out []need, free resources.Amounts) []need {
	for fr, v := range free {
		i := slices.IndexFunc(out, func(n need) bool { return n.resource == fr.Resource })
		if i < 0 {
			out = append(out, need{resource: fr.Resource, amount: v})
		} else {
			out[i].amount = max(out[i].amount, v)
		}
	}
	return out
}

// mayChange tells whether the outcome of one of the queue's unfit workloads
// may have changed, given best, bestOf the root's bound: the root has room
// for their needs (mayFit), or a Cohort between the queue and the root does.
// The latter matters for hierarchical rules: a request that a subtree below
// the root could hold may be reclaimed by preemption whatever the priorities,
// and a queue may preempt for a request above its nominal quota only then
// (see preemption and flavorassigner). Without lendingLimits a Cohort's
// unused quota grows only when the root's does, so the same wake triggers
// cover it.
func (s *Scheduler) mayChange(sl *sleeper, best []need) bool {
	if sl.mayFit(best) {
		return true
	}
	var buf [8]*quota.Cohort
	anc := sl.q.Ancestors(buf[:])
	for i := 0; i+1 < len(anc); i++ {
		if sl.mayFit(s.cohortBound(anc[i])) {
			return true
		}
	}
	return false
}

// cohortBound is bestOf a Cohort's unused quota, counting the victims of
// preemptions in flight below it as gone, in a buffer of its own; it is kept
// for the state it was worked out in.
func (s *Scheduler) cohortBound(co *quota.Cohort) []need {
	st := &s.sleep
	key := boundKey{root: co.Name(), ver: s.cache.Version(), victims: s.victimsVer, valid: true}
	if b, ok := st.cohortBounds[co]; ok && b.key == key {
		return b.best
	}
	free := resources.Amounts{}
	co.EachUnused(func(fr resources.FlavorResource, v int64) { free[fr] = v })
	var buf [8]*quota.Cohort
	for v := range s.victimOf {
		vr, ok := s.workloads[v]
		if !ok || !vr.holdsQuota() {
			continue
		}
		vq, ok := s.cache.ClusterQueue(vr.admission.ClusterQueue)
		if !ok || !slices.Contains(vq.Ancestors(buf[:]), co) {
			continue
		}
		for fr, u := range vr.admission.Usage {
			free[fr] = resources.Add(free[fr], u)
		}
	}
	var best []need
	for fr, v := range free {
		i := slices.IndexFunc(best, func(n need) bool { return n.resource == fr.Resource })
		if i < 0 {
			best = append(best, need{resource: fr.Resource, amount: v})
		} else {
			best[i].amount = max(best[i].amount, v)
		}
	}
	if st.cohortBounds == nil {
		st.cohortBounds = map[*quota.Cohort]cohortBound{}
	}
	st.cohortBounds[co] = cohortBound{key: key, best: best}
	return best
}

// cohortBound is a Cohort's bound and the state it holds for.
type cohortBound struct {
	key  boundKey
	best []need
}

// mayFit tells whether some blocker of the queue's unfit workloads has room
// at the node best describes (bestOf its unused quota): one of them may then
// get a flavor it did not have.
func (sl *sleeper) mayFit(best []need) bool {
	for _, n := range sl.needs {
		i := slices.IndexFunc(best, func(b need) bool { return b.resource == n.resource })
		if i >= 0 && best[i].amount >= n.amount {
			return true
		}
	}
	return false
}

// runOutcome is what a queue's walk in a cycle learned for the sleep decision.
type runOutcome struct {
	// active is true when the queue must be walked again next cycle whatever
	// happens: it admitted or preempted, or an unfit workload's outcome depends
	// on other queues in ways the wake triggers do not see.
	active bool
	// holds is true when an unfit workload holds quota while it waits.
	holds bool
	// unfit counts workloads that did not fit; needs accumulates their
	// blockers (see sleeper.needs).
	unfit int
	needs []need
	// searched is true when an unfit workload's preemption search ran.
	searched bool
	// parked is true when an unfit workload that other queues may give
	// victims is parked: the queue wakes at the next release in its tree,
	// as a holder's does (park.go).
	parked bool
}

// noteUnfit records a workload that did not fit and got no flavor at all,
// with the resources that block it (flavorassigner.NoFlavor), for the queue's
// sleeper.
func (o *runOutcome) noteUnfit(blockers []need) {
	o.unfit++
	for _, n := range blockers {
		i := slices.IndexFunc(o.needs, func(c need) bool { return c.resource == n.resource })
		if i < 0 {
			o.needs = append(o.needs, n)
			continue
		}
		o.needs[i].amount = min(o.needs[i].amount, n.amount)
	}
}

// settleSleep decides, after q was walked, whether it sleeps.
func (s *Scheduler) settleSleep(q *quota.ClusterQueue, o *runOutcome) {
	name := q.Name()
	if o.active || s.hasInflight(name) {
		s.wake(name)
		return
	}
	if q.CohortName() == "" || o.unfit == 0 {
		return // only its own events can change anything
	}
	if !s.cache.BoundedByTreeFree(q) {
		s.wake(name)
		return
	}
	root, ok := s.cache.TreeRoot(q)
	if !ok || s.strategies != nil {
		s.wake(name)
		return
	}
	// A parked workload wakes its queue at a release as a holder does.
	sl := &sleeper{q: q, holds: o.holds || o.parked, needs: slices.Clone(o.needs), searched: o.searched}
	if sl.holds {
		sl.heldAt = s.holdEpoch(q)
		s.sleep.holders[name] = sl
	}
	set, ok := s.sleep.byRoot[root]
	if !ok {
		set = map[string]*sleeper{}
		s.sleep.byRoot[root] = set
	}
	set[name] = sl
}

// hasInflight tells whether a preemption in flight involves the queue.
func (s *Scheduler) hasInflight(cq string) bool {
	for _, in := range s.preempting {
		if in.cq == cq {
			return true
		}
	}
	return false
}

// queuesToWalk returns the names of the queues this cycle walks, sorted, and
// resets the awake set for the queues to fill in again.
func (s *Scheduler) queuesToWalk() []string {
	st := &s.sleep
	clear(st.victimsAtStart)
	clear(st.freed)
	for v := range s.victimOf {
		st.victimsAtStart[v] = struct{}{}
	}
	if s.opts.DisableIncrementalCycle || st.all {
		st.all = false
		clear(st.awake)
		clear(st.byRoot)
		clear(st.free)
		clear(st.holders)
		clear(st.arrivals)
		return s.cache.ClusterQueueNames()
	}
	for _, in := range s.preempting {
		s.wake(in.cq)
	}
	for cq := range s.ready {
		s.wake(cq)
	}
	for name, sl := range st.holders {
		if s.holdEpoch(sl.q) != sl.heldAt {
			st.awake[name] = struct{}{} // not wake: nothing of its own changed
		}
	}
	// Before the freed quota's wakes: a queue that arrivals wake is not one
	// that only freed quota woke (see lost.go).
	s.probeArrivals()
	s.wakeByFreedQuota()
	s.markProbedAwake()
	names := make([]string, 0, len(st.awake))
	for name := range st.awake {
		names = append(names, name)
		for _, set := range st.byRoot {
			delete(set, name)
		}
		delete(st.holders, name)
	}
	clear(st.awake)
	slices.Sort(names)
	return names
}
