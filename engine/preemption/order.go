package preemption

import (
	"slices"
	"strings"
	"time"
)

// less is Kueue's candidate order: workloads already being evicted first, then
// workloads of other (borrowing) queues before
// the preemptor's own queue, then, within a queue that uses admission fair
// sharing, those of the LocalQueue that used more, then lower priority, then
// the most recently admitted, then UID and name so that the order is total.
//
// Admission times are compared to the second, as Kueue compares them: it
// reads the QuotaReserved condition's time of the Workload in its cache,
// which the API server keeps to the second (a custom resource is stored as
// JSON, and metav1.Time is RFC 3339 there), so two workloads admitted within
// one second tie and fall to UID. The engine knows the instants of its own
// admissions; ordering by them picked the later of two such workloads where
// Kueue picked by UID (decisions harness, seed 5 scenario 0 event 12).
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
	case !admittedSecond(a).Equal(admittedSecond(b)):
		if admittedSecond(a).After(admittedSecond(b)) {
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

// admittedSecond is the candidate's admission time as the API server stores
// it (see less).
func admittedSecond(c *Candidate) time.Time { return c.AdmittedAt.Truncate(time.Second) }
