package preemption

import (
	"strings"
)

// less is Kueue's candidate order: workloads of other (borrowing) queues before
// the preemptor's own queue, then lower priority, then the most recently
// admitted, then UID and name so that the order is total.
func less(a, b *Candidate, own string) bool {
	aOwn, bOwn := a.ClusterQueue == own, b.ClusterQueue == own
	if aOwn != bOwn {
		return !aOwn
	}
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if !a.AdmittedAt.Equal(b.AdmittedAt) {
		return a.AdmittedAt.After(b.AdmittedAt)
	}
	if a.UID != b.UID {
		return a.UID < b.UID
	}
	if c := strings.Compare(a.Key.Namespace, b.Key.Namespace); c != 0 {
		return c < 0
	}
	return a.Key.Name < b.Key.Name
}
