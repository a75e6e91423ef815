package scheduler

import (
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// CohortSubtreeView is what Kueue's Cohort metric families report of one
// Cohort: its place in the tree and what its subtree holds, uses and admits.
// Kueue reports nothing of a Cohort in (or below) a cycle of parents, so such
// a view has only its Name and InCycle.
type CohortSubtreeView struct {
	Name string
	// Parent is the parent's name, "" for a root; Root is the tree's root,
	// the Cohort itself for a root.
	Parent, Root string
	InCycle      bool
	// SubtreeQuota is CohortView's: its own nominal quota plus what its
	// children lend it (Kueue's resourceNode.SubtreeQuota).
	SubtreeQuota resources.Amounts
	// Reservations sums the usage of every ClusterQueue of the subtree, all
	// of it, not only what they borrow (Kueue's subtreeReservationMemo).
	Reservations resources.Amounts
	// ClusterQueues counts the ClusterQueues of the subtree, and
	// AdmittedWorkloads the workloads holding quota in them (Kueue's
	// admittedWorkloadsCount).
	ClusterQueues     int
	AdmittedWorkloads int
	// WeightedShare is Kueue's PreciseWeightedShare of the Cohort in its
	// parent, unrounded: 0 for a root, +Inf when it borrows with weight 0.
	// CohortView.WeightedShare is the same share per thousand rounded up, as
	// the Cohort's status publishes it.
	WeightedShare float64
}

// CohortSubtrees returns every Cohort, explicit and implicit, sorted by name.
// It walks each ClusterQueue's chain once, so it is for a scrape, not a cycle.
func (s *Scheduler) CohortSubtrees() []CohortSubtreeView {
	names := s.cache.CohortNames()
	out := make([]CohortSubtreeView, 0, len(names))
	at := make(map[string]int, len(names))
	for _, name := range names {
		c, ok := s.cache.Cohort(name)
		if !ok {
			continue
		}
		v := CohortSubtreeView{Name: name, InCycle: c.InCycle()}
		if !v.InCycle {
			v.Parent = c.ParentName()
			v.Root, _ = c.RootName()
			v.SubtreeQuota = c.SubtreeQuota()
			v.Reservations = resources.Amounts{}
			v.WeightedShare = fairsharing.Precise(c)
		}
		at[name] = len(out)
		out = append(out, v)
	}
	var buf [8]*quota.Cohort
	for _, name := range s.cache.ClusterQueueNames() {
		q, ok := s.cache.ClusterQueue(name)
		if !ok {
			continue
		}
		ancestors := q.Ancestors(buf[:])
		if len(ancestors) == 0 {
			continue
		}
		usage, admitted := q.UsageAll(), len(s.admittedByCQ[name])
		for _, a := range ancestors {
			i, ok := at[a.Name()]
			if !ok {
				continue
			}
			out[i].ClusterQueues++
			out[i].AdmittedWorkloads += admitted
			out[i].Reservations.Add(usage)
		}
	}
	return out
}

// ClusterQueueAncestors returns the names of a ClusterQueue's Cohort and of
// that Cohort's ancestors, its own first and the root last: the Cohorts whose
// subtree an admission in the queue counts in (Kueue's workloadAncestors).
// It is nil for an unknown queue, one without a Cohort, or one whose chain
// has a cycle.
func (s *Scheduler) ClusterQueueAncestors(name string) []string {
	q, ok := s.cache.ClusterQueue(name)
	if !ok {
		return nil
	}
	var buf [8]*quota.Cohort
	ancestors := q.Ancestors(buf[:])
	if len(ancestors) == 0 {
		return nil
	}
	out := make([]string, len(ancestors))
	for i, a := range ancestors {
		out[i] = a.Name()
	}
	return out
}
