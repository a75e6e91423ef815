package scheduler

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// Partial admission (Kueue's PartialAdmission gate, beta and on by default):
// a workload with a pod set whose minCount is below its count may be
// admitted with fewer pods when all of them cannot be. Kueue decides it when
// it nominates a head (getInitialAssignments in its scheduler): the full
// counts first; if they fit, or need preemption and the search finds
// victims, that is the assignment. Only otherwise does it search the reduced
// counts (flavorassigner.ReduceCounts), accepting counts that fit, or that
// need preemption for which the search finds victims; and if none do, the
// full assignment stands, with whatever it holds or says. The assignment
// then goes through the cycle as any other: admitted with its counts
// (status.admission's podSetAssignments[].count, which the Job integration
// turns into the Job's parallelism), or preempted for. Once its victims are
// gone the preemptor is nominated afresh, as Kueue's next cycle nominates it,
// and may get more pods than it preempted for, but only when the fresh counts
// borrow no more (readyAssignment); otherwise it is admitted with the counts
// it preempted for (deliberate difference 2). Taking every fresh count
// decided decisions run dec-43's s17-3 event 12 as Kueue, but under fair
// sharing (dec-45, TestPartialPreemptorsSettleUnderFairSharing) the fresh
// count borrowed, another queue reclaimed it, the preemptor reclaimed again
// for fewer pods, and so on without end, as Kueue itself did (it evicted the
// same workload over a hundred times in one event).
//
// The walks' shortcuts, which skip a workload whose full request cannot
// fit, are never taken for such a workload (see partialOK's callers), and
// its queue does not sleep while it waits, since room for fewer pods may
// come before room for all of them.

// partialOK tells whether r may be admitted with fewer pods than it asks for.
func (s *Scheduler) partialOK(r *record) bool {
	return !s.opts.NoPartialAdmission && r.partial
}

// nominate is the assignment Kueue nominates r with in q: assignAsIs, or,
// when that neither fits nor finds victims and r may be admitted partially,
// the reduced counts Kueue's search settles on.
func (s *Scheduler) nominate(q *quota.ClusterQueue, r *record) flavorassigner.Result {
	res := s.assignAsIs(q, r)
	if res.Fits || !s.partialOK(r) {
		return res
	}
	opts := s.assignOptions(q, r)
	opts.Quiet = s.quiet
	return s.reduce(q, r, res, opts)
}

// reduce is the partial admission search for r, whose full assignment full
// does not fit: full itself when its preemption finds victims or no reduced
// counts do better.
func (s *Scheduler) reduce(q *quota.ClusterQueue, r *record, full flavorassigner.Result, opts flavorassigner.Options) flavorassigner.Result {
	if s.findsVictims(q, r, full.Preemption) {
		return full
	}
	reduced, ok := flavorassigner.ReduceCounts(r.info.PodSets, func(counts []int32) (flavorassigner.Result, bool) {
		res := flavorassigner.Assign(s.cache, q, flavorassigner.WithCounts(r.info.PodSets, counts), opts)
		return res, res.Fits || s.findsVictims(q, r, res.Preemption)
	})
	if !ok {
		return full
	}
	return reduced
}

// findsVictims tells whether preemption would find victims for r's
// assignment a (nil when the assigner found no flavor to preempt in), as
// Kueue's nomination asks its preemptor for targets.
func (s *Scheduler) findsVictims(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) bool {
	if a == nil || !s.canPreempt(q) || s.parkedNow(q, r) {
		return false
	}
	targets, scope, _ := s.findVictims(q, r, a)
	return scope != scopeNone && len(targets) > 0
}
