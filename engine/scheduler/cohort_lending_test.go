package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue allows a Cohort's lendingLimit above its nominal quota (its webhook
// table's "Should allow lending limit to exceed nominal quota"): it bounds what
// the Cohort's whole subtree lends to its parent, guaranteeing the rest
// (subtreeQuota - lendingLimit). Cohort team has 3 cpu of its own and its
// queue 4, so 7 in its subtree; with a lendingLimit of 5 it keeps 2 and lends
// 5: a queue elsewhere under the root borrows 5 cpus, not 6.
func TestCohortLendingLimitAboveItsNominalQuota(t *testing.T) {
	for _, tc := range []struct {
		cpu   string
		admit bool
	}{{"5", true}, {"6", false}} {
		s := world(t, Options{}, MakeFlavor("default").Obj(),
			MakeCohort("root").Obj(),
			MakeCohort("team").Parent("root").Quota("default", corev1.ResourceCPU, "3", Lending("5")).Obj(),
			MakeClusterQueue("team-q").Cohort("team").Quota("default", corev1.ResourceCPU, "4").Obj(),
			MakeClusterQueue("other").Cohort("root").Quota("default", corev1.ResourceCPU, "0").Obj(),
			kiLQ("other", "other"),
			MakeWorkload(kiNS, "w").Queue("other").Request(corev1.ResourceCPU, tc.cpu).Obj())
		if got := len(admits(s.Cycle(now))) == 1; got != tc.admit {
			t.Errorf("a borrower of %s cpus admitted: %v, want %v", tc.cpu, got, tc.admit)
		}
	}
}
