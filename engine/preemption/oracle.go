package preemption

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// Oracle answers the flavor assigner's question for one cell: would
// preemption find victims that make room for this much of it (Kueue's
// PreemptionOracle.SimulatePreemption)? It runs the same search as Find, for
// a request of that one cell only, so that a flavor where preemption could
// never succeed is passed over for the next one instead of holding the
// workload forever.
type Oracle struct {
	Cache  *quota.Cache
	Source Source
	// Preemptor is the workload being assigned; its Assignment is ignored.
	Preemptor Preemptor
	Options   Options
}

var _ flavorassigner.Oracle = (*Oracle)(nil)

// SimulatePreemption returns whether the search finds victims for quantity of
// fr in q (and whether any of them is q's own workload), and how far up the
// Cohort tree the request would still borrow with them gone.
func (o *Oracle) SimulatePreemption(q *quota.ClusterQueue, fr resources.FlavorResource, quantity int64) (flavorassigner.Possibility, int) {
	p := o.Preemptor
	p.Assignment = &flavorassigner.Assignment{Usage: resources.Amounts{fr: quantity}}
	targets := find(o.Cache, q, &p, o.Source, map[resources.FlavorResource]bool{fr: true}, o.Options)
	if len(targets) == 0 {
		h, _ := quota.BorrowHeight(q, fr, quantity)
		return flavorassigner.NoCandidates, h
	}
	s := &sim{cache: o.Cache, cells: onlyCells(p.Assignment.Usage, map[resources.FlavorResource]bool{fr: true})}
	own := false
	for _, t := range targets {
		s.remove(t.Candidate)
		own = own || t.ClusterQueue == q.Name()
	}
	h, _ := quota.BorrowHeight(q, fr, quantity)
	s.undo()
	if own {
		return flavorassigner.PreemptInQueue, h
	}
	return flavorassigner.Reclaim, h
}
