package dqo

import (
	"quokka.dev/quokka/apis/kueue/v1alpha1"
)

// Resolution is the precedence between the DynamicQuotaOrchestrators of a cluster:
// which orchestrators may not write their subtree because another one wins, and the
// set of orchestrator names that Distribute accepts as previous writers of
// status.effectiveQuotas. The zero Resolution blocks nothing and knows no names.
type Resolution struct {
	known   map[string]bool
	winners map[string]string
}

// Winner returns the orchestrator that takes precedence over the named one, and
// whether there is one. When there is, the named orchestrator must not write.
func (r Resolution) Winner(name string) (winner string, blocked bool) {
	winner, blocked = r.winners[name]
	return winner, blocked
}

// Knows reports whether name is one of the orchestrators ResolveConflicts was given.
func (r Resolution) Knows(name string) bool { return r.known[name] }

// ResolveConflicts decides, for every orchestrator with spec.capacityDistribution,
// whether another one takes precedence over its subtree (000: "If two orchestrators
// manage overlapping subtrees, the one with the higher root wins. If they have the
// same root, the one with the earlier creationTimestamp wins. If both were created
// at the same time, the smaller UID wins.").
//
// Pass every DynamicQuotaOrchestrator of the cluster, whatever its conditions: the
// winner keeps precedence even when it does not distribute (its discovery failed,
// it is itself misconfigured), and then nobody writes the subtree. That keeps two
// orchestrators from taking turns on the same queues whenever a provider flaps.
//
// Two subtrees overlap when one root is the other or a Cohort above it. An
// orchestrator whose root does not exist has an empty subtree and conflicts with
// nobody; discovery-only orchestrators have no subtree at all. Roots on the same
// Cohort cycle are each above the other, so they are ordered like equal roots.
func ResolveConflicts(dqos []*v1alpha1.DynamicQuotaOrchestrator, tree *Tree) Resolution {
	r := Resolution{known: make(map[string]bool, len(dqos)), winners: make(map[string]string)}
	var distributing []*v1alpha1.DynamicQuotaOrchestrator
	for _, d := range dqos {
		if d == nil {
			continue
		}
		r.known[d.Name] = true
		if d.Spec.CapacityDistribution != nil && tree.Exists(rootOf(d)) {
			distributing = append(distributing, d)
		}
	}
	for _, loser := range distributing {
		var best *v1alpha1.DynamicQuotaOrchestrator
		for _, other := range distributing {
			if other == loser || !outranks(tree, other, loser) {
				continue
			}
			// Everything that outranks loser has its root on loser's root or above
			// it, on one chain, so outranks orders those candidates totally: the
			// best is the one at the top, which is the one to name.
			if best == nil || outranks(tree, other, best) {
				best = other
			}
		}
		if best != nil {
			r.winners[loser.Name] = best.Name
		}
	}
	return r
}

// rootOf returns the subtree root of a distributing orchestrator.
func rootOf(d *v1alpha1.DynamicQuotaOrchestrator) NodeRef {
	ref := d.Spec.CapacityDistribution.SubtreeRootQuotaRef
	return NodeRef{Kind: ref.Kind, Name: ref.Name}
}

// outranks reports whether orchestrator a takes precedence over b: their subtrees
// overlap and a's root is higher, or the roots are equal (or on one cycle) and a is
// older, or as old with a smaller UID. The name is the last tie-break, so that the
// order is total even for objects that never went through an API server.
func outranks(tree *Tree, a, b *v1alpha1.DynamicQuotaOrchestrator) bool {
	ra, rb := rootOf(a), rootOf(b)
	aAbove, bAbove := tree.IsAncestorOrSelf(ra, rb), tree.IsAncestorOrSelf(rb, ra)
	switch {
	case aAbove && !bAbove:
		return true
	case !aAbove:
		return false
	}
	ta, tb := a.CreationTimestamp, b.CreationTimestamp
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	if a.UID != b.UID {
		return a.UID < b.UID
	}
	return a.Name < b.Name
}
