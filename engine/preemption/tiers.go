package preemption

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// placeOf is what a rule sees of a ClusterQueue of the cache.
func placeOf(q *quota.ClusterQueue) Place {
	pl := Place{ClusterQueue: q.Name(), Labels: q.Labels, ParentCohort: q.CohortName()}
	if pc := q.ParentCohort(); pc != nil {
		pl.RootCohort, _ = pc.RootName()
	}
	return pl
}

func (p *Preemptor) subject(q *quota.ClusterQueue) Subject {
	return Subject{Labels: p.Labels, Priority: p.Priority, BasePriority: p.BasePriority, LocalQueue: p.LocalQueue, Place: placeOf(q)}
}

// ruleCandidates adds to into (a new map when nil) the admitted workloads that
// one of rules selects for the preemptor p and that use a cell p is short of.
// It looks only at the queues that share quota with q: whatever a rule
// selects elsewhere (AnyClusterQueue) holds quota q can never get, and without
// topology-aware scheduling evicting it cannot help.
func ruleCandidates(c *quota.Cache, q *quota.ClusterQueue, p Subject, src Source, frs map[resources.FlavorResource]bool, rules []*Rule, into map[types.UID]*Candidate) map[types.UID]*Candidate {
	if into == nil {
		into = map[types.UID]*Candidate{}
	}
	if len(rules) == 0 {
		return into
	}
	c.TreeQueues(q, func(o *quota.ClusterQueue) {
		pl := placeOf(o)
		for _, cand := range src.Admitted(o.Name()) {
			if _, ok := into[cand.UID]; ok || !usesAny(cand.Usage, frs) {
				continue
			}
			cs := Subject{Labels: cand.Labels, Priority: cand.Priority, BasePriority: cand.BasePriority, LocalQueue: cand.LocalQueue, Place: pl}
			for _, r := range rules {
				if r.Selects(p, cs) {
					into[cand.UID] = cand
					break
				}
			}
		}
	})
	return into
}

// merge is the deduplicated union (by UID) of the policies' candidates and the
// rules' ones, in Kueue's candidate order.
func merge(policy []*Candidate, ruled map[types.UID]*Candidate, own string) []*Candidate {
	if len(ruled) == 0 {
		return policy
	}
	out := make([]*Candidate, 0, len(policy)+len(ruled))
	seen := make(map[types.UID]bool, len(policy))
	for _, cand := range policy {
		seen[cand.UID] = true
		out = append(out, cand)
	}
	for uid, cand := range ruled {
		if !seen[uid] {
			out = append(out, cand)
		}
	}
	// The order is total, so the map's order does not leak.
	sortCandidates(out, own)
	return out
}
