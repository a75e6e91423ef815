package scheduler

import (
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// ksAdmitOrder is the workloads admitted by a cycle, in decision order.
func ksAdmitOrder(ds []Decision) []string {
	out := []string{}
	for _, a := range admits(ds) {
		out = append(out, a.Workload.Name)
	}
	return out
}

// ksPreemptedAt adds a Preempted=True condition with a reason at Epoch+at, as
// a workload carries it after an earlier preemption.
func ksPreemptedAt(w *kueue.Workload, reason string, at time.Duration) *kueue.Workload {
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: "Preempted", Status: metav1.ConditionTrue,
		Reason: reason, LastTransitionTime: metav1.NewTime(Epoch.Add(at))})
	return w
}

// Kueue: pkg/scheduler/scheduler_test.go, TestEntryOrdering. Kueue sorts the
// heads of one cycle: a head that fits without borrowing first, then the one
// whose quota is found lower in the cohort tree, then higher priority, then
// the older. Here every head has a ClusterQueue of its own under one cohort
// tree, every head fits, and the order of the cycle's admissions is the order
// Kueue pops them. A borrowing level of 1 is quota found in the queue's
// cohort (ord-near), 2 in the root (ord) above an empty cohort (ord-far).
func TestKueueScheduleEntryOrdering(t *testing.T) {
	type ksEntry struct {
		name     string
		created  time.Duration
		priority int32
		level    int // 0: within the queue's nominal quota; 1, 2: borrowing level
		// preempted, when set, is the reason of an earlier Preempted
		// condition at preemptedAt.
		preempted   string
		preemptedAt time.Duration
		// evictedAt, when set, is when a PodsReady timeout evicted it.
		evictedAt time.Duration
	}
	build := func(t *testing.T, entries []ksEntry, opts ...Options) *Scheduler {
		objs := []any{
			MakeFlavor("default").Obj(),
			namespace{"default", nil},
			MakeCohort("ord").Quota("default", "cpu", "10").Obj(),
			MakeCohort("ord-near").Parent("ord").Quota("default", "cpu", "10").Obj(),
			MakeCohort("ord-far").Parent("ord").Obj(),
		}
		for _, e := range entries {
			cq := MakeClusterQueue("cq-"+e.name).Cohort("ord-near").Quota("default", "cpu", "1")
			switch e.level {
			case 1:
				cq = MakeClusterQueue("cq-"+e.name).Cohort("ord-near").Quota("default", "cpu", "0")
			case 2:
				cq = MakeClusterQueue("cq-"+e.name).Cohort("ord-far").Quota("default", "cpu", "0")
			}
			w := MakeWorkload("default", e.name).Queue("lq-"+e.name).Created(e.created).Priority(e.priority).Request("cpu", "1").Obj()
			if e.preempted != "" {
				ksPreemptedAt(w, e.preempted, e.preemptedAt)
			}
			if e.evictedAt != 0 {
				w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue,
					Reason: kueue.WorkloadEvictedByPodsReadyTimeout, LastTransitionTime: metav1.NewTime(Epoch.Add(e.evictedAt))})
			}
			objs = append(objs, cq.Obj(), MakeLocalQueue("default", "lq-"+e.name, "cq-"+e.name).Obj(), w)
		}
		o := Options{}
		if len(opts) > 0 {
			o = opts[0]
		}
		return world(t, o, objs...)
	}
	sec := time.Second

	// Kueue's input for its pods-ready cases: two workloads were evicted for
	// a PodsReady timeout at 2 s, one created at 0, one at 1 s.
	input := []ksEntry{
		{name: "old_borrowing", created: 0, level: 1},
		{name: "old", created: sec},
		{name: "new", created: 3 * sec},
		{name: "high_pri_borrowing", created: 3 * sec, priority: 1, level: 1},
		{name: "new_high_pri", created: 4 * sec, priority: 1},
		{name: "new_borrowing", created: 3 * sec, level: 1},
		{name: "evicted_borrowing", created: sec, level: 1, evictedAt: 2 * sec},
		{name: "recently_evicted", created: 0, evictedAt: 2 * sec},
		{name: "high_pri_borrowing_more", created: 3 * sec, priority: 1, level: 2},
	}
	// requeuingStrategy.timestamp Eviction (Kueue's default) orders a
	// workload evicted for a PodsReady timeout by its eviction; Creation by
	// its creation.
	podsReady := func(byEviction bool) Options {
		return Options{WaitForPodsReady: &WaitForPodsReady{Timeout: time.Hour, BackoffBase: time.Second, OrderByEviction: byEviction}}
	}
	t.Run("Priority sorting is enabled (default) using pods-ready Eviction timestamp (default)", func(t *testing.T) {
		s := build(t, input, podsReady(true))
		want := []string{"new_high_pri", "old", "recently_evicted", "new", "high_pri_borrowing", "old_borrowing", "evicted_borrowing", "new_borrowing", "high_pri_borrowing_more"}
		if got := ksAdmitOrder(s.Cycle(now)); !slices.Equal(got, want) {
			t.Errorf("admission order\n  got  %v\n  want %v", got, want)
		}
	})
	t.Run("Priority sorting is enabled (default) using pods-ready Creation timestamp", func(t *testing.T) {
		s := build(t, input, podsReady(false))
		ds := s.Cycle(now)
		want := []string{"new_high_pri", "recently_evicted", "old", "new", "high_pri_borrowing", "old_borrowing", "evicted_borrowing", "new_borrowing", "high_pri_borrowing_more"}
		if got := ksAdmitOrder(ds); !slices.Equal(got, want) {
			t.Errorf("admission order\n  got  %v\n  want %v", got, want)
		}
	})

	// With the PrioritySortingWithinCohort gate off, heads of different
	// queues are ordered by borrowing and arrival only.
	noPrio := func(o Options) Options { o.NoPrioritySortingWithinCohort = true; return o }
	t.Run("Priority sorting is disabled using pods-ready Eviction timestamp", func(t *testing.T) {
		s := build(t, input, noPrio(podsReady(true)))
		want := []string{"old", "recently_evicted", "new", "new_high_pri", "old_borrowing", "evicted_borrowing", "high_pri_borrowing", "new_borrowing", "high_pri_borrowing_more"}
		if got := ksAdmitOrder(s.Cycle(now)); !slices.Equal(got, want) {
			t.Errorf("admission order\n  got  %v\n  want %v", got, want)
		}
	})
	t.Run("Priority sorting is disabled using pods-ready Creation timestamp", func(t *testing.T) {
		s := build(t, input, noPrio(podsReady(false)))
		want := []string{"recently_evicted", "old", "new", "new_high_pri", "old_borrowing", "evicted_borrowing", "high_pri_borrowing", "new_borrowing", "high_pri_borrowing_more"}
		if got := ksAdmitOrder(s.Cycle(now)); !slices.Equal(got, want) {
			t.Errorf("admission order\n  got  %v\n  want %v", got, want)
		}
	})

	preemptedInput := []ksEntry{
		{name: "old-mid-recently-preempted-in-queue", priority: 1, preempted: kueue.InClusterQueueReason, preemptedAt: 5 * sec},
		{name: "old-mid-recently-reclaimed-while-borrowing", priority: 1, preempted: kueue.InCohortReclaimWhileBorrowingReason, preemptedAt: 6 * sec},
		{name: "old-mid-more-recently-reclaimed-while-borrowing", priority: 1, preempted: kueue.InCohortReclaimWhileBorrowingReason, preemptedAt: 7 * sec},
		{name: "old-mid-not-preempted-yet", created: sec, priority: 1},
		{name: "preemptor", created: 7 * sec, priority: 2},
	}
	// Without priority sorting, a workload preempted to reclaim what it
	// borrowed arrives again a millisecond after its preemption: the one
	// preempted at 7 s comes after the preemptor created at 7 s.
	t.Run("Some workloads are preempted; Priority sorting is disabled", func(t *testing.T) {
		s := build(t, preemptedInput, Options{NoPrioritySortingWithinCohort: true})
		want := []string{"old-mid-recently-preempted-in-queue", "old-mid-not-preempted-yet", "old-mid-recently-reclaimed-while-borrowing",
			"preemptor", "old-mid-more-recently-reclaimed-while-borrowing"}
		if got := ksAdmitOrder(s.Cycle(now)); !slices.Equal(got, want) {
			t.Errorf("admission order\n  got  %v\n  want %v", got, want)
		}
	})

	// With priority sorting, an earlier Preempted condition does not move a
	// workload back: the three preempted workloads keep their creation time.
	// Kueue's three ties (same priority and creation time) come out in any
	// order; they are compared as a set.
	t.Run("Some workloads are preempted; Priority sorting is enabled", func(t *testing.T) {
		s := build(t, preemptedInput)
		got := ksAdmitOrder(s.Cycle(now))
		if len(got) != 5 {
			t.Fatalf("admitted %v, want all five", got)
		}
		if got[0] != "preemptor" || got[4] != "old-mid-not-preempted-yet" {
			t.Errorf("admission order %v, want preemptor first and old-mid-not-preempted-yet last", got)
		}
		mid := slices.Clone(got[1:4])
		sort.Strings(mid)
		want := []string{"old-mid-more-recently-reclaimed-while-borrowing", "old-mid-recently-preempted-in-queue", "old-mid-recently-reclaimed-while-borrowing"}
		if !slices.Equal(mid, want) {
			t.Errorf("middle of the order %v, want %v", mid, want)
		}
	})
}

// Kueue: pkg/scheduler/scheduler_test.go, TestEntryComparerLess. With fair
// sharing, heads of one cohort are compared: a head whose queue would not
// borrow on the flavors it requests first, then the lower share after
// admission, then priority, then the older. Kueue's table compares two heads
// directly; here the two heads compete in one cycle for room that only one of
// them gets, so the one Kueue puts first is admitted and the other stays
// pending.
func TestKueueScheduleEntryComparerLess(t *testing.T) {
	fs := Options{FairSharing: &config.FairSharing{}}
	sec := time.Second
	base := func() []any {
		return []any{MakeFlavor("default").Obj(), namespace{"default", nil}}
	}
	cases := []struct {
		name        string
		objs        []any
		wantAdmit   string
		wantPending string
	}{
		{
			// nominal is younger but fits in its queue's nominal quota; borrowing
			// would borrow the only CPU of the cohort.
			name: "non-borrowing subtree preferred over borrowing subtree",
			objs: []any{
				MakeClusterQueue("nominal-cq").Cohort("test-cohort").Quota("default", "cpu", "1").Obj(),
				MakeClusterQueue("borrowing-cq").Cohort("test-cohort").Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("default", "nominal", "nominal-cq").Obj(),
				MakeLocalQueue("default", "borrowing", "borrowing-cq").Obj(),
				MakeWorkload("default", "nominal").Queue("nominal").Created(sec).Request("cpu", "1").Obj(),
				MakeWorkload("default", "borrowing").Queue("borrowing").Created(0).Request("cpu", "1").Obj(),
			},
			wantAdmit: "nominal", wantPending: "borrowing",
		},
		{
			// Both would borrow the lender's CPU, with equal shares: the older
			// goes first.
			name: "both borrowing on requested flavors falls through to FIFO",
			objs: []any{
				MakeClusterQueue("lender").Cohort("test-cohort").Quota("default", "cpu", "1").Obj(),
				MakeClusterQueue("cq-a").Cohort("test-cohort").Quota("default", "cpu", "0").Obj(),
				MakeClusterQueue("cq-b").Cohort("test-cohort").Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("default", "borrow-a", "cq-a").Obj(),
				MakeLocalQueue("default", "borrow-b", "cq-b").Obj(),
				MakeWorkload("default", "borrow-a").Queue("borrow-a").Created(sec).Request("cpu", "1").Obj(),
				MakeWorkload("default", "borrow-b").Queue("borrow-b").Created(0).Request("cpu", "1").Obj(),
			},
			wantAdmit: "borrow-b", wantPending: "borrow-a",
		},
		{
			// Kueue's case gives the heads synthetic shares; here both borrow
			// the lender's CPU and lower-drs's queue weighs twice as much, so its
			// share after admission is half: it goes first although younger.
			name: "lower DRS preferred over higher DRS",
			objs: []any{
				MakeClusterQueue("lender").Cohort("test-cohort").Quota("default", "cpu", "1").Obj(),
				MakeClusterQueue("cq-lower").Cohort("test-cohort").FairWeight("2").Quota("default", "cpu", "0").Obj(),
				MakeClusterQueue("cq-higher").Cohort("test-cohort").FairWeight("1").Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("default", "lower-drs", "cq-lower").Obj(),
				MakeLocalQueue("default", "higher-drs", "cq-higher").Obj(),
				MakeWorkload("default", "lower-drs").Queue("lower-drs").Created(sec).Request("cpu", "1").Obj(),
				MakeWorkload("default", "higher-drs").Queue("higher-drs").Created(0).Request("cpu", "1").Obj(),
			},
			wantAdmit: "lower-drs", wantPending: "higher-drs",
		},
		{
			// Both fit in their queues' nominal quota, but hog borrows one of
			// the cohort's two CPUs: the older goes first.
			name: "both non-borrowing falls through to FIFO",
			objs: []any{
				MakeClusterQueue("cq-older").Cohort("test-cohort").Quota("default", "cpu", "1").Obj(),
				MakeClusterQueue("cq-newer").Cohort("test-cohort").Quota("default", "cpu", "1").Obj(),
				MakeClusterQueue("hog").Cohort("test-cohort").Quota("default", "cpu", "0").Obj(),
				MakeLocalQueue("default", "older", "cq-older").Obj(),
				MakeLocalQueue("default", "newer", "cq-newer").Obj(),
				ksAdmitted(MakeWorkload("default", "hogging").Request("cpu", "1"), "hog", "default"),
				MakeWorkload("default", "older").Queue("older").Created(0).Request("cpu", "1").Obj(),
				MakeWorkload("default", "newer").Queue("newer").Created(sec).Request("cpu", "1").Obj(),
			},
			wantAdmit: "older", wantPending: "newer",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, fs, append(base(), tc.objs...)...)
			ds := s.Cycle(now)
			if got := ksAdmitOrder(ds); !slices.Equal(got, []string{tc.wantAdmit}) {
				t.Errorf("admitted %v, want [%s]; decisions %+v", got, tc.wantAdmit, ds)
			}
			if _, ok := pendingFor(ds, tc.wantPending); !ok {
				t.Errorf("%s: no pending decision; decisions %+v", tc.wantPending, ds)
			}
			if len(preempts(ds)) != 0 {
				t.Errorf("unexpected preemptions %+v", preempts(ds))
			}
		})
	}
}

// Kueue: pkg/scheduler/scheduler_test.go, TestResourcesToReserve. A workload
// that needs preemption and finds no candidate, in a ClusterQueue that cannot
// always reclaim (reclaimWithinCohort is not Any), holds quota for the rest of
// the cycle: when it would not borrow, min(request, nominal - usage) of each
// flavor-resource it was assigned; when it would borrow, min(request, nominal
// + borrowingLimit - usage), or the whole request without a borrowing limit.
// Kueue's table checks the amounts directly; here they show as how much of
// the cohort another queue's borrowing workload, considered later in the same
// cycle, can still take. cq is Kueue's queue of the table: on-demand (100)
// and spot (0, borrowing up to 100) memory, model-a (10, no borrowing) and
// model-b (10, borrowing up to 5) GPUs.
func TestKueueScheduleResourcesToReserve(t *testing.T) {
	cq := func() *ClusterQueueWrapper {
		return MakeClusterQueue("cq").Cohort("eng").Strategy(kueue.StrictFIFO).
			Quota("on-demand", "memory", "100").
			Quota("spot", "memory", "0", Borrowing("100")).
			Quota("model-a", "gpu", "10", Borrowing("0")).
			Quota("model-b", "gpu", "10", Borrowing("5"))
	}
	base := func() []any {
		return []any{
			MakeFlavor("on-demand").NodeLabel("instance", "on-demand").Obj(),
			MakeFlavor("spot").NodeLabel("instance", "spot").Obj(),
			MakeFlavor("model-a").Obj(), MakeFlavor("model-b").Obj(),
			namespace{"default-namespace", nil},
			MakeLocalQueue("default-namespace", "cq", "cq").Obj(),
			MakeLocalQueue("default-namespace", "other", "other").Obj(),
		}
	}
	// preemptor is the workload that needs preemption: a memory pod set,
	// optionally bound to spot by a node selector, and a GPU pod set unless
	// gpus is "".
	preemptor := func(memory string, onSpot bool, gpus string) *kueue.Workload {
		w := MakeWorkload("default-namespace", "preemptor").Queue("cq").PodSet("memory", 1).Request("memory", memory)
		if onSpot {
			w.NodeSelector("instance", "spot")
		}
		if gpus != "" {
			w.PodSet("gpu", 1).Request("gpu", gpus)
		}
		return w.Obj()
	}
	// other borrows everything it gets; its workloads have a lower priority
	// than the preemptor, so that they come after it when both borrow.
	other := MakeClusterQueue("other").Cohort("eng").
		Quota("on-demand", "memory", "0").Quota("spot", "memory", "0").
		Quota("model-a", "gpu", "0").Quota("model-b", "gpu", "0")
	ask := func(name string, res, q string) *kueue.Workload {
		return MakeWorkload("default-namespace", name).Queue("other").Priority(-1).Request(corev1.ResourceName(res), q).Obj()
	}

	// Within nominal: cq uses 60 of its 100 on-demand memory, other borrows
	// 30 of the rest, and the preemptor asks 30 (it fits cq's nominal quota
	// but not the 10 left in the cohort; cq's policies let it preempt
	// nobody). Its GPUs fit in model-a (model-b is full). It holds
	// min(30, 100-60) = 30 memory, more than the cohort has left, and
	// min(2, 10-2) = 2 model-a GPUs, which leaves 6 of model-a's 10.
	withinNominal := []any{
		cq().Obj(), other.Obj(),
		ksAdmitted(MakeWorkload("default-namespace", "workload-0").Request("memory", "60"), "cq", "on-demand"),
		ksAdmitted(MakeWorkload("default-namespace", "workload-1").Request("gpu", "2"), "cq", "model-a"),
		ksAdmitted(MakeWorkload("default-namespace", "workload-2").Request("gpu", "10"), "cq", "model-b"),
		ksAdmitted(MakeWorkload("default-namespace", "borrowed").Request("memory", "30"), "other", "on-demand"),
		preemptor("30", false, "2"),
	}
	// Borrowing: the preemptor asks 50 spot memory (its node selector rules
	// out on-demand, which cq uses entirely anyway), where cq uses 60 of the
	// 100 it may borrow; cq may preempt while borrowing, but no workload is a
	// candidate. Its 2 GPUs go to model-b by borrowing (model-a is full).
	// lender has 300 spot memory and uses 100, and 10 model-b GPUs. The
	// preemptor holds min(50, 0+100-60) = 40 spot memory and
	// min(2, 10+5-10) = 2 model-b GPUs: of the cohort's 140 spot memory left,
	// 100 stay usable, and of model-b's 10, 8.
	borrowing := []any{
		cq().BorrowWithinCohort(nil).Obj(), other.Obj(),
		MakeClusterQueue("lender").Cohort("eng").Quota("spot", "memory", "300").Quota("model-b", "gpu", "10").Obj(),
		ksAdmitted(MakeWorkload("default-namespace", "workload-0").Request("memory", "100"), "cq", "on-demand"),
		ksAdmitted(MakeWorkload("default-namespace", "workload-1").Request("memory", "60"), "cq", "spot"),
		ksAdmitted(MakeWorkload("default-namespace", "workload-2").Request("gpu", "10"), "cq", "model-a"),
		ksAdmitted(MakeWorkload("default-namespace", "workload-3").Request("gpu", "10"), "cq", "model-b"),
		ksAdmitted(MakeWorkload("default-namespace", "lent").Request("memory", "100"), "lender", "spot"),
		preemptor("50", true, "2"),
	}
	// No borrowing limit: the preemptor asks 50 on-demand memory, where cq
	// uses 60 of its 100 and lender, with 20 of its own, uses them: 40 left
	// in the cohort. It would borrow, and on-demand has no borrowing limit:
	// it holds its whole request.
	noLimit := []any{
		cq().Obj(), other.Obj(),
		MakeClusterQueue("lender").Cohort("eng").Quota("on-demand", "memory", "20").Obj(),
		ksAdmitted(MakeWorkload("default-namespace", "workload-0").Request("memory", "60"), "cq", "on-demand"),
		ksAdmitted(MakeWorkload("default-namespace", "lent").Request("memory", "20"), "lender", "on-demand"),
		preemptor("50", false, ""),
	}

	cases := []struct {
		name        string
		objs        []any
		asks        []*kueue.Workload
		wantAdmit   []string
		wantPending []string
		// wantSkipped fit without the hold and not with it: Kueue skips
		// them ("Workload no longer fits after processing another
		// workload"), it does not look for another flavor or for victims.
		wantSkipped []string
	}{
		{
			name:        "Reserved memory equal assignment usage, assignment preempts: what is left beside the hold is usable",
			objs:        withinNominal,
			asks:        []*kueue.Workload{ask("memory-10", "memory", "10"), ask("gpu-6", "gpu", "6")},
			wantAdmit:   []string{"gpu-6"},
			wantPending: []string{"memory-10", "preemptor"},
			wantSkipped: []string{"memory-10"},
		},
		{
			name:        "Reserved memory equal assignment usage, assignment preempts: the held memory is not lent",
			objs:        withinNominal,
			asks:        []*kueue.Workload{ask("memory-1", "memory", "1")},
			wantAdmit:   []string{},
			wantPending: []string{"memory-1", "preemptor"},
			wantSkipped: []string{"memory-1"},
		},
		{
			name:        "Reserved memory equal assignment usage, assignment preempts: the held GPUs are not lent",
			objs:        withinNominal,
			asks:        []*kueue.Workload{ask("gpu-7", "gpu", "7")},
			wantAdmit:   []string{},
			wantPending: []string{"gpu-7", "preemptor"},
			wantSkipped: []string{"gpu-7"},
		},
		{
			// Kueue requeues a skipped head at the head of its queue: the
			// queue's next workload is not looked at in this cycle.
			name:        "Reserved memory equal assignment usage, assignment preempts: a skipped head keeps its queue's next workload waiting",
			objs:        withinNominal,
			asks:        []*kueue.Workload{ask("memory-1", "memory", "1"), ask("gpu-7", "gpu", "7")},
			wantAdmit:   []string{},
			wantPending: []string{"gpu-7", "preemptor"},
			wantSkipped: []string{"gpu-7"},
		},
		{
			name:        "Reserved memory cut by nominal+borrowing quota, assignment preempts and borrows: what is left beside the hold is usable",
			objs:        borrowing,
			asks:        []*kueue.Workload{ask("memory-100", "memory", "100"), ask("gpu-8", "gpu", "8")},
			wantAdmit:   []string{"gpu-8", "memory-100"},
			wantPending: []string{"preemptor"},
		},
		{
			name:        "Reserved memory cut by nominal+borrowing quota, assignment preempts and borrows: the held memory is not lent",
			objs:        borrowing,
			asks:        []*kueue.Workload{ask("memory-101", "memory", "101")},
			wantAdmit:   []string{},
			wantPending: []string{"memory-101", "preemptor"},
			wantSkipped: []string{"memory-101"},
		},
		{
			name:        "Reserved memory cut by nominal+borrowing quota, assignment preempts and borrows: the held GPUs are not lent",
			objs:        borrowing,
			asks:        []*kueue.Workload{ask("gpu-9", "gpu", "9")},
			wantAdmit:   []string{},
			wantPending: []string{"gpu-9", "preemptor"},
			wantSkipped: []string{"gpu-9"},
		},
		{
			name:        "Reserved memory equal assignment usage, CQ borrowing limit is nil",
			objs:        noLimit,
			asks:        []*kueue.Workload{ask("memory-1", "memory", "1")},
			wantAdmit:   []string{},
			wantPending: []string{"memory-1", "preemptor"},
			wantSkipped: []string{"memory-1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(base(), tc.objs...)
			for _, a := range tc.asks {
				objs = append(objs, a)
			}
			s := world(t, Options{}, objs...)
			ds := s.Cycle(now)
			got := ksAdmitOrder(ds)
			sort.Strings(got)
			if !slices.Equal(got, tc.wantAdmit) {
				t.Errorf("admitted %v, want %v", got, tc.wantAdmit)
			}
			var pending, skipped []string
			for _, d := range ds {
				if p, ok := d.(Pending); ok {
					pending = append(pending, p.Workload.Name)
					if p.Message == skippedMessage {
						skipped = append(skipped, p.Workload.Name)
					}
				}
			}
			sort.Strings(pending)
			if !slices.Equal(pending, tc.wantPending) {
				t.Errorf("pending %v, want %v", pending, tc.wantPending)
			}
			if !slices.Equal(skipped, tc.wantSkipped) {
				t.Errorf("skipped %v, want %v", skipped, tc.wantSkipped)
			}
			if len(preempts(ds)) != 0 {
				t.Errorf("unexpected preemptions %+v", preempts(ds))
			}
			if t.Failed() {
				t.Logf("decisions %+v", ds)
			}
		})
	}
}
