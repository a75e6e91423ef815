package scheduler

import (
	"math"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// subtrees indexes CohortSubtrees by name.
func subtrees(s *Scheduler) map[string]CohortSubtreeView {
	out := map[string]CohortSubtreeView{}
	for _, v := range s.CohortSubtrees() {
		out[v.Name] = v
	}
	return out
}

func cpuCell(flavor string) resources.FlavorResource {
	return resources.FlavorResource{Flavor: flavor, Resource: corev1.ResourceCPU}
}

// holdWL upserts a workload of cpus CPUs holding quota in cq's flavor.
func holdWL(t *testing.T, s *Scheduler, name, cq, flavor, cpus string) {
	t.Helper()
	apply(t, s, MakeWorkload("ns", name).Queue("lq").Request(corev1.ResourceCPU, cpus).ReserveQuota(cq, flavor).Obj())
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "reports CohortSubtreeResourceReservations across child-parent topology":
// with lending limits at every level the subtree quotas are what each child
// lends (ch1 16, ch2 12, root 35), and a Cohort's reservations are the whole
// usage of the ClusterQueues below it, not only what they borrow; finishing a
// workload or moving a queue to another Cohort moves its usage with it.
func TestKueueCohortSubtreeReservationsAcrossChildParentTopology(t *testing.T) {
	t.Parallel()
	s := world(t, Options{},
		MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", corev1.ResourceCPU, "30").Obj(),
		MakeCohort("ch1").Parent("root").Quota("default", corev1.ResourceCPU, "8", Lending("3")).Obj(),
		MakeCohort("ch2").Parent("root").Quota("default", corev1.ResourceCPU, "6", Lending("2")).Obj(),
		MakeClusterQueue("cqa").Cohort("ch1").Quota("default", corev1.ResourceCPU, "10", Lending("8")).Obj(),
		MakeClusterQueue("cqb").Cohort("ch2").Quota("default", corev1.ResourceCPU, "8", Lending("6")).Obj(),
	)
	cpu := cpuCell("default")
	check := func(step string, quota, reserved map[string]int64) {
		t.Helper()
		got := subtrees(s)
		for name, want := range quota {
			if v := got[name].SubtreeQuota[cpu]; v != want {
				t.Errorf("%s: %s subtree quota %d, want %d", step, name, v, want)
			}
		}
		for name, want := range reserved {
			if v := got[name].Reservations[cpu]; v != want {
				t.Errorf("%s: %s reservations %d, want %d", step, name, v, want)
			}
		}
	}
	check("queues created", map[string]int64{"ch1": 16_000, "ch2": 12_000, "root": 35_000},
		map[string]int64{"ch1": 0, "ch2": 0, "root": 0})
	holdWL(t, s, "ch1a", "cqa", "default", "6")
	check("6 in ch1", nil, map[string]int64{"ch1": 6_000, "root": 6_000})
	holdWL(t, s, "ch1b", "cqa", "default", "8")
	holdWL(t, s, "ch1c", "cqa", "default", "2")
	check("16 in ch1", nil, map[string]int64{"ch1": 16_000, "root": 16_000})
	holdWL(t, s, "ch2", "cqb", "default", "7")
	check("7 in ch2", nil, map[string]int64{"ch2": 7_000, "root": 23_000})
	s.FinishWorkload(key("ns", "ch1c"))
	check("ch1c finished", nil, map[string]int64{"ch1": 14_000, "root": 21_000})
	s.FinishWorkload(key("ns", "ch1b"))
	check("ch1b finished", nil, map[string]int64{"ch1": 6_000, "ch2": 7_000, "root": 13_000})
	apply(t, s, MakeClusterQueue("cqb").Cohort("ch1").Quota("default", corev1.ResourceCPU, "8", Lending("6")).Obj())
	check("cqb moved to ch1", nil, map[string]int64{"ch1": 13_000, "ch2": 0, "root": 13_000})
}

// Kueue's cohort_subtree_admitted_active_workloads counts, for every Cohort
// above a ClusterQueue, the workloads holding quota below it; a Cohort with
// no ClusterQueue below has none to count. Its place in the tree is its
// parent and its tree's root.
func TestCohortSubtreesCountQueuesAndAdmittedWorkloads(t *testing.T) {
	t.Parallel()
	s := world(t, Options{},
		MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", corev1.ResourceCPU, "10").Obj(),
		MakeCohort("left").Parent("root").Obj(),
		MakeCohort("empty").Parent("root").Obj(),
		MakeClusterQueue("a").Cohort("left").Quota("default", corev1.ResourceCPU, "5").Obj(),
		MakeClusterQueue("b").Cohort("root").Quota("default", corev1.ResourceCPU, "5").Obj(),
		MakeClusterQueue("alone").Quota("default", corev1.ResourceCPU, "5").Obj(),
	)
	holdWL(t, s, "a1", "a", "default", "1")
	holdWL(t, s, "a2", "a", "default", "1")
	holdWL(t, s, "b1", "b", "default", "1")
	holdWL(t, s, "alone1", "alone", "default", "1")
	apply(t, s, MakeWorkload("ns", "waiting").Queue("lq").Request(corev1.ResourceCPU, "1").Obj())
	got := subtrees(s)
	for _, want := range []CohortSubtreeView{
		{Name: "root", Root: "root", ClusterQueues: 2, AdmittedWorkloads: 3},
		{Name: "left", Parent: "root", Root: "root", ClusterQueues: 1, AdmittedWorkloads: 2},
		{Name: "empty", Parent: "root", Root: "root"},
	} {
		g := got[want.Name]
		if g.Parent != want.Parent || g.Root != want.Root || g.InCycle ||
			g.ClusterQueues != want.ClusterQueues || g.AdmittedWorkloads != want.AdmittedWorkloads {
			t.Errorf("%s: parent %q root %q inCycle %v, %d queues, %d admitted; want parent %q root %q, %d queues, %d admitted",
				want.Name, g.Parent, g.Root, g.InCycle, g.ClusterQueues, g.AdmittedWorkloads,
				want.Parent, want.Root, want.ClusterQueues, want.AdmittedWorkloads)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d cohorts, want 3: %v", len(got), got)
	}
	for _, tc := range []struct {
		cq   string
		want []string
	}{{"a", []string{"left", "root"}}, {"b", []string{"root"}}, {"alone", nil}, {"missing", nil}} {
		if got := s.ClusterQueueAncestors(tc.cq); !slices.Equal(got, tc.want) {
			t.Errorf("ClusterQueueAncestors(%s) = %v, want %v", tc.cq, got, tc.want)
		}
	}
}

// Kueue reports nothing of a Cohort in a cycle of parents, nor counts an
// admission in it (collectCohortMetricPoints, recordTreeInfoMetrics and
// workloadAncestors stop at hierarchy.HasCycle): its view says InCycle and
// nothing else, and its queues have no ancestors.
func TestCohortSubtreesInACycle(t *testing.T) {
	t.Parallel()
	s := world(t, Options{},
		MakeFlavor("default").Obj(),
		MakeCohort("cohort-a").Parent("cohort-b").Quota("default", corev1.ResourceCPU, "4").Obj(),
		MakeClusterQueue("q").Cohort("cohort-a").Quota("default", corev1.ResourceCPU, "1").Obj(),
	)
	// cohort-b -> cohort-a closes the cycle; the engine refuses nothing.
	_ = s.UpsertCohort(MakeCohort("cohort-b").Parent("cohort-a").Obj())
	got := subtrees(s)
	if len(got) != 2 {
		t.Fatalf("%d cohorts, want cohort-a and cohort-b: %v", len(got), got)
	}
	for name, v := range got {
		if !v.InCycle || v.Parent != "" || v.Root != "" || v.SubtreeQuota != nil || v.ClusterQueues != 0 {
			t.Errorf("%s: %+v, want only InCycle", name, v)
		}
	}
	if got := s.ClusterQueueAncestors("q"); got != nil {
		t.Errorf("ClusterQueueAncestors(q) = %v in a cycle, want nil", got)
	}
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/fair_sharing_test.go,
// When "using hierarchical cohorts": kueue_cohort_weighted_share is the
// Cohort's DRS.PreciseWeightedShare, compared there with ==. Two of its Its
// end in states built here directly, with the workloads the scheduler left
// holding quota; the expected values are Kueue's expressions.
func TestKueueCohortWeightedShareIsPrecise(t *testing.T) {
	t.Parallel()
	t.Run("admits workloads respecting fair share", func(t *testing.T) {
		t.Parallel()
		//         root
		//        /    \
		//       fl     fr
		//     /   \     \
		//    sl   sr    bank
		//    /     \
		//   cqL    cqR
		s := world(t, Options{},
			MakeFlavor("default").Obj(),
			MakeCohort("first-left").Parent("root").Obj(),
			MakeCohort("first-right").Parent("root").Obj(),
			MakeCohort("second-left").Parent("first-left").Obj(),
			MakeCohort("second-right").Parent("first-left").Obj(),
			MakeCohort("bank").Parent("first-right").Quota("default", corev1.ResourceCPU, "10").Obj(),
			MakeClusterQueue("second-left").Cohort("second-left").Quota("default", corev1.ResourceCPU, "2").Obj(),
			MakeClusterQueue("second-right").Cohort("second-right").Quota("default", corev1.ResourceCPU, "2").Obj(),
		)
		checkShares(t, s, map[string]float64{"first-left": 0, "first-right": 0, "bank": 0})
		for _, cq := range []string{"second-left", "second-right"} {
			for i := range 5 {
				holdWL(t, s, cq+itoa(i), cq, "default", "1")
			}
		}
		checkShares(t, s, map[string]float64{
			"first-left": 6.0 * 1000.0 / 14.0, "first-right": 0.0,
			"second-left": 3.0 * 1000.0 / 14.0, "second-right": 3.0 * 1000.0 / 14.0,
			"bank": 0.0, "root": 0.0,
		})
	})
	t.Run("preempts workloads to enforce fair share", func(t *testing.T) {
		t.Parallel()
		//            root
		//          /      \
		// best-effort(0.5)  research
		//                   /   |    \
		//          chemistry  physics   llm(2.0)
		s := world(t, Options{},
			MakeFlavor("default").Obj(),
			MakeCohort("root").Quota("default", corev1.ResourceCPU, "12").Obj(),
			MakeCohort("research").Parent("root").Obj(),
			MakeCohort("chemistry").Parent("research").Obj(),
			MakeCohort("physics").Parent("research").Obj(),
			MakeCohort("llm").FairWeight("2.0").Parent("research").Obj(),
			MakeCohort("best-effort").FairWeight("0.5").Parent("root").Obj(),
		)
		for _, c := range []string{"chemistry", "physics", "llm", "best-effort"} {
			apply(t, s, MakeClusterQueue(c+"-queue").Cohort(c).Quota("default", corev1.ResourceCPU, "0").Obj())
		}
		// "all capacity used": 6 CPUs each in best-effort and physics.
		for i := range 6 {
			holdWL(t, s, "be"+itoa(i), "best-effort-queue", "default", "1")
			holdWL(t, s, "ph"+itoa(i), "physics-queue", "default", "1")
		}
		checkShares(t, s, map[string]float64{"best-effort": 1000.0, "physics": 500.0})
		// "share is fair with respect to each parent": preemption leaves
		// best-effort 4, chemistry 2, physics 2 and llm 4.
		for i := range 6 {
			if i >= 4 {
				s.FinishWorkload(key("ns", "be"+itoa(i)))
			}
			if i >= 2 {
				s.FinishWorkload(key("ns", "ph"+itoa(i)))
			}
		}
		for i := range 2 {
			holdWL(t, s, "ch"+itoa(i), "chemistry-queue", "default", "1")
		}
		for i := range 4 {
			holdWL(t, s, "llm"+itoa(i), "llm-queue", "default", "1")
		}
		checkShares(t, s, map[string]float64{
			"best-effort": 4.0 * 1000.0 / 12.0 / 0.5, "research": 8.0 * 1000.0 / 12.0,
			"chemistry": 2.0 * 1000.0 / 12.0, "physics": 2.0 * 1000.0 / 12.0, "llm": 4.0 * 1000.0 / 12.0 / 2.0,
		})
	})
}

// A Cohort that borrows with weight 0 has an infinite share, as Kueue's
// PreciseWeightedShare (the Cohort's gauge keeps +Inf; only the
// ClusterQueue's turns it into NaN); one that does not borrow has 0 whatever
// its weight.
func TestCohortWeightedShareWithWeightZero(t *testing.T) {
	t.Parallel()
	s := world(t, Options{},
		MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", corev1.ResourceCPU, "4").Obj(),
		MakeCohort("greedy").FairWeight("0").Parent("root").Obj(),
		MakeCohort("idle").FairWeight("0").Parent("root").Obj(),
		MakeClusterQueue("g").Cohort("greedy").Quota("default", corev1.ResourceCPU, "0").Obj(),
		MakeClusterQueue("i").Cohort("idle").Quota("default", corev1.ResourceCPU, "0").Obj(),
	)
	holdWL(t, s, "g1", "g", "default", "1")
	checkShares(t, s, map[string]float64{"greedy": math.Inf(1), "idle": 0})
}

// checkShares compares the Cohorts' precise shares with want, exactly, and
// ties them to the engine's rounded share, which status publishes: rounding
// the precise share up gives it.
func checkShares(t *testing.T, s *Scheduler, want map[string]float64) {
	t.Helper()
	got := subtrees(s)
	for name, w := range want {
		v := got[name].WeightedShare
		if v != w {
			t.Errorf("%s: weighted share %v, want %v", name, v, w)
		}
		cv, _ := s.CohortSnapshot(name)
		rounded := int64(math.MaxInt64)
		if !math.IsInf(v, 1) {
			rounded = int64(math.Ceil(v))
		}
		if cv.WeightedShare != rounded {
			t.Errorf("%s: precise share %v rounds to %d, the engine's share is %d", name, v, rounded, cv.WeightedShare)
		}
	}
}
