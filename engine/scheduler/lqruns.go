package scheduler

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// lqRuns is a ClusterQueue's pending list split by LocalQueue, each part in
// queue order, for admission fair sharing: the next candidate is the head of
// the LocalQueue with the lowest decayed usage.
type lqRuns struct {
	keys  []types.NamespacedName
	parts map[types.NamespacedName][]entry
}

func splitByLQ(l *pendingList) *lqRuns {
	out := &lqRuns{parts: map[types.NamespacedName][]entry{}}
	for _, e := range l.sorted {
		if !e.valid() {
			continue
		}
		if _, ok := out.parts[e.r.lq]; !ok {
			out.keys = append(out.keys, e.r.lq)
		}
		out.parts[e.r.lq] = append(out.parts[e.r.lq], e)
	}
	slices.SortFunc(out.keys, compareKeys)
	return out
}

// nextEntry returns a queue's next valid pending entry in the cycle's order.
func (s *Scheduler) nextEntry(rn *run) (entry, bool) {
	if rn.byLQ == nil {
		for rn.pos < len(rn.list.sorted) {
			e := rn.list.sorted[rn.pos]
			rn.pos++
			if e.valid() {
				return e, true
			}
		}
		return entry{}, false
	}
	for {
		best, bestKey := -1, 0.0
		for i, k := range rn.byLQ.keys {
			part := rn.byLQ.parts[k]
			if len(part) == 0 {
				continue
			}
			u := s.afsKey(k)
			if best < 0 || u < bestKey || (u == bestKey && compareQueueOrder(part[0].r, rn.byLQ.parts[rn.byLQ.keys[best]][0].r) < 0) {
				best, bestKey = i, u
			}
		}
		if best < 0 {
			return entry{}, false
		}
		k := rn.byLQ.keys[best]
		e := rn.byLQ.parts[k][0]
		rn.byLQ.parts[k] = rn.byLQ.parts[k][1:]
		if e.valid() {
			return e, true
		}
	}
}
