package preemption

import (
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// fairSharing follows Kueue's fair-sharing preemption. The candidates are the
// preemptor's own queue's (withinClusterQueue) and those of every queue of the
// tree that borrows in a cell the preemptor is short of (reclaimWithinCohort),
// in candidate order. With the preemptor's workload counted in its queue's
// usage, shares are compared from the root down to pick the queue to take
// from next (see fairOrder), and:
//
//   - the preemptor's own queue yields its next candidate with no share test;
//   - while the preemptor's queue stays within its nominal quota in the cells
//     that need preemption, another queue yields its next candidate with no
//     share test either (Kueue's FairSharingPreemptWithinNominal, on by
//     default);
//   - otherwise the first strategy judges the queue's candidates in order;
//     the first it allows is taken and the next queue is picked afresh; those
//     it refuses are kept for the second strategy.
//
// The second strategy (LessThanInitialShare when configured) then looks at
// the refused candidates only, taking at most one per queue. The search stops
// as soon as the preemptor fits, then puts back every victim not needed, as
// classic preemption does.
//
// Candidates that a PreemptionConfig rule selected (ruled) and that the
// strategies did not take are offered last, in candidate order, with no share
// test and whether or not their queue borrows: a rule overrides fair sharing
// for the workloads it names, but does not reorder the workloads fair sharing
// would take anyway.
func fairSharing(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, strategies []fairsharing.Strategy, ruled map[types.UID]*Candidate) []Target {
	all := fairCandidates(c, q, p, src, frs)
	if len(all) == 0 && len(ruled) == 0 {
		return nil
	}
	s := &sim{cache: c}
	defer s.undo()
	f := &fairSearch{c: c, q: q, p: p, s: s, frs: frs, reasons: map[*Candidate]string{},
		tests: map[*Candidate]int{}, strategy: map[*Candidate]fairsharing.Strategy{}}
	// Shares count the preemptor's workload as admitted.
	key := phantomKey(p.Key)
	c.Charge(key, q.Name(), p.Assignment.Usage)
	fits, retry := f.firstStrategy(all, frs, strategies[0])
	if !fits && len(strategies) > 1 {
		fits = f.secondStrategy(retry)
	}
	c.Release(key)
	if !fits {
		fits = f.ruledLast(ruled)
	}
	if !fits {
		return nil
	}
	victims := f.fillBack()
	out := make([]Target, 0, len(victims))
	for _, v := range victims {
		out = append(out, Target{Candidate: v, Reason: f.reasons[v]})
	}
	return out
}

// fillBack puts back every victim but the last, last removed first, keeping
// out those the preemptor still needs gone, as classic preemption does, with
// one more condition: putting one back must leave every other victim taken
// from another queue as justified as when it was taken (its strategy, or the
// preemptor's queue staying within its nominal quota). Putting back a
// workload of the preemptor's own queue raises that queue's share; Kueue
// does not check this, and two queues can then take from each other forever
// (kubernetes-sigs/kueue#14543). Quokka keeps such a victim out instead.
func (f *fairSearch) fillBack() []*Candidate {
	victims := f.victims
	for i := len(victims) - 2; i >= 0; i-- {
		f.s.restore(victims[i])
		rest := append(append([]*Candidate(nil), victims[:i]...), victims[i+1:]...)
		if fits(f.c, f.q, f.p.Assignment.Usage, true) && f.justified(rest) {
			victims = rest
			continue
		}
		f.s.remove(victims[i])
	}
	return victims
}

// justified tells whether every victim taken from another queue still passes
// the test it was taken by, with the victims gone and the preemptor's
// workload admitted.
func (f *fairSearch) justified(victims []*Candidate) bool {
	key := phantomKey(f.p.Key)
	f.c.Charge(key, f.q.Name(), f.p.Assignment.Usage)
	defer f.c.Release(key)
	for _, v := range victims {
		switch f.tests[v] {
		case testWithinNominal:
			for fr := range f.frs {
				if f.q.Usage(fr) > f.q.Nominal(fr) {
					return false
				}
			}
		case testStrategy:
			t, ok := f.c.ClusterQueue(v.ClusterQueue)
			if !ok {
				return false
			}
			pNew, tNew := shares(f.q, t)
			f.c.Charge(v.Key, v.ClusterQueue, v.Usage)
			_, tOld := shares(f.q, t)
			f.c.Release(v.Key)
			if !f.strategy[v].Allow(pNew, tOld, tNew) {
				return false
			}
		}
	}
	return true
}

// How a victim of another queue was justified, for fillBack.
const (
	testNone = iota
	testWithinNominal
	testStrategy
)

// fairSearch is one fair-sharing search in progress: the victims taken so
// far, removed from the cache through s.
type fairSearch struct {
	c       *quota.Cache
	q       *quota.ClusterQueue
	p       *Preemptor
	s       *sim
	frs     map[resources.FlavorResource]bool
	victims []*Candidate
	reasons map[*Candidate]string
	// tests and strategy record how each victim of another queue was
	// justified (see fillBack).
	tests    map[*Candidate]int
	strategy map[*Candidate]fairsharing.Strategy
}

// take removes a victim and tells whether the preemptor fits now. While the
// search runs, the preemptor's workload is charged to its queue (phantom), so
// it is released for the test.
func (f *fairSearch) take(cand *Candidate, reason string, charged bool) bool {
	f.s.remove(cand)
	f.victims = append(f.victims, cand)
	f.reasons[cand] = reason
	if !charged {
		return fits(f.c, f.q, f.p.Assignment.Usage, true)
	}
	key := phantomKey(f.p.Key)
	f.c.Release(key)
	ok := fits(f.c, f.q, f.p.Assignment.Usage, true)
	f.c.Charge(key, f.q.Name(), f.p.Assignment.Usage)
	return ok
}

// firstStrategy is Kueue's runFirstFsStrategy; it returns whether the
// preemptor fits and the candidates the strategy refused.
func (f *fairSearch) firstStrategy(all []*Candidate, frs map[resources.FlavorResource]bool, st fairsharing.Strategy) (bool, []*Candidate) {
	var retry []*Candidate
	withinNominal := true
	for fr := range frs {
		if f.q.Usage(fr) > f.q.Nominal(fr) {
			withinNominal = false
		}
	}
	ord := newFairOrder(f.q, all)
	for t := ord.next(); t != nil; t = ord.next() {
		if t == f.q {
			if f.take(ord.pop(t), decision.PreemptionInClusterQueue, true) {
				return true, nil
			}
			continue
		}
		if withinNominal {
			cand := ord.pop(t)
			f.tests[cand] = testWithinNominal
			if f.take(cand, decision.PreemptionInCohortReclamation, true) {
				return true, nil
			}
			continue
		}
		pNew, tOld := shares(f.q, t)
		if pNew.IsInfinite() && !tOld.IsInfinite() {
			// No candidate of t can pass either strategy: keep them all for
			// the second one, which measures again.
			for ord.has(t) {
				retry = append(retry, ord.pop(t))
			}
			continue
		}
		for ord.has(t) {
			cand := ord.pop(t)
			if !st.Allow(pNew, tOld, f.shareAfterRemoval(t, cand)) {
				retry = append(retry, cand)
				continue
			}
			f.tests[cand], f.strategy[cand] = testStrategy, st
			if f.take(cand, decision.PreemptionInCohortFairSharing, true) {
				return true, nil
			}
			break // shares moved: pick the next queue afresh
		}
	}
	return false, retry
}

// secondStrategy is Kueue's runSecondFsStrategy (rule S2-b): among the
// refused candidates, per queue picked by share, the first is taken when the
// preemptor's share with its workload is below the queue's share before; then
// the queue is dropped either way.
func (f *fairSearch) secondStrategy(retry []*Candidate) bool {
	ord := newFairOrder(f.q, retry)
	for t := ord.next(); t != nil; t = ord.next() {
		pNew, tOld := shares(f.q, t)
		cand := ord.pop(t)
		if fairsharing.LessThanInitialShare.Allow(pNew, tOld, 0) {
			f.tests[cand], f.strategy[cand] = testStrategy, fairsharing.LessThanInitialShare
			if f.take(cand, decision.PreemptionInCohortFairSharing, true) {
				return true
			}
		}
		ord.drop(t)
	}
	return false
}

// ruledLast offers the rule-selected candidates the strategies did not take.
func (f *fairSearch) ruledLast(ruled map[types.UID]*Candidate) bool {
	taken := make(map[types.UID]bool, len(f.victims))
	for _, v := range f.victims {
		taken[v.UID] = true
	}
	for _, cand := range merge(nil, ruled, f.q.Name()) {
		if taken[cand.UID] {
			continue
		}
		if f.take(cand, classicReason(f.q, f.p, cand), false) {
			return true
		}
	}
	return false
}

// shareAfterRemoval is the share of t's almost-lowest-common-ancestor with
// the preemptor's queue once cand is gone.
func (f *fairSearch) shareAfterRemoval(t *quota.ClusterQueue, cand *Candidate) fairsharing.Share {
	f.c.Release(cand.Key)
	_, tNode := fairsharing.AlmostLCA(f.q, t)
	sh := fairsharing.Of(tNode)
	f.c.Charge(cand.Key, cand.ClusterQueue, cand.Usage)
	return sh
}

// shares are the shares of the preemptor's and the target's
// almost-lowest-common-ancestors, as the cache stands.
func shares(q, t *quota.ClusterQueue) (preemptor, target fairsharing.Share) {
	pNode, tNode := fairsharing.AlmostLCA(q, t)
	return fairsharing.Of(pNode), fairsharing.Of(tNode)
}

// fairCandidates lists, in candidate order, the admitted workloads that q's
// policies allow p to preempt and that use a cell p is short of: its own
// queue's under withinClusterQueue, and under reclaimWithinCohort those of
// every queue of the tree that borrows in one of those cells (Kueue's
// findCandidates).
func fairCandidates(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool) []*Candidate {
	var out []*Candidate
	pol := q.Preemption
	if pol.WithinClusterQueue != kueue.PreemptionPolicyNever && pol.WithinClusterQueue != "" {
		for _, cand := range src.Admitted(q.Name()) {
			if usesAny(cand.Usage, frs) && withinQueueAllowed(pol.WithinClusterQueue, cand, p) {
				out = append(out, cand)
			}
		}
	}
	if pol.ReclaimWithinCohort != kueue.PreemptionPolicyNever && pol.ReclaimWithinCohort != "" {
		c.EachBorrowerInTree(q, frs, func(o *quota.ClusterQueue) {
			if o == q {
				return
			}
			for _, cand := range src.Admitted(o.Name()) {
				if !usesAny(cand.Usage, frs) {
					continue
				}
				if pol.ReclaimWithinCohort == kueue.PreemptionPolicyLowerPriority && cand.Priority >= p.Priority {
					continue
				}
				out = append(out, cand)
			}
		})
	}
	sortCandidates(out, q.Name())
	return out
}
