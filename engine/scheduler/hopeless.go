package scheduler

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// hopeless reports that classic preemption cannot find victims for r, without
// running the search, in the one case that a loaded cluster meets all the
// time: r would have to borrow, so that only its own queue may give victims
// (withinClusterQueue), and its queue has no admitted workload that policy
// allows r to preempt in the cells r is short of.
//
// The search itself walks every queue of the Cohort tree for reclaim
// candidates before it looks at that condition; on a tree of 1,000 queues
// that was most of a simulation's time, and 96% of those searches ended
// empty for exactly this reason. The answer is the same as preemption.Find's
// by construction (see classic in engine/preemption): the check applies only
// where Find would take that path, and answers false (search) otherwise:
// under fair sharing, with a PreemptionConfig, and with borrowWithinCohort.
// Like the search, it must run with the victims of preemptions in flight
// released (withVictimsGone): they count as gone, and are no candidates.
func (s *Scheduler) hopeless(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) bool {
	if s.opts.DisableIncrementalCycle || s.strategies != nil || s.rulesOf(q) != nil {
		return false
	}
	if bwc := q.Preemption.BorrowWithinCohort; bwc != nil && bwc.Policy == kueue.BorrowWithinCohortPolicyLowerPriority {
		return false
	}
	var buf [8]resources.FlavorResource
	short := buf[:0]
	withinNominal := true
	for fr, v := range a.Usage {
		if v > s.cache.Available(q, fr).Available {
			short = append(short, fr)
			if q.Usage(fr)+v > q.Nominal(fr) {
				withinNominal = false
			}
		}
	}
	if len(short) == 0 {
		return true // nothing to make room for: Find returns nil
	}
	if withinNominal {
		return false // it may reclaim from borrowing queues: search
	}
	pol := q.Preemption.WithinClusterQueue
	if pol == kueue.PreemptionPolicyNever {
		return true
	}
	for _, cand := range s.admittedByCQ[q.Name()] {
		if s.inCycle && cand.admittedCycle == s.cycle {
			continue // not a candidate in the cycle that admitted it
		}
		if _, busy := s.victimOf[cand.info.Key]; busy {
			continue // already leaving for another preemptor
		}
		if !usesAnyOf(cand.admission.Usage, short) {
			continue
		}
		switch {
		case cand.priority < r.priority:
			return false
		case pol == kueue.PreemptionPolicyLowerOrNewerEqualPriority && cand.priority == r.priority && cand.info.Created.After(r.info.Created):
			return false
		}
	}
	return true
}

func usesAnyOf(usage resources.Amounts, frs []resources.FlavorResource) bool {
	for _, fr := range frs {
		if usage[fr] > 0 {
			return true
		}
	}
	return false
}
