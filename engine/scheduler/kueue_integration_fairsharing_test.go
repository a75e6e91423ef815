package scheduler

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// kiFairSharing is the fair-sharing suite's configuration: fairSharing is set
// with no strategies (Kueue's default pair), and admission fair sharing
// samples every second with the given half-life (nil turns it off).
func kiFairSharing(halfLife time.Duration) Options {
	o := Options{FairSharing: &config.FairSharing{}}
	if halfLife > 0 {
		o.AdmissionFairSharing = &config.AdmissionFairSharing{
			UsageHalfLifeTime:     metav1.Duration{Duration: halfLife},
			UsageSamplingInterval: metav1.Duration{Duration: time.Second},
		}
	}
	return o
}

// kiFSObjects are the suite's flavors; each ClusterQueue gets a LocalQueue of
// the same name (the suite's createQueue).
func kiFSObjects(cqs ...*ClusterQueueWrapper) []any {
	objs := []any{MakeFlavor("default").Obj(), MakeFlavor("flavor1").Obj(), MakeFlavor("flavor2").Obj()}
	for _, cq := range cqs {
		objs = append(objs, cq.Obj(), kiLQ(cq.Name, cq.Name))
	}
	return objs
}

// kiCreateN creates n one-pod workloads named prefix-1.. in LocalQueue lq,
// with cpu and priority, and returns their names.
func (e *kiEnv) kiCreateN(prefix, lq string, n int, cpu string, prio int32) []string {
	e.t.Helper()
	names := kiNames(prefix, n)
	for _, name := range names {
		e.create(kiWl(name, lq, prio, cpu))
	}
	return names
}

// shares checks the weighted shares of ClusterQueues (status.fairSharing:
// per thousand, rounded up). Later steps do not depend on them, so a
// mismatch does not stop the test.
func (e *kiEnv) shares(want map[string]int64) {
	e.t.Helper()
	var bad []string
	for _, cq := range kiSortedKeys(want) {
		if got := weightedShare(e.t, e.s, cq); got != want[cq] {
			bad = append(bad, fmt.Sprintf("%s %d (want %d)", cq, got, want[cq]))
		}
	}
	if len(bad) > 0 {
		e.t.Errorf("weighted shares: %s", strings.Join(bad, ", "))
	}
}

// cohortShares checks the weighted shares of Cohorts.
func (e *kiEnv) cohortShares(want map[string]int64) {
	e.t.Helper()
	var bad []string
	for _, c := range kiSortedKeys(want) {
		v, ok := e.s.CohortSnapshot(c)
		if !ok {
			e.t.Fatalf("no Cohort %s", c)
		}
		if v.WeightedShare != want[c] {
			bad = append(bad, fmt.Sprintf("%s %d (want %d)", c, v.WeightedShare, want[c]))
		}
	}
	if len(bad) > 0 {
		e.t.Errorf("cohort weighted shares: %s", strings.Join(bad, ", "))
	}
}

func kiSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// kiCeil is Kueue's status value of a share: per thousand, rounded up.
func kiCeil(f float64) int64 { return int64(math.Ceil(f)) }

// consumed returns a LocalQueue's admission fair sharing usage of cpu, in
// milli-cpus (nil usage is -1).
func (e *kiEnv) consumed(lq string) int64 {
	e.t.Helper()
	v, ok := e.s.LocalQueueSnapshot(kiNS, lq)
	if !ok {
		e.t.Fatalf("no LocalQueue %s", lq)
	}
	if v.ConsumedResources == nil {
		return -1
	}
	q := v.ConsumedResources[corev1.ResourceCPU]
	return q.MilliValue()
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/fair_sharing_test.go,
// Describe "Scheduler", When "Preemption is disabled": a (3 cpus), b (1) and
// shared (4) in cohort all.
func TestKueueIntegrationFairSharingPreemptionIsDisabled(t *testing.T) {
	disabled := func(t *testing.T) *kiEnv {
		return kiNewEnv(t, kiFairSharing(time.Second), kiFSObjects(
			MakeClusterQueue("a").Cohort("all").Quota("default", corev1.ResourceCPU, "3"),
			MakeClusterQueue("b").Cohort("all").Quota("default", corev1.ResourceCPU, "1"),
			MakeClusterQueue("shared").Cohort("all").Quota("default", corev1.ResourceCPU, "4"))...)
	}

	// It "Admits workloads respecting fair share".
	t.Run("Admits workloads respecting fair share", func(t *testing.T) {
		e := disabled(t)
		as := e.kiCreateN("a", "a", 10, "1", 0)
		e.step("saturating a", as[:8], nil)
		e.counts("a", 8, 2)
		e.shares(map[string]int64{"a": 625, "b": 0, "shared": 0})

		bs := e.kiCreateN("b", "b", 5, "1", 0)
		e.step("newer workloads in b", nil, nil)
		e.counts("b", 0, 5)
		e.shares(map[string]int64{"a": 625, "b": 0, "shared": 0})

		// Each finished workload of a frees one cpu: b gets the first three
		// (its share after admission is lower), a the fourth.
		for i, want := range [][]string{{"b-1"}, {"b-2"}, {"b-3"}, {"a-9"}} {
			e.finishRunningInCQ("a", 1)
			e.step(fmt.Sprintf("finished %d running workloads of a", i+1), want, nil)
		}
		e.counts("a", 5, 1)
		e.counts("b", 3, 2)
		e.shares(map[string]int64{"a": 250, "b": 250, "shared": 0})

		e.finishRunningInCQ("a", 2)
		e.step("two more of a finished: a's last and one of b", []string{"a-10", "b-4"}, nil)
		e.counts("a", 4, 0)
		e.counts("b", 4, 1)
		e.shares(map[string]int64{"a": 125, "b": 375, "shared": 0})
		e.pending(bs[4])
	})

	// It "Shouldn't reserve quota because not enough resources": the request
	// is larger than the cohort's 8 cpus.
	t.Run("Shouldn't reserve quota because not enough resources", func(t *testing.T) {
		e := disabled(t)
		e.create(kiWl("wl", "a", 0, "10"))
		ds := e.step("a workload of 10 cpus", nil, nil)
		mustPending(t, ds, "wl", ReasonExceedsMaximumQuota)
	})
}

// Kueue: fair_sharing_test.go, When "Preemption is enabled", It "Admits
// workloads respecting fair share": a, b and c have 3 cpus each and preempt
// Any in the cohort, LowerPriority within. Kueue evicts a's workloads one
// preemptor at a time; Quokka's cycle settles every preemptor of b at once.
func TestKueueIntegrationFairSharingPreemptionIsEnabled(t *testing.T) {
	t.Run("Admits workloads respecting fair share", func(t *testing.T) {
		q := func(name string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort("all").Quota("default", corev1.ResourceCPU, "3").Preemption(any_, lower)
		}
		e := kiNewEnv(t, kiFairSharing(time.Second), kiFSObjects(q("a"), q("b"), q("c"))...)
		as := e.kiCreateN("a", "a", 10, "1", 0)
		e.step("saturating a", as[:9], nil)
		e.counts("a", 9, 1)
		e.shares(map[string]int64{"a": kiCeil(6000.0 / 9), "b": 0, "c": 0})

		bs := e.kiCreateN("b", "b", 5, "1", 0)
		ds := e.cycle()
		if got := admittedNames(ds); len(got) != 0 {
			t.Fatalf("newer workloads in b: admitted %v while preempting", got)
		}
		e.counts("b", 0, 5)
		e.finishEvictionsInCQ("a", 4)
		e.step("after the evictions", bs[:4], nil)
		e.counts("b", 4, 1)
		e.shares(map[string]int64{"a": kiCeil(2000.0 / 9), "b": kiCeil(1000.0 / 9), "c": 0})

		e.create(MakeWorkload(kiNS, "c0").Queue("c").Request(corev1.ResourceCPU, "1"))
		ds = e.cycle()
		if vs := kiVictims(ds, false); len(vs) != 1 || len(kiPrefixed(vs, "a-")) != 1 || len(admittedNames(ds)) != 0 {
			t.Fatalf("c reclaims one unit: victims %v, admitted %v; want one of a's and no admission", vs, admittedNames(ds))
		}
		e.counts("c", 0, 1)
		e.shares(map[string]int64{"a": kiCeil(2000.0 / 9), "b": kiCeil(1000.0 / 9), "c": 0})
		e.finishEvictionsInCQ("a", 1)
		e.step("after the eviction", []string{"c0"}, nil)
		e.counts("c", 1, 0)
		e.shares(map[string]int64{"a": 112, "b": kiCeil(1000.0 / 9), "c": 0})
	})
}

// Kueue: fair_sharing_test.go, When "Preemption is enabled and CQs have 0
// weight": cohort top-cohort holds 8 cpus; two best-effort queues of weight 0
// and no quota reclaim Any.
func TestKueueIntegrationFairSharingPreemptionIsEnabledAndCQsHave0Weight(t *testing.T) {
	zero := func(t *testing.T) *kiEnv {
		q := func(name string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort("top-cohort").FairWeight("0").Preemption(any_, never).Quota("default", corev1.ResourceCPU, "0")
		}
		objs := kiFSObjects(q("best-effort-cq-a"), q("best-effort-cq-b"))
		objs = append(objs, MakeCohort("top-cohort").Quota("default", corev1.ResourceCPU, "8").Obj())
		return kiNewEnv(t, kiFairSharing(time.Second), objs...)
	}

	// It "should not cause an infinite preemption cycle".
	t.Run("should not cause an infinite preemption cycle", func(t *testing.T) {
		e := zero(t)
		e.create(kiWl("wl-a1", "best-effort-cq-a", 9001, "4"), kiWl("wl-a2", "best-effort-cq-a", 100, "4"))
		e.step("two workloads in a", []string{"wl-a1", "wl-a2"}, nil)
		e.admittedTotal("best-effort-cq-a", 2)
		e.counts("best-effort-cq-a", 2, 0)
		e.admittedTotal("best-effort-cq-b", 0)

		e.create(kiWl("wl-b1", "best-effort-cq-b", 100, "4"))
		e.step("a workload in b preempts one of a", nil, []string{"wl-a2:InCohortFairSharing"})
		e.finishEviction("wl-a2")
		e.step("after the eviction", []string{"wl-b1"}, nil)
		e.counts("best-effort-cq-a", 1, 1)
		e.counts("best-effort-cq-b", 1, 0)
		for i := range 3 {
			e.step(fmt.Sprintf("no more preemptions (%d)", i), nil, nil)
		}
	})

	// It "should have NaN weighted share metric": a borrowing queue of weight 0
	// has an infinite share, which Kueue's metric shows as NaN.
	t.Run("should have NaN weighted share metric", func(t *testing.T) {
		e := zero(t)
		e.create(kiWl("wl-a1", "best-effort-cq-a", 100, "4"))
		e.step("a workload in a", []string{"wl-a1"}, nil)
		e.admittedTotal("best-effort-cq-a", 1)
		e.shares(map[string]int64{"best-effort-cq-a": math.MaxInt64})
	})
}

// Kueue: fair_sharing_test.go, When "RecomputeAssignmentUponPreemptionTargetsOverlap
// with multiple flavors", It "hero workload sticks to preferred flavor if
// overlap resolved": cq-hero (100 cpus of flavor1 and of flavor2), cq-tiny (50
// and 50) and cq-rest (0 and 0) in cohort-a, all reclaiming Any.
func TestKueueIntegrationFairSharingRecomputeAssignmentUponPreemptionTargetsOverlapWithMultipleFlavors(t *testing.T) {
	t.Run("hero workload sticks to preferred flavor if overlap resolved", func(t *testing.T) {
		q := func(name, nominal string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort("cohort-a").Quota("flavor1", corev1.ResourceCPU, nominal).
				Quota("flavor2", corev1.ResourceCPU, nominal).Preemption(any_, lower)
		}
		objs := kiFSObjects(q("cq-hero", "100"), q("cq-tiny", "50"), q("cq-rest", "0"))
		objs = append(objs, MakeCohort("cohort-a").Obj())
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		e.create(kiWl("wl-a", "cq-rest", 10, "150"))
		e.step("wlA", []string{"wl-a"}, nil)
		e.holds("cq-rest", "flavor1", "wl-a")
		e.create(kiWl("wl-b", "cq-rest", 10, "150"))
		e.step("wlB", []string{"wl-b"}, nil)
		e.holds("cq-rest", "flavor2", "wl-b")

		e.create(kiWl("wl-hero", "cq-hero", 100, "100"), kiWl("wl-tiny", "cq-tiny", 50, "50"))
		e.step("competing workloads", nil, []string{"wl-a"})
		e.finishEviction("wl-a")
		e.step("after the eviction", []string{"wl-hero", "wl-tiny"}, nil)
		e.holds("cq-hero", "flavor1", "wl-hero")
		e.holds("cq-tiny", "flavor1", "wl-tiny")
		e.holds("cq-rest", "flavor2", "wl-b")
	})
}

// Kueue: fair_sharing_test.go, When "using hierarchical cohorts".
func TestKueueIntegrationFairSharingUsingHierarchicalCohorts(t *testing.T) {
	// It "admits workloads respecting fair share": root has first-left (with
	// second-left and second-right, each holding a queue of 2 cpus) and
	// first-right (with bank, 10 cpus).
	t.Run("admits workloads respecting fair share", func(t *testing.T) {
		objs := kiFSObjects(
			MakeClusterQueue("second-left").Cohort("second-left").Quota("default", corev1.ResourceCPU, "2"),
			MakeClusterQueue("second-right").Cohort("second-right").Quota("default", corev1.ResourceCPU, "2"))
		objs = append(objs, MakeCohort("first-left").Parent("root").Obj(), MakeCohort("first-right").Parent("root").Obj(),
			MakeCohort("second-left").Parent("first-left").Obj(), MakeCohort("second-right").Parent("first-left").Obj(),
			MakeCohort("bank").Parent("first-right").Quota("default", corev1.ResourceCPU, "10").Obj())
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		e.cohortShares(map[string]int64{"first-left": 0, "first-right": 0, "bank": 0})
		var all []string
		for i := range 5 {
			l, r := fmt.Sprintf("left-%d", i+1), fmt.Sprintf("right-%d", i+1)
			e.create(kiWl(l, "second-left", 0, "1"), kiWl(r, "second-right", 0, "1"))
			all = append(all, l, r)
		}
		e.step("round-robin workloads", all, nil)
		e.admittedTotal("second-left", 5)
		e.counts("second-left", 5, 0)
		e.admittedTotal("second-right", 5)
		e.counts("second-right", 5, 0)
		e.cohortShares(map[string]int64{"first-left": kiCeil(6000.0 / 14), "first-right": 0,
			"second-left": kiCeil(3000.0 / 14), "second-right": kiCeil(3000.0 / 14), "bank": 0})
	})

	// It "preempts workloads to enforce fair share": root holds 12 cpus;
	// best-effort (weight 0.5) and research (chemistry, physics, llm of weight
	// 2) under it, each with one queue of no quota; the research queues reclaim
	// LowerPriority. Kueue's FinishEvictionOfWorkloadsInCQ waits until two of
	// best-effort's and four of physics' workloads are evicted; here cycles
	// run, each confirming the evictions it asked for, until none is asked.
	t.Run("preempts workloads to enforce fair share", func(t *testing.T) {
		research := func(name string) *ClusterQueueWrapper {
			return MakeClusterQueue(name+"-queue").Cohort(name).Quota("default", corev1.ResourceCPU, "0").Preemption(lower, never)
		}
		objs := kiFSObjects(research("chemistry"), research("physics"), research("llm"),
			MakeClusterQueue("best-effort-queue").Cohort("best-effort").Quota("default", corev1.ResourceCPU, "0"))
		objs = append(objs, MakeCohort("root").Quota("default", corev1.ResourceCPU, "12").Obj(),
			MakeCohort("research").Parent("root").Obj(),
			MakeCohort("chemistry").Parent("research").Obj(),
			MakeCohort("physics").Parent("research").Obj(),
			MakeCohort("llm").FairWeight("2.0").Parent("research").Obj(),
			MakeCohort("best-effort").FairWeight("0.5").Parent("root").Obj())
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		var low []string
		for i := range 6 {
			b, p := fmt.Sprintf("best-effort-low-%d", i+1), fmt.Sprintf("physics-low-%d", i+1)
			e.create(kiWl(b, "best-effort-queue", -1, "1"), kiWl(p, "physics-queue", -1, "1"))
			low = append(low, b, p)
		}
		e.step("all capacity used", low, nil)
		e.cohortShares(map[string]int64{"best-effort": 1000, "physics": 500})
		e.admittedTotal("best-effort-queue", 6)
		e.admittedTotal("physics-queue", 6)

		for i := range 6 {
			for _, q := range []string{"chemistry", "physics", "llm", "best-effort"} {
				e.create(kiWl(fmt.Sprintf("%s-high-%d", q, i+1), q+"-queue", 100, "1"))
			}
		}
		evicted := map[string]int{}
		for i := 0; ; i++ {
			if i == 10 {
				t.Fatalf("preemptions still going on after 10 cycles: %v evicted", evicted)
			}
			ds := e.cycle()
			for _, d := range ds {
				switch d := d.(type) {
				case Admit:
					t.Logf("cycle %d admit %s", i, d.Workload.Name)
				case Preempt:
					for _, v := range d.Victims {
						t.Logf("cycle %d %s preempts %s", i, d.Preemptor.Name, v.Workload.Name)
					}
				}
			}
			if len(preempts(ds)) == 0 && len(e.inflight) == 0 {
				break
			}
			for v, q := range e.inflight {
				evicted[q]++
				e.s.EvictWorkload(e.key(v))
				delete(e.inflight, v)
			}
		}
		if evicted["best-effort-queue"] != 2 || evicted["physics-queue"] != 4 || len(evicted) != 2 {
			t.Errorf("evicted per queue %v, want 2 of best-effort-queue and 4 of physics-queue", evicted)
		}
		// Share is fair with respect to each parent.
		e.cohortShares(map[string]int64{
			"best-effort": kiCeil(4000.0 / 12 / 0.5), "research": kiCeil(8000.0 / 12),
			"chemistry": kiCeil(2000.0 / 12), "physics": kiCeil(2000.0 / 12), "llm": kiCeil(4000.0 / 12 / 2)})
		// Number of workloads admitted proportional to share at each level.
		got := map[string]int{}
		for _, q := range []string{"best-effort-queue", "chemistry-queue", "physics-queue", "llm-queue"} {
			got[q] = len(e.holdingIn(q))
		}
		if want := map[string]int{"best-effort-queue": 4, "chemistry-queue": 2, "physics-queue": 2, "llm-queue": 4}; !maps.Equal(got, want) {
			t.Fatalf("admitted per queue %v, want %v (admitted: physics %v)", got, want, e.holdingIn("physics-queue"))
		}
	})
}

// Kueue: fair_sharing_test.go, When "using hierarchical cohorts with several
// flavors", It "Prefers flavor with remaining guarantees at Cohort level":
// cohort-a and cohort-b under root-cohort lend nothing of their own (0 cpus of
// flavor1 and flavor2, borrowing up to 10); cohort-a's queues hold 8 cpus of
// flavor1 and 10 of flavor2, cohort-b's 2 of flavor1. cq-p1's 18 workloads fit
// in cohort-a's guarantees, so cohort-a borrows nothing.
func TestKueueIntegrationFairSharingUsingHierarchicalCohortsWithSeveralFlavors(t *testing.T) {
	t.Run("Prefers flavor with remaining guarantees at Cohort level", func(t *testing.T) {
		q := func(name, cohort, f1, f2 string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort(cohort).FairWeight("1").
				Quota("flavor1", corev1.ResourceCPU, f1, Borrowing("10")).Quota("flavor2", corev1.ResourceCPU, f2, Borrowing("10")).
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preemption(any_, lower)
		}
		c := func(name string) *kueue.Cohort {
			return MakeCohort(name).Parent("root-cohort").FairWeight("1").
				Quota("flavor1", corev1.ResourceCPU, "0", Borrowing("10")).Quota("flavor2", corev1.ResourceCPU, "0", Borrowing("10")).Obj()
		}
		objs := kiFSObjects(q("cq-p1", "cohort-a", "3", "3"), q("cq-p2", "cohort-a", "3", "3"), q("cq-p3", "cohort-a", "2", "4"),
			q("cq-p4", "cohort-b", "2", "0"))
		objs = append(objs, MakeCohort("root-cohort").Obj(), c("cohort-a"), c("cohort-b"))
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		ws := e.kiCreateN("wl", "cq-p1", 18, "1", 0)
		e.step("18 workloads in cq-p1", ws, nil)
		e.admittedTotal("cq-p1", 18)
		e.counts("cq-p1", 18, 0)
		e.shares(map[string]int64{"cq-p1": 600})
		e.cohortShares(map[string]int64{"cohort-a": 0})
	})
}

// Kueue: fair_sharing_test.go, When "ClusterQueue head is ineligible for
// admission due to DominantResourceShare" (kueue#7101): cohort-a (9 cpus of
// flavor1, under root-cohort) holds cq-p1 and cq-p2, with no quota, reclaiming
// Any. cq-p1 runs four 2-cpu workloads.
func TestKueueIntegrationFairSharingClusterQueueHeadIsIneligibleForAdmissionDueToDominantResourceShare(t *testing.T) {
	setup := func(t *testing.T) *kiEnv {
		q := func(name string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort("cohort-a").FairWeight("1").Quota("flavor1", corev1.ResourceCPU, "0").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preemption(any_, lower)
		}
		objs := kiFSObjects(q("cq-p1"), q("cq-p2"))
		objs = append(objs, MakeCohort("cohort-a").Parent("root-cohort").FairWeight("1").Quota("flavor1", corev1.ResourceCPU, "9").Obj())
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		p1 := e.kiCreateN("p1", "cq-p1", 4, "2", 0)
		e.step("workloads in queue1", p1, nil)
		e.admittedTotal("cq-p1", 4)
		return e
	}
	// blocked creates cq-p2's high-priority heads, which find no admissible
	// preemption.
	blocked := func(e *kiEnv, cpus ...string) {
		e.t.Helper()
		for i, c := range cpus {
			e.create(kiWl(fmt.Sprintf("p2-blocker-%d", i+1), "cq-p2", 999, c))
		}
		e.step("higher priority workloads in queue2", nil, nil)
		e.admittedTotal("cq-p2", 0)
	}
	// admissible creates the admissible workload of cq-p2, completes the two
	// preemptions and checks the result.
	admissible := func(e *kiEnv, cpu string, p2Share int64) {
		e.t.Helper()
		e.create(kiWl("p2-admissible", "cq-p2", 0, cpu))
		ds := e.cycle()
		if vs := kiVictims(ds, false); len(vs) != 2 || len(kiPrefixed(vs, "p1-")) != 2 {
			e.t.Fatalf("victims %v, want two of cq-p1's; decisions %v", vs, ds)
		}
		e.finishEvictionsInCQ("cq-p1", 2)
		e.step("after the evictions", []string{"p2-admissible"}, nil)
		e.admittedTotal("cq-p1", 4)
		e.admittedTotal("cq-p2", 1)
		e.shares(map[string]int64{"cq-p1": kiCeil(4000.0 / 9), "cq-p2": p2Share})
	}

	// It "workload of size 5 preempts using LessThanInitialShare policy and admits".
	t.Run("workload of size 5 preempts using LessThanInitialShare policy and admits", func(t *testing.T) {
		admissible(setup(t), "5", kiCeil(5000.0/9))
	})
	// It "workload of size 5 admits with inadmissible higher priority workload at ClusterQueue head".
	t.Run("workload of size 5 admits with inadmissible higher priority workload at ClusterQueue head", func(t *testing.T) {
		e := setup(t)
		blocked(e, "6")
		admissible(e, "5", kiCeil(5000.0/9))
	})
	// It "workload of size 4 admits with inadmissible higher priority workload at ClusterQueue head".
	t.Run("workload of size 4 admits with inadmissible higher priority workload at ClusterQueue head", func(t *testing.T) {
		e := setup(t)
		blocked(e, "6")
		admissible(e, "4", kiCeil(4000.0/9))
	})
	// It "workload admits when several higher priority blocking workloads in front".
	t.Run("workload admits when several higher priority blocking workloads in front", func(t *testing.T) {
		e := setup(t)
		blocked(e, "7", "6")
		admissible(e, "5", kiCeil(5000.0/9))
	})
}

// Kueue: fair_sharing_test.go, When "ClusterQueue head has inadmissible
// workload" (kueue#6929): cohort-a (3 cpus of flavor1, under root) holds cq1;
// cq2 is in root; neither has quota; both reclaim Any. cq2 borrows 2 cpus.
func TestKueueIntegrationFairSharingClusterQueueHeadHasInadmissibleWorkload(t *testing.T) {
	setup := func(t *testing.T) *kiEnv {
		q := func(name, cohort string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort(cohort).FairWeight("1").Quota("flavor1", corev1.ResourceCPU, "0").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Preemption(any_, lower)
		}
		objs := kiFSObjects(q("cq1", "cohort-a"), q("cq2", "root"))
		objs = append(objs, MakeCohort("cohort-a").Parent("root").FairWeight("1").Quota("flavor1", corev1.ResourceCPU, "3").Obj())
		e := kiNewEnv(t, kiFairSharing(time.Second), objs...)
		e.create(kiWl("cq2-1", "cq2", 0, "1"), kiWl("cq2-2", "cq2", 0, "1"))
		e.step("borrowing workloads in queue2", []string{"cq2-1", "cq2-2"}, nil)
		e.admittedTotal("cq2", 2)
		return e
	}

	// It "workload which fits behind ClusterQueue head is able to admit".
	t.Run("workload which fits behind ClusterQueue head is able to admit", func(t *testing.T) {
		e := setup(t)
		e.create(kiWl("inadmissible", "cq1", 999, "4"))
		e.step("an inadmissible workload", nil, nil)
		e.admittedTotal("cq1", 0)
		e.create(kiWl("admissible", "cq1", 0, "3"))
		e.step("an admissible workload", nil, []string{"cq2-1", "cq2-2"})
		e.finishEvictionsInCQ("cq2", 2)
		e.step("after the evictions", []string{"admissible"}, nil)
		e.admittedTotal("cq1", 1)
		e.admittedTotal("cq2", 2)
		e.shares(map[string]int64{"cq1": 1000, "cq2": 0})
	})

	// It "sticky workload becomes inadmissible. next workload admits".
	t.Run("sticky workload becomes inadmissible. next workload admits", func(t *testing.T) {
		e := setup(t)
		e.create(kiWl("high", "cq1", 99, "3"))
		ds := e.step("the priority 99 workload reclaims", nil, []string{"cq2-1", "cq2-2"})
		mustPending(t, ds, "high", ReasonWaitingForPreemption)
		e.create(kiWl("second", "cq1", 9, "2"))
		e.step("another admissible workload", nil, nil)
		e.counts("cq1", 0, 2)

		// cohort-a shrinks to 2 cpus: the priority 99 workload can never fit.
		apply(t, e.s, MakeCohort("cohort-a").Parent("root").FairWeight("1").Quota("flavor1", corev1.ResourceCPU, "2").Obj())
		ds = e.step("cohort-a shrinks", nil, nil)
		// Kueue evaluates the workload afresh: it no longer fits at all. The
		// rest of the test does not depend on the reason.
		if p, ok := pendingFor(ds, "high"); !ok || p.Reason != ReasonExceedsMaximumQuota {
			t.Errorf("cohort-a shrinks: high pending %v (%+v), want %s", ok, p, ReasonExceedsMaximumQuota)
		}
		e.pending("high")

		e.finishEvictionsInCQ("cq2", 2)
		e.step("after the evictions", []string{"second"}, nil)
		e.admittedTotal("cq1", 1)
		e.holds("cq1", "flavor1", "second")
		e.shares(map[string]int64{"cq1": 1000, "cq2": 0})
	})

	// It "sticky workload deleted, next workload can admit".
	t.Run("sticky workload deleted, next workload can admit", func(t *testing.T) {
		e := setup(t)
		e.create(kiWl("sticky", "cq1", 99, "3"))
		e.step("the sticky workload reclaims", nil, []string{"cq2-1", "cq2-2"})
		e.counts("cq1", 0, 1)
		e.create(kiWl("next", "cq1", 0, "3"))
		e.step("another admissible workload", nil, nil)
		e.counts("cq1", 0, 2)

		e.s.DeleteWorkload(e.key("sticky"))
		// The evictions were asked for already; whatever the cycle decides
		// about them, nothing fits before they complete.
		ds := e.cycle()
		if got := admittedNames(ds); len(got) != 0 {
			t.Fatalf("sticky deleted: admitted %v before the evictions complete", got)
		}
		e.counts("cq1", 0, 1)

		e.finishEvictionsInCQ("cq2", 2)
		e.step("after the evictions", []string{"next"}, nil)
		e.admittedTotal("cq1", 1)
		e.admittedTotal("cq2", 2)
		e.shares(map[string]int64{"cq1": 1000, "cq2": 0})
	})
}

// kiAFS builds the suite's cq1: 8 cpus of default, UsageBasedAdmissionFairSharing,
// fed by lq-a, lq-b and lq-c of weight 1.
func kiAFS(t *testing.T) *kiEnv {
	objs := []any{MakeFlavor("default").Obj(),
		MakeClusterQueue("cq1").Quota("default", corev1.ResourceCPU, "8").AdmissionFairSharing().Obj()}
	for _, lq := range []string{"lq-a", "lq-b", "lq-c"} {
		objs = append(objs, MakeLocalQueue(kiNS, lq, "cq1").FairWeight("1").Obj())
	}
	return kiNewEnv(t, kiFairSharing(time.Second), objs...)
}

// Kueue: fair_sharing_test.go, When "Using AdmissionFairSharing at
// ClusterQueue level" (usage half-life and sampling interval 1s).
func TestKueueIntegrationFairSharingUsingAdmissionFairSharingAtClusterQueueLevel(t *testing.T) {
	// It "admits one workload from each LocalQueue when quota is limited".
	t.Run("admits one workload from each LocalQueue when quota is limited", func(t *testing.T) {
		e := kiAFS(t)
		cq := MakeClusterQueue("cq1").Quota("default", corev1.ResourceCPU, "8").AdmissionFairSharing()
		apply(t, e.s, cq.StopPolicy(kueue.Hold).Obj())
		e.create(kiWl("a-1", "lq-a", 0, "4"), kiWl("a-2", "lq-a", 0, "4"), kiWl("b-1", "lq-b", 0, "4"), kiWl("b-2", "lq-b", 0, "4"))
		e.step("cq1 held", nil, nil)
		e.counts("cq1", 0, 4)
		apply(t, e.s, cq.StopPolicy(kueue.None).Obj())
		ds := e.cycle()
		if got := admittedNames(ds); len(got) != 2 || len(kiPrefixed(got, "a-")) != 1 || len(kiPrefixed(got, "b-")) != 1 {
			t.Fatalf("admitted %v, want one workload of each LocalQueue", got)
		}
	})

	// It "prioritizes workloads from less active LocalQueues to maintain fairness".
	t.Run("prioritizes workloads from less active LocalQueues to maintain fairness", func(t *testing.T) {
		e := kiAFS(t)
		e.create(kiWl("a-1", "lq-a", 0, "4"), kiWl("a-2", "lq-a", 0, "4"))
		e.step("saturating cq1 with lq-a", []string{"a-1", "a-2"}, nil)
		e.create(kiWl("a-3", "lq-a", 0, "4"), kiWl("a-4", "lq-a", 0, "4"))
		e.step("pending workloads of lq-a", nil, nil)
		e.create(kiWl("b-1", "lq-b", 0, "4"))
		e.step("a pending workload of lq-b", nil, nil)
		e.counts("cq1", 2, 3)
		for range 5 {
			e.step("usage accumulates", nil, nil)
		}
		if a, b := e.consumed("lq-a"), e.consumed("lq-b"); a <= 7500 || b != 0 {
			t.Fatalf("consumed cpu lq-a %dm, lq-b %dm; want lq-a > 7500m and lq-b 0", a, b)
		}
		e.finish("a-1", "a-2")
		// b-1 first; with 4 cpus left lq-a's oldest fits after it.
		e.step("releasing quota", []string{"b-1", "a-3"}, nil)
	})

	// It "admits workload from new LocalQueue when all others have high usage".
	t.Run("admits workload from new LocalQueue when all others have high usage", func(t *testing.T) {
		e := kiAFS(t)
		e.create(kiWl("a-1", "lq-a", 0, "4"), kiWl("b-1", "lq-b", 0, "4"))
		e.step("saturating cq1 with lq-a and lq-b", []string{"a-1", "b-1"}, nil)
		e.create(kiWl("a-2", "lq-a", 0, "4"), kiWl("a-3", "lq-a", 0, "4"), kiWl("b-2", "lq-b", 0, "4"), kiWl("b-3", "lq-b", 0, "4"))
		e.step("pending workloads of lq-a and lq-b", nil, nil)
		e.create(kiWl("c-1", "lq-c", 0, "4"))
		e.step("a pending workload of lq-c", nil, nil)
		e.counts("cq1", 2, 5)
		for range 5 {
			e.step("usage accumulates", nil, nil)
		}
		if a, b, c := e.consumed("lq-a"), e.consumed("lq-b"), e.consumed("lq-c"); a <= 3900 || b <= 3900 || c != 0 {
			t.Fatalf("consumed cpu lq-a %dm, lq-b %dm, lq-c %dm; want > 3900m, > 3900m and 0", a, b, c)
		}
		e.finish("a-1", "b-1")
		ds := e.cycle()
		if got := admittedNames(ds); len(got) != 2 || !slices.Contains(got, "c-1") {
			t.Fatalf("releasing quota: admitted %v, want c-1 and one more", got)
		}
	})

	// It "admits workloads from less active LocalQueues after quota is released".
	t.Run("admits workloads from less active LocalQueues after quota is released", func(t *testing.T) {
		e := kiAFS(t)
		e.create(kiWl("a-1", "lq-a", 0, "4"), kiWl("a-2", "lq-a", 0, "4"))
		e.step("saturating cq1 with lq-a", []string{"a-1", "a-2"}, nil)
		e.create(kiWl("b-1", "lq-b", 0, "4"), kiWl("b-2", "lq-b", 0, "4"))
		e.step("pending workloads of lq-b", nil, nil)
		e.create(kiWl("c-1", "lq-c", 0, "4"))
		e.step("a pending workload of lq-c", nil, nil)
		e.counts("cq1", 2, 3)
		for range 5 {
			e.step("usage accumulates", nil, nil)
		}
		if a, b, c := e.consumed("lq-a"), e.consumed("lq-b"), e.consumed("lq-c"); a <= 7500 || b != 0 || c != 0 {
			t.Fatalf("consumed cpu lq-a %dm, lq-b %dm, lq-c %dm; want > 7500m, 0 and 0", a, b, c)
		}
		e.finish("a-1")
		ds := e.cycle()
		if got := admittedNames(ds); len(got) != 1 {
			t.Fatalf("release a-1: admitted %v, want one workload", got)
		}
		e.admittedTotal("cq1", 3)
		e.finish("a-2")
		ds = e.cycle()
		if got := admittedNames(ds); len(got) != 1 {
			t.Fatalf("release a-2: admitted %v, want one workload", got)
		}
		e.admittedTotal("cq1", 4)
		if n := e.holding("b-1", "b-2"); n != 1 {
			t.Fatalf("%d workloads of lq-b admitted, want 1", n)
		}
		e.holds("cq1", "default", "c-1")
	})

	// It "should update consumed resources and subtract entry penalties on
	// workload admission". Kueue's penalty ledger is internal; the consumed
	// resources are what the LocalQueue's status shows.
	t.Run("should update consumed resources and subtract entry penalties on workload admission", func(t *testing.T) {
		e := kiAFS(t)
		e.create(kiWl("a-1", "lq-a", 0, "4"))
		e.step("a workload of lq-a", []string{"a-1"}, nil)
		e.step("a sampling interval later", nil, nil)
		if a := e.consumed("lq-a"); a <= 0 {
			t.Fatalf("consumed cpu lq-a %dm, want > 0", a)
		}
		e.create(kiWl("a-2", "lq-a", 0, "4"))
		e.step("a second workload of lq-a", []string{"a-2"}, nil)
		for range 3 {
			e.step("usage accumulates", nil, nil)
		}
		if a := e.consumed("lq-a"); a <= 3900 {
			t.Fatalf("consumed cpu lq-a %dm, want > 3900m", a)
		}
	})
}

// Kueue: fair_sharing_test.go, When "Preemption is enabled in fairsharing and
// there are large values of quota and weights", It "Queue can reclaim its
// nominal quota": a and b have 600 cpus and weight 300 each.
func TestKueueIntegrationFairSharingPreemptionIsEnabledInFairsharingAndThereAreLargeValuesOfQuotaAndWeights(t *testing.T) {
	t.Run("Queue can reclaim its nominal quota", func(t *testing.T) {
		q := func(name string) *ClusterQueueWrapper {
			return MakeClusterQueue(name).Cohort("all").FairWeight("300").Quota("default", corev1.ResourceCPU, "600").Preemption(any_, lower)
		}
		e := kiNewEnv(t, kiFairSharing(time.Second), kiFSObjects(q("a"), q("b"))...)
		as := e.kiCreateN("a", "a", 10, "100", 0)
		e.step("a borrows from b", as, nil)
		e.admittedTotal("a", 10)
		e.create(kiWl("b-1", "b", 0, "500"))
		ds := e.cycle()
		if vs := kiVictims(ds, false); len(vs) != 3 || len(kiPrefixed(vs, "a-")) != 3 {
			t.Fatalf("victims %v, want three of a's; decisions %v", vs, ds)
		}
		e.finishEvictionsInCQ("a", 3)
		e.step("after the evictions", []string{"b-1"}, nil)
		e.counts("a", 7, 3)
		e.counts("b", 1, 0)
	})
}

// Kueue: fair_sharing_test.go, When "Preemption is enabled in fairsharing and
// there are best effort and guaranteed workloads", It "Guaranteed workloads
// cause preemption of a single best effort workload": best-effort-a and
// best-effort-b have no quota; guaranteed has 8 cpus and reclaims Any.
func TestKueueIntegrationFairSharingPreemptionIsEnabledInFairsharingAndThereAreBestEffortAndGuaranteedWorkloads(t *testing.T) {
	t.Run("Guaranteed workloads cause preemption of a single best effort workload", func(t *testing.T) {
		e := kiNewEnv(t, kiFairSharing(time.Second), kiFSObjects(
			MakeClusterQueue("best-effort-a").Cohort("all").Quota("default", corev1.ResourceCPU, "0"),
			MakeClusterQueue("best-effort-b").Cohort("all").Quota("default", corev1.ResourceCPU, "0"),
			MakeClusterQueue("guaranteed").Cohort("all").Quota("default", corev1.ResourceCPU, "8").Preemption(any_, never))...)
		e.create(kiWl("best-effort-a-1", "best-effort-a", 2, "4"))
		e.step("a best effort workload in best-effort-a", []string{"best-effort-a-1"}, nil)
		e.create(kiWl("best-effort-b-1", "best-effort-b", 1, "4"))
		e.step("a best effort workload in best-effort-b", []string{"best-effort-b-1"}, nil)
		e.create(kiWl("guaranteed-1", "guaranteed", 0, "4"))
		e.step("a guaranteed workload reclaims", nil, []string{"best-effort-b-1"})
		e.finishEviction("best-effort-b-1")
		e.step("after the eviction", []string{"guaranteed-1"}, nil)
		e.holds("best-effort-a", "default", "best-effort-a-1")
	})
}

// kiAFSCohort builds the second Describe's cohort all: cq1 (16 cpus,
// StrictFIFO, UsageBasedAdmissionFairSharing, never preempting within) fed by
// lq-a and lq-b, cq2 (16 cpus, reclaiming Any) fed by lq-c.
func kiAFSCohort(t *testing.T) *kiEnv {
	return kiNewEnv(t, kiFairSharing(2*time.Second), MakeFlavor("default").Obj(),
		MakeClusterQueue("cq1").Cohort("all").Quota("default", corev1.ResourceCPU, "16").Preemption(never, never).
			Strategy(kueue.StrictFIFO).AdmissionFairSharing().Obj(),
		MakeClusterQueue("cq2").Cohort("all").Quota("default", corev1.ResourceCPU, "16").Preemption(any_, lower).Obj(),
		MakeLocalQueue(kiNS, "lq-a", "cq1").FairWeight("1").Obj(),
		MakeLocalQueue(kiNS, "lq-b", "cq1").FairWeight("1").Obj(),
		MakeLocalQueue(kiNS, "lq-c", "cq2").FairWeight("1").Obj())
}

// Kueue: fair_sharing_test.go, second Describe "Scheduler" (usage half-life
// 2s), When "Using AdmissionFairSharing at Cohort level".
func TestKueueIntegrationFairSharingUsingAdmissionFairSharingAtCohortLevel(t *testing.T) {
	// It "should promote a workload from LQ with lower recent usage".
	t.Run("should promote a workload from LQ with lower recent usage", func(t *testing.T) {
		e := kiAFSCohort(t)
		e.create(kiWl("wl", "lq-a", 0, "32"))
		e.step("a workload of lq-a", []string{"wl"}, nil)
		e.admittedTotal("cq1", 1)
		e.step("a sampling interval later", nil, nil)
		if a := e.consumed("lq-a"); a <= 0 {
			t.Fatalf("consumed cpu lq-a %dm, want > 0", a)
		}
		e.create(kiWl("wl-a", "lq-a", 0, "32"), kiWl("wl-b", "lq-b", 0, "32"))
		e.step("two pending workloads", nil, nil)
		e.finish("wl")
		e.step("the previous workload finished", []string{"wl-b"}, nil)
		e.pending("wl-a")
	})

	// It "should preempt a workload from LQ with higher recent usage".
	t.Run("should preempt a workload from LQ with higher recent usage", func(t *testing.T) {
		e := kiAFSCohort(t)
		e.create(kiWl("wl-high-a", "lq-a", 10, "20"), kiWl("wl-low-b", "lq-b", 1, "12"))
		e.step("cq1 borrows from cq2", []string{"wl-high-a", "wl-low-b"}, nil)
		for range 4 {
			e.step("usage accumulates", nil, nil)
		}
		if a, b := e.consumed("lq-a"), e.consumed("lq-b"); a <= b {
			t.Fatalf("consumed cpu lq-a %dm, lq-b %dm; want lq-a's higher", a, b)
		}
		e.create(kiWl("wl-c", "lq-c", 0, "10"))
		e.step("cq2 reclaims", nil, []string{"wl-high-a"})
		e.preempted("wl-high-a")
	})

	// It "admits from the LocalQueue whose weight is raised through the API".
	t.Run("admits from the LocalQueue whose weight is raised through the API", func(t *testing.T) {
		e := kiAFSCohort(t)
		e.create(kiWl("wl-b-usage", "lq-b", 0, "32"))
		e.step("usage on lq-b", []string{"wl-b-usage"}, nil)
		e.step("a sampling interval later", nil, nil)
		if b := e.consumed("lq-b"); b <= 0 {
			t.Fatalf("consumed cpu lq-b %dm, want > 0", b)
		}
		e.finish("wl-b-usage")
		e.create(kiWl("wl-blocker", "lq-a", 0, "32"))
		e.step("a blocker on lq-a", []string{"wl-blocker"}, nil)
		e.create(kiWl("wl-a", "lq-a", 0, "32"), kiWl("wl-b", "lq-b", 0, "32"))
		e.step("two competing workloads", nil, nil)
		e.pending("wl-a", "wl-b")
		apply(t, e.s, MakeLocalQueue(kiNS, "lq-a", "cq1").FairWeight("1000000").Obj())
		e.finish("wl-blocker")
		e.step("the blocker finished", []string{"wl-a"}, nil)
		e.pending("wl-b")
	})
}

// Kueue: fair_sharing_test.go, When "Restarting the manager", It "should
// retain the LocalQueue's historical usage across a restart": cq-restart (16
// cpus, UsageBasedAdmissionFairSharing). The restarted manager is a new
// engine fed the LocalQueue as the API server has it, with the usage the old
// one wrote in status.fairSharing.admissionFairSharingStatus, and a half-life
// of an hour.
func TestKueueIntegrationFairSharingRestartingTheManager(t *testing.T) {
	t.Run("should retain the LocalQueue's historical usage across a restart", func(t *testing.T) {
		objs := func() []any {
			return []any{MakeFlavor("default").Obj(),
				MakeClusterQueue("cq-restart").Cohort("all").Quota("default", corev1.ResourceCPU, "16").AdmissionFairSharing().Obj()}
		}
		lq := MakeLocalQueue(kiNS, "lq-restart", "cq-restart").FairWeight("1")
		e := kiNewEnv(t, kiFairSharing(2*time.Second), append(objs(), lq.Obj())...)
		e.create(kiWl("wl-1", "lq-restart", 0, "8"))
		e.step("usage on the LocalQueue", []string{"wl-1"}, nil)
		for range 10 {
			e.step("usage accumulates", nil, nil)
		}
		frozen := e.consumed("lq-restart")
		if frozen <= 7000 {
			t.Fatalf("consumed cpu %dm, want > 7000m", frozen)
		}
		e.finish("wl-1")

		// The restart: what the old engine wrote is on the LocalQueue.
		obj := lq.Obj()
		obj.Status.FairSharing = &kueue.FairSharingStatus{AdmissionFairSharingStatus: &kueue.AdmissionFairSharingStatus{
			ConsumedResources: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(frozen, resource.DecimalSI)},
			LastUpdate:        metav1.NewTime(e.clock)}}
		opts := kiFairSharing(time.Hour)
		opts.AdmissionFairSharing.UsageHalfLifeTime = metav1.Duration{Duration: time.Hour}
		r := kiNewEnv(t, opts, append(objs(), obj)...)
		r.clock = e.clock
		r.create(kiWl("wl-2", "lq-restart", 0, "1"))
		r.step("a new workload right after the restart", []string{"wl-2"}, nil)
		for range 3 {
			r.step("sampling", nil, nil)
			if got := r.consumed("lq-restart"); got <= frozen*7/10 {
				t.Fatalf("consumed cpu after the restart %dm, want > %dm (70%% of %dm)", got, frozen*7/10, frozen)
			}
		}
	})
}

// Kueue: fair_sharing_test.go, When "Self-triggered reconciles do not truncate
// CPU", It "should maintain non-zero CPU ConsumedResources across sampling
// intervals": cq-afs-cpu (4 cpus, not in UsageBasedAdmissionFairSharing mode);
// Kueue tracks every LocalQueue's usage while admission fair sharing is
// configured.
func TestKueueIntegrationFairSharingSelfTriggeredReconcilesDoNotTruncateCPU(t *testing.T) {
	t.Run("should maintain non-zero CPU ConsumedResources across sampling intervals", func(t *testing.T) {
		e := kiNewEnv(t, kiFairSharing(2*time.Second), MakeFlavor("default").Obj(),
			MakeClusterQueue("cq-afs-cpu").Cohort("cohort").Quota("default", corev1.ResourceCPU, "4").Obj(),
			kiLQ("lq-afs-cpu", "cq-afs-cpu"))
		e.create(kiWl("wl", "lq-afs-cpu", 0, "500m"))
		e.step("a workload of 500m", []string{"wl"}, nil)
		for i := range 5 {
			e.step("sampling", nil, nil)
			if got := e.consumed("lq-afs-cpu"); got <= 0 {
				t.Fatalf("sampling %d: consumed cpu %dm, want > 0", i, got)
			}
		}
	})
}

// Kueue: fair_sharing_test.go, Describe "Scheduler with AdmissionFairSharing =
// nil", When "Using AdmissionFairSharing at Cohort level", It "should ignore
// FairSharing": cq1 (32 cpus, StrictFIFO, UsageBasedAdmissionFairSharing).
func TestKueueIntegrationFairSharingSchedulerWithAdmissionFairSharingNil(t *testing.T) {
	t.Run("should ignore FairSharing", func(t *testing.T) {
		e := kiNewEnv(t, kiFairSharing(0), MakeFlavor("default").Obj(),
			MakeClusterQueue("cq1").Cohort("all").Quota("default", corev1.ResourceCPU, "32").Preemption(never, never).
				Strategy(kueue.StrictFIFO).AdmissionFairSharing().Obj(),
			MakeLocalQueue(kiNS, "lq-a", "cq1").FairWeight("1").Obj())
		e.create(kiWl("wl", "lq-a", 0, "32"))
		e.step("a workload", []string{"wl"}, nil)
		e.admittedTotal("cq1", 1)
		e.counts("cq1", 1, 0)
		e.step("later", nil, nil)
		if got := e.consumed("lq-a"); got != -1 {
			t.Fatalf("consumed cpu %dm, want no admission fair sharing status", got)
		}
	})
}
