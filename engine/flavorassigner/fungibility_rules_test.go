package flavorassigner_test

import (
	"slices"
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/flavorassigner"
)

// Each flavorFungibility rule with a table of its own: which flavor the
// search keeps under whenCanBorrow, whenCanPreempt and preference, and where
// borrowing starts. The worlds are built as in the ported Kueue tables
// (kueue_helpers_test.go), with the real preemption oracle.

// fgFlavors are three plain flavors, tried in this order.
func fgFlavors() []*kueue.ResourceFlavor {
	return []*kueue.ResourceFlavor{MakeFlavor("one").Obj(), MakeFlavor("two").Obj(), MakeFlavor("three").Obj()}
}

// fgWant is the outcome of a case: Kueue's representative mode, the flavor of
// the cpu request, the borrowing level and, when set, the flavors the search
// tried, in order (Kueue's FlavorAssignmentAttempts).
type fgWant struct {
	mode   string
	flavor string
	level  int
	tried  []string
}

// fgCheck compares an outcome assigned with Explain, which records the
// flavors tried.
func fgCheck(t *testing.T, res flavorassigner.Result, want fgWant) {
	t.Helper()
	mode, flavors, level := kaOutcome(res)
	got := ""
	if len(flavors) == 1 {
		got = flavors[0][kaCPU]
	}
	if mode != want.mode || got != want.flavor || level != want.level {
		t.Errorf("%s in flavor %q at borrowing level %d, want %s in %q at %d (reason %q: %s)",
			mode, got, level, want.mode, want.flavor, want.level, res.Reason, res.Message)
	}
	if want.tried == nil {
		return
	}
	var tried []string
	for _, g := range res.Groups {
		for _, fo := range g.Flavors {
			tried = append(tried, fo.Flavor)
		}
	}
	if !slices.Equal(tried, want.tried) {
		t.Errorf("flavors tried %v, want %v", tried, want.tried)
	}
}

var explain = flavorassigner.Options{Explain: true}

// whenCanBorrow: MayStopSearch keeps the first flavor that fits, borrowing or
// not; TryNextFlavor goes on looking for one that fits without borrowing, and
// when every flavor borrows keeps the one that borrows from the lowest Cohort,
// the first of those on a tie.
//
// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go 'borrow before
// try next flavor', 'borrow try next flavor, found the second flavor' and
// 'borrow try next flavor, found the first flavor'.
func TestWhenCanBorrowFallback(t *testing.T) {
	t.Parallel()
	// The queue cq asks for 3 CPUs.
	//
	// firstBorrows: cq has one: 2, two: 4, three: 4; a lender in its
	// cohort c has one: 8. Flavor one borrows, two fits without.
	firstBorrows := kaWorld{flavors: fgFlavors(), queues: kaQueues(
		MakeClusterQueue("cq").Cohort("c").Quota("one", kaCPU, "2").Quota("two", kaCPU, "4").Quota("three", kaCPU, "4"),
		MakeClusterQueue("lender").Cohort("c").Quota("one", kaCPU, "8"),
	)}
	// allBorrowSameLevel: cq has 2 of each flavor, the lender 8 of each:
	// every flavor borrows from cohort c.
	allBorrowSameLevel := kaWorld{flavors: fgFlavors(), queues: kaQueues(
		MakeClusterQueue("cq").Cohort("c").Quota("one", kaCPU, "2").Quota("two", kaCPU, "2").Quota("three", kaCPU, "2"),
		MakeClusterQueue("lender").Cohort("c").Quota("one", kaCPU, "8").Quota("two", kaCPU, "8").Quota("three", kaCPU, "8"),
	)}
	// allBorrowTwoLevels: cq (2 of each flavor) sits in cohort team under
	// root org. A lender in team has two: 8, one in org has 8 of each: one
	// and three borrow from org (level 2), two only from team (level 1).
	allBorrowTwoLevels := kaWorld{flavors: fgFlavors(),
		cohorts: []*kueue.Cohort{MakeCohort("org").Obj(), MakeCohort("team").Parent("org").Obj()},
		queues: kaQueues(
			MakeClusterQueue("cq").Cohort("team").Quota("one", kaCPU, "2").Quota("two", kaCPU, "2").Quota("three", kaCPU, "2"),
			MakeClusterQueue("team-lender").Cohort("team").Quota("two", kaCPU, "8"),
			MakeClusterQueue("org-lender").Cohort("org").Quota("one", kaCPU, "8").Quota("two", kaCPU, "8").Quota("three", kaCPU, "8"),
		)}
	for _, tc := range []struct {
		name   string
		world  kaWorld
		policy kueue.FlavorFungibilityPolicy
		want   fgWant
	}{
		{"MayStopSearch keeps the first flavor, which borrows", firstBorrows, kueue.MayStopSearch, fgWant{"Fit", "one", 1, []string{"one"}}},
		{"TryNextFlavor finds the flavor that does not borrow, and stops", firstBorrows, kueue.TryNextFlavor, fgWant{"Fit", "two", 0, []string{"one", "two"}}},
		{"MayStopSearch, all borrow: the first", allBorrowSameLevel, kueue.MayStopSearch, fgWant{"Fit", "one", 1, []string{"one"}}},
		{"TryNextFlavor, all borrow at one level: the first", allBorrowSameLevel, kueue.TryNextFlavor, fgWant{"Fit", "one", 1, []string{"one", "two", "three"}}},
		{"MayStopSearch, all borrow at two levels: the first", allBorrowTwoLevels, kueue.MayStopSearch, fgWant{"Fit", "one", 2, []string{"one"}}},
		{"TryNextFlavor, all borrow at two levels: the lowest", allBorrowTwoLevels, kueue.TryNextFlavor, fgWant{"Fit", "two", 1, []string{"one", "two", "three"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.world
			w.queues = append([]*kueue.ClusterQueue{}, w.queues...)
			w.queues[0] = fgWith(w.queues[0], func(q *ClusterQueueWrapper) { q.WhenCanBorrow(tc.policy) })
			fgCheck(t, kaAssignWith(t, w, "cq", kaPending().Request(kaCPU, "3").Obj(), explain), tc.want)
		})
	}
}

// whenCanPreempt: MayStopSearch keeps the first flavor where preemption finds
// victims; TryNextFlavor goes on looking for one that fits, and when every
// flavor needs preemption keeps the best by preference (reclaiming from other
// queues before preempting in the queue), the first on a tie. A flavor where
// preemption finds no victims is passed over under either policy.
//
// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go 'preempt before
// try next flavor', 'preempt try next flavor' and 'cannot preempt in cohort
// (oracle returns None) for the first flavor, tries the second flavor (which
// fits)'; TestReclaimBeforePriorityPreemption 'Select second flavor where gpu
// reclamation is possible, as compute Fits'.
func TestWhenCanPreemptFallback(t *testing.T) {
	t.Parallel()
	// cq (4 CPUs of each flavor, withinClusterQueue LowerPriority) asks
	// for 2 CPUs, at priority 0. Its workloads of priority -1 are victims,
	// those of priority 0 are not.
	inQueue := func(holdings ...*kueue.Workload) kaWorld {
		return kaWorld{flavors: fgFlavors(), admitted: holdings, queues: kaQueues(
			MakeClusterQueue("cq").Quota("one", kaCPU, "4").Quota("two", kaCPU, "4").Quota("three", kaCPU, "4").
				Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority))}
	}
	victimIn := func(f string) *kueue.Workload { return kaHolding("low-"+f, "cq", -1, f, kaCPU, "4") }
	spared := func(f string) *kueue.Workload { return kaHolding("equal-"+f, "cq", 0, f, kaCPU, "4") }
	// reclaimLater: in cohort c, flavor one needs preemption in cq itself;
	// in flavor two a borrower holds cq's 4 CPUs, which cq reclaims.
	reclaimLater := kaWorld{flavors: fgFlavors(),
		admitted: []*kueue.Workload{victimIn("one"), kaHolding("borrowed", "borrower", 0, "two", kaCPU, "4")},
		queues: kaQueues(
			MakeClusterQueue("cq").Cohort("c").Quota("one", kaCPU, "4").Quota("two", kaCPU, "4").
				Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority),
			MakeClusterQueue("borrower").Cohort("c").Quota("two", kaCPU, "0"),
		)}
	for _, tc := range []struct {
		name   string
		world  kaWorld
		policy kueue.FlavorFungibilityPolicy
		want   fgWant
	}{
		{"MayStopSearch keeps the first flavor, which needs preemption",
			inQueue(victimIn("one"), victimIn("two")), kueue.MayStopSearch, fgWant{"Preempt", "one", 0, []string{"one"}}},
		{"TryNextFlavor finds the flavor that fits, and stops",
			inQueue(victimIn("one")), kueue.TryNextFlavor, fgWant{"Fit", "two", 0, []string{"one", "two"}}},
		{"MayStopSearch, all need preemption: the first",
			inQueue(victimIn("one"), victimIn("two"), victimIn("three")), kueue.MayStopSearch, fgWant{"Preempt", "one", 0, []string{"one"}}},
		{"TryNextFlavor, all need preemption alike: the first",
			inQueue(victimIn("one"), victimIn("two"), victimIn("three")), kueue.TryNextFlavor, fgWant{"Preempt", "one", 0, []string{"one", "two", "three"}}},
		{"MayStopSearch, preemption in the queue before reclaim: the first",
			reclaimLater, kueue.MayStopSearch, fgWant{"Preempt", "one", 0, []string{"one"}}},
		{"TryNextFlavor, preemption in the queue before reclaim: the reclaim",
			reclaimLater, kueue.TryNextFlavor, fgWant{"Preempt", "two", 0, []string{"one", "two"}}},
		{"MayStopSearch passes over a flavor without victims",
			inQueue(spared("one"), victimIn("two"), victimIn("three")), kueue.MayStopSearch, fgWant{"Preempt", "two", 0, []string{"one", "two"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.world
			w.queues = append([]*kueue.ClusterQueue{}, w.queues...)
			w.queues[0] = fgWith(w.queues[0], func(q *ClusterQueueWrapper) { q.WhenCanPreempt(tc.policy) })
			fgCheck(t, kaAssignWith(t, w, "cq", kaPending().Request(kaCPU, "2").Obj(), explain), tc.want)
		})
	}
}

// flavorFungibility.preference: between a flavor that fits by borrowing and
// one that needs preemption without borrowing, BorrowingOverPreemption (the
// default) takes the first, PreemptionOverBorrowing the second; it only ranks
// the flavors the search reaches (whenCanBorrow MayStopSearch stops at the
// first).
//
// cq (cohort c, withinClusterQueue LowerPriority) has one: 2 and two: 4; a
// lender has one: 8; a workload of priority -1 holds cq's 4 CPUs of two. cq
// asks for 3 CPUs: one fits borrowing, two needs preemption within nominal.
//
// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go, TestIsPreferred
// 'explicit BorrowingOverPreemption prioritises borrowing distance' and
// 'explicit PreemptionOverBorrowing prioritises lower preemption'.
func TestFlavorFungibilityPreference(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		pref          *kueue.FlavorFungibilityPreference
		whenCanBorrow kueue.FlavorFungibilityPolicy
		want          fgWant
	}{
		{"unset: borrowing over preemption", nil, kueue.TryNextFlavor, fgWant{"Fit", "one", 1, nil}},
		{"BorrowingOverPreemption", new(kueue.BorrowingOverPreemption), kueue.TryNextFlavor, fgWant{"Fit", "one", 1, nil}},
		{"PreemptionOverBorrowing", new(kueue.PreemptionOverBorrowing), kueue.TryNextFlavor, fgWant{"Preempt", "two", 0, nil}},
		{"PreemptionOverBorrowing, but whenCanBorrow MayStopSearch stops first", new(kueue.PreemptionOverBorrowing), kueue.MayStopSearch, fgWant{"Fit", "one", 1, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cq := MakeClusterQueue("cq").Cohort("c").Quota("one", kaCPU, "2").Quota("two", kaCPU, "4").
				Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
				WhenCanBorrow(tc.whenCanBorrow).WhenCanPreempt(kueue.TryNextFlavor)
			if tc.pref != nil {
				cq.Preference(*tc.pref)
			}
			w := kaWorld{flavors: fgFlavors(),
				queues:   kaQueues(cq, MakeClusterQueue("lender").Cohort("c").Quota("one", kaCPU, "8")),
				admitted: []*kueue.Workload{kaHolding("low", "cq", -1, "two", kaCPU, "4")}}
			fgCheck(t, kaAssignWith(t, w, "cq", kaPending().Request(kaCPU, "3").Obj(), explain), tc.want)
		})
	}
}

// Exactly at nominal quota is not borrowing: usage + request == nominal fits
// without borrowing (whenCanBorrow TryNextFlavor keeps the flavor); one more
// unit (a millicore) borrows, and the search moves on.
//
// cq (cohort c) has one: 4 and two: 4 and already uses 1 CPU of one; a lender
// has one: 8.
func TestExactlyAtNominalIsNotBorrowing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		request string
		policy  kueue.FlavorFungibilityPolicy
		want    fgWant
		borrows bool // Result.Borrowing, and the flavor's outcome
	}{
		{"1 + 3 of nominal 4: fits without borrowing", "3", kueue.TryNextFlavor, fgWant{"Fit", "one", 0, nil}, false},
		{"1 + 3 of nominal 4, MayStopSearch: fits without borrowing", "3", kueue.MayStopSearch, fgWant{"Fit", "one", 0, nil}, false},
		{"one millicore more borrows: the search moves on", "3001m", kueue.TryNextFlavor, fgWant{"Fit", "two", 0, nil}, false},
		{"one millicore more borrows: MayStopSearch keeps it", "3001m", kueue.MayStopSearch, fgWant{"Fit", "one", 1, nil}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := kaWorld{flavors: fgFlavors(),
				queues: kaQueues(
					MakeClusterQueue("cq").Cohort("c").Quota("one", kaCPU, "4").Quota("two", kaCPU, "4").WhenCanBorrow(tc.policy),
					MakeClusterQueue("lender").Cohort("c").Quota("one", kaCPU, "8")),
				admitted: []*kueue.Workload{kaHolding("used", "cq", 0, "one", kaCPU, "1")}}
			res := kaAssignWith(t, w, "cq", kaPending().Request(kaCPU, tc.request).Obj(), explain)
			fgCheck(t, res, tc.want)
			if res.Borrowing != tc.borrows {
				t.Errorf("Result.Borrowing %v, want %v", res.Borrowing, tc.borrows)
			}
			for _, g := range res.Groups {
				for _, fo := range g.Flavors {
					if fo.Flavor == tc.want.flavor && fo.Borrow != tc.borrows {
						t.Errorf("flavor %s: outcome Borrow %v, want %v", fo.Flavor, fo.Borrow, tc.borrows)
					}
				}
			}
		})
	}
}

// fgWith applies set to a copy of a built ClusterQueue.
func fgWith(q *kueue.ClusterQueue, set func(*ClusterQueueWrapper)) *kueue.ClusterQueue {
	w := &ClusterQueueWrapper{ClusterQueue: *q.DeepCopy()}
	set(w)
	return w.Obj()
}
