package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

func gpus(name string, n int) *WorkloadWrapper {
	return MakeWorkload("ns", name).Queue("lq").Request(gpu, fmt.Sprint(n))
}

// twoQueues: queue "a" (with lq in namespace ns) and a lender "b", both in cohort c.
func twoQueues(t *testing.T, a, b *ClusterQueueWrapper) *Scheduler {
	return world(t, Options{}, MakeFlavor("h100").Obj(), MakeFlavor("a100").Obj(),
		a.Cohort("c").Obj(), b.Cohort("c").Obj(), MakeLocalQueue("ns", "lq", "a").Obj())
}

// 002: "borrowingLimit: the most the queue may borrow from unused quota in its
// cohort, which caps it at nominalQuota + borrowingLimit. If unset, borrowing is
// unlimited."
func TestBorrowingLimitCapsQueue(t *testing.T) {
	cases := []struct {
		name      string
		a         *ClusterQueueWrapper
		wantAdmit int // 1-GPU jobs out of 20; lender b has 10
	}{
		{"limit 3", MakeClusterQueue("a").Quota("h100", gpu, "4", Borrowing("3")), 7},
		{"limit 0", MakeClusterQueue("a").Quota("h100", gpu, "4", Borrowing("0")), 4},
		{"unset is unlimited", MakeClusterQueue("a").Quota("h100", gpu, "4"), 14},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := twoQueues(t, tc.a, MakeClusterQueue("b").Quota("h100", gpu, "10"))
			for i := range 20 {
				apply(t, s, gpus(fmt.Sprintf("w%02d", i), 1).Created(time.Duration(i)*time.Second).Obj())
			}
			ds := s.Cycle(now)
			if got := len(admits(ds)); got != tc.wantAdmit {
				t.Fatalf("admitted %d, want %d", got, tc.wantAdmit)
			}
			want := ReasonBorrowingLimitReached
			if tc.name == "unset is unlimited" {
				want = ReasonInsufficientQuotaInCohort
			}
			mustPending(t, ds, "w19", want)
		})
	}
}

// 002: "lendingLimit: the most unused quota the queue lends out. The queue keeps
// nominalQuota - lendingLimit for exclusive use."
func TestLendingLimitKeepsNominalMinusLending(t *testing.T) {
	s := twoQueues(t, MakeClusterQueue("a").Quota("h100", gpu, "0"), MakeClusterQueue("b").Quota("h100", gpu, "10", Lending("4")))
	apply(t, s, MakeLocalQueue("ns", "lq-b", "b").Obj())
	apply(t, s, gpus("borrower", 5).Obj())
	apply(t, s, gpus("borrower-4", 4).Created(time.Second).Obj())
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "borrower-4" {
		t.Fatalf("admitted %v; only 4 of b's 10 are lendable", got)
	}
	// b can still use its kept-back 6 at once.
	apply(t, s, MakeWorkload("ns", "owner").Queue("lq-b").Request(gpu, "6").Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "owner" {
		t.Fatalf("owner must get its kept-back 6, admitted %v", got)
	}
}

// 002: "A queue can borrow only for flavors it defines, even when it defines them
// at nominalQuota: 0."
func TestBorrowOnlyForDefinedFlavors(t *testing.T) {
	s := twoQueues(t,
		MakeClusterQueue("a").Quota("h100", gpu, "0"),
		MakeClusterQueue("b").Quota("h100", gpu, "8").Quota("a100", gpu, "8"))
	// a defines h100 at 0: it borrows b's idle h100s; it never sees a100.
	apply(t, s, gpus("fits-by-borrowing", 8).Obj())
	apply(t, s, gpus("no-a100-for-a", 1).Created(time.Second).Obj())
	ds := s.Cycle(now)
	a := admits(ds)
	if len(a) != 1 || a[0].Workload.Name != "fits-by-borrowing" || !a[0].Borrowing || a[0].PodSets[0].Flavors[gpu] != "h100" {
		t.Fatalf("want the 8-GPU job admitted by borrowing h100, got %+v", a)
	}
	p := mustPending(t, ds, "no-a100-for-a", ReasonInsufficientQuotaInCohort)
	if strings.Contains(p.Message, "a100") {
		t.Fatalf("a does not define a100 and must not try it: %s", p.Message)
	}
}

// 002: "A request fits by borrowing when it exceeds the queue's unused
// nominalQuota but stays within both (1) the cohort's total unused nominalQuota
// and (2) the queue's unused nominalQuota + borrowingLimit."
func TestFitByBorrowing(t *testing.T) {
	s := twoQueues(t, MakeClusterQueue("a").Quota("h100", gpu, "4", Borrowing("4")), MakeClusterQueue("b").Quota("h100", gpu, "2"))
	apply(t, s, gpus("six", 6).Obj())
	apply(t, s, gpus("one", 1).Created(time.Second).Obj())
	ds := s.Cycle(now)
	if a := admits(ds); len(a) != 1 || a[0].Workload.Name != "six" || !a[0].Borrowing {
		t.Fatalf("6 = 4 nominal + 2 of b's unused: admitted by borrowing; got %+v", a)
	}
	p := mustPending(t, ds, "one", ReasonInsufficientQuotaInCohort)
	if !strings.Contains(p.Message, "0 unused in cohort c") {
		t.Errorf("message must give the cohort's unused amount: %s", p.Message)
	}
}

// 002: a Cohort's "nominalQuota is 'additional resources on top of those defined
// by ClusterQueues within the Cohort', which works as a shared pool".
func TestCohortOwnQuotaIsSharedPool(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeCohort("pool").Quota("h100", gpu, "16").Obj(),
		MakeClusterQueue("a").Cohort("pool").Quota("h100", gpu, "0").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(),
		gpus("sixteen", 16).Obj(), gpus("one-more", 1).Created(time.Second).Obj())
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "sixteen" {
		t.Fatalf("admitted %v", got)
	}
	mustPending(t, ds, "one-more", ReasonInsufficientQuotaInCohort)
	v, _ := s.CohortSnapshot("pool")
	if !v.Explicit || v.Usage[h100gpu] != 16 || v.SubtreeQuota[h100gpu] != 16 {
		t.Fatalf("cohort view %+v", v)
	}
}

// brief: "A referenced-but-not-created Cohort exists implicitly."
func TestImplicitCohortSharesQuota(t *testing.T) {
	s := twoQueues(t, MakeClusterQueue("a").Quota("h100", gpu, "1"), MakeClusterQueue("b").Quota("h100", gpu, "3"))
	apply(t, s, gpus("four", 4).Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 {
		t.Fatalf("a borrows from b through implicit cohort c; admitted %v", got)
	}
	v, ok := s.CohortSnapshot("c")
	if !ok || v.Explicit {
		t.Fatalf("cohort c must exist implicitly: %+v %v", v, ok)
	}
}

// brief: "A cycle of parents makes the queues in it inactive, with a reason
// (CohortCycle)."
func TestCohortCycleMakesQueuesInactive(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeCohort("x").Parent("y").Obj(), MakeCohort("y").Parent("x").Obj(),
		MakeClusterQueue("a").Cohort("x").Quota("h100", gpu, "8").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(), gpus("w", 1).Obj())
	v, _ := s.ClusterQueueSnapshot("a")
	if v.Active || v.ActiveReason != kueue.ClusterQueueActiveReasonCohortCycle {
		t.Fatalf("queue in a cycle must be inactive with CohortCycle: %+v", v)
	}
	p := mustPending(t, s.Cycle(now), "w", ReasonClusterQueueInactive)
	if !strings.Contains(p.Message, "cycle") {
		t.Errorf("message must say why: %s", p.Message)
	}
	apply(t, s, MakeCohort("y").Obj()) // break the cycle
	if got := admittedNames(s.Cycle(now)); len(got) != 1 {
		t.Fatalf("after the cycle is broken the queue admits; got %v", got)
	}
}

// brief: "A CQ referencing a missing ResourceFlavor is inactive (reason
// FlavorNotFound) — it admits nothing; it becomes active when the flavor is
// created."
func TestFlavorNotFoundInactiveUntilCreated(t *testing.T) {
	s := world(t, Options{}, MakeClusterQueue("a").Quota("h100", gpu, "8").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(), gpus("w", 1).Obj())
	v, _ := s.ClusterQueueSnapshot("a")
	if v.Active || v.ActiveReason != kueue.ClusterQueueActiveReasonFlavorNotFound {
		t.Fatalf("want inactive FlavorNotFound, got %+v", v)
	}
	p := mustPending(t, s.Cycle(now), "w", ReasonClusterQueueInactive)
	if !strings.Contains(p.Message, "ResourceFlavor h100 not found") {
		t.Errorf("message: %s", p.Message)
	}
	s.UpsertResourceFlavor(MakeFlavor("h100").Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 {
		t.Fatalf("queue must become active with the flavor; admitted %v", got)
	}
}
