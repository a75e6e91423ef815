package scheduler

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// oracle is the flavor assigner's preemption oracle for one pending workload:
// package preemption's, with the waiting preemptors' reservations charged and
// the victims of preemptions in flight still holding their quota and listed
// first among the candidates, as Kueue's nomination sees them. A flavor where
// it finds no victims is passed over for the next one, as in Kueue; one whose
// only victims are already leaving is not, and the real search (tryPreempt)
// then decides in that flavor: with the victims in flight gone (Kueue's
// recomputation upon overlapping targets, which keeps to the nominated
// flavor) or, with the RecomputeAssignmentUponPreemptionTargetsOverlap gate
// off, by waiting for them.
type oracle struct {
	s *Scheduler
	r *record
}

// SimulatePreemption implements flavorassigner.Oracle.
func (o *oracle) SimulatePreemption(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (flavorassigner.Possibility, int) {
	s := o.s
	s.oracleRuns++
	var p flavorassigner.Possibility
	var h int
	s.withEvictingListed(func() {
		// The real search's shortcut (findVictims): what scopeOf finds
		// hopeless finds nothing. Nearly all of the oracle's questions on a
		// loaded tree are of that kind: a workload that would borrow, in a
		// queue that may not reclaim while borrowing, with nothing of its own
		// that it may preempt.
		if s.hopeless(q, o.r, &flavorassigner.Assignment{Usage: resources.Amounts{fr: quantity}}) {
			p = flavorassigner.NoCandidates
			h, _ = quota.BorrowHeight(q, fr, quantity)
			return
		}
		p, h = o.search(q, fr, quantity)
	})
	return p, h
}

// search asks package preemption's oracle, in the state the caller set up.
func (o *oracle) search(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (flavorassigner.Possibility, int) {
	s := o.s
	or := preemption.Oracle{Cache: s.cache, Source: source{s}, Preemptor: s.preemptorOf(q, o.r, nil),
		Options: preemption.Options{FairSharing: s.strategies, Rules: s.rulesOf(q)}}
	return or.SimulatePreemption(q, fr, quantity)
}

// preemptorOf is r as a preemptor in q for assignment a.
func (s *Scheduler) preemptorOf(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) preemption.Preemptor {
	return preemption.Preemptor{Key: r.info.Key, UID: r.info.UID, Priority: r.priority, BasePriority: r.basePriority,
		Created: r.info.Created, Assignment: a,
		Labels: r.info.Labels, LocalQueue: r.lq}
}

// kindOptions are the flavor assigner's options that depend on q only, for
// the shortcuts that ask the assigner's rules without assigning.
func (s *Scheduler) kindOptions(q *quota.ClusterQueue) flavorassigner.Options {
	return flavorassigner.Options{FairSharing: s.strategies != nil, RulesMayPreempt: s.rulesOf(q).MaySelect(),
		IgnoreUndeclared: s.opts.Resources != nil && s.opts.Resources.IgnoreUndeclared}
}

// assignOptions are the flavor assigner's options for r in q. A queue that
// may not preempt at all gets no oracle: the assigner then
// judges every flavor that needs preemption to have no victims, which is
// what the search would answer, and its result depends on quotas and usage
// alone.
func (s *Scheduler) assignOptions(q *quota.ClusterQueue, r *record) flavorassigner.Options {
	opts := s.kindOptions(q)
	if s.canPreempt(q) {
		// The record carries its oracle, so that each assignment does not
		// allocate one.
		r.orc = oracle{s: s, r: r}
		opts.Oracle = &r.orc
	}
	return opts
}
