package flavorassigner_test

import (
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// kaHierarchy is the world of Kueue's TestHierarchical: Cohorts one (under
// two, under three) each hold 4 CPUs of the flavor of their name;
// test-clusterqueue, in one, has no nominal quota unless flavors says
// otherwise; other-clusterqueue, in two, has none.
func kaHierarchy(flavors *ClusterQueueWrapper, fungibility *kueue.FlavorFungibility, admitted ...*kueue.Workload) kaWorld {
	test := flavors.Cohort("one").
		Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerPriority).
		WhenCanPreempt(kueue.TryNextFlavor).Obj()
	if fungibility != nil {
		test.Spec.FlavorFungibility = fungibility.DeepCopy()
	}
	return kaWorld{
		flavors: []*kueue.ResourceFlavor{MakeFlavor("one").Obj(), MakeFlavor("two").Obj(), MakeFlavor("three").Obj()},
		cohorts: []*kueue.Cohort{
			MakeCohort("three").Quota("three", kaCPU, "4").Obj(),
			MakeCohort("two").Parent("three").Quota("two", kaCPU, "4").Obj(),
			MakeCohort("one").Parent("two").Quota("one", kaCPU, "4").Obj(),
		},
		queues: []*kueue.ClusterQueue{test,
			MakeClusterQueue("other-clusterqueue").Cohort("two").
				Quota("one", kaCPU, "0").Quota("two", kaCPU, "0").Quota("three", kaCPU, "0").Obj()},
		admitted: admitted,
	}
}

// kaHierarchyFlavors is test-clusterqueue's default flavors: none of them
// with nominal quota.
func kaHierarchyFlavors() *ClusterQueueWrapper {
	return MakeClusterQueue("test-clusterqueue").
		Quota("one", kaCPU, "0").Quota("two", kaCPU, "0").Quota("three", kaCPU, "0")
}

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go, TestHierarchical.
// Kueue asserts the representative mode and the flavors only.
var kaHierarchicalCases = []kaCase{
	{
		name: "Select the top flavor",
		world: kaHierarchy(kaHierarchyFlavors(), nil,
			kaHolding("test-one", "test-clusterqueue", 0, "one", kaCPU, "4"),
			kaHolding("other-two", "other-clusterqueue", 0, "two", kaCPU, "4")),
		wl:   kaPending().Request(kaCPU, "4").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "three"))},
	},
	{
		name: "Select the first flavor which fits",
		world: kaHierarchy(kaHierarchyFlavors(), nil,
			kaHolding("test-one", "test-clusterqueue", 0, "one", kaCPU, "4")),
		wl:   kaPending().Request(kaCPU, "4").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
	{
		// The stub answers no candidates in flavor one, with borrowing level
		// 1; here the 4 CPUs in use there are held by a workload of the same
		// priority as the pending one.
		name: "Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates",
		world: kaHierarchy(MakeClusterQueue("test-clusterqueue").
			Quota("one", kaCPU, "4", Borrowing("0")).Quota("two", kaCPU, "0").Quota("three", kaCPU, "0"),
			&kueue.FlavorFungibility{WhenCanBorrow: kueue.TryNextFlavor, WhenCanPreempt: kueue.TryNextFlavor,
				Preference: new(kueue.PreemptionOverBorrowing)},
			kaHolding("test-one", "test-clusterqueue", 0, "one", kaCPU, "4")),
		wl:   kaPending().Request(kaCPU, "4").Obj(),
		want: kaWant{mode: "Fit", flavors: kaFlavors(kaPS(kaCPU, "two"))},
	},
}

func TestKueueFlavorAssignerHierarchical(t *testing.T) {
	for _, tc := range kaHierarchicalCases {
		tc.cq, tc.skipBorrowing = "test-clusterqueue", true
		t.Run(tc.name, func(t *testing.T) { kaRun(t, tc) })
	}
}
