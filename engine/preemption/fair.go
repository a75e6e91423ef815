package preemption

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// targetQueue is one queue's candidates, in preemption order, with a cursor.
type targetQueue struct {
	q     *quota.ClusterQueue
	cands []*Candidate
	next  int
}

// fairSharing follows Kueue's fair-sharing preemption: repeatedly take the
// queue with the highest share (compared at the almost-lowest-common-ancestor
// with the preemptor's queue) and offer its next candidate to the strategy;
// the preemptor's own queue yields its candidates under withinClusterQueue
// without a share test. A queue whose candidate the strategy refuses is done
// for that strategy and keeps its candidates for the next one. It stops as soon
// as the preemptor fits, then trims the set as classic preemption does.
//
// Candidates that a PreemptionConfig rule selected (ruled) and that the
// strategies did not take are offered last, in Kueue's candidate order, with
// no share test and whether or not their queue borrows: a rule overrides fair
// sharing for the workloads it names, but does not reorder the workloads fair
// sharing would take anyway.
func fairSharing(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, strategies []fairsharing.Strategy, ruled map[types.UID]*Candidate) []Target {
	all := candidates(c, q, p, src, frs, false)
	if len(all) == 0 && len(ruled) == 0 {
		return nil
	}
	byQueue := map[string]*targetQueue{}
	var queues []*targetQueue
	for _, cand := range all {
		tq, ok := byQueue[cand.ClusterQueue]
		if !ok {
			o, _ := c.ClusterQueue(cand.ClusterQueue)
			tq = &targetQueue{q: o}
			byQueue[cand.ClusterQueue] = tq
			queues = append(queues, tq)
		}
		tq.cands = append(tq.cands, cand)
	}
	s := &sim{cache: c}
	defer s.undo()
	var victims []*Candidate
	reasons := map[*Candidate]string{}
	for _, st := range strategies {
		active := make([]*targetQueue, 0, len(queues))
		for _, tq := range queues {
			if tq.next < len(tq.cands) {
				active = append(active, tq)
			}
		}
		for len(active) > 0 {
			i := highest(q, active)
			tq := active[i]
			if tq.next >= len(tq.cands) || (tq.q != q && !borrowingIn(tq.q, frs)) {
				active = append(active[:i], active[i+1:]...)
				continue
			}
			cand := tq.cands[tq.next]
			reason := decision.PreemptionInClusterQueue
			if tq.q != q {
				pNew := preemptorShare(c, q, tq.q, p)
				_, tNode := fairsharing.AlmostLCA(q, tq.q)
				tOld := fairsharing.Of(tNode)
				s.remove(cand)
				tNew := fairsharing.Of(tNode)
				if !st.Allow(pNew, tOld, tNew) {
					s.restore(cand)
					active = append(active[:i], active[i+1:]...)
					continue
				}
				reason = decision.PreemptionInCohortFairSharing
			} else {
				s.remove(cand)
			}
			tq.next++
			victims = append(victims, cand)
			reasons[cand] = reason
			if fits(c, q, p.Assignment.Usage, true) {
				return fairTargets(c, q, p, s, victims, reasons)
			}
		}
	}
	taken := make(map[types.UID]bool, len(victims))
	for _, v := range victims {
		taken[v.UID] = true
	}
	for _, cand := range merge(nil, ruled, q.Name()) {
		if taken[cand.UID] {
			continue
		}
		s.remove(cand)
		victims = append(victims, cand)
		reasons[cand] = classicReason(q, p, cand)
		if fits(c, q, p.Assignment.Usage, true) {
			return fairTargets(c, q, p, s, victims, reasons)
		}
	}
	return nil
}

func fairTargets(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, s *sim, victims []*Candidate, reasons map[*Candidate]string) []Target {
	victims = fillBack(c, q, p, s, victims, true)
	out := make([]Target, 0, len(victims))
	for _, v := range victims {
		out = append(out, Target{Candidate: v, Reason: reasons[v]})
	}
	return out
}

// preemptorShare is the share of the preemptor's side (its almost-LCA with the
// target) with the preemptor's workload admitted.
func preemptorShare(c *quota.Cache, q, target *quota.ClusterQueue, p *Preemptor) fairsharing.Share {
	key := phantomKey(p.Key)
	c.Charge(key, q.Name(), p.Assignment.Usage)
	pNode, _ := fairsharing.AlmostLCA(q, target)
	s := fairsharing.Of(pNode)
	c.Release(key)
	return s
}

// highest returns the index of the queue to take from next: the one with the
// highest share, measured at its almost-LCA with the preemptor's queue (the
// preemptor's own queue by its own share), ties broken by name.
func highest(q *quota.ClusterQueue, qs []*targetQueue) int {
	best, bestShare := -1, fairsharing.Share(-1)
	for i, tq := range qs {
		var sh fairsharing.Share
		if tq.q == q {
			sh = fairsharing.Of(q)
		} else {
			_, n := fairsharing.AlmostLCA(q, tq.q)
			sh = fairsharing.Of(n)
		}
		if best < 0 || sh > bestShare || (sh == bestShare && strings.Compare(tq.q.Name(), qs[best].q.Name()) < 0) {
			best, bestShare = i, sh
		}
	}
	return best
}
