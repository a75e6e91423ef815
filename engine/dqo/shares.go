package dqo

import (
	"fmt"
	"slices"
	"strings"

	"quokka.dev/quokka/engine/resources"
)

// pairShares is the split of one (flavor, resource) pair: who takes part, with what
// weight, and what each gets.
type pairShares struct {
	claims []claim
	// lastOwner is the index in nodes of the object that made the last claim.
	lastOwner int
	shares    []int64
}

// occurrence points at the claim behind one orchestrated resource entry of an
// object's spec.resourceGroups.
type occurrence struct {
	pair  *pairShares
	claim int
}

// shareTable is the result of computeShares.
type shareTable struct {
	pairs map[resources.FlavorResource]*pairShares
	// perNode[i] holds, for nodes[i], the effective nominal quota of every resource
	// entry of an orchestrated flavor, in the order of spec.resourceGroups (groups,
	// then flavors, then resources). effectiveResourceGroups walks the spec in the
	// same order to place them.
	perNode [][]int64
}

// computeShares finds the participants of every orchestrated (flavor, resource) pair
// and splits the pair's capacity among them.
//
// 000: "For each pair of flavor and resource, Kueue splits the effective capacity
// across the ClusterQueues and Cohorts in the subtree that list that pair in
// spec.resourceGroups. Each one gets a share in proportion to its nominal quota for
// that pair. The split is flat: Cohorts and ClusterQueues at every level of the
// subtree share one pool, and a Cohort's share is not split again among its
// children." So every object of the subtree is a claim on the same pool, whatever
// its depth; a Cohort is a participant like a ClusterQueue.
//
// Weights are the spec nominal quotas in canonical units (resources.ToCanonical),
// the same units as the capacity. An object that lists the same pair twice (the API
// forbids it) takes part once, with the first entry's weight, and both entries get
// the same share.
func computeShares(nodes []quotaNode, capacity *Capacity) (shareTable, error) {
	t := shareTable{pairs: make(map[resources.FlavorResource]*pairShares), perNode: make([][]int64, len(nodes))}
	ranks := tieBreakRanks(nodes)
	// One flat list of occurrences, nodes[i]'s from start[i] to start[i+1], sized
	// for every resource entry of the subtree so that it never grows.
	entries := 0
	for i := range nodes {
		for _, g := range nodes[i].spec {
			for _, f := range g.Flavors {
				entries += len(f.Resources)
			}
		}
	}
	occurrences := make([]occurrence, 0, entries)
	start := make([]int, len(nodes)+1)
	for i := range nodes {
		start[i] = len(occurrences)
		n := &nodes[i]
		for gi := range n.spec {
			for fi := range n.spec[gi].Flavors {
				fq := &n.spec[gi].Flavors[fi]
				flavor := string(fq.Name)
				if !capacity.Orchestrates(flavor) {
					continue
				}
				for ri := range fq.Resources {
					rq := &fq.Resources[ri]
					w, err := resources.ToCanonical(rq.Name, rq.NominalQuota)
					if err != nil {
						return shareTable{}, fmt.Errorf("%s spec.resourceGroups[%d].flavors[%d].resources[%d].nominalQuota: %w", n.ref, gi, fi, ri, err)
					}
					fr := resources.FlavorResource{Flavor: flavor, Resource: rq.Name}
					p := t.pairs[fr]
					if p == nil {
						p = &pairShares{}
						t.pairs[fr] = p
					}
					// Claims of one object are appended while that object is visited,
					// so a repeat of the pair is always the last claim.
					idx := len(p.claims) - 1
					if idx < 0 || p.lastOwner != i {
						p.claims = append(p.claims, claim{weight: w, rank: ranks[i]})
						p.lastOwner = i
						idx++
					}
					occurrences = append(occurrences, occurrence{pair: p, claim: idx})
				}
			}
		}
	}
	start[len(nodes)] = len(occurrences)

	var s splitter
	for fr, p := range t.pairs {
		p.shares = make([]int64, len(p.claims))
		s.split(capacity.Amount(fr.Flavor, fr.Resource), p.claims, p.shares)
	}
	// One backing array for all objects' shares keeps allocations per subtree, not
	// per object.
	values := make([]int64, len(occurrences))
	for k, o := range occurrences {
		values[k] = o.pair.shares[o.claim]
	}
	for i := range nodes {
		t.perNode[i] = values[start[i]:start[i+1]:start[i+1]]
	}
	return t, nil
}

// tieBreakRanks returns, for each node, its place in the order in which leftover
// units are handed out between equal remainders: smaller UID first, then kind and
// name (nodes are already sorted by kind and name, so a stable sort by UID does it).
func tieBreakRanks(nodes []quotaNode) []int {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(nodes[a].uid, nodes[b].uid) })
	ranks := make([]int, len(nodes))
	for r, i := range order {
		ranks[i] = r
	}
	return ranks
}

// unusedPairs lists the capacity pairs that no object of the subtree lists: their
// capacity is reported but goes to nobody, which an administrator will want to know.
func (t shareTable) unusedPairs(capacity *Capacity) []string {
	var out []string
	for _, f := range capacity.Flavors() {
		amounts := capacity.flavors[f]
		for _, r := range amounts.Names() {
			if _, ok := t.pairs[resources.FlavorResource{Flavor: f, Resource: r}]; !ok {
				out = append(out, f+"/"+string(r))
			}
		}
	}
	return out
}
