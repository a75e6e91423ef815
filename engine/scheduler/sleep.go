package scheduler

import (
	"slices"
	"strings"

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
//   - its own pending list changes (a workload is added, updated or leaves);
//   - its own admitted set changes (an admission, a finish, an eviction): that
//     frees its quota or gives its workloads new victims within the queue;
//   - anything structural changes: a flavor, ClusterQueue, Cohort, LocalQueue,
//     Namespace, priority class or PreemptionConfig (wakeAll);
//   - it takes part in a preemption in flight, as preemptor or victim;
//   - quota is freed elsewhere in its Cohort tree, and the root's unused quota
//     has become at least the smallest need that all of its unfit workloads
//     share (see mayFit). Available never exceeds the root's unused quota
//     (quota.BoundedByTreeFree), so below that no workload of the queue can fit.
//
// A queue does not sleep when its outcome depends on the rest of its tree in a
// way these triggers do not see: a workload whose preemption search ran and
// found no victims (another queue may start to borrow), fair sharing's
// searches, or a lendingLimit on its chain (unused guaranteed quota is not seen
// at the root).
//
// A sleeping queue's workloads get no Pending decision: they keep the reason
// and message of their last evaluation, as Kueue's inadmissible workloads do.
// WakeAll makes the next cycle evaluate, and so explain, everything again.
// Admissions, preemptions and evictions are the same as when every queue is
// walked every cycle (Options.DisableIncrementalCycle), which the tests check.

// sleeper is a sleeping queue that freed quota elsewhere in its tree may wake.
type sleeper struct {
	q *quota.ClusterQueue
	// needs lists, for each resource that every unfit workload of the queue
	// requests, the smallest such request (the largest pod set's, per
	// workload); empty when they have none in common, and then any freed quota
	// wakes the queue.
	needs []need
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
	// wake, and free the root's unused quota when last looked at.
	byRoot map[string]map[string]*sleeper
	free   map[string]resources.Amounts
	// scratch is reused for TreeFree, and best for bestOf; bound tells
	// which tree and state they hold rootBound's answer for.
	scratch resources.Amounts
	best    []need
	bound   boundKey
	// victimsAtStart are the victims in flight when the cycle began.
	victimsAtStart map[types.NamespacedName]struct{}
	// freed holds the queues this cycle walks only because freed quota woke
	// them, with their sleepers (see lost.go).
	freed map[string]*sleeper
	// gen counts, per queue, the calls to wake: every change of its pending
	// or admitted workloads makes one.
	gen map[string]uint64
}

func newSleepState() sleepState {
	return sleepState{all: true, awake: map[string]struct{}{}, byRoot: map[string]map[string]*sleeper{},
		free: map[string]resources.Amounts{}, scratch: resources.Amounts{}, victimsAtStart: map[types.NamespacedName]struct{}{},
		freed: map[string]*sleeper{}, gen: map[string]uint64{}}
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
}

// WakeAll makes the next cycle evaluate every pending workload, so that its
// Pending decisions explain every one of them with the state of that moment.
// Decisions other than Pending are the same either way.
//
// With Options.QuietCycles, that next cycle is also the one that returns
// Pending decisions.
func (s *Scheduler) WakeAll() {
	s.wakeAll()
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
			continue
		}
		grew, ok := s.freedSinceSnapshot(sl, root)
		if !ok {
			s.wakeAll() // the tree changed under us: a structural change
			return
		}
		if !grew {
			continue
		}
		best := st.best
		for name, sl := range set {
			if sl.mayFit(best) {
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
	}
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
	st.best = st.best[:0]
	for fr, v := range free {
		i := slices.IndexFunc(st.best, func(n need) bool { return n.resource == fr.Resource })
		if i < 0 {
			st.best = append(st.best, need{resource: fr.Resource, amount: v})
		} else {
			st.best[i].amount = max(st.best[i].amount, v)
		}
	}
	return st.best
}

// mayFit is false when some resource that all of the queue's unfit workloads
// need is short of their smallest need in every flavor at the root; best is
// bestOf the root's unused quota.
func (sl *sleeper) mayFit(best []need) bool {
	for _, n := range sl.needs {
		i := slices.IndexFunc(best, func(b need) bool { return b.resource == n.resource })
		if i < 0 || best[i].amount < n.amount {
			return false
		}
	}
	return true
}

// runOutcome is what a queue's walk in a cycle learned for the sleep decision.
type runOutcome struct {
	// active is true when the queue must be walked again next cycle whatever
	// happens: it admitted or preempted, or an unfit workload's outcome depends
	// on other queues in ways the wake triggers do not see.
	active bool
	// unfit counts workloads that did not fit; needs accumulates their
	// requests (see sleeper.needs).
	unfit int
	needs []needCount
}

type needCount struct {
	need
	count int
}

// noteUnfit records a workload that did not fit, for the queue's sleeper.
// only, for a workload whose preemption search depends on one resource of the
// tree (see ownNeed), replaces its needs.
func (o *runOutcome) noteUnfit(r *record, only *need) {
	o.unfit++
	var buf [8]need
	own := buf[:0]
	if only != nil {
		own = append(own, *only)
	}
	for _, ps := range r.info.PodSets {
		if only != nil {
			break
		}
		for res, v := range ps.Total {
			if v <= 0 {
				continue
			}
			i := slices.IndexFunc(own, func(n need) bool { return n.resource == res })
			if i < 0 {
				own = append(own, need{resource: res, amount: v})
			} else {
				own[i].amount = max(own[i].amount, v)
			}
		}
	}
	for _, n := range own {
		i := slices.IndexFunc(o.needs, func(c needCount) bool { return c.resource == n.resource })
		if i < 0 {
			o.needs = append(o.needs, needCount{need: n, count: 1})
			continue
		}
		o.needs[i].count++
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
	sl := &sleeper{q: q}
	for _, n := range o.needs {
		if n.count == o.unfit {
			sl.needs = append(sl.needs, n.need)
		}
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
		return s.cache.ClusterQueueNames()
	}
	for _, in := range s.preempting {
		s.wake(in.cq)
	}
	for cq := range s.ready {
		s.wake(cq)
	}
	s.wakeByFreedQuota()
	names := make([]string, 0, len(st.awake))
	for name := range st.awake {
		names = append(names, name)
		for _, set := range st.byRoot {
			delete(set, name)
		}
	}
	clear(st.awake)
	slices.Sort(names)
	return names
}

// cycleWaker hands scheduleTree the queues of a tree to walk, in name order:
// the awake ones, and sleeping ones that a preemption earlier in the walk may
// concern.
//
// Walking every queue, a search counts the victims of the preemptions made
// before it in the cycle as gone (withVictimsGone): a queue walked after a
// preemption sees more room than the root's unused quota shows. A sleeping
// queue after it in name order must then be walked at its place if that room
// may matter to it (its bound grew and mayFit), or the cycle would decide
// differently from one that walks everything (wakeInCycle).
type cycleWaker struct {
	s      *Scheduler
	awake  []*quota.ClusterQueue
	woken  []*quota.ClusterQueue
	root   string
	hasSet bool
}

func (s *Scheduler) newCycleWaker(t *tree) *cycleWaker {
	w := &cycleWaker{s: s, awake: t.queues}
	if root, ok := strings.CutPrefix(t.key, "cohort/"); ok {
		_, w.hasSet = s.sleep.byRoot[root]
		w.root = root
	}
	return w
}

// next returns the queue to walk next, or nil when none is left.
func (w *cycleWaker) next() *quota.ClusterQueue {
	var q *quota.ClusterQueue
	switch {
	case len(w.awake) == 0 && len(w.woken) == 0:
		return nil
	case len(w.woken) == 0 || (len(w.awake) > 0 && w.awake[0].Name() < w.woken[0].Name()):
		q, w.awake = w.awake[0], w.awake[1:]
	default:
		q, w.woken = w.woken[0], w.woken[1:]
		if l, ok := w.s.lists[q.Name()]; ok {
			l.prepare()
		}
	}
	return q
}

// preempted wakes, after a preemption in the queue named after, the sleeping
// queues of the tree that come later in name order and whose bound the
// victims may have lifted enough.
func (w *cycleWaker) preempted(after string) {
	if !w.hasSet {
		return
	}
	s, st := w.s, &w.s.sleep
	set := st.byRoot[w.root]
	sl := anySleeper(set)
	if sl == nil {
		return
	}
	if grew, ok := s.freedSinceSnapshot(sl, w.root); !ok || !grew {
		return
	}
	best := st.best
	for name, sl := range set {
		if name <= after || !sl.mayFit(best) {
			continue
		}
		if l, ok := s.lists[name]; !ok || len(l.sorted) == 0 {
			continue
		}
		delete(set, name)
		i, _ := slices.BinarySearchFunc(w.woken, name, func(q *quota.ClusterQueue, n string) int { return strings.Compare(q.Name(), n) })
		w.woken = slices.Insert(w.woken, i, sl.q)
	}
}
