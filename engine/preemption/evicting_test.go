package preemption

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// Kueue: pkg/scheduler/preemption/preemption_test.go, TestCandidatesOrdering,
// "evicted workload first", and pkg/scheduler/preemption/classical/
// candidate_generator.go (splitEvicted): workloads already being evicted come
// before every other candidate, in every group, so a classic search takes one
// of the preemptor's own queue that is leaving before a borrower of another
// queue it would otherwise reclaim from first. The scheduler marks them
// (Candidate.Evicting) only when its searches list them at all
// (RecomputeAssignmentUponPreemptionTargetsOverlap off).
func TestEvictingCandidatesFirst(t *testing.T) {
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	for _, cq := range []*kueue.ClusterQueue{
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Obj(),
	} {
		if err := c.UpsertClusterQueue(cq); err != nil {
			t.Fatal(err)
		}
	}
	cand := func(cq, name string, admitted int64) *Candidate {
		k := types.NamespacedName{Namespace: cq, Name: name}
		cd := &Candidate{Key: k, UID: types.UID(k.String()), ClusterQueue: cq, AdmittedAt: time.Unix(admitted, 0),
			Usage: resources.Amounts{cpu: 1000}}
		c.Charge(k, cq, cd.Usage)
		return cd
	}
	// a holds one cpu of its own, b borrows a's other one.
	own := cand("a", "own", 1)
	borrower := cand("b", "borrower", 2)
	src := listSource{"a": {own}, "b": {borrower}}
	a, _ := c.ClusterQueue("a")
	p := &Preemptor{Key: types.NamespacedName{Namespace: "a", Name: "p"}, Priority: 5,
		Assignment: &flavorassigner.Assignment{Usage: resources.Amounts{cpu: 1000}}}
	victims := func() []string {
		var out []string
		for _, tg := range Find(c, a, p, src, Options{}) {
			out = append(out, tg.Key.Name)
		}
		return out
	}
	if got := victims(); !slices.Equal(got, []string{"borrower"}) {
		t.Fatalf("victims %v, want [borrower]: another queue's borrower goes before the own queue's workloads", got)
	}
	own.Evicting = true
	if got := victims(); !slices.Equal(got, []string{"own"}) {
		t.Fatalf("victims %v, want [own]: a workload already being evicted goes first", got)
	}

	// The same order when candidates are sorted as a whole (fair sharing):
	// evicting first, then other queues, then by priority.
	list := []*Candidate{
		{Key: types.NamespacedName{Name: "other-low"}, ClusterQueue: "b", Priority: -1},
		{Key: types.NamespacedName{Name: "own-evicting"}, ClusterQueue: "a", Priority: 10, Evicting: true},
		{Key: types.NamespacedName{Name: "own-low"}, ClusterQueue: "a", Priority: -1},
	}
	sortCandidates(list, "a")
	var names []string
	for _, cd := range list {
		names = append(names, cd.Key.Name)
	}
	if want := []string{"own-evicting", "other-low", "own-low"}; !slices.Equal(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
}
