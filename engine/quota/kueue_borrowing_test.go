package quota

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Kueue: pkg/cache/scheduler/fair_sharing_test.go, TestIsBorrowingOn. Kueue's
// DRS.IsBorrowing tells whether a node uses more than its subtree quota in
// some cell, and DRS.IsBorrowingOn whether it does in one of the cells a
// workload requests (the fair-sharing tournament prefers a child that does
// not, under FairSharingPrioritizeNonBorrowing). In Quokka both answers are
// the quota cache's: EachBorrowed finds any cell above the subtree quota
// (preemption's fair ordering reads it so), and per cell BorrowedOf (read by
// the scheduler's tournament) and WithinQuotaIn (the same answer for a set).
//
// Queue cq (cpu 2, GPUs 5) and lending-cq (cpu 8, GPUs 5) share cohort
// "cohort", whose subtree quota is cpu 10, GPUs 10. Usage is charged to cq;
// the requested cells are not charged, as Kueue measures the share without
// the request here.
func TestKueueIsBorrowingOn(t *testing.T) {
	cpu := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
	gpu := resources.FlavorResource{Flavor: "default", Resource: "example.com/gpu"}
	cases := []struct {
		name                     string
		usage                    resources.Amounts
		requested                resources.Amounts
		wantBorrowingOnRequested bool
		wantBorrowing            bool
	}{
		{"borrows on requested flavor", resources.Amounts{cpu: 3000}, resources.Amounts{cpu: 1000}, true, true},
		{"borrows on unrequested flavor only", resources.Amounts{cpu: 1000, gpu: 7}, resources.Amounts{cpu: 1000}, false, true},
		{"borrows on both, requests one", resources.Amounts{cpu: 3000, gpu: 7}, resources.Amounts{gpu: 1}, true, true},
		{"no borrowing", resources.Amounts{cpu: 1000, gpu: 2}, resources.Amounts{cpu: 1000}, false, false},
		{"nil requestedFRs", resources.Amounts{cpu: 3000}, nil, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			c.UpsertResourceFlavor(MakeFlavor("default").Obj())
			for _, err := range []error{
				c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort("cohort").FairWeight("1").
					Quota("default", cpu.Resource, "2").Quota("default", gpu.Resource, "5").Obj()),
				c.UpsertClusterQueue(MakeClusterQueue("lending-cq").Cohort("cohort").
					Quota("default", cpu.Resource, "8").Quota("default", gpu.Resource, "5").Obj()),
			} {
				if err != nil {
					t.Fatal(err)
				}
			}
			c.Charge(types.NamespacedName{Namespace: "default-namespace", Name: "wl"}, "cq", tc.usage)
			q := mustCQ(t, c, "cq")

			borrowing := false
			q.EachBorrowed(func(resources.FlavorResource, int64) { borrowing = true })
			if borrowing != tc.wantBorrowing {
				t.Errorf("borrowing in some cell = %v, want %v", borrowing, tc.wantBorrowing)
			}

			requested := map[resources.FlavorResource]bool{}
			onRequested := false
			for fr := range tc.requested {
				requested[fr] = true
				onRequested = onRequested || q.BorrowedOf(fr) > 0
			}
			if onRequested != tc.wantBorrowingOnRequested {
				t.Errorf("BorrowedOf > 0 in a requested cell = %v, want %v", onRequested, tc.wantBorrowingOnRequested)
			}
			if got := !q.WithinQuotaIn(requested); got != tc.wantBorrowingOnRequested {
				t.Errorf("!WithinQuotaIn(requested) = %v, want %v", got, tc.wantBorrowingOnRequested)
			}
		})
	}
}
