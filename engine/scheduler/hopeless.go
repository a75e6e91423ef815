package scheduler

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// searchScope is what a preemption search for a workload depends on.
type searchScope int

const (
	// scopeNone: the search cannot find victims; it need not run.
	scopeNone searchScope = iota
	// scopeOwn: only the workload's own queue may give victims, so its
	// outcome changes only with that queue's admitted set and with the quota
	// its tree frees.
	scopeOwn
	// scopeTree: other queues may give victims; any admission in the tree
	// can change the outcome.
	scopeTree
	// scopeContended: the search found victims, but the room they would
	// leave is promised to preemptors of the cycle (fitsOnceEvicted): the
	// workload neither preempts nor holds now, and searches again next cycle.
	scopeContended
	// scopeOverlap: under WaitOnOverlappingTargets, the search's victims
	// include a workload already being evicted; the workload waits for that
	// eviction, neither preempting nor holding, and searches again next
	// cycle.
	scopeOverlap
)

// scopeOf tells, without running it, what classic preemption's search for r
// depends on, and for scopeOwn the least unused quota its tree's root must have
// of one resource before the search can succeed (see ownNeed).
//
// The common case on a loaded cluster: only r's own queue may give victims
// (preemption.OwnQueueOnly: r would borrow, its queue may not reclaim while
// borrowing and no subtree holding it could hold the request), and its queue
// has no admitted workload that policy allows r to preempt in the cells r is
// short of: the search is hopeless. The search itself walked the queues of the
// Cohort tree that borrow for reclaim candidates before it found that out; on
// a tree of 1,000 queues that was most of a simulation's time. The answer
// follows package preemption's rules by asking them; it answers scopeTree
// (search, and watch the whole tree) wherever other queues may give victims:
// under fair sharing, with a PreemptionConfig, and whenever OwnQueueOnly does
// not hold. Like the search, it must run with the victims of preemptions in
// flight released (withVictimsGone): they count as gone, and are no
// candidates; or, under WaitOnOverlappingTargets, with them holding their
// quota and listed (listEvicting), when they count as candidates.
func (s *Scheduler) scopeOf(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) (searchScope, *need) {
	return s.scope(q, r, a, true)
}

// scope is scopeOf; without withNeed it returns no need, and stops looking at
// the queue's candidates at the first one.
func (s *Scheduler) scope(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment, withNeed bool) (searchScope, *need) {
	if s.opts.DisableIncrementalCycle || s.strategies != nil || s.rulesOf(q) != nil {
		return scopeTree, nil
	}
	short := map[resources.FlavorResource]bool{}
	// over is the smallest short cell r would take above nominal quota.
	var over resources.FlavorResource
	above := false
	for fr, v := range a.Usage {
		if v > s.cache.Available(q, fr).Available {
			short[fr] = true
			if q.Usage(fr)+v > q.Nominal(fr) {
				if !above || fr.Flavor < over.Flavor || (fr.Flavor == over.Flavor && fr.Resource < over.Resource) {
					over = fr
				}
				above = true
			}
		}
	}
	if len(short) == 0 {
		// Nothing to make room for: Find returns nil, but only because the
		// victims of preemptions in flight count as gone. Once their room is
		// taken, r may be short again and find victims, though no quota was
		// freed: the queue must stay awake.
		return scopeTree, nil
	}
	if !above || !preemption.OwnQueueOnly(q, a.Usage, short) {
		return scopeTree, nil
	}
	pol := q.Preemption.WithinClusterQueue
	if pol == kueue.PreemptionPolicyNever || pol == "" {
		return scopeNone, &need{resource: over.Resource, amount: a.Usage[over]}
	}
	found := false
	var freeable int64
	for _, cand := range s.byPriority(q.Name()) {
		if cand.priority > r.priority {
			break // the rest rank higher: no policy takes them
		}
		// The cheapest tests first: every candidate of a deep queue's
		// lower priorities is looked at for each of its waiting workloads.
		if !preemption.WithinQueueAllowed(pol, cand.priority, cand.info.Created, r.priority, r.info.Created) {
			continue
		}
		if s.inCycle && cand.admittedCycle == s.cycle {
			continue // not a candidate in the cycle that admitted it
		}
		if !usesAnyOf(cand.admission.Usage, short) {
			continue
		}
		if _, busy := s.victimOf[cand.info.Key]; busy && !s.listEvicting {
			continue // already leaving for another preemptor
		}
		found = true
		if !withNeed {
			return scopeOwn, nil
		}
		for fr, v := range cand.admission.Usage {
			if fr.Resource == over.Resource {
				freeable = resources.Add(freeable, v)
			}
		}
	}
	if !found {
		if !withNeed {
			return scopeNone, nil
		}
		return scopeNone, &need{resource: over.Resource, amount: a.Usage[over]}
	}
	return scopeOwn, &need{resource: over.Resource, amount: max(0, a.Usage[over]-freeable)}
}

// The need scopeOf returns with a workload that would have to borrow is the
// one condition its queue's sleeper keeps for it. Short of the queue's own
// events, its outcome can change in two ways: the short cell above nominal
// quota (over) stops being short, after which it stays within nominal and may
// reclaim from other queues (so its other resources do not matter); or its own
// queue's candidates, freed, make room (it fits after all, likewise). Either
// needs the unused quota at the root, victims in flight counted (treeFree), to
// reach a.Usage[over] less what those candidates hold of that resource.

// hopeless is scopeOf's answer that the search need not run.
func (s *Scheduler) hopeless(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) bool {
	scope, _ := s.scope(q, r, a, false)
	return scope == scopeNone
}

func usesAnyOf(usage resources.Amounts, frs map[resources.FlavorResource]bool) bool {
	for fr := range frs {
		if usage[fr] > 0 {
			return true
		}
	}
	return false
}
