package scheduler

import (
	"cmp"
	"slices"
)

// byPriority returns the workloads that hold quota in ClusterQueue cq, lowest
// priority first (then by namespace/name, for a stable order).
//
// scopeOf looks, for every unfit workload of a walk, at the admitted
// workloads its queue's policy would let it preempt: those of lower priority
// (or, under LowerOrNewerEqualPriority, equal and newer). In this order they
// are a prefix, which for the lowest priority class is empty; scanning the
// whole admitted set for each of them was a tenth of a loaded simulation.
// The list is built on first use and dropped whenever the admitted set or a
// priority changes.
func (s *Scheduler) byPriority(cq string) []*record {
	if l, ok := s.admittedSorted[cq]; ok {
		return l
	}
	m := s.admittedByCQ[cq]
	l := make([]*record, 0, len(m))
	for _, r := range m {
		l = append(l, r)
	}
	slices.SortFunc(l, func(a, b *record) int {
		if c := cmp.Compare(a.priority, b.priority); c != 0 {
			return c
		}
		if c := cmp.Compare(a.info.Key.Namespace, b.info.Key.Namespace); c != 0 {
			return c
		}
		return cmp.Compare(a.info.Key.Name, b.info.Key.Name)
	})
	s.admittedSorted[cq] = l
	return l
}
