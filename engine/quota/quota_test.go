package quota

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

var h100GPU = resources.FlavorResource{Flavor: "h100", Resource: "nvidia.com/gpu"}

func mustCQ(t *testing.T, c *Cache, name string) *ClusterQueue {
	t.Helper()
	q, ok := c.ClusterQueue(name)
	if !ok {
		t.Fatalf("no ClusterQueue %s", name)
	}
	return q
}

func chargeGPUs(c *Cache, name, cq string, gpus int64) {
	c.Charge(types.NamespacedName{Namespace: "ns", Name: name}, cq, resources.Amounts{h100GPU: gpus})
}

// threeLevels builds:
//
//	org (own 10)
//	├── team-a (own 0, borrowingLimit 5, lendingLimit 4)
//	│   ├── a1 (nominal 8)
//	│   └── a2 (nominal 4, lendingLimit 2)
//	└── b1 (nominal 6)
//
// By hand: a2 keeps 2 and lends 2, so team-a's subtree is 8+2 = 10; team-a keeps
// 10-4 = 6 and lends 4; org's subtree is 10+4+6 = 20.
func threeLevels(t *testing.T) *Cache {
	c := New(Options{})
	c.UpsertResourceFlavor(MakeFlavor("h100").Obj())
	for _, err := range []error{
		c.UpsertCohort(MakeCohort("org").Quota("h100", "nvidia.com/gpu", "10").Obj()),
		c.UpsertCohort(MakeCohort("team-a").Parent("org").Quota("h100", "nvidia.com/gpu", "0", Borrowing("5"), Lending("4")).Obj()),
		c.UpsertClusterQueue(MakeClusterQueue("a1").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "8").Obj()),
		c.UpsertClusterQueue(MakeClusterQueue("a2").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "4", Lending("2")).Obj()),
		c.UpsertClusterQueue(MakeClusterQueue("b1").Cohort("org").Quota("h100", "nvidia.com/gpu", "6").Obj()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// 002: "On a child Cohort, borrowingLimit and lendingLimit limit what the whole
// subtree borrows from or lends to its parent." and "Its nominalQuota is
// 'additional resources on top of those defined by ClusterQueues within the
// Cohort', which works as a shared pool."
func TestHierarchicalCohortLimits(t *testing.T) {
	c := threeLevels(t)
	team, _ := c.Cohort("team-a")
	org, _ := c.Cohort("org")
	if got := team.SubtreeQuota()[h100GPU]; got != 10 {
		t.Fatalf("team-a subtree quota %d, want 10", got)
	}
	if got := org.SubtreeQuota()[h100GPU]; got != 20 {
		t.Fatalf("org subtree quota %d, want 20", got)
	}
	steps := []struct {
		name   string
		charge func()
		want   map[string]int64 // queue -> available GPUs
		limit  map[string]string
	}{
		{"idle", func() {}, map[string]int64{"a1": 15, "a2": 17, "b1": 20}, map[string]string{"a1": "team-a"}},
		// b1 takes 18: org has 2 left; team-a still has its kept-back 6.
		{"b1 uses 18", func() { chargeGPUs(c, "b", "b1", 18) }, map[string]int64{"a1": 8, "a2": 10, "b1": 2}, nil},
		// a1 takes 8: 6 inside team-a's guaranteed share, 2 in org.
		{"a1 uses 8", func() { chargeGPUs(c, "a", "a1", 8) }, map[string]int64{"a1": 0, "a2": 2, "b1": 0}, nil},
	}
	for _, st := range steps {
		st.charge()
		for q, want := range st.want {
			av := c.Available(mustCQ(t, c, q), h100GPU)
			if av.Available != want {
				t.Errorf("%s: available(%s) = %d, want %d", st.name, q, av.Available, want)
			}
			if l, ok := st.limit[q]; ok && av.LimitedBy != l {
				t.Errorf("%s: %s limited by %q, want %q", st.name, q, av.LimitedBy, l)
			}
		}
		if err := c.Verify(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	if got := org.Usage()[h100GPU]; got != 20 {
		t.Errorf("org usage %d, want 18 from b1 + 2 of a1 above team-a's guaranteed 6", got)
	}
	if got := c.PotentialAvailable(mustCQ(t, c, "a1"), h100GPU); got != 15 {
		t.Errorf("a1 can never get more than team-a's 10 + borrowing limit 5, got %d", got)
	}
}

// A child cohort's borrowingLimit caps the whole subtree: with a1 at 15, team-a
// borrows 5 from org and the limit binds although org has room.
func TestCohortBorrowingLimitBindsSubtree(t *testing.T) {
	c := threeLevels(t)
	chargeGPUs(c, "a", "a1", 15)
	av := c.Available(mustCQ(t, c, "a1"), h100GPU)
	if av.Available != 0 || av.LimitedBy != "team-a" || !av.LimitedByCohort {
		t.Fatalf("a1: %+v, want 0 limited by cohort team-a", av)
	}
	// a2 still has its own kept-back 2, and no more.
	if av := c.Available(mustCQ(t, c, "a2"), h100GPU); av.Available != 2 {
		t.Fatalf("a2: %+v, want its guaranteed 2", av)
	}
	org, _ := c.Cohort("org")
	if got := org.Usage()[h100GPU]; got != 9 {
		t.Fatalf("org usage %d, want 15 - team-a's guaranteed 6 = 9", got)
	}
}

// 002: "lendingLimit: the most unused quota the queue lends out. The queue keeps
// nominalQuota - lendingLimit for exclusive use."
func TestLendingLimitKeepsShare(t *testing.T) {
	c := threeLevels(t)
	// b1 takes everything it can.
	chargeGPUs(c, "b", "b1", 20)
	for q, want := range map[string]int64{"a1": 6, "a2": 8, "b1": 0} {
		if got := c.Available(mustCQ(t, c, q), h100GPU).Available; got != want {
			t.Errorf("available(%s) = %d, want %d", q, got, want)
		}
	}
}

func TestQuotaUpdatesPropagateIncrementally(t *testing.T) {
	c := threeLevels(t)
	chargeGPUs(c, "a", "a1", 9)
	chargeGPUs(c, "b", "b1", 3)
	// Raise a2's lending limit, move b1 under team-a, delete and recreate org.
	edits := []func() error{
		func() error {
			return c.UpsertClusterQueue(MakeClusterQueue("a2").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "4", Lending("4")).Obj())
		},
		func() error {
			return c.UpsertClusterQueue(MakeClusterQueue("b1").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "6").Obj())
		},
		func() error { c.DeleteCohort("org"); return nil },
		func() error { return c.UpsertCohort(MakeCohort("org").Quota("h100", "nvidia.com/gpu", "3").Obj()) },
		func() error { c.DeleteClusterQueue("a1"); return nil },
		func() error {
			return c.UpsertClusterQueue(MakeClusterQueue("a1").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "8", Lending("1")).Obj())
		},
	}
	for i, e := range edits {
		if err := e(); err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(); err != nil {
			t.Fatalf("after edit %d: %v", i, err)
		}
	}
	if got := mustCQ(t, c, "a1").Usage(h100GPU); got != 9 {
		t.Fatalf("recreated a1 must get its charges back: usage %d", got)
	}
}

// Errors name the field path of the quantity that cannot be converted.
func TestUpsertErrorNamesFieldPath(t *testing.T) {
	c := New(Options{})
	err := c.UpsertClusterQueue(MakeClusterQueue("q").Quota("h100", "cpu", "1").Quota("h100", "nvidia.com/gpu", "-1").Obj())
	if err == nil || !strings.Contains(err.Error(), "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota") {
		t.Fatalf("error %v must name spec.resourceGroups[0].flavors[0].resources[1].nominalQuota", err)
	}
	if _, ok := c.ClusterQueue("q"); ok {
		t.Fatal("a failed upsert must not create the queue")
	}
}
