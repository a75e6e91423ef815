package preemption

import (
	"slices"
	"time"

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
	return find(c, q, p, src, frs, opts)
}

// find is Find for the cells frs that need preemption.
func find(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, opts Options) []Target {
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

// variant is how a candidate may be preempted in classic preemption (Kueue's
// preemptionVariant).
type variant int

const (
	// withinQueue: a workload of the preemptor's own queue, allowed by
	// withinClusterQueue.
	withinQueue variant = iota
	// hierarchicalReclaim: the candidate's queue borrows quota that a subtree
	// holding the preemptor owns, and that subtree's quota could hold the
	// request: taken whether or not the preemptor borrows.
	hierarchicalReclaim
	// reclaimWithoutBorrowing: taken only if, afterwards, the preemptor's
	// queue stays within its nominal quota.
	reclaimWithoutBorrowing
	// reclaimWhileBorrowing: taken even if the preemptor borrows
	// (borrowWithinCohort, below its priority threshold).
	reclaimWhileBorrowing
	// byRule: selected by a PreemptionConfig rule, not by the queue's
	// policies; taken in every attempt, wherever its queue stands.
	byRule
)

// classicCand is a candidate with how it may be preempted and, for one of
// another queue, the root of the subtree it was found in (the lowest Cohort
// it shares with the preemptor).
type classicCand struct {
	*Candidate
	v   variant
	lca *quota.Cohort
}

// classic follows Kueue's classic preemption. Candidates come in three
// groups, each in candidate order: workloads of other queues over which the
// preemptor has a hierarchical advantage (it sits in a subtree whose quota
// could hold its request, and they borrow that quota), then workloads of other
// queues that borrow, which only priority (reclaimWithinCohort,
// borrowWithinCohort) lets it take, then its own queue's (withinClusterQueue).
// Candidates are removed in that order until the workload fits, in one or two
// attempts: with borrowing allowed (candidates that may be taken only if the
// preemptor ends within nominal quota are skipped) and without (the workload
// must fit within its queue's nominal quota); then every victim not needed
// after all is put back, last removed first.
//
// Candidates that a PreemptionConfig rule selected (ruled, by UID) and that
// the policies did not already offer join the own queue's group, or, for
// other queues, the first group, which like them may be taken whether or not
// the preemptor borrows; they are taken in every attempt, whether or not
// their queue borrows: a rule may take quota that is within another queue's
// nominal quota (KEP-13396's hero workloads).
func classic(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, ruled map[types.UID]*Candidate) []Target {
	own := sameQueueCandidates(q, p, src, frs)
	var abuf [8]*quota.Cohort
	lv := reclaimLevels(q, p, onlyWithBorrowing(q, frs, ruled), abuf[:])
	if len(ruled) == 0 && othersOutOfReach(c, q, p, frs, lv, own) {
		return nil
	}
	hier, prio := hierarchicalCandidates(c, q, p, src, frs, lv)
	if len(ruled) > 0 {
		own, hier = addRuled(q, own, hier, prio, ruled)
	}
	if len(own)+len(hier)+len(prio) == 0 {
		return nil
	}
	var tries []bool
	for _, borrow := range attempts(q, frs, len(hier), len(prio)) {
		if !beyondReach(c, q, p.Assignment.Usage, frs, borrow, own, hier, prio) {
			tries = append(tries, borrow)
		}
	}
	if len(tries) == 0 {
		return nil
	}
	for _, l := range [][]*classicCand{own, hier, prio} {
		slices.SortFunc(l, func(a, b *classicCand) int { return compareCandidates(a.Candidate, b.Candidate, q.Name()) })
	}
	// Kueue takes the workloads already being evicted of every group first
	// (each group's sort puts them at its front), then the rest, group by
	// group.
	order := make([]*classicCand, 0, len(own)+len(hier)+len(prio))
	for _, evicting := range []bool{true, false} {
		for _, l := range [][]*classicCand{hier, prio, own} {
			for _, cand := range l {
				if cand.Evicting == evicting {
					order = append(order, cand)
				}
			}
		}
	}
	for _, borrow := range tries {
		if t := attempt(c, q, p, frs, order, borrow); t != nil {
			return t
		}
	}
	return nil
}

// beyondReach tells that an attempt (with borrowing allowed or not) cannot
// succeed: in some cell that needs room, the request exceeds what q has
// available plus everything the candidates the attempt may take use there.
// Taking a workload's usage out of the cache raises what any queue of its
// tree has available by at most that usage (every step of Available adds,
// subtracts, or takes the minimum or maximum of usages with unit weight), so
// even with all of them gone the request would not fit. An attempt that
// allows borrowing never takes a candidate that requires the preemptor to end
// within nominal quota (see valid); one that does not must also bring q's own
// usage plus the request within its nominal quota, which only q's own
// workloads can lower. Searches that find nothing are most of them on a
// backlog (nearly all the preemption oracle's, which asks for every pending
// workload that needs room), and this answers them without sorting, taking
// out and putting back every candidate.
func beyondReach(c *quota.Cache, q *quota.ClusterQueue, usage resources.Amounts, frs map[resources.FlavorResource]bool, borrow bool, own, hier, prio []*classicCand) bool {
	for fr := range frs {
		var ownUse, othersUse int64
		for _, cand := range own {
			ownUse += cand.Usage[fr]
		}
		for _, g := range [][]*classicCand{hier, prio} {
			for _, cand := range g {
				if !borrow || cand.v != reclaimWithoutBorrowing {
					othersUse += cand.Usage[fr]
				}
			}
		}
		if usage[fr] > c.Available(q, fr).Available+ownUse+othersUse {
			return true
		}
		if !borrow && q.Usage(fr)-ownUse+usage[fr] > q.Nominal(fr) {
			return true
		}
	}
	return false
}

// onlyWithBorrowing tells, before any candidate is collected, that the search
// makes one attempt only, with borrowing allowed (see attempts): borrowing
// within the Cohort is forbidden and q is not below its nominal quota in the
// cells that need preemption. Then every candidate of another queue over which
// the preemptor has no hierarchical advantage is reclaimWithoutBorrowing and
// never valid (see valid), so the search need not collect, sort or try them.
// On an overloaded simulated week most oracle searches are of this kind and
// find nothing: they had collected and sorted every workload of the tree's
// borrowing queues for nothing. Rule-selected candidates are merged with the
// others (addRuled), so with rules everything is collected as before.
func onlyWithBorrowing(q *quota.ClusterQueue, frs map[resources.FlavorResource]bool, ruled map[types.UID]*Candidate) bool {
	forbidden, _ := borrowWithinCohortForbidden(q)
	return forbidden && len(ruled) == 0 && !underNominal(q, frs)
}

// attempts lists the attempts Kueue makes, by whether borrowing is allowed,
// in order: only with borrowing when no other queue offers candidates or when
// the queue is not below its nominal quota in the cells that need preemption
// (and borrowWithinCohort is off); without borrowing first when only
// priority candidates of other queues exist (and borrowWithinCohort is off);
// with borrowing first otherwise.
func attempts(q *quota.ClusterQueue, frs map[resources.FlavorResource]bool, hier, prio int) []bool {
	forbidden, _ := borrowWithinCohortForbidden(q)
	switch {
	case hier+prio == 0 || (forbidden && !underNominal(q, frs)):
		return []bool{true}
	case forbidden && hier == 0:
		return []bool{false, true}
	}
	return []bool{true, false}
}

// attempt removes the valid candidates in order until p fits (within nominal
// quota unless borrow), then gives back the victims it did not need.
func attempt(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, frs map[resources.FlavorResource]bool, order []*classicCand, borrow bool) []Target {
	s := &sim{cache: c, cells: onlyCells(p.Assignment.Usage, frs)}
	defer s.undo()
	var victims []*Candidate
	reasons := map[*Candidate]string{}
	for _, cand := range order {
		if !valid(c, q, frs, cand, borrow) {
			continue
		}
		s.remove(cand.Candidate)
		victims = append(victims, cand.Candidate)
		reasons[cand.Candidate] = cand.reason(q, p)
		if fits(c, q, p.Assignment.Usage, borrow) {
			victims = fillBack(c, q, p, s, victims, borrow)
			out := make([]Target, 0, len(victims))
			for _, v := range victims {
				out = append(out, Target{Candidate: v, Reason: reasons[v]})
			}
			return out
		}
	}
	return nil
}

// valid tells whether a candidate may still be taken in this attempt (Kueue's
// candidateIsValid): one that requires the preemptor to end within nominal
// quota is not taken when it may borrow; one of another queue only while its
// queue, and every Cohort between that queue and the subtree it was found in,
// still use more than their quota in the cells that need preemption (earlier
// victims may have brought them back within it).
func valid(c *quota.Cache, q *quota.ClusterQueue, frs map[resources.FlavorResource]bool, cand *classicCand, borrow bool) bool {
	if cand.ClusterQueue == q.Name() || cand.v == byRule {
		return true
	}
	if borrow && cand.v == reclaimWithoutBorrowing {
		return false
	}
	o, ok := c.ClusterQueue(cand.ClusterQueue)
	if !ok || o.WithinQuotaIn(frs) {
		return false
	}
	var buf [8]*quota.Cohort
	for _, a := range o.Ancestors(buf[:]) {
		if a == cand.lca {
			break
		}
		if a.WithinQuotaIn(frs) {
			return false
		}
	}
	return true
}

// reason is the victim's Preempted reason (Kueue's PreemptionReason of its
// variant).
func (cand *classicCand) reason(q *quota.ClusterQueue, p *Preemptor) string {
	switch cand.v {
	case withinQueue:
		return decision.PreemptionInClusterQueue
	case reclaimWhileBorrowing:
		return decision.PreemptionInCohortReclaimWhileBorrowing
	case byRule:
		return classicReason(q, p, cand.Candidate)
	}
	return decision.PreemptionInCohortReclamation
}

// sameQueueCandidates lists the workloads of q that withinClusterQueue lets p
// preempt and that use a cell p is short of.
func sameQueueCandidates(q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool) []*classicCand {
	pol := q.Preemption.WithinClusterQueue
	if pol == kueue.PreemptionPolicyNever || pol == "" {
		return nil
	}
	var out []*classicCand
	for _, cand := range src.Admitted(q.Name()) {
		// The policy first: comparing priorities is cheaper than looking
		// up the needed cells in the candidate's usage.
		if withinQueueAllowed(pol, cand, p) && usesAny(cand.Usage, frs) {
			out = append(out, &classicCand{Candidate: cand, v: withinQueue})
		}
	}
	return out
}

// hierarchicalCandidates lists the workloads of other queues of q's Cohort
// tree that reclaimWithinCohort lets p preempt (Kueue's
// collectCandidatesForHierarchicalReclaim), split into those over which p has
// a hierarchical advantage and those only priority allows.
//
// Kueue walks from q up its chain of Cohorts. At each Cohort A it collects
// the workloads of the queues below A but outside the subtree it came from,
// descending only into nodes that use more than their quota in the cells
// that need preemption; p has an advantage over them when its request fits in
// the quota of q, or of a Cohort on the chain below A (what the nodes below
// keep for themselves, their unused lendingLimit reserve, is taken off the
// request on the way up). Only queues that borrow can hold such workloads, so
// the cache's index of borrowing queues gives them without walking the tree:
// for each, the lowest Cohort it shares with q is A, and every Cohort between
// them must use more than its quota.
//
// With lv.hierOnly (see onlyWithBorrowing) the candidates only priority allows
// are not listed, and the queues found where p has no advantage are not looked
// into.
func hierarchicalCandidates(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source, frs map[resources.FlavorResource]bool, lv levels) (hier, prio []*classicCand) {
	eachReclaimQueue(c, q, frs, lv, func(o *quota.ClusterQueue, level int) {
		for _, cand := range src.Admitted(o.Name()) {
			v, ok := classify(q, p, cand, frs, lv.adv[level])
			if !ok {
				continue
			}
			cc := &classicCand{Candidate: cand, v: v, lca: lv.anc[level]}
			if v == hierarchicalReclaim {
				hier = append(hier, cc)
			} else {
				prio = append(prio, cc)
			}
		}
	})
	return hier, prio
}

// levels is where a classic search looks for other queues' candidates:
// q's chain of Cohorts and, for each, whether p has a hierarchical advantage
// over the workloads found there; hierOnly as in hierarchicalCandidates. With
// no anc, no other queue can give candidates.
type levels struct {
	anc      []*quota.Cohort
	adv      []bool
	hierOnly bool
}

// reclaimLevels works out the levels once per search, for both
// othersOutOfReach and hierarchicalCandidates; anc is kept in buf. It has no
// Cohort when reclaimWithinCohort is Never, q has no Cohort, or with hierOnly
// p has no advantage anywhere.
func reclaimLevels(q *quota.ClusterQueue, p *Preemptor, hierOnly bool, buf []*quota.Cohort) levels {
	pol := q.Preemption.ReclaimWithinCohort
	if pol == kueue.PreemptionPolicyNever || pol == "" {
		return levels{}
	}
	anc := q.Ancestors(buf)
	if len(anc) == 0 {
		return levels{}
	}
	// adv[i]: p has a hierarchical advantage over what is found at anc[i].
	adv := make([]bool, len(anc))
	fitsBelow, remaining := fitsInQuota(q.SubtreeQuotaOf, q.UsageOf, q.LocalAvailable, p.Assignment.Usage)
	for i, a := range anc {
		adv[i] = fitsBelow
		var f bool
		f, remaining = fitsInQuota(a.SubtreeQuotaOf, a.UsageOf, a.LocalAvailable, remaining)
		fitsBelow = fitsBelow || f
	}
	if hierOnly && !slices.Contains(adv, true) {
		return levels{}
	}
	return levels{anc: anc, adv: adv, hierOnly: hierOnly}
}

// eachReclaimQueue calls f with every other queue of q's tree whose admitted
// workloads hierarchicalCandidates looks into, and the index in lv.anc of the
// lowest Cohort it shares with q.
//
// Whether a queue is looked into, and at which level, depends only on its
// chain of Cohorts, so it is worked out once per parent Cohort: on a tree of a
// thousand queues in a dozen Cohorts, checking every borrower's chain against
// its Cohorts' quotas was a twentieth of a loaded simulation.
func eachReclaimQueue(c *quota.Cache, q *quota.ClusterQueue, frs map[resources.FlavorResource]bool, lv levels, f func(o *quota.ClusterQueue, level int)) {
	if len(lv.anc) == 0 {
		return
	}
	var memoBuf [16]parentLevel
	memo := memoBuf[:0]
	c.EachBorrowerInTree(q, frs, func(o *quota.ClusterQueue) {
		if o == q {
			return
		}
		var obuf [8]*quota.Cohort
		chain := o.Ancestors(obuf[:])
		if len(chain) == 0 {
			return
		}
		level, known := -1, false
		for _, m := range memo {
			if m.parent == chain[0] {
				level, known = m.level, true
				break
			}
		}
		if !known {
			level = reclaimLevelOf(chain, frs, lv)
			memo = append(memo, parentLevel{parent: chain[0], level: level})
		}
		if level >= 0 {
			f(o, level)
		}
	})
}

// parentLevel remembers reclaimLevelOf for the queues of one parent Cohort.
type parentLevel struct {
	parent *quota.Cohort
	level  int
}

// reclaimLevelOf is the index in lv.anc of the lowest Cohort of chain (a
// queue's Cohorts, nearest first) that q shares, or -1 when the queue is not
// looked into: a Cohort below that one keeps its subtree within its quota in
// frs, there is none, or with hierOnly p has no advantage there.
func reclaimLevelOf(chain []*quota.Cohort, frs map[resources.FlavorResource]bool, lv levels) int {
	for _, a := range chain {
		if i := slices.Index(lv.anc, a); i >= 0 {
			if lv.hierOnly && !lv.adv[i] {
				return -1
			}
			return i
		}
		if a.WithinQuotaIn(frs) {
			return -1 // its subtree stays within its quota: not looked into
		}
	}
	return -1
}

// othersOutOfReach tells, before any candidate of another queue is listed,
// that no attempt of the search can succeed (see beyondReach), bounding what
// the candidates of other queues use in each cell by what the queues
// hierarchicalCandidates would look into use there: a queue's candidates are
// some of its admitted workloads, whose usage is part of the queue's. The
// attempt that allows borrowing takes, when borrowing within the Cohort is
// forbidden, only candidates over which p has a hierarchical advantage (the
// others are reclaimWithoutBorrowing), so only the queues found at such
// levels count for it; the attempt that does not must also bring q within its
// nominal quota. On an overloaded tree most searches that list candidates end
// out of reach; listing, classifying and summing every workload of every
// borrowing queue to find that out was most of their cost.
func othersOutOfReach(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, frs map[resources.FlavorResource]bool, lv levels, own []*classicCand) bool {
	all := make(map[resources.FlavorResource]int64, len(frs))
	advantaged := make(map[resources.FlavorResource]int64, len(frs))
	eachReclaimQueue(c, q, frs, lv, func(o *quota.ClusterQueue, level int) {
		for fr := range frs {
			u := o.Usage(fr)
			all[fr] += u
			if lv.adv[level] {
				advantaged[fr] += u
			}
		}
	})
	forbidden, _ := borrowWithinCohortForbidden(q)
	borrowOut, plainOut := false, false
	for fr := range frs {
		var ownUse int64
		for _, cand := range own {
			ownUse += cand.Usage[fr]
		}
		request, avail := p.Assignment.Usage[fr], c.Available(q, fr).Available
		withBorrowing := all[fr]
		if forbidden {
			withBorrowing = advantaged[fr]
		}
		borrowOut = borrowOut || request > avail+ownUse+withBorrowing
		plainOut = plainOut || request > avail+ownUse+all[fr] || q.Usage(fr)-ownUse+request > q.Nominal(fr)
	}
	return borrowOut && plainOut
}

// classify is how p may preempt a candidate of another queue (Kueue's
// classifyPreemptionVariant), false when it may not.
func classify(q *quota.ClusterQueue, p *Preemptor, cand *Candidate, frs map[resources.FlavorResource]bool, advantage bool) (variant, bool) {
	// The priority first: it is cheaper than looking at the usage.
	if q.Preemption.ReclaimWithinCohort == kueue.PreemptionPolicyLowerPriority && cand.Priority >= p.Priority {
		return 0, false
	}
	if !usesAny(cand.Usage, frs) {
		return 0, false
	}
	if advantage {
		return hierarchicalReclaim, true
	}
	forbidden, threshold := borrowWithinCohortForbidden(q)
	if forbidden || cand.Priority >= p.Priority || (threshold != nil && cand.Priority > *threshold) {
		return reclaimWithoutBorrowing, true
	}
	return reclaimWhileBorrowing, true
}

// borrowWithinCohortForbidden tells whether the queue may not preempt while
// it borrows, and its priority threshold when it may.
func borrowWithinCohortForbidden(q *quota.ClusterQueue) (bool, *int32) {
	bwc := q.Preemption.BorrowWithinCohort
	if bwc == nil || bwc.Policy == "" || bwc.Policy == kueue.BorrowWithinCohortPolicyNever {
		return true, nil
	}
	return false, bwc.MaxPriorityThreshold
}

// fitsInQuota tells whether a node's subtree quota holds its usage plus the
// requests in every cell (Kueue's QuantitiesFitInQuota), and what of the
// requests its unused reserve (the part it does not lend) cannot hold, for
// the next node up.
func fitsInQuota(subtree, usage, local func(resources.FlavorResource) int64, requests resources.Amounts) (bool, resources.Amounts) {
	fits := true
	remaining := make(resources.Amounts, len(requests))
	for fr, v := range requests {
		if subtree(fr) < resources.Add(usage(fr), v) {
			fits = false
		}
		remaining[fr] = max(0, v-local(fr))
	}
	return fits, remaining
}

// underNominal tells whether q uses strictly less than its nominal quota in
// every cell that needs preemption (Kueue's
// queueUnderNominalInResourcesNeedingPreemption).
func underNominal(q *quota.ClusterQueue, frs map[resources.FlavorResource]bool) bool {
	for fr := range frs {
		if q.Usage(fr) >= q.Nominal(fr) {
			return false
		}
	}
	return true
}

// addRuled adds the rule-selected candidates the policies did not offer: to
// the own queue's group, or to the hierarchical group of other queues.
func addRuled(q *quota.ClusterQueue, own, hier, prio []*classicCand, ruled map[types.UID]*Candidate) ([]*classicCand, []*classicCand) {
	seen := make(map[types.UID]bool, len(own)+len(hier)+len(prio))
	for _, l := range [][]*classicCand{own, hier, prio} {
		for _, cand := range l {
			seen[cand.UID] = true
		}
	}
	for uid, cand := range ruled {
		if seen[uid] {
			continue
		}
		cc := &classicCand{Candidate: cand, v: byRule}
		if cand.ClusterQueue == q.Name() {
			own = append(own, cc)
		} else {
			hier = append(hier, cc)
		}
	}
	// The groups are sorted by a total order afterwards: the map's order does
	// not leak.
	return own, hier
}

func withinQueueAllowed(pol kueue.PreemptionPolicy, cand *Candidate, p *Preemptor) bool {
	return WithinQueueAllowed(pol, cand.Priority, cand.Created, p.Priority, p.Created)
}

// WithinQueueAllowed applies withinClusterQueue to a candidate of the
// preemptor's own queue: LowerPriority takes strictly lower priorities;
// LowerOrNewerEqualPriority also equal priorities created strictly after the
// preemptor (as in Kueue, a candidate created at the same instant is not
// newer: Kubernetes times have a resolution of one second, and equal times
// are common); Never and Any (not allowed for this policy) take nothing.
func WithinQueueAllowed(pol kueue.PreemptionPolicy, candPriority int32, candCreated time.Time, priority int32, created time.Time) bool {
	switch pol {
	case kueue.PreemptionPolicyLowerPriority:
		return candPriority < priority
	case kueue.PreemptionPolicyLowerOrNewerEqualPriority:
		return candPriority < priority || (candPriority == priority && candCreated.After(created))
	}
	return false
}

// fillBack puts back every victim but the last, last removed first, keeping
// out only those the preemptor still needs gone: the smallest set in Kueue's
// sense.
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

// classicReason is the reason of a victim selected by a rule: its queue's
// relation to the preemptor's.
func classicReason(q *quota.ClusterQueue, p *Preemptor, v *Candidate) string {
	switch {
	case v.ClusterQueue == q.Name():
		return decision.PreemptionInClusterQueue
	case p.Assignment.Borrowing:
		return decision.PreemptionInCohortReclaimWhileBorrowing
	}
	return decision.PreemptionInCohortReclamation
}

// OwnQueueOnly tells whether classic preemption, for a request of usage in q
// short of the cells frs, can take only q's own workloads whatever the other
// queues hold: when q may not reclaim within its Cohort (or has none), or when
// it may not preempt while borrowing, is not below its nominal quota in frs
// and no subtree holding it could hold the request (no hierarchical
// advantage): then every candidate of another queue requires the preemptor to
// end within nominal quota, and the only attempt allows borrowing. The
// scheduler's shortcuts ask it rather than restate the rules; it does not
// consider PreemptionConfig rules or fair sharing.
func OwnQueueOnly(q *quota.ClusterQueue, usage resources.Amounts, frs map[resources.FlavorResource]bool) bool {
	pol := q.Preemption.ReclaimWithinCohort
	var buf [8]*quota.Cohort
	anc := q.Ancestors(buf[:])
	if pol == kueue.PreemptionPolicyNever || pol == "" || len(anc) == 0 {
		return true
	}
	if forbidden, _ := borrowWithinCohortForbidden(q); !forbidden || underNominal(q, frs) {
		return false
	}
	fits, remaining := fitsInQuota(q.SubtreeQuotaOf, q.UsageOf, q.LocalAvailable, usage)
	// The candidates found at the root get the advantage of every level
	// below it.
	for _, a := range anc[:len(anc)-1] {
		if fits {
			return false
		}
		fits, remaining = fitsInQuota(a.SubtreeQuotaOf, a.UsageOf, a.LocalAvailable, remaining)
	}
	return !fits
}
