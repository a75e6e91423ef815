package scheduler

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// oracle is the flavor assigner's preemption oracle for one pending workload:
// package preemption's, run as tryPreempt runs the real search, with the
// victims of preemptions in flight counted as gone and the waiting
// preemptors' reservations charged. A flavor where it finds no victims is
// passed over for the next one, as in Kueue, unless the evictions in flight
// already make the room.
type oracle struct {
	s *Scheduler
	r *record
	// shared tells that the answer depends on r's priority only, not on
	// who r is (see shareableShape): workloads of one priority then share
	// the answers in s.oracleMemo.
	shared bool
}

// oracleMemo remembers the oracle's answers, per ClusterQueue, at one state
// of its Cohort tree. A backlog of thousands of pending workloads asks the
// same few questions (this many GPUs of this flavor, at this priority) again
// and again, and each answer is a preemption search over the tree's admitted
// workloads: without the memo a deep backlog costs pending × admitted per
// cycle. A queue's answers hold until the cycle ends, the structure changes
// or anything changes in its tree (treeChanges: admissions, releases,
// preemptions, holds and reservations there) but its own holds, which its
// workloads are assigned without (withoutOwnHolds).
type oracleMemo map[*quota.ClusterQueue]*queueAnswers

type queueAnswers struct {
	cycle, structVer, changes uint64
	answers                   map[oracleQuestion]oracleAnswer
}

type oracleQuestion struct {
	fr       resources.FlavorResource
	quantity int64
	priority int32
}

type oracleAnswer struct {
	p flavorassigner.Possibility
	h int
}

// oracleAnswers returns the memo's answers for q at the current state.
func (s *Scheduler) oracleAnswers(q *quota.ClusterQueue) map[oracleQuestion]oracleAnswer {
	if s.oracleMemo == nil {
		s.oracleMemo = oracleMemo{}
	}
	changes := s.othersChanges(q)
	t, ok := s.oracleMemo[q]
	if !ok {
		t = &queueAnswers{answers: map[oracleQuestion]oracleAnswer{}}
		s.oracleMemo[q] = t
	} else if t.cycle == s.cycle && t.structVer == s.structVer && t.changes == changes {
		return t.answers
	}
	clear(t.answers)
	t.cycle, t.structVer, t.changes = s.cycle, s.structVer, changes
	return t.answers
}

// SimulatePreemption implements flavorassigner.Oracle.
func (o *oracle) SimulatePreemption(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (flavorassigner.Possibility, int) {
	if !o.shared {
		return o.simulate(q, fr, quantity)
	}
	answers := o.s.oracleAnswers(q)
	k := oracleQuestion{fr: fr, quantity: quantity, priority: o.r.priority}
	if a, ok := answers[k]; ok {
		return a.p, a.h
	}
	p, h := o.simulate(q, fr, quantity)
	answers[k] = oracleAnswer{p: p, h: h}
	return p, h
}

// simulate runs the search for the oracle.
func (o *oracle) simulate(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (flavorassigner.Possibility, int) {
	s := o.s
	var p flavorassigner.Possibility
	var h int
	s.withVictimsGone(func() {
		if len(s.victimOf) > 0 && s.cache.Available(q, fr).Available >= quantity {
			// Evictions in flight make the room: Kueue, which still counts
			// their victims as candidates, would find them and defer the
			// workload until they are gone (DeferredFit) rather than look
			// for room in the next flavor.
			p = flavorassigner.Reclaim
			h, _ = quota.BorrowHeight(q, fr, quantity)
			return
		}
		or := preemption.Oracle{Cache: s.cache, Source: source{s}, Preemptor: s.preemptorOf(q, o.r, nil),
			Options: preemption.Options{FairSharing: s.strategies, Rules: s.rulesOf(q)}}
		p, h = or.SimulatePreemption(q, fr, quantity)
	})
	return p, h
}

// preemptorOf is r as a preemptor in q for assignment a.
func (s *Scheduler) preemptorOf(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) preemption.Preemptor {
	return preemption.Preemptor{Key: r.info.Key, UID: r.info.UID, Priority: r.priority, Created: r.info.Created, Assignment: a,
		Labels: r.info.Labels, LocalQueue: r.lq}
}

// kindOptions are the flavor assigner's options that depend on q only, for
// the shortcuts that ask the assigner's rules without assigning.
func (s *Scheduler) kindOptions(q *quota.ClusterQueue) flavorassigner.Options {
	return flavorassigner.Options{FairSharing: s.strategies != nil, RulesMayPreempt: s.rulesOf(q).MaySelect()}
}

// assignOptions are the flavor assigner's options for r in q. A queue that
// may not preempt at all gets no oracle: the assigner then
// judges every flavor that needs preemption to have no victims, which is
// what the search would answer, and its result depends on quotas and usage
// alone.
func (s *Scheduler) assignOptions(q *quota.ClusterQueue, r *record) flavorassigner.Options {
	opts := s.kindOptions(q)
	if s.canPreempt(q) {
		// The memo is off in the reference cycle, which the incremental one
		// is checked against.
		opts.Oracle = &oracle{s: s, r: r, shared: !s.opts.DisableIncrementalCycle && s.preemptorIsPriority(q)}
	}
	return opts
}
