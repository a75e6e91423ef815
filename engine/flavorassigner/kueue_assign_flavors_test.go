package flavorassigner_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	. "quokka.dev/quokka/engine/enginetest"
)

// kaFlavorSet is the ResourceFlavors of Kueue's TestAssignFlavors (less the
// TAS ones): every case has all of them.
func kaFlavorSet() []*kueue.ResourceFlavor {
	tolerating := MakeFlavor("taint_and_toleration").Taint("instance", "spot", corev1.TaintEffectNoSchedule).Obj()
	tolerating.Spec.Tolerations = []corev1.Toleration{kaSpot}
	return []*kueue.ResourceFlavor{
		MakeFlavor("default").Obj(),
		MakeFlavor("one").NodeLabel("type", "one").Obj(),
		MakeFlavor("two").NodeLabel("type", "two").Obj(),
		MakeFlavor("b_one").NodeLabel("b_type", "one").Obj(),
		MakeFlavor("b_two").NodeLabel("b_type", "two").Obj(),
		MakeFlavor("tainted").Taint("instance", "spot", corev1.TaintEffectNoSchedule).Obj(),
		tolerating,
		MakeFlavor("label-x-a").NodeLabel("x", "a").Obj(),
		MakeFlavor("label-xy-b").NodeLabel("x", "b").NodeLabel("y", "k").Obj(),
	}
}

// kaSpot tolerates the taint of the flavors "tainted" and
// "taint_and_toleration".
var kaSpot = corev1.Toleration{Key: "instance", Operator: corev1.TolerationOpEqual, Value: "spot", Effect: corev1.TaintEffectNoSchedule}

// kaIn is a world of Kueue's TestAssignFlavors: its flavors, the queues and
// the admitted workloads holding the usage the case charges.
func kaIn(queues []*kueue.ClusterQueue, admitted ...*kueue.Workload) kaWorld {
	return kaWorld{flavors: kaFlavorSet(), queues: queues, admitted: admitted}
}

func kaQueues(qs ...*ClusterQueueWrapper) []*kueue.ClusterQueue {
	out := make([]*kueue.ClusterQueue, 0, len(qs))
	for _, q := range qs {
		out = append(out, q.Obj())
	}
	return out
}

func kaFairSharing(w kaWorld) kaWorld {
	w.fairSharing = true
	return w
}

// Kueue's stub oracle answers that preemption finds victims wherever a case
// does not say otherwise; here the answer comes from real workloads. Where
// it matters (a flavor where preemption finds no victims is passed over for
// the next one, and ranks below any other), the usage the case charges to the
// preempting queue is held by workloads of priority -1 and the queue gets
// withinClusterQueue: LowerPriority, a policy the flavor assigner itself does
// not read. Elsewhere the usage is held by workloads of priority 0 and the
// queues keep Kueue's policies: with no victims the mode is still Preempt,
// and the borrowing level is the one of the request with the usage as it is,
// which is the level Kueue's case expects. Every state here was also run
// through Kueue's own flavor assigner with its real oracle, which decided as
// asserted.

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go, TestAssignFlavors.
var kaAssignFlavorsCases = []kaCase{
	{
		name: "single flavor, fits",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Quota("default", kaCPU, "1").Quota("default", kaMem, "2Mi"))),
		wl:   kaPending().Request(kaCPU, "1").Request(kaMem, "1Mi").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "default", kaMem, "default"))},
	},
	{
		name:  "single flavor, fits tainted flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("tainted", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").Toleration(kaSpot).Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "tainted"))},
	},
	{
		name:  "single flavor, fits tainted flavor with toleration",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("taint_and_toleration", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "taint_and_toleration"))},
	},
	{
		name: "single flavor, used resources, doesn't fit",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaCPU, "4")),
			kaHolding("used", kaMain, 0, "default", kaCPU, "3")),
		wl:   kaPending().Request(kaCPU, "2").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "default"))},
	},
	{
		name: "multiple resource groups, fits",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Quota("one", kaCPU, "2").Quota("two", kaCPU, "4").
			Quota("b_one", kaMem, "1Gi").Quota("b_two", kaMem, "5Gi"))),
		wl:   kaPending().Request(kaCPU, "3").Request(kaMem, "10Mi").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaMem, "b_one"))},
	},
	{
		name: "multiple resource groups, one could fit with preemption, other doesn't fit",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "3").Quota("b_one", kaMem, "1Mi")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "1")),
		wl:   kaPending().Request(kaCPU, "3").Request(kaMem, "10Mi").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
	{
		name: "multiple resource groups with multiple resources, fits",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Quota("one", kaCPU, "2").Quota("one", kaMem, "1Gi").
			Quota("two", kaCPU, "4").Quota("two", kaMem, "15Mi").
			Quota("b_one", kaGPU, "4").Quota("b_two", kaGPU, "2"))),
		wl:   kaPending().Request(kaCPU, "3").Request(kaMem, "10Mi").Request(kaGPU, "3").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaMem, "two", kaGPU, "b_one"))},
	},
	{
		name: "multiple resource groups with multiple resources, fits with different modes",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				Quota("one", kaCPU, "2").Quota("one", kaMem, "1Gi").
				Quota("two", kaCPU, "4").Quota("two", kaMem, "15Mi").
				Quota("b_one", kaGPU, "4"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("b_one", kaGPU, "0")),
			kaHolding("used-memory", kaMain, 0, "two", kaMem, "10Mi"),
			kaHolding("borrowed-gpu", kaSecondary, 0, "b_one", kaGPU, "2")),
		wl:   kaPending().Request(kaCPU, "3").Request(kaMem, "10Mi").Request(kaGPU, "3").Obj(),
		want: kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "two", kaMem, "two", kaGPU, "b_one"))},
	},
	{
		name: "multiple resources in a group, doesn't fit",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Quota("one", kaCPU, "2").Quota("one", kaMem, "1Gi").
			Quota("two", kaCPU, "4").Quota("two", kaMem, "5Mi"))),
		wl:   kaPending().Request(kaCPU, "3").Request(kaMem, "10Mi").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
	{
		name:  "multiple flavors, fits while skipping tainted flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("tainted", kaCPU, "4").Quota("two", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "3").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name:  "multiple flavors, fits a node selector",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("two", kaCPU, "4"))),
		wl: kaPending().Request(kaCPU, "1").NodeSelector("type", "two").NodeSelector("ignored1", "foo").
			AffinityTerm("ignored2", corev1.NodeSelectorOpIn, "bar").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name: "multiple flavors, fits with node affinity",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Quota("one", kaCPU, "4").Quota("one", kaMem, "1Gi").
			Quota("two", kaCPU, "4").Quota("two", kaMem, "1Gi"))),
		wl: kaPending().Request(kaCPU, "1").Request(kaMem, "1Mi").NodeSelector("ignored1", "foo").
			AffinityTerm("type", corev1.NodeSelectorOpIn, "two").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaMem, "two"))},
	},
	{
		name:  "multiple flavors, node affinity fits any flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("two", kaCPU, "4"))),
		wl: kaPending().Request(kaCPU, "1").
			AffinityTerm("ignored2", corev1.NodeSelectorOpIn, "bar").
			AffinityTerm("cpuType", corev1.NodeSelectorOpIn, "two").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "multiple flavors with different label keys, selector only uses flavor's own keys",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("label-x-a", kaCPU, "4").Quota("label-xy-b", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").NodeSelector("x", "a").NodeSelector("y", "g").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "label-x-a"))},
	},
	{
		name:  "labelless flavor in group with labeled flavor, workload uses labeled selector",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaCPU, "4").Quota("two", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").NodeSelector("type", "two").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "default"))},
	},
	{
		name:  "multiple flavors, doesn't fit node affinity",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("two", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").AffinityTerm("type", corev1.NodeSelectorOpIn, "three").Obj(),
		want:  kaWant{mode: "NoFit", reason: decision.ReasonFlavorSkipped},
	},
	{
		name:  "multiple specs, fit different flavors",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("two", kaCPU, "10"))),
		wl: kaPending().PodSet("driver", 1).Request(kaCPU, "5").
			PodSet("worker", 1).Request(kaCPU, "3").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"), kaPS(kaCPU, "one"))},
	},
	{
		name: "multiple specs, fits borrowing",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				Quota("default", kaCPU, "2", Borrowing("98")).Quota("default", kaMem, "2Gi"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").
				Quota("default", kaCPU, "198").Quota("default", kaMem, "198Gi"))),
		wl: kaPending().PodSet("driver", 1).Request(kaCPU, "4").Request(kaMem, "1Gi").
			PodSet("worker", 1).Request(kaCPU, "6").Request(kaMem, "4Gi").Obj(),
		want: kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(
			kaPS(kaCPU, "default", kaMem, "default"), kaPS(kaCPU, "default", kaMem, "default"))},
	},
	{
		name: "not enough space to borrow",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").Quota("one", kaCPU, "1"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "10", Lending("0"))),
			kaHolding("secondary-used", kaSecondary, 0, "one", kaCPU, "9")),
		wl:   kaPending().Request(kaCPU, "2").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
	{
		name: "past max, but can preempt in ClusterQueue",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").Quota("one", kaCPU, "2", Borrowing("8")),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "98")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "9"),
			kaHolding("secondary-used", kaSecondary, 0, "one", kaCPU, "9")),
		wl:   kaPending().Request(kaCPU, "2").Obj(),
		want: kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name: "past min, but can preempt in ClusterQueue",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "2")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "1")),
		wl:   kaPending().Request(kaCPU, "2").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name: "past min, but can preempt in cohort and ClusterQueue",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").Quota("one", kaCPU, "3"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "7")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2"),
			kaHolding("secondary-borrowing", kaSecondary, 0, "one", kaCPU, "8")),
		wl:   kaPending().Request(kaCPU, "2").Obj(),
		want: kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name: "can only preempt flavors that match affinity",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("two", kaCPU, "4")),
			kaHolding("used-one", kaMain, 0, "one", kaCPU, "3"),
			kaHolding("used-two", kaMain, 0, "two", kaCPU, "3")),
		wl:   kaPending().Request(kaCPU, "2").NodeSelector("type", "two").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name: "each podset requires preemption on a different flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4").Quota("tainted", kaCPU, "10")),
			kaHolding("used-one", kaMain, 0, "one", kaCPU, "3"),
			kaHolding("used-tainted", kaMain, 0, "tainted", kaCPU, "3")),
		wl: kaPending().PodSet("launcher", 1).Request(kaCPU, "2").
			PodSet("workers", 10).Request(kaCPU, "1").Toleration(kaSpot).Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "one"), kaPS(kaCPU, "tainted"))},
	},
	{
		name:  "resource not listed in clusterQueue",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "4"))),
		wl:    kaPending().Request(kaGPU, "2").Obj(),
		want:  kaWant{mode: "NoFit", reason: decision.ReasonResourceNotCovered},
	},
	{
		name:  "zero resource request not in clusterQueue should succeed",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaCPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").Request(kaGPU, "0").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "default"))},
	},
	{
		name:  "zero resource request defined in clusterQueue should get flavor assigned",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaCPU, "4").Quota("default", kaGPU, "4"))),
		wl:    kaPending().Request(kaCPU, "1").Request(kaGPU, "0").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "default", kaGPU, "default"))},
	},
	{
		name:  "num pods fit",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaPod, "3").Quota("default", kaCPU, "10"))),
		wl:    kaPending().PodSet("main", 3).Request(kaCPU, "1").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "default", kaPod, "default"))},
	},
	{
		name:  "num pods don't fit",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaPod, "2").Quota("default", kaCPU, "10"))),
		wl:    kaPending().PodSet("main", 3).Request(kaCPU, "1").Obj(),
		want:  kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
	{
		name: "preempt before try next flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
			Quota("one", kaPod, "10").Quota("one", kaCPU, "10").
			Quota("two", kaPod, "10").Quota("two", kaCPU, "10")),
			kaHolding("used-low", kaMain, -1, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		name: "preempt before try next flavor; using WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
			Quota("one", kaPod, "10").Quota("one", kaCPU, "10").
			Quota("two", kaPod, "10").Quota("two", kaCPU, "10")),
			kaHolding("used-low", kaMain, -1, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		name: "preempt try next flavor",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).
			Quota("one", kaPod, "10").Quota("one", kaCPU, "10").
			Quota("two", kaPod, "10").Quota("two", kaCPU, "10")),
			kaHolding("used-low", kaMain, -1, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaPod, "two"))},
	},
	{
		name: "borrow try next flavor, found the first flavor",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Borrowing("1")).
				Quota("two", kaPod, "10").Quota("two", kaCPU, "1"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "1")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		name: "borrow try next flavor, found the second flavor",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Borrowing("1")).
				Quota("two", kaPod, "10").Quota("two", kaCPU, "10"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "1")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaPod, "two"))},
	},
	{
		name: "borrow before try next flavor",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Borrowing("1")).
				Quota("two", kaPod, "10").Quota("two", kaCPU, "10"),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "1")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		// The stub answers Preempt with borrowing level 1 for flavor one. In
		// Kueue's case the 10 CPUs in use belong to the secondary queue,
		// within its nominal quota: no victims there. Here the queue itself
		// holds them, borrowed, in workloads of lower priority.
		name:  "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch",
		world: kaBorrowingWhilePreempting("12", true, kueue.MayStopSearch),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaBorrowingWhilePreempting("12", true, kueue.MayStopSearch),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch",
		world: kaBorrowingWhilePreempting("", true, kueue.MayStopSearch),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaBorrowingWhilePreempting("", true, kueue.MayStopSearch),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor",
		world: kaBorrowingWhilePreempting("12", false, kueue.TryNextFlavor),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor,WhenCanPreempt=MayStopSearch",
		world: kaBorrowingWhilePreempting("12", false, kueue.TryNextFlavor),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name: "when borrowing while preemption is needed, but borrowingLimit exceeds the quota available in the cohort",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).BorrowWithinCohort(nil).
				Quota("one", kaCPU, "0", Borrowing("12")),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "11")),
			kaHolding("secondary-used", kaSecondary, 0, "one", kaCPU, "10")),
		wl:   kaPending().Request(kaCPU, "12").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
	{
		name: "lend try next flavor, found the second flavor",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Lending("1")).
				Quota("two", kaPod, "10").Quota("two", kaCPU, "10", Lending("0")),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "1")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two", kaPod, "two"))},
	},
	{
		name: "lend try next flavor, found the first flavor",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				WhenCanBorrow(kueue.TryNextFlavor).WhenCanPreempt(kueue.TryNextFlavor).
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Lending("1")).
				Quota("two", kaPod, "10").Quota("two", kaCPU, "1", Lending("0")),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "1")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		name:  "cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits)",
		world: kaNoCandidatesInFirstFlavor(),
		wl:    kaPending().Request(kaCPU, "2").Obj(),
		want:  kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name:  "cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits); using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaNoCandidatesInFirstFlavor(),
		wl:    kaPending().Request(kaCPU, "2").Obj(),
		want:  kaWant{mode: "Fit", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name: "quota exhausted, but can preempt in cohort and ClusterQueue",
		world: kaIn(kaQueues(
			MakeClusterQueue(kaMain).Cohort("test-cohort").
				Quota("one", kaPod, "10").Quota("one", kaCPU, "10", Lending("0")),
			MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaPod, "0").Quota("one", kaCPU, "0")),
			kaHolding("used", kaMain, 0, "one", kaCPU, "2")),
		wl:   kaPending().Request(kaCPU, "9").Obj(),
		want: kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one", kaPod, "one"))},
	},
	{
		// As in the cases without fair sharing above, the usage that the
		// stub lets preemption take is held by the queue's own workloads of
		// lower priority.
		name:  "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Any",
		world: kaFairSharing(kaFairSharingBorrowing(kueue.PreemptionPolicyAny)),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Any; using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaFairSharing(kaFairSharingBorrowing(kueue.PreemptionPolicyAny)),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Preempt", borrowing: 1, flavors: kaFlavors(kaPS(kaCPU, "one"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Never",
		world: kaFairSharing(kaFairSharingNever()),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name:  "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Never; using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
		world: kaFairSharing(kaFairSharingNever()),
		wl:    kaPending().Request(kaCPU, "12").Obj(),
		want:  kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		name:  "multi-podset, one fits and another fails, fitting podset attempts skipped in resolveNoFitReason",
		world: kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("one", kaCPU, "2").Quota("two", kaCPU, "2"))),
		wl: kaPending().PodSet("fitting-podset", 1).Request(kaCPU, "1").NodeSelector("type", "one").
			PodSet("blocking-podset", 1).Request(kaCPU, "5").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonExceedsMaximumQuota},
	},
}

// kaBorrowingWhilePreempting is the world of Kueue's "when borrowing while
// preemption is needed for flavor one" cases: the queue has no nominal quota
// in flavor one (a borrowing limit of 12, or none when limit is ""), 12 in
// two, and may preempt while borrowing. With inUse, 10 CPUs of flavor one are
// in use (see the cases).
func kaBorrowingWhilePreempting(limit string, inUse bool, whenCanBorrow kueue.FlavorFungibilityPolicy) kaWorld {
	var opts []QuotaOption
	if limit != "" {
		opts = append(opts, Borrowing(limit))
	}
	whenCanPreempt := kueue.MayStopSearch
	main := MakeClusterQueue(kaMain).Cohort("test-cohort").
		Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).BorrowWithinCohort(nil).
		WhenCanBorrow(whenCanBorrow).WhenCanPreempt(whenCanPreempt).
		Quota("one", kaCPU, "0", opts...).Quota("two", kaCPU, "12")
	var admitted []*kueue.Workload
	if inUse {
		main.Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerPriority)
		admitted = append(admitted, kaHolding("used-low", kaMain, -1, "one", kaCPU, "10"))
	}
	return kaIn(kaQueues(main, MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "12")), admitted...)
}

// kaNoCandidatesInFirstFlavor is the world of Kueue's "cannot preempt in
// cohort (oracle returns None)" cases: the secondary queue uses its whole
// nominal quota of flavor one, so there is nothing to reclaim there.
func kaNoCandidatesInFirstFlavor() kaWorld {
	return kaIn(kaQueues(
		MakeClusterQueue(kaMain).Cohort("test-cohort").
			WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
			Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever).BorrowWithinCohort(nil).
			Quota("one", kaCPU, "0", Borrowing("2")).Quota("two", kaCPU, "0", Borrowing("2")),
		MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "2").Quota("two", kaCPU, "2")),
		kaHolding("secondary-used", kaSecondary, -1, "one", kaCPU, "2"))
}

// kaFairSharingBorrowing is the world of Kueue's fair-sharing cases with
// reclaimWithinCohort set: 10 CPUs of flavor one, in which the queue has no
// nominal quota, are in use (see the cases).
func kaFairSharingBorrowing(reclaim kueue.PreemptionPolicy) kaWorld {
	return kaIn(kaQueues(
		MakeClusterQueue(kaMain).Cohort("test-cohort").
			Preemption(reclaim, kueue.PreemptionPolicyLowerPriority).
			WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
			Quota("one", kaCPU, "0").Quota("two", kaCPU, "12"),
		MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "12")),
		kaHolding("used-low", kaMain, -1, "one", kaCPU, "10"))
}

// kaFairSharingNever is the world of Kueue's fair-sharing cases with
// reclaimWithinCohort: Never, as Kueue has it: the secondary queue uses 10
// CPUs of flavor one.
func kaFairSharingNever() kaWorld {
	return kaIn(kaQueues(
		MakeClusterQueue(kaMain).Cohort("test-cohort").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyNever).
			WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
			Quota("one", kaCPU, "0").Quota("two", kaCPU, "12"),
		MakeClusterQueue(kaSecondary).Cohort("test-cohort").Quota("one", kaCPU, "12")),
		kaHolding("secondary-used", kaSecondary, 0, "one", kaCPU, "10"))
}

func TestKueueAssignFlavors(t *testing.T) {
	for _, tc := range kaAssignFlavorsCases {
		t.Run(tc.name, func(t *testing.T) { kaRun(t, tc) })
	}
}

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go,
// TestReclaimBeforePriorityPreemption. Three flavors with 10 compute and 10
// gpu each, all of them in test-clusterqueue; other-clusterqueue, in the same
// Cohort, has none. Where the stub answers Preempt, the usage is held by the
// queue's own workloads of lower priority; where it answers Reclaim, by
// workloads of other-clusterqueue, which borrows them.
var kaReclaimBeforePriorityCases = []kaCase{
	{
		name: "Select first flavor which fits",
		world: kaReclaimWorld(nil,
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("other-due-gpu", "other-clusterqueue", -1, "due", "gpu", "1")),
		wl:   kaPending().Request("gpu", "10").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(corev1.ResourceName("gpu"), "tre"))},
	},
	{
		name: "Select first flavor where gpu reclamation is possible",
		world: kaReclaimWorld(nil,
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("other-due-gpu", "other-clusterqueue", -1, "due", "gpu", "1"),
			kaHolding("other-tre-gpu", "other-clusterqueue", -1, "tre", "gpu", "1")),
		wl:   kaPending().Request("gpu", "10").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(corev1.ResourceName("gpu"), "due"))},
	},
	{
		name: "Select first flavor when flavor fungibility is disabled",
		world: kaReclaimWorld(&kueue.FlavorFungibility{WhenCanPreempt: kueue.MayStopSearch},
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("other-due-gpu", "other-clusterqueue", -1, "due", "gpu", "1"),
			kaHolding("other-tre-gpu", "other-clusterqueue", -1, "tre", "gpu", "1")),
		wl:   kaPending().Request("gpu", "10").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(corev1.ResourceName("gpu"), "uno"))},
	},
	{
		name: "Select first flavor when flavor fungibility is disabled; using deprecated WhenCanPreempt=MayStopSearch",
		world: kaReclaimWorld(&kueue.FlavorFungibility{WhenCanPreempt: kueue.MayStopSearch},
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("other-due-gpu", "other-clusterqueue", -1, "due", "gpu", "1"),
			kaHolding("other-tre-gpu", "other-clusterqueue", -1, "tre", "gpu", "1")),
		wl:   kaPending().Request("gpu", "10").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(corev1.ResourceName("gpu"), "uno"))},
	},
	{
		name: "Select first flavor where priority based preemption is possible",
		world: kaReclaimWorld(nil,
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("test-due-gpu", "test-clusterqueue", -1, "due", "gpu", "1"),
			kaHolding("test-tre-gpu", "test-clusterqueue", -1, "tre", "gpu", "1")),
		wl:   kaPending().Request("gpu", "10").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(corev1.ResourceName("gpu"), "uno"))},
	},
	{
		name: "Select second flavor where gpu reclamation is possible, as compute Fits",
		world: kaReclaimWorld(nil,
			kaHolding("test-uno-gpu", "test-clusterqueue", -1, "uno", "gpu", "1"),
			kaHolding("test-uno-compute", "test-clusterqueue", -1, "uno", "compute", "1"),
			kaHolding("test-due-compute", "test-clusterqueue", -1, "due", "compute", "1"),
			kaHolding("other-due-gpu", "other-clusterqueue", -1, "due", "gpu", "1"),
			kaHolding("other-tre-gpu", "other-clusterqueue", -1, "tre", "gpu", "1")),
		wl: kaPending().Request("gpu", "10").Request("compute", "10").Obj(),
		want: kaWant{mode: "Preempt", flavors: kaFlavors(kaPS(
			corev1.ResourceName("gpu"), "tre", corev1.ResourceName("compute"), "tre"))},
	},
}

// kaReclaimWorld is the world of Kueue's TestReclaimBeforePriorityPreemption;
// fungibility, when set, replaces the queue's flavorFungibility.
func kaReclaimWorld(fungibility *kueue.FlavorFungibility, admitted ...*kueue.Workload) kaWorld {
	test := MakeClusterQueue("test-clusterqueue").Cohort("cohort").
		Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerPriority).
		WhenCanPreempt(kueue.TryNextFlavor)
	other := MakeClusterQueue("other-clusterqueue").Cohort("cohort")
	for _, f := range []string{"uno", "due", "tre"} {
		test.Quota(f, "compute", "10").Quota(f, "gpu", "10")
		other.Quota(f, "compute", "0").Quota(f, "gpu", "0")
	}
	testObj := test.Obj()
	if fungibility != nil {
		testObj.Spec.FlavorFungibility = fungibility.DeepCopy()
	}
	return kaWorld{
		flavors:  []*kueue.ResourceFlavor{MakeFlavor("uno").Obj(), MakeFlavor("due").Obj(), MakeFlavor("tre").Obj()},
		queues:   []*kueue.ClusterQueue{testObj, other.Obj()},
		admitted: admitted,
	}
}

func TestKueueAssignFlavorsReclaimBeforePriorityPreemption(t *testing.T) {
	for _, tc := range kaReclaimBeforePriorityCases {
		tc.cq, tc.skipBorrowing = "test-clusterqueue", true
		t.Run(tc.name, func(t *testing.T) { kaRun(t, tc) })
	}
}

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go,
// TestDeletedFlavors. The queue lists a flavor that is not (or no longer)
// in the cache.
var kaDeletedFlavorsCases = []kaCase{
	{
		name: "multiple flavors, skip missing ResourceFlavor",
		world: kaWorld{flavors: []*kueue.ResourceFlavor{MakeFlavor("flavor").Obj()},
			queues: kaQueues(MakeClusterQueue(kaMain).Quota("deleted-flavor", kaCPU, "4").Quota("flavor", kaCPU, "4"))},
		wl:   kaPending().Request(kaCPU, "3").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "flavor"))},
	},
	{
		name: "flavor not found",
		world: kaWorld{flavors: []*kueue.ResourceFlavor{MakeFlavor("flavor").Obj()},
			queues: kaQueues(MakeClusterQueue(kaMain).Quota("deleted-flavor", kaCPU, "4"))},
		wl:   kaPending().Request(kaCPU, "1").Obj(),
		want: kaWant{mode: "NoFit", reason: decision.ReasonFlavorSkipped},
	},
}

func TestKueueAssignFlavorsDeletedFlavors(t *testing.T) {
	for _, tc := range kaDeletedFlavorsCases {
		t.Run(tc.name, func(t *testing.T) { kaRun(t, tc) })
	}
}
