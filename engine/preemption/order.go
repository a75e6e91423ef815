package preemption

import (
	"slices"
	"strings"
)

// less is Kueue's candidate order: workloads already being evicted first, then
// workloads of other (borrowing) queues before
// the preemptor's own queue, then, within a queue that uses admission fair
// sharing, those of the LocalQueue that used more, then lower priority, then
// the most recently admitted, then UID and name so that the order is total.
func less(a, b *Candidate, own string) bool {
	return compareCandidates(a, b, own) < 0
}

// compareCandidates is less as a comparison function.
func compareCandidates(a, b *Candidate, own string) int {
	aOwn, bOwn := a.ClusterQueue == own, b.ClusterQueue == own
	switch {
	case a.Evicting != b.Evicting:
		if a.Evicting {
			return -1
		}
		return 1
	case aOwn != bOwn:
		if aOwn {
			return 1
		}
		return -1
	case a.ClusterQueue == b.ClusterQueue && a.LocalQueue != b.LocalQueue && a.LQUsage != nil && b.LQUsage != nil && *a.LQUsage != *b.LQUsage:
		if *a.LQUsage > *b.LQUsage {
			return -1
		}
		return 1
	case a.Priority != b.Priority:
		if a.Priority < b.Priority {
			return -1
		}
		return 1
	case !a.AdmittedAt.Equal(b.AdmittedAt):
		if a.AdmittedAt.After(b.AdmittedAt) {
			return -1
		}
		return 1
	case a.UID != b.UID:
		return strings.Compare(string(a.UID), string(b.UID))
	}
	if c := strings.Compare(a.Key.Namespace, b.Key.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Key.Name, b.Key.Name)
}

func sortCandidates(cands []*Candidate, own string) {
	slices.SortFunc(cands, func(a, b *Candidate) int { return compareCandidates(a, b, own) })
}
