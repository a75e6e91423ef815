package preemption

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Kueue: pkg/scheduler/preemption/common/ordering.go, CandidatesOrdering:
// "Workloads admitted more recently first", read from the QuotaReserved
// condition's LastTransitionTime, then UID. The API server keeps that time to
// the second, so two workloads admitted within one second are ordered by UID
// in Kueue, whichever came first (decisions harness, seed 5 scenario 0 event
// 12: Kueue reclaimed w04, admitted in the same second as w07 but before it).
func TestCandidatesAdmittedInOneSecondTieOnUID(t *testing.T) {
	at := time.Date(2026, 12, 4, 22, 12, 14, 0, time.UTC)
	cand := func(uid string, admitted time.Time) *Candidate {
		return &Candidate{Key: types.NamespacedName{Namespace: "ns", Name: uid}, UID: types.UID(uid), ClusterQueue: "cq1", AdmittedAt: admitted}
	}
	for _, tc := range []struct {
		name string
		a, b *Candidate
		want int
	}{
		{"same second, later instant, lower UID", cand("a", at.Add(900*time.Millisecond)), cand("b", at.Add(100*time.Millisecond)), -1},
		{"same second, later instant, higher UID", cand("b", at.Add(900*time.Millisecond)), cand("a", at.Add(100*time.Millisecond)), 1},
		{"a later second goes first whatever the UIDs", cand("b", at.Add(time.Second)), cand("a", at.Add(900*time.Millisecond)), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := compareCandidates(tc.a, tc.b, "cq2"); got != tc.want {
				t.Errorf("compareCandidates = %d, want %d", got, tc.want)
			}
		})
	}
}
