package scheduler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// kiInstanceKey is the node label of scheduler_test.go's flavors.
const kiInstanceKey = "cloud.provider.com/instance"

// The flavors of scheduler_test.go: on-demand, spot-tainted (NoSchedule taint)
// and spot-untainted, labelled by instance type.
func kiOnDemand() *kueue.ResourceFlavor {
	return MakeFlavor("on-demand").NodeLabel(kiInstanceKey, "on-demand").Obj()
}

func kiSpotTainted() *kueue.ResourceFlavor {
	return MakeFlavor("spot-tainted").NodeLabel(kiInstanceKey, "spot-tainted").
		Taint(kiInstanceKey, "spot-tainted", corev1.TaintEffectNoSchedule).Obj()
}

func kiSpotUntainted() *kueue.ResourceFlavor {
	return MakeFlavor("spot-untainted").NodeLabel(kiInstanceKey, "spot-untainted").Obj()
}

// kiSpotToleration tolerates spot-tainted's taint.
var kiSpotToleration = corev1.Toleration{Key: kiInstanceKey, Operator: corev1.TolerationOpEqual, Value: "spot-tainted",
	Effect: corev1.TaintEffectNoSchedule}

// kiQueue is the suite's createQueue: a ClusterQueue and a LocalQueue of the
// same name.
func kiQueue(cq *kueue.ClusterQueue) []any { return []any{cq, kiLQ(cq.Name, cq.Name)} }

func kiObjs(groups ...[]any) []any {
	var out []any
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Kueue: test/integration/singlecluster/scheduler/scheduler_test.go, When
// "Scheduling workloads on clusterQueues": prod-cq (5 cpus of spot-tainted,
// borrowing up to 5, and 5 of on-demand, in prod-cohort) fed by prod-queue;
// the other queues of the context play no part in these Its. Workloads of 2
// cpus that do not tolerate the taint go to on-demand, where two fit.
func TestKueueIntegrationSchedulerSchedulingWorkloadsOnClusterQueues(t *testing.T) {
	prodCQ := func() *ClusterQueueWrapper {
		return MakeClusterQueue("prod-cq").Quota("spot-tainted", corev1.ResourceCPU, "5", Borrowing("5")).
			Quota("on-demand", corev1.ResourceCPU, "5").Cohort("prod-cohort")
	}
	byPriority := func(e *kiEnv) {
		e.create(kiWl("wl-low-priority", "prod-queue", 0, "2"), kiWl("wl-mid-priority-1", "prod-queue", 10, "2"),
			kiWl("wl-mid-priority-2", "prod-queue", 10, "2"), kiWl("wl-high-priority-1", "prod-queue", 100, "2"),
			kiWl("wl-high-priority-2", "prod-queue", 100, "2"))
		e.step("held", nil, nil)
		e.admittedTotal("prod-cq", 0)
	}
	unheld := func(e *kiEnv) {
		e.t.Helper()
		e.step("unheld: the high priority workloads", []string{"wl-high-priority-1", "wl-high-priority-2"}, nil)
		e.holds("prod-cq", "on-demand", "wl-high-priority-1", "wl-high-priority-2")
		e.counts("prod-cq", 2, 3)
		e.finish("wl-high-priority-1", "wl-high-priority-2")
		e.step("the high priority workloads finished: only the mid priority ones", []string{"wl-mid-priority-1", "wl-mid-priority-2"}, nil)
		e.counts("prod-cq", 2, 1)
		e.admittedTotal("prod-cq", 4)
	}

	// When "Hold ClusterQueue at startup", It "Should admit workloads
	// according to their priorities".
	t.Run("Hold ClusterQueue at startup/Should admit workloads according to their priorities", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), kiSpotTainted(), kiSpotUntainted(),
			prodCQ().StopPolicy(kueue.Hold).Obj(), kiLQ("prod-queue", "prod-cq"))
		byPriority(e)
		e.counts("prod-cq", 0, 5)
		apply(t, e.s, prodCQ().StopPolicy(kueue.None).Obj())
		unheld(e)
	})

	// When "Hold LocalQueue at startup", It "Should admit workloads according
	// to their priorities". Kueue's pending gauge leaves out a held
	// LocalQueue's workloads; the engine's count does not, so it is not
	// checked while held.
	t.Run("Hold LocalQueue at startup/Should admit workloads according to their priorities", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), kiSpotTainted(), kiSpotUntainted(), prodCQ().Obj(),
			MakeLocalQueue(kiNS, "prod-queue", "prod-cq").StopPolicy(kueue.Hold).Obj())
		byPriority(e)
		apply(t, e.s, MakeLocalQueue(kiNS, "prod-queue", "prod-cq").StopPolicy(kueue.None).Obj())
		unheld(e)
	})
}

// Kueue: scheduler_test.go, When "Handling workloads events": cluster-queue
// (5 cpus of spot-tainted, borrowing up to 5, and 5 of on-demand, in cohort
// prod) fed by queue.
func TestKueueIntegrationSchedulerHandlingWorkloadsEvents(t *testing.T) {
	clusterQueue := func() *kueue.ClusterQueue {
		return MakeClusterQueue("cluster-queue").Cohort("prod").Quota("spot-tainted", corev1.ResourceCPU, "5", Borrowing("5")).
			Quota("on-demand", corev1.ResourceCPU, "5").Obj()
	}

	// It "Should re-enqueue by the delete event of workload belonging to the
	// same ClusterQueue".
	t.Run("Should re-enqueue by the delete event of workload belonging to the same ClusterQueue", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), kiSpotTainted(), clusterQueue(), kiLQ("queue", "cluster-queue"))
		e.create(MakeWorkload(kiNS, "on-demand-wl1").Queue("queue").Request(corev1.ResourceCPU, "4"))
		e.step("first big workload", []string{"on-demand-wl1"}, nil)
		e.holds("cluster-queue", "on-demand", "on-demand-wl1")
		e.create(MakeWorkload(kiNS, "on-demand-wl2").Queue("queue").Request(corev1.ResourceCPU, "4"))
		e.step("second big workload", nil, nil)
		e.counts("cluster-queue", 1, 1)
		e.create(MakeWorkload(kiNS, "on-demand-wl3").Queue("queue").Request(corev1.ResourceCPU, "1"))
		e.step("third small workload", []string{"on-demand-wl3"}, nil)
		e.holds("cluster-queue", "on-demand", "on-demand-wl3")
		e.counts("cluster-queue", 2, 1)
		e.s.DeleteWorkload(e.key("on-demand-wl1"))
		e.step("the first one deleted", []string{"on-demand-wl2"}, nil)
		e.holds("cluster-queue", "on-demand", "on-demand-wl2")
		e.counts("cluster-queue", 2, 0)
		e.admittedTotal("cluster-queue", 3)
	})

	// It "Should re-enqueue by the delete event of workload belonging to the
	// same Cohort": foo-clusterqueue (5 cpus of on-demand) joins cohort prod.
	t.Run("Should re-enqueue by the delete event of workload belonging to the same Cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), kiSpotTainted(), clusterQueue(), kiLQ("queue", "cluster-queue"),
			MakeClusterQueue("foo-clusterqueue").Cohort("prod").Quota("on-demand", corev1.ResourceCPU, "5").Obj(),
			kiLQ("foo-queue", "foo-clusterqueue"))
		e.create(MakeWorkload(kiNS, "on-demand-wl1").Queue("foo-queue").Request(corev1.ResourceCPU, "8"))
		e.step("first big workload", []string{"on-demand-wl1"}, nil)
		e.holds("foo-clusterqueue", "on-demand", "on-demand-wl1")
		e.create(MakeWorkload(kiNS, "on-demand-wl2").Queue("queue").Request(corev1.ResourceCPU, "8"))
		e.step("second big workload", nil, nil)
		e.counts("cluster-queue", 0, 1)
		e.create(MakeWorkload(kiNS, "on-demand-wl3").Queue("foo-queue").Request(corev1.ResourceCPU, "2"))
		e.step("third small workload", []string{"on-demand-wl3"}, nil)
		e.holds("foo-clusterqueue", "on-demand", "on-demand-wl3")
		e.s.DeleteWorkload(e.key("on-demand-wl1"))
		e.step("the first one deleted", []string{"on-demand-wl2"}, nil)
		e.holds("cluster-queue", "on-demand", "on-demand-wl2")
		e.counts("cluster-queue", 1, 0)
	})
}

// Kueue: scheduler_test.go, When "Using cohorts for sharing unused resources".
func TestKueueIntegrationSchedulerUsingCohortsForSharingUnusedResources(t *testing.T) {
	flavors := func() []any { return []any{kiOnDemand(), kiSpotTainted(), kiSpotUntainted()} }

	// It "Should admit workloads using borrowed ClusterQueue".
	t.Run("Should admit workloads using borrowed ClusterQueue", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("spot-tainted", corev1.ResourceCPU, "5", Borrowing("0")).
				Quota("on-demand", corev1.ResourceCPU, "5").Obj(),
			kiLQ("queue", "prod-cq"))...)
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "10").Toleration(kiSpotToleration))
		e.step("a no-fit workload", nil, nil)
		e.counts("prod-cq", 0, 1)
		e.admittedTotal("prod-cq", 0)
		// prod-cq cannot borrow fallback-cq's spot-tainted: its borrowingLimit is 0.
		apply(t, e.s, MakeClusterQueue("fallback-cq").Cohort("all").Quota("spot-tainted", corev1.ResourceCPU, "5").
			Quota("on-demand", corev1.ResourceCPU, "5").Obj())
		e.step("a fallback ClusterQueue", []string{"wl"}, nil)
		e.holds("prod-cq", "on-demand", "wl")
		e.counts("prod-cq", 1, 0)
	})

	// It "Should schedule workloads borrowing quota from ClusterQueues in the
	// same Cohort".
	t.Run("Should schedule workloads borrowing quota from ClusterQueues in the same Cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Borrowing("10")).Obj(),
			MakeClusterQueue("dev-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Borrowing("10")).Obj(),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))...)
		e.create(MakeWorkload(kiNS, "wl-1").Queue("prod-queue").Request(corev1.ResourceCPU, "11"),
			MakeWorkload(kiNS, "wl-2").Queue("dev-queue").Request(corev1.ResourceCPU, "11"))
		e.step("two workloads", nil, nil)
		e.counts("prod-cq", 0, 1)
		e.counts("dev-cq", 0, 1)
		apply(t, e.s, MakeClusterQueue("test-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "15", Borrowing("0")).Obj())
		e.step("test-cq lends", []string{"wl-1", "wl-2"}, nil)
		e.holds("prod-cq", "on-demand", "wl-1")
		e.holds("dev-cq", "on-demand", "wl-2")
	})

	// It "Should start workloads that are under min quota before borrowing".
	t.Run("Should start workloads that are under min quota before borrowing", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Cohort("all").Strategy(kueue.StrictFIFO).Quota("on-demand", corev1.ResourceCPU, "2").Obj(),
			MakeClusterQueue("dev-cq").Cohort("all").Strategy(kueue.StrictFIFO).Quota("on-demand", corev1.ResourceCPU, "0").Obj(),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))...)
		e.create(MakeWorkload(kiNS, "p-wl-1").Queue("prod-queue").Request(corev1.ResourceCPU, "2"))
		e.step("the first prod workload", []string{"p-wl-1"}, nil)
		e.create(MakeWorkload(kiNS, "d-wl-1").Queue("dev-queue").Request(corev1.ResourceCPU, "1"),
			MakeWorkload(kiNS, "p-wl-2").Queue("prod-queue").Request(corev1.ResourceCPU, "2"))
		e.step("a workload for each ClusterQueue", nil, nil)
		e.pending("d-wl-1", "p-wl-2")
		e.finish("p-wl-1")
		// p-wl-2 goes first, though created after d-wl-1: it does not borrow.
		e.step("the first prod workload finished", []string{"p-wl-2"}, nil)
		e.holds("prod-cq", "on-demand", "p-wl-2")
		e.pending("d-wl-1")
		e.finish("p-wl-2")
		e.step("the second prod workload finished", []string{"d-wl-1"}, nil)
		e.holds("dev-cq", "on-demand", "d-wl-1")
	})

	// It "Should try next flavor if can't preempt on first".
	t.Run("Should try next flavor if can't preempt on first", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Strategy(kueue.StrictFIFO).Cohort("all").Quota("on-demand", corev1.ResourceCPU, "2").
				Quota("spot-untainted", corev1.ResourceCPU, "2").Preemption(never, lower).WhenCanPreempt(kueue.MayStopSearch).Obj(),
			kiLQ("prod-queue", "prod-cq"))...)
		e.create(MakeWorkload(kiNS, "wl-1").Queue("prod-queue").Request(corev1.ResourceCPU, "1"),
			MakeWorkload(kiNS, "wl-2").Queue("prod-queue").Request(corev1.ResourceCPU, "1"))
		e.step("two workloads", []string{"wl-1", "wl-2"}, nil)
		e.holds("prod-cq", "on-demand", "wl-1", "wl-2")
		e.create(MakeWorkload(kiNS, "wl-3").Queue("prod-queue").Request(corev1.ResourceCPU, "1"))
		e.step("a workload that can't fit in the first flavor", []string{"wl-3"}, nil)
		e.holds("prod-cq", "spot-untainted", "wl-3")
		e.counts("prod-cq", 3, 0)
		e.admittedTotal("prod-cq", 3)
	})

	// It "Should try next flavor instead of borrowing".
	t.Run("Should try next flavor instead of borrowing", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "10", Borrowing("10")).Obj(),
			MakeClusterQueue("dev-cq").Cohort("all").WhenCanBorrow(kueue.TryNextFlavor).
				Quota("on-demand", corev1.ResourceCPU, "10", Borrowing("10")).Quota("spot-tainted", corev1.ResourceCPU, "11").Obj(),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))...)
		e.create(MakeWorkload(kiNS, "wl-1").Queue("prod-queue").Request(corev1.ResourceCPU, "9"))
		e.step("one workload", []string{"wl-1"}, nil)
		e.holds("prod-cq", "on-demand", "wl-1")
		e.create(MakeWorkload(kiNS, "wl-2").Queue("dev-queue").Request(corev1.ResourceCPU, "11").Toleration(kiSpotToleration))
		e.step("another workload", []string{"wl-2"}, nil)
		e.holds("dev-cq", "spot-tainted", "wl-2")
	})

	// It "Should preempt before try next flavor".
	t.Run("Should preempt before try next flavor", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(flavors(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "10", Borrowing("10")).
				Quota("spot-untainted", corev1.ResourceCPU, "11").Preemption(any_, never).WhenCanPreempt(kueue.MayStopSearch).Obj(),
			MakeClusterQueue("dev-cq").Cohort("all").WhenCanBorrow(kueue.TryNextFlavor).
				Quota("on-demand", corev1.ResourceCPU, "10", Borrowing("10")).Obj(),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))...)
		e.create(kiWl("wl-1", "dev-queue", 0, "9"), kiWl("wl-2", "dev-queue", 1, "9"))
		e.step("two workloads", []string{"wl-1", "wl-2"}, nil)
		e.create(MakeWorkload(kiNS, "wl-3").Queue("prod-queue").Request(corev1.ResourceCPU, "5"))
		e.step("another workload", nil, []string{"wl-1"})
		e.finishEviction("wl-1")
		e.step("after the eviction", []string{"wl-3"}, nil)
		e.holds("prod-cq", "on-demand", "wl-3")
	})
}

// Kueue: scheduler_test.go, When "Cohort provides resources directly".
func TestKueueIntegrationSchedulerCohortProvidesResourcesDirectly(t *testing.T) {
	cq := func(cohort string) *kueue.ClusterQueue {
		return MakeClusterQueue("clusterqueue").Cohort(cohort).Quota("on-demand", corev1.ResourceCPU, "0").Obj()
	}

	// It "Should admit workload using resources borrowed from cohort".
	t.Run("Should admit workload using resources borrowed from cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), cq("cohort"), kiLQ("queue", "clusterqueue"))
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "10"))
		e.step("the Cohort provides no resources", nil, nil)
		e.pending("wl")
		apply(t, e.s, MakeCohort("cohort").Quota("on-demand", corev1.ResourceCPU, "5").Obj())
		e.step("the Cohort provides too few resources", nil, nil)
		e.pending("wl")
		e.admittedTotal("clusterqueue", 0)
		apply(t, e.s, MakeCohort("cohort").Quota("on-demand", corev1.ResourceCPU, "10").Obj())
		e.step("the Cohort provides enough", []string{"wl"}, nil)
		e.holds("clusterqueue", "on-demand", "wl")
		e.counts("clusterqueue", 1, 0)
	})

	// It "Should admit workload borrowing from cohort when requesting zero of a
	// resource not in ClusterQueue".
	t.Run("Should admit workload borrowing from cohort when requesting zero of a resource not in ClusterQueue", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), cq("cohort"), kiLQ("queue", "clusterqueue"),
			MakeCohort("cohort").Quota("on-demand", corev1.ResourceCPU, "10").Obj())
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "5").Request("example.com/gpu", "0"))
		ds := e.step("cpu and zero example.com/gpu", []string{"wl"}, nil)
		a := admits(ds)[0]
		if len(a.PodSets) != 1 {
			t.Fatalf("pod sets %+v, want one", a.PodSets)
		}
		ps := a.PodSets[0]
		if len(ps.Flavors) != 1 || ps.Flavors[corev1.ResourceCPU] != "on-demand" {
			t.Fatalf("flavors %v, want only cpu in on-demand", ps.Flavors)
		}
		if _, ok := ps.Usage["example.com/gpu"]; ok || ps.Usage[corev1.ResourceCPU] == 0 {
			t.Fatalf("usage %v, want cpu only", ps.Usage)
		}
	})

	// It "Should admit workload when cq switches into cohort with capacity".
	t.Run("Should admit workload when cq switches into cohort with capacity", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(), cq("impecunious-cohort"), kiLQ("queue", "clusterqueue"))
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "10"))
		e.step("no capacity", nil, nil)
		e.admittedTotal("clusterqueue", 0)
		apply(t, e.s, MakeCohort("cohort").Quota("on-demand", corev1.ResourceCPU, "10").Obj())
		apply(t, e.s, cq("cohort"))
		e.step("the ClusterQueue switches", []string{"wl"}, nil)
		e.holds("clusterqueue", "on-demand", "wl")
		e.counts("clusterqueue", 1, 0)
	})

	// It "Long distance resource allows workload to be scheduled".
	t.Run("Long distance resource allows workload to be scheduled", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(),
			MakeClusterQueue("cq").Cohort("left").Quota("on-demand", corev1.ResourceCPU, "0").Obj(), kiLQ("queue", "cq"),
			MakeCohort("left").Parent("root").Obj(), MakeCohort("right").Parent("root").Obj())
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "10"))
		e.step("no resources in the tree", nil, nil)
		e.admittedTotal("cq", 0)
		apply(t, e.s, MakeCohort("bank").Parent("right").Quota("on-demand", corev1.ResourceCPU, "10").Obj())
		e.step("bank provides", []string{"wl"}, nil)
		e.holds("cq", "on-demand", "wl")
		e.counts("cq", 1, 0)
	})

	// It "Should admit overflow workload after reparenting child cohort to a
	// larger root".
	t.Run("Should admit overflow workload after reparenting child cohort to a larger root", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(),
			MakeCohort("root-a").Quota("on-demand", corev1.ResourceCPU, "1").Obj(),
			MakeCohort("root-b").Quota("on-demand", corev1.ResourceCPU, "2").Obj(),
			MakeCohort("child").Parent("root-a").Obj(),
			MakeClusterQueue("cq").Cohort("child").Quota("on-demand", corev1.ResourceCPU, "0").Obj(), kiLQ("queue", "cq"))
		e.create(MakeWorkload(kiNS, "wl-1").Queue("queue").Request(corev1.ResourceCPU, "500m"),
			MakeWorkload(kiNS, "wl-2").Queue("queue").Request(corev1.ResourceCPU, "500m"))
		e.step("filling root-a", []string{"wl-1", "wl-2"}, nil)
		e.create(MakeWorkload(kiNS, "wl-overflow").Queue("queue").Request(corev1.ResourceCPU, "500m"))
		e.step("an overflow workload", nil, nil)
		e.counts("cq", 2, 1)
		apply(t, e.s, MakeCohort("child").Parent("root-b").Obj())
		e.step("child moves under root-b", []string{"wl-overflow"}, nil)
		e.holds("cq", "on-demand", "wl-1", "wl-2", "wl-overflow")
		e.counts("cq", 3, 0)
		e.admittedTotal("cq", 3)
	})
}

// Kueue: scheduler_test.go, When "Using cohorts for sharing with LendingLimit".
func TestKueueIntegrationSchedulerUsingCohortsForSharingWithLendingLimit(t *testing.T) {
	// It "Should admit workloads using borrowed ClusterQueue".
	t.Run("Should admit workloads using borrowed ClusterQueue", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Lending("1")).Obj(),
			kiLQ("queue", "prod-cq"))
		e.create(MakeWorkload(kiNS, "wl").Queue("queue").Request(corev1.ResourceCPU, "9"))
		e.step("a no-fit workload", nil, nil)
		e.counts("prod-cq", 0, 1)
		apply(t, e.s, MakeClusterQueue("dev-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Lending("4")).Obj())
		e.step("dev-cq lends 4", []string{"wl"}, nil)
		e.holds("prod-cq", "on-demand", "wl")
		e.counts("prod-cq", 1, 0)
	})

	// It "Should admit workloads after updating lending limit".
	t.Run("Should admit workloads after updating lending limit", func(t *testing.T) {
		dev := func(lending string) *kueue.ClusterQueue {
			return MakeClusterQueue("dev-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Lending(lending)).Obj()
		}
		e := kiNewEnv(t, Options{}, kiOnDemand(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("on-demand", corev1.ResourceCPU, "5", Lending("0")).Obj(), dev("0"),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))
		e.create(MakeWorkload(kiNS, "wl-1").Queue("prod-queue").Request(corev1.ResourceCPU, "5"),
			MakeWorkload(kiNS, "wl-2").Queue("prod-queue").Request(corev1.ResourceCPU, "5"))
		e.step("two workloads", []string{"wl-1"}, nil)
		e.pending("wl-2")
		e.counts("prod-cq", 1, 1)
		e.counts("dev-cq", 0, 0)
		apply(t, e.s, dev("5"))
		e.step("dev-cq lends 5", []string{"wl-2"}, nil)
		e.holds("prod-cq", "on-demand", "wl-2")
		e.counts("prod-cq", 2, 0)
		e.admittedTotal("dev-cq", 0)
	})
}

// kiStrictFIFO is the first "Queueing with StrictFIFO" context's queue:
// strict-fifo-cq (StrictFIFO, 5 cpus of on-demand without borrowing, in
// cohort) selecting namespaces with dep In (eng); namespace foo has dep=eng,
// kiNS has no labels.
func kiStrictFIFO() []any {
	cq := MakeClusterQueue("strict-fifo-cq").Strategy(kueue.StrictFIFO).
		Quota("on-demand", corev1.ResourceCPU, "5", Borrowing("0")).Cohort("cohort").Obj()
	cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "dep", Operator: metav1.LabelSelectorOpIn, Values: []string{"eng"}}}}
	return []any{kiOnDemand(), cq, namespace{"foo", map[string]string{"dep": "eng"}}, namespace{kiNS, nil}}
}

// Kueue: scheduler_test.go, the first When "Queueing with StrictFIFO".
func TestKueueIntegrationSchedulerQueueingWithStrictFIFO(t *testing.T) {
	// It "Should schedule workloads by their priority strictly": the workloads
	// exist before their LocalQueue.
	t.Run("Should schedule workloads by their priority strictly", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiStrictFIFO()...)
		e.create(MakeWorkload("foo", "wl1").Queue("strict-fifo-q").Request(corev1.ResourceCPU, "2").Priority(100),
			MakeWorkload("foo", "wl2").Queue("strict-fifo-q").Request(corev1.ResourceCPU, "5").Priority(10),
			MakeWorkload("foo", "wl3").Queue("strict-fifo-q").Request(corev1.ResourceCPU, "1").Priority(1))
		apply(t, e.s, MakeLocalQueue("foo", "strict-fifo-q", "strict-fifo-cq").Obj())
		e.step("the LocalQueue exists", []string{"wl1"}, nil)
		e.pending("wl2", "wl3")
		// wl3 cannot go before wl2, although it fits.
		e.step("consistently", nil, nil)
		e.pending("wl3")
		e.counts("strict-fifo-cq", 1, 2)
		e.admittedTotal("strict-fifo-cq", 1)
	})

	// It "Workloads not matching namespaceSelector should not block others".
	t.Run("Workloads not matching namespaceSelector should not block others", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, append(kiStrictFIFO(),
			MakeLocalQueue(kiNS, "not-matching-queue", "strict-fifo-cq").Obj(),
			MakeLocalQueue("foo", "matching-queue", "strict-fifo-cq").Obj())...)
		e.create(MakeWorkload("foo", "wl1").Queue("matching-queue").Request(corev1.ResourceCPU, "2").Priority(100),
			MakeWorkload(kiNS, "wl2").Queue("not-matching-queue").Request(corev1.ResourceCPU, "5").Priority(10),
			MakeWorkload("foo", "wl3").Queue("matching-queue").Request(corev1.ResourceCPU, "1").Priority(1))
		ds := e.step("workloads", []string{"wl1", "wl3"}, nil)
		mustPending(t, ds, "wl2", ReasonNamespaceNotSelected)
		e.counts("strict-fifo-cq", 2, 1)
	})

	// It "Pending workload with StrictFIFO doesn't block other CQ from
	// borrowing from a third CQ": team-a and shared-resources (5 cpus each)
	// join the cohort. pending-wl cannot fit in strict-fifo-cq and has no
	// candidates; strict-fifo-cq cannot always reclaim, so its remaining
	// nominal quota is held for it and player3-a may not borrow it.
	t.Run("Pending workload with StrictFIFO doesn't block other CQ from borrowing from a third CQ", func(t *testing.T) {
		teamA := func(stop kueue.StopPolicy) *kueue.ClusterQueue {
			return MakeClusterQueue("team-a").Quota("on-demand", corev1.ResourceCPU, "5").Cohort("cohort").StopPolicy(stop).Obj()
		}
		e := kiNewEnv(t, Options{}, append(kiStrictFIFO(), teamA(kueue.None),
			MakeLocalQueue("foo", "strict-fifo-q", "strict-fifo-cq").Obj(), MakeLocalQueue("foo", "team-a-lq", "team-a").Obj(),
			MakeClusterQueue("shared-resources").Quota("on-demand", corev1.ResourceCPU, "5").Cohort("cohort").Obj())...)
		e.create(MakeWorkload("foo", "wl").Queue("strict-fifo-q").Request(corev1.ResourceCPU, "3").Priority(10),
			MakeWorkload("foo", "player1-a").Queue("team-a-lq").Request(corev1.ResourceCPU, "5").Priority(1))
		e.step("two workloads", []string{"wl", "player1-a"}, nil)
		apply(t, e.s, teamA(kueue.Hold))
		e.create(MakeWorkload("foo", "pending-wl").Queue("strict-fifo-q").Request(corev1.ResourceCPU, "3").Priority(99),
			MakeWorkload("foo", "player2-a").Queue("team-a-lq").Request(corev1.ResourceCPU, "5").Priority(11),
			MakeWorkload("foo", "player3-a").Queue("team-a-lq").Request(corev1.ResourceCPU, "1").Priority(10))
		e.step("team-a held", nil, nil)
		apply(t, e.s, teamA(kueue.None))
		e.step("team-a resumed", []string{"player2-a"}, nil)
		e.pending("pending-wl", "player3-a")
	})
}

// Kueue: scheduler_test.go, the second When "Queueing with StrictFIFO": cq
// (StrictFIFO, 5 cpus of on-demand) fed by local-queue.
func TestKueueIntegrationSchedulerQueueingWithStrictFIFOCounts(t *testing.T) {
	cq := func(s kueue.QueueingStrategy) *kueue.ClusterQueue {
		return MakeClusterQueue("cq").Strategy(s).Quota("on-demand", corev1.ResourceCPU, "5").Obj()
	}
	setup := func(t *testing.T) *kiEnv {
		return kiNewEnv(t, Options{}, kiOnDemand(), cq(kueue.StrictFIFO), kiLQ("local-queue", "cq"))
	}
	wl := func(name, cpu string, prio int32) *WorkloadWrapper {
		return MakeWorkload(kiNS, name).Queue("local-queue").Request(corev1.ResourceCPU, cpu).Priority(prio)
	}

	// It "Should report pending workloads properly when blocked".
	t.Run("Should report pending workloads properly when blocked", func(t *testing.T) {
		e := setup(t)
		e.create(wl("wl1", "2", 100), wl("wl2", "5", 10))
		e.step("two workloads", []string{"wl1"}, nil)
		e.counts("cq", 1, 1)
		e.create(wl("wl3", "1", 1))
		e.step("wl3 is pending too", nil, nil)
		e.counts("cq", 1, 2)
		e.finish("wl1")
		e.step("wl1 finished: wl2 admitted", []string{"wl2"}, nil)
		e.counts("cq", 1, 1)
		e.finish("wl2", "wl3")
		e.step("all finished", nil, nil)
		e.counts("cq", 0, 0)
	})

	// It "Should allow mutating the requeueingStrategy".
	t.Run("Should allow mutating the requeueingStrategy", func(t *testing.T) {
		e := setup(t)
		e.create(wl("wl1", "2", 100), wl("wl2", "5", 10), wl("wl3", "1", 1))
		e.step("initial workloads", []string{"wl1"}, nil)
		e.pending("wl2")
		e.counts("cq", 1, 2)
		apply(t, e.s, cq(kueue.BestEffortFIFO))
		e.step("BestEffortFIFO", []string{"wl3"}, nil)
		e.holds("cq", "on-demand", "wl1", "wl3")
		e.pending("wl2")
		e.counts("cq", 2, 1)
		apply(t, e.s, cq(kueue.StrictFIFO))
		e.step("StrictFIFO again", nil, nil)
		e.holds("cq", "on-demand", "wl1", "wl3")
		e.pending("wl2")
		e.counts("cq", 2, 1)
		e.create(wl("wl4", "1", 1))
		e.step("wl4", nil, nil)
		e.holds("cq", "on-demand", "wl1", "wl3")
		e.pending("wl2", "wl4")
		e.counts("cq", 2, 2)
		e.finish("wl1", "wl2", "wl3", "wl4")
	})
}

// Kueue: scheduler_test.go, When "Deleting resources from borrowing
// clusterQueue", It "shouldn't admit second workload on over admission": cq1
// (1 cpu, 1Gi of on-demand) and cq2 (2 cpus, 1Gi) in cohort. Kueue's test
// counts on wl1 being scheduled before wl2 exists (wl2 would go first in a
// cycle seeing both, since it does not borrow), so a cycle runs in between.
func TestKueueIntegrationSchedulerDeletingResourcesFromBorrowingClusterQueue(t *testing.T) {
	t.Run("shouldn't admit second workload on over admission", func(t *testing.T) {
		cq1 := func() *ClusterQueueWrapper {
			return MakeClusterQueue("cq1").Cohort("cohort").Quota("on-demand", corev1.ResourceCPU, "1")
		}
		e := kiNewEnv(t, Options{}, kiOnDemand(), cq1().Quota("on-demand", corev1.ResourceMemory, "1Gi").Obj(),
			MakeClusterQueue("cq2").Cohort("cohort").Quota("on-demand", corev1.ResourceCPU, "2").Quota("on-demand", corev1.ResourceMemory, "1Gi").Obj(),
			kiLQ("lq1", "cq1"), kiLQ("lq2", "cq2"))
		e.create(MakeWorkload(kiNS, "wl1").Queue("lq1").Request(corev1.ResourceCPU, "2").Request(corev1.ResourceMemory, "2Gi"))
		e.step("the first workload", []string{"wl1"}, nil)
		e.create(MakeWorkload(kiNS, "wl2").Queue("lq2").Request(corev1.ResourceCPU, "1").Request(corev1.ResourceMemory, "1Gi"))
		ds := e.step("the second workload", nil, nil)
		if p := mustPending(t, ds, "wl2", ReasonInsufficientQuotaInCohort); !strings.Contains(p.Message, "memory") {
			t.Fatalf("wl2: message %q does not name memory", p.Message)
		}
		e.holds("cq1", "on-demand", "wl1")

		apply(t, e.s, cq1().Obj())
		ds = e.step("memory removed from cq1", nil, nil)
		for _, d := range ds {
			if ev, ok := d.(Evict); ok {
				t.Fatalf("eviction %+v", ev)
			}
		}
		e.holds("cq1", "on-demand", "wl1")
		mustStillPending(t, e.s, ds, "wl2", ReasonInsufficientQuotaInCohort)
	})
}

// Kueue: scheduler_test.go, When "Reserving Resources in Cohort":
// foundation-queue (StrictFIFO, 2 cpus) and best-effort-queue (no quota) in
// cohort.
func TestKueueIntegrationSchedulerReservingResourcesInCohort(t *testing.T) {
	setup := func(t *testing.T, reclaim kueue.PreemptionPolicy) *kiEnv {
		return kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand()},
			kiQueue(MakeClusterQueue("foundation-queue").Cohort("cohort").Strategy(kueue.StrictFIFO).Preemption(reclaim, never).
				Quota("on-demand", corev1.ResourceCPU, "2").Obj()),
			kiQueue(MakeClusterQueue("best-effort-queue").Cohort("cohort").Quota("on-demand", corev1.ResourceCPU, "0").Obj()))...)
	}

	// It "foundation-queue allows best-effort queue to use capacity until it is
	// ready to admit next workload": foundation-queue reclaims Any.
	t.Run("foundation-queue allows best-effort queue to use capacity until it is ready to admit next workload", func(t *testing.T) {
		e := setup(t, any_)
		e.create(kiWl("foundation-1", "foundation-queue", 1000, "1"))
		e.step("the first foundation workload", []string{"foundation-1"}, nil)
		e.admittedTotal("foundation-queue", 1)
		e.counts("foundation-queue", 1, 0)
		e.create(kiWl("foundation-2", "foundation-queue", 1000, "2"))
		e.step("the second foundation workload cannot admit", nil, nil)
		e.counts("foundation-queue", 1, 1)
		e.create(kiWl("best-effort-1", "best-effort-queue", 0, "1"), kiWl("best-effort-2", "best-effort-queue", 0, "1"))
		e.step("best-effort workloads: one admits", []string{"best-effort-1"}, nil)
		e.admittedTotal("best-effort-queue", 1)
		e.counts("best-effort-queue", 1, 1)

		e.finishRunningInCQ("foundation-queue", 1)
		e.step("the first foundation workload finished", nil, []string{"best-effort-1"})
		e.counts("foundation-queue", 0, 1)
		e.counts("best-effort-queue", 1, 1)
		e.finishEvictionsInCQ("best-effort-queue", 1)
		e.step("after the eviction", []string{"foundation-2"}, nil)
		e.counts("foundation-queue", 1, 0)
		e.counts("best-effort-queue", 0, 2)
	})

	// It "foundation-queue blocks capacity when it is not sure that it can
	// reclaim": foundation-queue reclaims LowerPriority.
	t.Run("foundation-queue blocks capacity when it is not sure that it can reclaim", func(t *testing.T) {
		e := setup(t, lower)
		e.create(kiWl("foundation-1", "foundation-queue", 1000, "1"))
		e.step("the first foundation workload", []string{"foundation-1"}, nil)
		e.create(kiWl("foundation-2", "foundation-queue", 1000, "2"))
		e.step("the second foundation workload cannot admit", nil, nil)
		e.counts("foundation-queue", 1, 1)
		e.create(kiWl("best-effort-1", "best-effort-queue", 0, "1"), kiWl("best-effort-2", "best-effort-queue", 0, "1"))
		e.step("best-effort workloads: neither admits", nil, nil)
		e.counts("best-effort-queue", 0, 2)
		e.finishRunningInCQ("foundation-queue", 1)
		e.step("the first foundation workload finished", []string{"foundation-2"}, nil)
		e.counts("best-effort-queue", 0, 2)
		e.counts("foundation-queue", 1, 0)
	})
}

// Kueue: scheduler_test.go, When "Using multiple flavours", When "Multiple
// flavors can be considered for preemption", It "finds correct flavor by
// discarding the first one in which preemption is not possible": cq1 (0 cpus
// of f1, 1 of f2) and cq2 (1 of f1, 0 of f2) try the next flavor when they
// could borrow or preempt, and preempt LowerPriority within, Any in the
// cohort, LowerPriority while borrowing. After cq1-high's eviction Kueue
// admits cq2-mid and then lets cq1-high preempt cq1-low; Quokka does both in
// one cycle.
func TestKueueIntegrationSchedulerUsingMultipleFlavours(t *testing.T) {
	t.Run("Multiple flavors can be considered for preemption/finds correct flavor by discarding the first one in which preemption is not possible", func(t *testing.T) {
		q := func(name, f1, f2 string) []any {
			return kiQueue(MakeClusterQueue(name).WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).Cohort("cohort").
				Preemption(any_, lower).BorrowWithinCohort(nil).
				Quota("f1", corev1.ResourceCPU, f1).Quota("f2", corev1.ResourceCPU, f2).Obj())
		}
		e := kiNewEnv(t, Options{}, kiObjs([]any{MakeFlavor("f1").Obj(), MakeFlavor("f2").Obj()}, q("cq1", "0", "1"), q("cq2", "1", "0"))...)
		e.create(kiWl("cq1-low", "cq1", 0, "1"))
		e.step("cq1-low", []string{"cq1-low"}, nil)
		e.holds("cq1", "f2", "cq1-low")
		e.create(kiWl("cq1-high", "cq1", 9999, "1"))
		e.step("cq1-high", []string{"cq1-high"}, nil)
		e.holds("cq1", "f1", "cq1-high")
		e.create(kiWl("cq2-mid", "cq2", 105, "1"))
		e.step("cq2-mid reclaims f1", nil, []string{"cq1-high"})
		e.finishEviction("cq1-high")
		e.step("cq2-mid admitted; cq1-high preempts cq1-low", []string{"cq2-mid"}, []string{"cq1-low"})
		e.holds("cq2", "f1", "cq2-mid")
		e.finishEviction("cq1-low")
		e.step("cq1-high admitted in f2", []string{"cq1-high"}, nil)
		e.holds("cq1", "f2", "cq1-high")
	})
}

// Kueue: scheduler_test.go, When "Deleting ClusterQueue should update cohort
// borrowable resources", It "Should prevent incorrect admission through
// borrowing after ClusterQueue deletion".
func TestKueueIntegrationSchedulerDeletingClusterQueueShouldUpdateCohortBorrowableResources(t *testing.T) {
	t.Run("Should prevent incorrect admission through borrowing after ClusterQueue deletion", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand()},
			kiQueue(MakeClusterQueue("queue-1").Cohort("bug-test").Quota("on-demand", corev1.ResourceCPU, "8").Obj()),
			kiQueue(MakeClusterQueue("queue-2").Cohort("bug-test").Quota("on-demand", corev1.ResourceCPU, "0").Obj()))...)
		e.s.DeleteClusterQueue("queue-1")
		e.create(kiWl("wl", "queue-2", 1000, "8"))
		e.step("a workload that would borrow 8 cpus", nil, nil)
		e.counts("queue-2", 0, 1)
		e.admittedTotal("queue-2", 0)
	})
}

// Kueue: scheduler_test.go, When "Deleting child Cohort should update
// borrowable resources for parent Cohort".
func TestKueueIntegrationSchedulerDeletingChildCohortShouldUpdateBorrowableResourcesForParentCohort(t *testing.T) {
	// It "Should not admit from stale subtree quota after deleting sibling
	// cohort": left (0 cpus) with cq-a (10) and right (5) with cq-b (7) under
	// root; right is deleted while cq-b still names it.
	t.Run("Should not admit from stale subtree quota after deleting sibling cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand(), MakeCohort("root").Obj(),
			MakeCohort("left").Parent("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj(),
			MakeCohort("right").Parent("root").Quota("on-demand", corev1.ResourceCPU, "5").Obj()},
			kiQueue(MakeClusterQueue("cq-a").Cohort("left").Quota("on-demand", corev1.ResourceCPU, "10").Obj()),
			kiQueue(MakeClusterQueue("cq-b").Cohort("right").Quota("on-demand", corev1.ResourceCPU, "7").Obj()))...)
		e.create(MakeWorkload(kiNS, "wl-base").Queue("cq-a").Request(corev1.ResourceCPU, "10"))
		e.step("a baseline workload", []string{"wl-base"}, nil)
		e.holds("cq-a", "on-demand", "wl-base")
		e.s.DeleteCohort("right")
		e.create(MakeWorkload(kiNS, "wl-after-delete").Queue("cq-a").Request(corev1.ResourceCPU, "8"))
		e.step("a workload after the deletion", nil, nil)
		e.pending("wl-after-delete")
	})

	// It "Should not allow borrowing through deleted mid-tree cohort": root (2
	// cpus) over mid (2) over cq-mid (1).
	t.Run("Should not allow borrowing through deleted mid-tree cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand(),
			MakeCohort("root").Quota("on-demand", corev1.ResourceCPU, "2").Obj(),
			MakeCohort("mid").Parent("root").Quota("on-demand", corev1.ResourceCPU, "2").Obj()},
			kiQueue(MakeClusterQueue("cq-mid").Cohort("mid").Quota("on-demand", corev1.ResourceCPU, "1").Obj()))...)
		e.create(MakeWorkload(kiNS, "wl-base").Queue("cq-mid").Request(corev1.ResourceCPU, "1"))
		e.step("a baseline workload within the queue's quota", []string{"wl-base"}, nil)
		e.holds("cq-mid", "on-demand", "wl-base")
		e.s.DeleteCohort("mid")
		ds := e.step("mid deleted", nil, nil)
		for _, d := range ds {
			if ev, ok := d.(Evict); ok {
				t.Fatalf("eviction %+v", ev)
			}
		}
		e.holds("cq-mid", "on-demand", "wl-base")
		e.create(MakeWorkload(kiNS, "wl-after-delete").Queue("cq-mid").Request(corev1.ResourceCPU, "2"))
		e.step("a workload that would borrow through mid", nil, nil)
		e.pending("wl-after-delete")
	})
}

// Kueue: scheduler_test.go, When "Cohort lendingLimit caps sibling borrowing
// in hierarchy", It "Should admit only up to the lendingLimit of sibling
// cohort": lender (1 cpu, lending 500m; lender-cq 1 cpu) and borrower
// (borrower-cq, no quota) under root (0 cpus).
func TestKueueIntegrationSchedulerCohortLendingLimitCapsSiblingBorrowingInHierarchy(t *testing.T) {
	t.Run("Should admit only up to the lendingLimit of sibling cohort", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand(),
			MakeCohort("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj(),
			MakeCohort("lender").Parent("root").Quota("on-demand", corev1.ResourceCPU, "1", Lending("500m")).Obj(),
			MakeCohort("borrower").Parent("root").Obj()},
			kiQueue(MakeClusterQueue("lender-cq").Cohort("lender").Quota("on-demand", corev1.ResourceCPU, "1").Obj()),
			kiQueue(MakeClusterQueue("borrower-cq").Cohort("borrower").Quota("on-demand", corev1.ResourceCPU, "0").Obj()))...)
		e.create(MakeWorkload(kiNS, "wl-1").Queue("borrower-cq").Request(corev1.ResourceCPU, "500m"),
			MakeWorkload(kiNS, "wl-2").Queue("borrower-cq").Request(corev1.ResourceCPU, "500m"))
		e.step("workloads of the borrower", []string{"wl-1"}, nil)
		e.pending("wl-2")
		e.counts("borrower-cq", 1, 1)
	})
}

// Kueue: scheduler_test.go, When "Cohort borrowingLimit blocks sibling
// borrowing in hierarchy".
func TestKueueIntegrationSchedulerCohortBorrowingLimitBlocksSiblingBorrowingInHierarchy(t *testing.T) {
	// It "should allow production to borrow but block research from
	// borrowing": research (0 cpus, borrowingLimit 0; research-cq 1 cpu) and
	// production (0; production-cq 1) under root (0).
	t.Run("should allow production to borrow but block research from borrowing", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand(),
			MakeCohort("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj(),
			MakeCohort("research").Parent("root").Quota("on-demand", corev1.ResourceCPU, "0", Borrowing("0")).Obj(),
			MakeCohort("production").Parent("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj()},
			kiQueue(MakeClusterQueue("research-cq").Cohort("research").Quota("on-demand", corev1.ResourceCPU, "1").Obj()),
			kiQueue(MakeClusterQueue("production-cq").Cohort("production").Quota("on-demand", corev1.ResourceCPU, "1").Obj()))...)
		prod := kiNames("prod", 3)
		for _, n := range prod {
			e.create(MakeWorkload(kiNS, n).Queue("production-cq").Request(corev1.ResourceCPU, "500m"))
		}
		e.step("production borrows idle research capacity", prod, nil)
		e.counts("production-cq", 3, 0)
		e.finish(prod...)
		e.step("production finished", nil, nil)
		e.counts("production-cq", 0, 0)
		research := kiNames("research", 3)
		for _, n := range research {
			e.create(MakeWorkload(kiNS, n).Queue("research-cq").Request(corev1.ResourceCPU, "500m"))
		}
		e.step("research cannot borrow", research[:2], nil)
		e.counts("research-cq", 2, 1)
	})

	// It "should allow burst queue to borrow idle capacity while orgs stay
	// isolated": org-a and org-b (0 cpus, borrowingLimit 0; a queue of 1 cpu
	// each) and burst-cq (no quota) under root (0).
	t.Run("should allow burst queue to borrow idle capacity while orgs stay isolated", func(t *testing.T) {
		org := func(name string) *kueue.Cohort {
			return MakeCohort(name).Parent("root").Quota("on-demand", corev1.ResourceCPU, "0", Borrowing("0")).Obj()
		}
		e := kiNewEnv(t, Options{}, kiObjs([]any{kiOnDemand(),
			MakeCohort("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj(), org("org-a"), org("org-b")},
			kiQueue(MakeClusterQueue("org-a-cq").Cohort("org-a").Quota("on-demand", corev1.ResourceCPU, "1").Obj()),
			kiQueue(MakeClusterQueue("org-b-cq").Cohort("org-b").Quota("on-demand", corev1.ResourceCPU, "1").Obj()),
			kiQueue(MakeClusterQueue("burst-cq").Cohort("root").Quota("on-demand", corev1.ResourceCPU, "0").Obj()))...)
		for _, n := range []string{"org-a-1", "org-a-2", "org-a-overflow"} {
			e.create(MakeWorkload(kiNS, n).Queue("org-a-cq").Request(corev1.ResourceCPU, "500m"))
		}
		e.step("filling org-a", []string{"org-a-1", "org-a-2"}, nil)
		e.counts("org-a-cq", 2, 1)
		for _, n := range []string{"burst-1", "burst-2"} {
			e.create(MakeWorkload(kiNS, n).Queue("burst-cq").Request(corev1.ResourceCPU, "500m"))
		}
		e.step("burst borrows org-b's idle capacity", []string{"burst-1", "burst-2"}, nil)
		e.counts("burst-cq", 2, 0)
		e.counts("org-a-cq", 2, 1)
	})
}

// Kueue: scheduler_test.go, When "The admission goroutine races with
// preemptions in the next scheduling cycle", It "Should not deadlock the
// preempting workloads": cq-race (1 cpu, LowerPriority within). The race is
// between Kueue's asynchronous API writes; the engine's part is that wl2
// preempts wl1 and is admitted once the eviction is confirmed.
func TestKueueIntegrationSchedulerTheAdmissionGoroutineRacesWithPreemptionsInTheNextSchedulingCycle(t *testing.T) {
	t.Run("Should not deadlock the preempting workloads", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, kiOnDemand(),
			MakeClusterQueue("cq-race").Quota("on-demand", corev1.ResourceCPU, "1").Preemption(never, lower).Obj(),
			kiLQ("q-race", "cq-race"))
		e.s.UpsertWorkloadPriorityClass("low-wpc", -10)
		e.s.UpsertWorkloadPriorityClass("high-wpc", 10)
		e.create(MakeWorkload(kiNS, "wl1").Queue("q-race").PriorityClass("low-wpc", false).Priority(-10).Request(corev1.ResourceCPU, "1"))
		e.step("a low priority workload", []string{"wl1"}, nil)
		e.create(MakeWorkload(kiNS, "wl2").Queue("q-race").PriorityClass("high-wpc", false).Priority(10).Request(corev1.ResourceCPU, "1"))
		e.step("a high priority workload", nil, []string{"wl1"})
		e.finishEviction("wl1")
		e.step("after the eviction", []string{"wl2"}, nil)
		e.holds("cq-race", "on-demand", "wl2")
	})
}
