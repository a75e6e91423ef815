package preemption

import (
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// fairOrder picks the queue fair-sharing preemption takes from next (Kueue's
// TargetClusterQueueOrdering): from the root of the preemptor's tree down, at
// each Cohort the child with the highest share, a Cohort winning a tie
// against a ClusterQueue; queues that do not borrow (but the preemptor's own)
// or have no candidate left are pruned, and so are Cohorts that do not borrow
// and are not on the preemptor's path, and Cohorts all of whose children were
// pruned. Between queues of equal share, the one whose next candidate comes
// first in candidate order wins. Shares are measured as the cache stands at
// each pick, so every removal moves them.
type fairOrder struct {
	q        *quota.ClusterQueue
	path     map[*quota.Cohort]bool
	root     *quota.Cohort
	cands    map[*quota.ClusterQueue][]*Candidate
	prunedQ  map[*quota.ClusterQueue]bool
	prunedCo map[*quota.Cohort]bool
}

// newFairOrder orders the candidates (in candidate order) by their queues.
func newFairOrder(q *quota.ClusterQueue, cands []*Candidate) *fairOrder {
	o := &fairOrder{q: q, path: map[*quota.Cohort]bool{}, cands: map[*quota.ClusterQueue][]*Candidate{},
		prunedQ: map[*quota.ClusterQueue]bool{}, prunedCo: map[*quota.Cohort]bool{}}
	var buf [8]*quota.Cohort
	anc := q.Ancestors(buf[:])
	for _, a := range anc {
		o.path[a] = true
	}
	if len(anc) > 0 {
		o.root = anc[len(anc)-1]
	}
	byName := map[string]*quota.ClusterQueue{q.Name(): q}
	if o.root != nil {
		var walk func(*quota.Cohort)
		walk = func(co *quota.Cohort) {
			for _, ch := range co.ChildCohorts() {
				walk(ch)
			}
			for _, cq := range co.ChildQueues() {
				byName[cq.Name()] = cq
			}
		}
		walk(o.root)
	}
	for _, cand := range cands {
		if cq, ok := byName[cand.ClusterQueue]; ok {
			o.cands[cq] = append(o.cands[cq], cand)
		}
	}
	return o
}

func (o *fairOrder) has(t *quota.ClusterQueue) bool { return len(o.cands[t]) > 0 }

// pop takes t's next candidate.
func (o *fairOrder) pop(t *quota.ClusterQueue) *Candidate {
	c := o.cands[t][0]
	o.cands[t] = o.cands[t][1:]
	return c
}

// drop stops considering t.
func (o *fairOrder) drop(t *quota.ClusterQueue) { o.prunedQ[t] = true }

// next returns the queue to take from next, nil when none is left.
func (o *fairOrder) next() *quota.ClusterQueue {
	if o.root == nil {
		if !o.prunedQ[o.q] && o.has(o.q) {
			return o.q
		}
		return nil
	}
	for !o.prunedCo[o.root] {
		if t := o.nextIn(o.root); t != nil {
			return t
		}
	}
	return nil
}

// nextIn descends from co to the queue with the highest share, or prunes on
// the way and returns nil.
func (o *fairOrder) nextIn(co *quota.Cohort) *quota.ClusterQueue {
	var bestQ *quota.ClusterQueue
	bestQShare := fairsharing.Share(-1)
	for _, cq := range co.ChildQueues() {
		if o.prunedQ[cq] {
			continue
		}
		if (!borrows(cq) && cq != o.q) || !o.has(cq) {
			o.prunedQ[cq] = true
			continue
		}
		sh := fairsharing.Of(cq)
		switch {
		case bestQ == nil || sh > bestQShare:
			bestQ, bestQShare = cq, sh
		case sh == bestQShare && compareCandidates(o.cands[cq][0], o.cands[bestQ][0], o.q.Name()) < 0:
			bestQ = cq
		}
	}
	var bestCo *quota.Cohort
	bestCoShare := fairsharing.Share(-1)
	for _, ch := range co.ChildCohorts() {
		if o.prunedCo[ch] {
			continue
		}
		if !borrows(ch) && !o.path[ch] {
			o.prunedCo[ch] = true
			continue
		}
		if sh := fairsharing.Of(ch); sh >= bestCoShare {
			bestCo, bestCoShare = ch, sh
		}
	}
	switch {
	case bestCo == nil && bestQ == nil:
		o.prunedCo[co] = true
		return nil
	case bestCo != nil && bestCoShare >= bestQShare:
		return o.nextIn(bestCo)
	}
	return bestQ
}

// borrows tells whether a node uses more than its subtree quota in some cell
// (Kueue's DRS.IsBorrowing).
func borrows(n quota.FairNode) bool {
	b := false
	n.EachBorrowed(func(resources.FlavorResource, int64) { b = true })
	return b
}
