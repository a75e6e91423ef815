package preemption

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// Find returns the workloads to evict so that p fits in q, or nil when no
// allowed set of evictions makes it fit. The cache is unchanged on return.
//
// With opts.Rules, the search runs in tiers, as in KEP-13396: first over the
// baseline candidates, the union of those of q's spec.preemption policies and
// those of the Always rules; only when that finds nothing, once more with the
// candidates of the InsufficientQuota rules added. Rules with the trigger
// QuotaFeasibleAndInsufficientTopology never contribute: Quokka has no
// topology-aware scheduling, so no workload is ever short of topology alone.
func Find(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, opts Options) []Target {
	if p.Assignment == nil {
		return nil
	}
	frs := needs(c, q, p.Assignment.Usage)
	if len(frs) == 0 {
		return nil
	}
	search := func(ruled map[types.UID]*Candidate) []Target {
		if len(opts.FairSharing) > 0 {
			return fairSharing(c, q, p, src, frs, opts.FairSharing, ruled)
		}
		return classic(c, q, p, src, frs, ruled)
	}
	if opts.Rules == nil {
		return search(nil)
	}
	ps := p.subject(q)
	ruled := ruleCandidates(c, q, ps, src, frs, opts.Rules.Active(kueuev1alpha1.Always, ps), nil)
	if t := search(ruled); t != nil {
		return t
	}
	n := len(ruled)
	ruled = ruleCandidates(c, q, ps, src, frs, opts.Rules.Active(kueuev1alpha1.InsufficientQuota, ps), ruled)
	if len(ruled) == n {
		return nil // the same candidates again: the same failure
	}
	return search(ruled)
}

// classic follows Kueue's classic preemption. A queue that stays within its
// nominal quota with the workload admitted may reclaim from borrowing queues
// of the cohort (reclaimWithinCohort); a workload that needs to borrow may
// preempt only in its own queue (withinClusterQueue), or, under
// borrowWithinCohort, lower-priority workloads of borrowing queues.
//
// Candidates that a PreemptionConfig rule selected (ruled, by UID) join every
// step: the reclaim step, the borrowWithinCohort step and the last step, where
// the preemptor may borrow. They are not subject to the checks that the
// victim's queue borrows: a rule may take quota that is within another
// queue's nominal quota (KEP-13396's hero workloads).
func classic(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, ruled map[types.UID]*Candidate) []Target {
	withinNominal := true
	for fr := range frs {
		if q.Usage(fr)+p.Assignment.Usage[fr] > q.Nominal(fr) {
			withinNominal = false
		}
	}
	bwc := q.Preemption.BorrowWithinCohort
	if bwc != nil && bwc.Policy != kueue.BorrowWithinCohortPolicyLowerPriority {
		bwc = nil
	}
	// Other queues' workloads are candidates only to reclaim within nominal
	// quota, or under borrowWithinCohort: otherwise collecting them would only
	// walk the tree for nothing.
	all := candidates(c, q, p, src, frs, !withinNominal && bwc == nil)
	if len(all) == 0 && len(ruled) == 0 {
		return nil
	}
	var own []*Candidate
	for _, cand := range all {
		if cand.ClusterQueue == q.Name() {
			own = append(own, cand)
		}
	}
	pool := merge(all, ruled, q.Name())
	others := false
	for _, cand := range pool {
		others = others || cand.ClusterQueue != q.Name()
	}
	if others && withinNominal {
		if t := minimal(c, q, p, pool, false, ruled); t != nil {
			return t
		}
	}
	if bwc != nil && len(own) < len(all) {
		var allowed []*Candidate
		for _, cand := range all {
			if cand.ClusterQueue == q.Name() ||
				(cand.Priority < p.Priority && (bwc.MaxPriorityThreshold == nil || cand.Priority <= *bwc.MaxPriorityThreshold)) {
				allowed = append(allowed, cand)
			}
		}
		return minimal(c, q, p, merge(allowed, ruled, q.Name()), true, ruled)
	}
	return minimal(c, q, p, merge(own, ruled, q.Name()), true, ruled)
}

// candidates lists, in preemption order, the admitted workloads that the
// queue's policies allow p to preempt and that use a cell p is short of.
// With ownOnly, only q's own workloads.
func candidates(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, ownOnly bool) []*Candidate {
	var out []*Candidate
	pol := q.Preemption
	visit := func(o *quota.ClusterQueue) {
		own := o == q
		if own && pol.WithinClusterQueue == kueue.PreemptionPolicyNever {
			return
		}
		if !own && (pol.ReclaimWithinCohort == kueue.PreemptionPolicyNever || !borrowingIn(o, frs)) {
			return
		}
		for _, cand := range src.Admitted(o.Name()) {
			if !usesAny(cand.Usage, frs) {
				continue
			}
			if own && !withinQueueAllowed(pol.WithinClusterQueue, cand, p) {
				continue
			}
			if !own && pol.ReclaimWithinCohort == kueue.PreemptionPolicyLowerPriority && cand.Priority >= p.Priority {
				continue
			}
			out = append(out, cand)
		}
	}
	// The own queue, then the other queues of the tree that borrow (only
	// they can give reclaim candidates): the cache indexes them, so a search
	// does not walk a tree of a thousand queues. The order does not matter,
	// the candidates are sorted.
	visit(q)
	if !ownOnly && pol.ReclaimWithinCohort != kueue.PreemptionPolicyNever {
		c.EachBorrowerInTree(q, func(o *quota.ClusterQueue) {
			if o != q {
				visit(o)
			}
		})
	}
	sortCandidates(out, q.Name())
	return out
}

func sortCandidates(cands []*Candidate, own string) {
	slices.SortFunc(cands, func(a, b *Candidate) int {
		if less(a, b, own) {
			return -1
		}
		if less(b, a, own) {
			return 1
		}
		return 0
	})
}

// withinQueueAllowed applies withinClusterQueue: LowerPriority takes strictly
// lower priorities; LowerOrNewerEqualPriority also equal priorities created
// after the preemptor.
func withinQueueAllowed(pol kueue.PreemptionPolicy, cand *Candidate, p *Preemptor) bool {
	switch pol {
	case kueue.PreemptionPolicyLowerPriority:
		return cand.Priority < p.Priority
	case kueue.PreemptionPolicyLowerOrNewerEqualPriority:
		return cand.Priority < p.Priority || (cand.Priority == p.Priority && cand.Created.After(p.Created))
	}
	return false
}

// minimal removes candidates in order until p fits, skipping those of queues
// that stopped borrowing on the way, then tries to put back every victim but
// the last, in reverse order, keeping out only those it still needs: the
// smallest set in Kueue's sense.
//
// Candidates in ruled are taken whether or not their queue borrows.
func minimal(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, cands []*Candidate, allowBorrowing bool, ruled map[types.UID]*Candidate) []Target {
	s := &sim{cache: c}
	defer s.undo()
	frs := needs(c, q, p.Assignment.Usage)
	var victims []*Candidate
	found := false
	for _, cand := range cands {
		if _, byRule := ruled[cand.UID]; !byRule && cand.ClusterQueue != q.Name() {
			o, ok := c.ClusterQueue(cand.ClusterQueue)
			if !ok || !borrowingIn(o, frs) {
				continue
			}
		}
		s.remove(cand)
		victims = append(victims, cand)
		if fits(c, q, p.Assignment.Usage, allowBorrowing) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	victims = fillBack(c, q, p, s, victims, allowBorrowing)
	out := make([]Target, 0, len(victims))
	for _, v := range victims {
		out = append(out, Target{Candidate: v, Reason: classicReason(q, p, v)})
	}
	return out
}

func fillBack(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, s *sim, victims []*Candidate, allowBorrowing bool) []*Candidate {
	for i := len(victims) - 2; i >= 0; i-- {
		s.restore(victims[i])
		if fits(c, q, p.Assignment.Usage, allowBorrowing) {
			victims = append(victims[:i], victims[i+1:]...)
			continue
		}
		s.remove(victims[i])
	}
	return victims
}

func classicReason(q *quota.ClusterQueue, p *Preemptor, v *Candidate) string {
	switch {
	case v.ClusterQueue == q.Name():
		return decision.PreemptionInClusterQueue
	case p.Assignment.Borrowing:
		return decision.PreemptionInCohortReclaimWhileBorrowing
	}
	return decision.PreemptionInCohortReclamation
}
