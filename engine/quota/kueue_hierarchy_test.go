package quota

import (
	"reflect"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Kueue keeps its Cohort tree in pkg/cache/hierarchy's Manager and reads it
// from pkg/cache/scheduler's Cache; Quokka keeps it in engine/hierarchy and
// reads it from this package's Cache, which is what the reconcilers feed. The
// ports below replay Kueue's calls as the objects the Cache would be given,
// and read the tree back through the Cache.
//
// Where Kueue's Cache returns an error for a Cohort cycle (ErrCohortHasCycle,
// "Expected failure when cycle"), Quokka accepts the object and reports the
// cycle: Cohort.InCycle and ClusterQueue.InCycle, and the Active condition
// of a queue in or below the cycle (reason CohortCycle). The ports assert
// that report where Kueue asserts the error.

// khOp is one call of Kueue's hierarchy.Manager, replayed on the Cache.
type khOp func(t *testing.T, c *Cache)

// khAddQueue is AddClusterQueue: a queue without a Cohort.
func khAddQueue(name string) khOp {
	return func(t *testing.T, c *Cache) { khMust(t, c.UpsertClusterQueue(MakeClusterQueue(name).Obj())) }
}

// khQueueEdge is UpdateClusterQueueEdge: spec.cohortName, "" for none.
func khQueueEdge(name, cohort string) khOp {
	return func(t *testing.T, c *Cache) {
		khMust(t, c.UpsertClusterQueue(MakeClusterQueue(name).Cohort(cohort).Obj()))
	}
}

func khDeleteQueue(name string) khOp {
	return func(_ *testing.T, c *Cache) { c.DeleteClusterQueue(name) }
}

// khAddCohort is AddCohort: the Cohort object appears, and the node keeps the
// edge it had (an implicit Cohort has none).
func khAddCohort(name string) khOp {
	return func(t *testing.T, c *Cache) {
		parent := ""
		if co, ok := c.Cohort(name); ok {
			parent = co.ParentName()
		}
		khMust(t, c.UpsertCohort(MakeCohort(name).Parent(parent).Obj()))
	}
}

// khCohortEdge is UpdateCohortEdge: spec.parentName of a Cohort object.
func khCohortEdge(name, parent string) khOp {
	return func(t *testing.T, c *Cache) { khMust(t, c.UpsertCohort(MakeCohort(name).Parent(parent).Obj())) }
}

func khDeleteCohort(name string) khOp {
	return func(_ *testing.T, c *Cache) { c.DeleteCohort(name) }
}

func khMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func khReplay(t *testing.T, ops []khOp) *Cache {
	t.Helper()
	c := New(Options{})
	for _, op := range ops {
		op(t, c)
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	return c
}

type khEdge struct{ child, parent string }

func khSortedEdges(es []khEdge) []khEdge {
	out := append([]khEdge{}, es...)
	sort.Slice(out, func(i, j int) bool { return out[i].child < out[j].child })
	return out
}

func khSortedNames(ns []string) []string {
	out := append([]string{}, ns...)
	sort.Strings(out)
	return out
}

// Kueue: pkg/cache/hierarchy/manager_test.go, TestManager. Every edge is read
// from both ends: a queue's Cohort and the Cohort's queues, a Cohort's parent
// and the parent's children.
func TestKueueHierarchyManager(t *testing.T) {
	cases := []struct {
		name           string
		ops            []khOp
		wantCqs        []string
		wantCohorts    []string
		wantCqEdge     []khEdge
		wantCohortEdge []khEdge
	}{
		{name: "create queues", ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2")},
			wantCqs: []string{"queue1", "queue2"}},
		{name: "delete queue", ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khDeleteQueue("queue2")},
			wantCqs: []string{"queue1"}},
		{name: "create queues with cohorts",
			ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khAddQueue("queue3"),
				khQueueEdge("queue1", "cohort-a"), khQueueEdge("queue2", "cohort-a"), khQueueEdge("queue3", "cohort-b")},
			wantCqs:     []string{"queue1", "queue2", "queue3"},
			wantCohorts: []string{"cohort-a", "cohort-b"},
			wantCqEdge:  []khEdge{{"queue1", "cohort-a"}, {"queue2", "cohort-a"}, {"queue3", "cohort-b"}}},
		{name: "update cohorts",
			ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khQueueEdge("queue1", "cohort-a"), khQueueEdge("queue2", "cohort-b"),
				khQueueEdge("queue1", "cohort-b"), khQueueEdge("queue2", "cohort-c")},
			wantCqs:     []string{"queue1", "queue2"},
			wantCohorts: []string{"cohort-b", "cohort-c"},
			wantCqEdge:  []khEdge{{"queue1", "cohort-b"}, {"queue2", "cohort-c"}}},
		{name: "updating cqs idempotent",
			ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khQueueEdge("queue1", "cohort-a"), khQueueEdge("queue2", "cohort-b"),
				khQueueEdge("queue1", "cohort-b"), khQueueEdge("queue2", "cohort-c"), khQueueEdge("queue1", "cohort-b"), khQueueEdge("queue2", "cohort-c")},
			wantCqs:     []string{"queue1", "queue2"},
			wantCohorts: []string{"cohort-b", "cohort-c"},
			wantCqEdge:  []khEdge{{"queue1", "cohort-b"}, {"queue2", "cohort-c"}}},
		{name: "updating cohort idempotent",
			ops:            []khOp{khAddCohort("cohort"), khCohortEdge("cohort", "root"), khCohortEdge("cohort", "newroot"), khCohortEdge("cohort", "newroot")},
			wantCohorts:    []string{"cohort", "newroot"},
			wantCohortEdge: []khEdge{{"cohort", "newroot"}}},
		{name: "adding cohort idempotent", ops: []khOp{khAddCohort("cohort"), khAddCohort("cohort")},
			wantCohorts: []string{"cohort"}},
		{name: "delete cohorts",
			// cohort-a goes with its last edge, cohort-b with its last queue.
			ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khQueueEdge("queue1", "cohort-a"), khQueueEdge("queue2", "cohort-b"),
				khQueueEdge("queue1", ""), khDeleteQueue("queue2")},
			wantCqs: []string{"queue1"}},
		{name: "deletion idempotent",
			ops: []khOp{khDeleteQueue("doesnt-exist"), khAddQueue("deleted-once"), khAddQueue("deleted-twice"),
				khDeleteQueue("doesnt-exist2"), khDeleteQueue("deleted-once"), khDeleteQueue("deleted-twice"), khDeleteQueue("deleted-twice")}},
		{name: "cohort remains as long as one of its child cqs remains",
			ops: []khOp{khAddQueue("queue1"), khAddQueue("queue2"), khAddQueue("queue3"),
				khQueueEdge("queue1", "cohort"), khQueueEdge("queue2", "cohort"), khQueueEdge("queue3", "to-be-deleted-cohort"),
				khDeleteQueue("queue2"), khDeleteQueue("queue3")},
			wantCqs:     []string{"queue1"},
			wantCohorts: []string{"cohort"},
			wantCqEdge:  []khEdge{{"queue1", "cohort"}}},
		{name: "cohort remains as long as one of its child cohorts remains",
			ops: []khOp{khAddCohort("cohort1"), khAddCohort("cohort2"), khAddCohort("cohort3"),
				khCohortEdge("cohort1", "root"), khCohortEdge("cohort2", "root"), khCohortEdge("cohort3", "root"),
				khDeleteCohort("cohort2"), khDeleteCohort("cohort3")},
			wantCohorts:    []string{"cohort1", "root"},
			wantCohortEdge: []khEdge{{"cohort1", "root"}}},
		{name: "explicit cohort", ops: []khOp{khAddCohort("cohort")}, wantCohorts: []string{"cohort"}},
		{name: "delete explicit cohort", ops: []khOp{khAddCohort("cohort"), khDeleteCohort("cohort")}},
		{name: "delete explicit cohort idempotent",
			ops: []khOp{khDeleteCohort("cohort"), khAddCohort("cohort"), khDeleteCohort("cohort"), khDeleteCohort("cohort")}},
		{name: "explicit cohort persists after child deleted",
			ops:         []khOp{khAddQueue("queue"), khQueueEdge("queue", "cohort"), khAddCohort("cohort"), khDeleteQueue("queue")},
			wantCohorts: []string{"cohort"}},
		{name: "explicit cohort downgraded to implicit cohort",
			ops:         []khOp{khAddCohort("cohort"), khAddQueue("queue"), khQueueEdge("queue", "cohort"), khDeleteCohort("cohort")},
			wantCqs:     []string{"queue"},
			wantCohorts: []string{"cohort"},
			wantCqEdge:  []khEdge{{"queue", "cohort"}}},
		{name: "cohort upgraded to explicit then downgraded to implicit then deleted",
			ops: []khOp{khAddCohort("cohort"), khAddQueue("queue"), khQueueEdge("queue", "cohort"), khDeleteCohort("cohort"), khDeleteQueue("queue")}},
		{name: "hierarchical cohorts",
			//               root
			//              /    \
			//           left    right
			//           /            \
			//  left-left              right-right
			ops: []khOp{khAddCohort("root"), khAddCohort("left"), khAddCohort("right"), khAddCohort("left-left"), khAddCohort("right-right"),
				khCohortEdge("left", "root"), khCohortEdge("right", "root"), khCohortEdge("left-left", "left"), khCohortEdge("right-right", "right"),
				khAddQueue("cq"), khQueueEdge("cq", "right-right")},
			wantCqs:        []string{"cq"},
			wantCqEdge:     []khEdge{{"cq", "right-right"}},
			wantCohorts:    []string{"root", "left", "right", "left-left", "right-right"},
			wantCohortEdge: []khEdge{{"left", "root"}, {"right", "root"}, {"left-left", "left"}, {"right-right", "right"}}},
		{name: "delete node in middle of hierarchy",
			// left, deleted, stays as an implicit Cohort without a parent
			// since left-left still names it.
			ops: []khOp{khAddCohort("root"), khAddCohort("left"), khAddCohort("right"), khAddCohort("left-left"), khAddCohort("right-right"),
				khCohortEdge("left", "root"), khCohortEdge("right", "root"), khCohortEdge("left-left", "left"), khCohortEdge("right-right", "right"),
				khDeleteCohort("left")},
			wantCohorts:    []string{"root", "left", "right", "left-left", "right-right"},
			wantCohortEdge: []khEdge{{"right", "root"}, {"left-left", "left"}, {"right-right", "right"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := khReplay(t, tc.ops)
			var cqEdges, cqEdgesFromCohorts, childEdges, parentEdges []khEdge
			for _, name := range c.ClusterQueueNames() {
				if co := mustCQ(t, c, name).CohortName(); co != "" {
					cqEdges = append(cqEdges, khEdge{name, co})
				}
			}
			for _, name := range c.CohortNames() {
				co, _ := c.Cohort(name)
				for _, q := range co.ChildQueues() {
					cqEdgesFromCohorts = append(cqEdgesFromCohorts, khEdge{q.Name(), name})
				}
				for _, ch := range co.ChildCohorts() {
					childEdges = append(childEdges, khEdge{ch.Name(), name})
				}
				if p := co.ParentName(); p != "" {
					parentEdges = append(parentEdges, khEdge{name, p})
				}
			}
			if got, want := c.ClusterQueueNames(), khSortedNames(tc.wantCqs); !reflect.DeepEqual(got, want) {
				t.Errorf("ClusterQueues %v, want %v", got, want)
			}
			if got, want := c.CohortNames(), khSortedNames(tc.wantCohorts); !reflect.DeepEqual(got, want) {
				t.Errorf("Cohorts %v, want %v", got, want)
			}
			want := khSortedEdges(tc.wantCqEdge)
			if got := khSortedEdges(cqEdges); !reflect.DeepEqual(got, want) {
				t.Errorf("CQ->Cohort edges %v, want %v", got, want)
			}
			if got := khSortedEdges(cqEdgesFromCohorts); !reflect.DeepEqual(got, want) {
				t.Errorf("CQ<-Cohort edges %v, want %v", got, want)
			}
			want = khSortedEdges(tc.wantCohortEdge)
			if got := khSortedEdges(childEdges); !reflect.DeepEqual(got, want) {
				t.Errorf("Cohort<-Cohort edges %v, want %v", got, want)
			}
			if got := khSortedEdges(parentEdges); !reflect.DeepEqual(got, want) {
				t.Errorf("Cohort->Cohort edges %v, want %v", got, want)
			}
		})
	}
}

// Kueue: pkg/cache/hierarchy/manager_test.go, TestCycles: which Cohorts are in
// a cycle of parents, as edges are set, changed and removed.
func TestKueueHierarchyCycles(t *testing.T) {
	cases := []struct {
		name       string
		ops        []khOp
		wantCycles map[string]bool
	}{
		{"no cycles", []khOp{khAddCohort("root"), khAddCohort("left"), khAddCohort("right"), khCohortEdge("left", "root"), khCohortEdge("right", "root")},
			map[string]bool{"root": false, "left": false, "right": false}},
		{"self-cycle", []khOp{khAddCohort("root"), khCohortEdge("root", "root")},
			map[string]bool{"root": true}},
		{"remove self-cycle", []khOp{khAddCohort("root"), khCohortEdge("root", "root"), khCohortEdge("root", "")},
			map[string]bool{"root": false}},
		{"cycle", []khOp{khAddCohort("cohort-a"), khAddCohort("cohort-b"), khCohortEdge("cohort-a", "cohort-b"), khCohortEdge("cohort-b", "cohort-a")},
			map[string]bool{"cohort-a": true, "cohort-b": true}},
		{"remove cycle via khEdge update", []khOp{khAddCohort("cohort-a"), khAddCohort("cohort-b"),
			khCohortEdge("cohort-a", "cohort-b"), khCohortEdge("cohort-b", "cohort-a"), khCohortEdge("cohort-a", "cohort-c")},
			map[string]bool{"cohort-a": false, "cohort-b": false, "cohort-c": false}},
		{"remove cycle via khEdge deletion", []khOp{khAddCohort("cohort-a"), khAddCohort("cohort-b"),
			khCohortEdge("cohort-a", "cohort-b"), khCohortEdge("cohort-b", "cohort-a"), khCohortEdge("cohort-a", "")},
			map[string]bool{"cohort-a": false, "cohort-b": false}},
		{"remove cycle via node deletion", []khOp{khAddCohort("cohort-a"), khAddCohort("cohort-b"),
			khCohortEdge("cohort-a", "cohort-b"), khCohortEdge("cohort-b", "cohort-a"), khDeleteCohort("cohort-b")},
			map[string]bool{"cohort-a": false, "cohort-b": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := khReplay(t, tc.ops)
			got := map[string]bool{}
			for _, name := range c.CohortNames() {
				co, _ := c.Cohort(name)
				got[name] = co.InCycle()
			}
			if !reflect.DeepEqual(got, tc.wantCycles) {
				t.Errorf("cycles %v, want %v", got, tc.wantCycles)
			}
		})
	}
}

var khArmCPU = resources.FlavorResource{Flavor: "arm", Resource: corev1.ResourceCPU}

func khCPU(q string) int64 { return resources.MustCanonical(corev1.ResourceCPU, q) }

func khCohort(t *testing.T, c *Cache, name string) *Cohort {
	t.Helper()
	co, ok := c.Cohort(name)
	if !ok {
		t.Fatalf("no Cohort %s", name)
	}
	return co
}

// khWantCycle checks the report that stands for Kueue's ErrCohortHasCycle.
func khWantCycle(t *testing.T, c *Cache, cohort string, want bool) {
	t.Helper()
	if got := khCohort(t, c, cohort).InCycle(); got != want {
		t.Errorf("Cohort %s in a cycle: %v, want %v", cohort, got, want)
	}
}

// khWantQueueCycle checks that a queue in or below a cycle is reported so and
// inactive for it (Kueue refuses to add or update it), and that one out of
// it is not (it may be inactive for another reason: Kueue's cases create no
// ResourceFlavor).
func khWantQueueCycle(t *testing.T, c *Cache, name string, want bool) {
	t.Helper()
	q := mustCQ(t, c, name)
	st := c.Status(q)
	if q.InCycle() != want || (st.Reason == kueue.ClusterQueueActiveReasonCohortCycle) != want || want && st.Active {
		t.Errorf("ClusterQueue %s: in a cycle %v, active %v (%s); want in a cycle %v", name, q.InCycle(), st.Active, st.Reason, want)
	}
}

// khWantNode checks a Cohort's own quota of arm cpu, its subtree quota and its
// usage (Kueue's resourceNode: Quotas, SubtreeQuota, Usage); own and subtree
// are quantities of CPU, "" for none.
func khWantNode(t *testing.T, c *Cache, cohort, own, subtree string) {
	t.Helper()
	co := khCohort(t, c, cohort)
	q, ok := co.OwnQuota(khArmCPU)
	if own == "" && ok && q.Nominal != 0 || own != "" && (!ok || q.Nominal != khCPU(own)) {
		t.Errorf("Cohort %s: own quota %v (defined %v), want %q", cohort, q.Nominal, ok, own)
	}
	want := resources.Amounts{}
	if subtree != "" {
		want[khArmCPU] = khCPU(subtree)
	}
	if got := co.SubtreeQuota(); !reflect.DeepEqual(got, want) {
		t.Errorf("Cohort %s: subtree quota %v, want %v", cohort, got, want)
	}
	if got := co.Usage(); len(got) != 0 {
		t.Errorf("Cohort %s: usage %v, want none", cohort, got)
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestCohortCycles. The subtree
// quotas of the Cohorts a queue or Cohort leaves or joins are kept right
// when the other end of the move is in a cycle.
func TestKueueCohortCycles(t *testing.T) {
	t.Run("self cycle", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cohort").Parent("cohort").Obj()))
		khWantCycle(t, c, "cohort", true)
	})
	t.Run("simple cycle", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cohort-a").Parent("cohort-b").Obj()))
		khWantCycle(t, c, "cohort-a", false)
		khMust(t, c.UpsertCohort(MakeCohort("cohort-b").Parent("cohort-c").Obj()))
		khWantCycle(t, c, "cohort-b", false)
		khMust(t, c.UpsertCohort(MakeCohort("cohort-c").Parent("cohort-a").Obj()))
		for _, name := range []string{"cohort-a", "cohort-b", "cohort-c"} {
			khWantCycle(t, c, name, true)
		}
	})
	t.Run("clusterqueue add and update return error when cohort has cycle", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cohort-a").Parent("cohort-b").Obj()))
		khMust(t, c.UpsertCohort(MakeCohort("cohort-b").Parent("cohort-c").Obj()))
		khWantCycle(t, c, "cohort-a", false)
		khMust(t, c.UpsertCohort(MakeCohort("cohort-c").Parent("cohort-a").Obj()))
		khWantCycle(t, c, "cohort-c", true)

		khMust(t, c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort("cohort-a").Obj()))
		khWantQueueCycle(t, c, "cq", true)
		khMust(t, c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort("cohort-b").Obj()))
		khWantQueueCycle(t, c, "cq", true)

		// Deleting cohort-c breaks the cycle.
		c.DeleteCohort("cohort-c")
		khMust(t, c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort("cohort-b").Obj()))
		khWantQueueCycle(t, c, "cq", false)
	})
	t.Run("clusterqueue leaving cohort with cycle successfully updates new cohort", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cycle").Parent("cycle").Obj()))
		khWantCycle(t, c, "cycle", true)
		khMust(t, c.UpsertCohort(MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10").Obj()))
		cq := MakeClusterQueue("cq").Quota("arm", corev1.ResourceCPU, "5")
		khMust(t, c.UpsertClusterQueue(cq.Cohort("cycle").Obj()))
		khWantQueueCycle(t, c, "cq", true)
		khMust(t, c.UpsertClusterQueue(cq.Cohort("cohort").Obj()))
		khWantQueueCycle(t, c, "cq", false)
		khWantNode(t, c, "cohort", "10", "15")
	})
	t.Run("clusterqueue joining cohort with cycle successfully updates old cohort", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cycle").Parent("cycle").Obj()))
		khWantCycle(t, c, "cycle", true)
		khMust(t, c.UpsertCohort(MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10").Obj()))
		cq := MakeClusterQueue("cq").Quota("arm", corev1.ResourceCPU, "5")
		khMust(t, c.UpsertClusterQueue(cq.Cohort("cohort").Obj()))
		khWantQueueCycle(t, c, "cq", false)
		khWantNode(t, c, "cohort", "10", "15")
		khMust(t, c.UpsertClusterQueue(cq.Cohort("cycle").Obj()))
		khWantQueueCycle(t, c, "cq", true)
		khWantNode(t, c, "cohort", "10", "10")
	})
	t.Run("cohort switching cohorts updates both cohort trees", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("root1").Obj()))
		khMust(t, c.UpsertCohort(MakeCohort("root2").Obj()))
		cohort := MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10")
		khMust(t, c.UpsertCohort(cohort.Parent("root1").Obj()))
		khWantNode(t, c, "root1", "", "10")
		khWantNode(t, c, "root2", "", "")
		khMust(t, c.UpsertCohort(cohort.Parent("root2").Obj()))
		khWantNode(t, c, "root1", "", "")
		khWantNode(t, c, "root2", "", "10")
	})
	t.Run("cohort leaving cohort with cycle successfully updates new cohort", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cycle-root").Parent("cycle-root").Obj()))
		khWantCycle(t, c, "cycle-root", true)
		khMust(t, c.UpsertCohort(MakeCohort("root").Obj()))
		khWantCycle(t, c, "root", false)
		cohort := MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10")
		khMust(t, c.UpsertCohort(cohort.Parent("cycle-root").Obj()))
		khWantCycle(t, c, "cohort", true)
		khMust(t, c.UpsertCohort(cohort.Parent("root").Obj()))
		khWantCycle(t, c, "cohort", false)
		khWantNode(t, c, "root", "", "10")
	})
	t.Run("cohort joining cohort with cycle successfully updates old cohort", func(t *testing.T) {
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cycle-root").Parent("cycle-root").Obj()))
		khWantCycle(t, c, "cycle-root", true)
		khMust(t, c.UpsertCohort(MakeCohort("root").Obj()))
		cohort := MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10")
		khMust(t, c.UpsertCohort(cohort.Parent("root").Obj()))
		khWantCycle(t, c, "cohort", false)
		khWantNode(t, c, "root", "", "10")
		khMust(t, c.UpsertCohort(cohort.Parent("cycle-root").Obj()))
		khWantCycle(t, c, "cohort", true)
		khWantNode(t, c, "root", "", "")
	})
	t.Run("ResyncGaugeMetrics does not infinitely recurse with cyclic cohorts", func(t *testing.T) {
		// What Kueue's metrics resync reads of each Cohort (its root, its
		// subtree's quota and usage) must come back for Cohorts in a cycle.
		c := New(Options{})
		khMust(t, c.UpsertCohort(MakeCohort("cohort-a").Parent("cohort-b").Obj()))
		khWantCycle(t, c, "cohort-a", false)
		khMust(t, c.UpsertCohort(MakeCohort("cohort-b").Parent("cohort-a").Obj()))
		for _, name := range c.CohortNames() {
			co := khCohort(t, c, name)
			if root, ok := co.RootName(); ok || !co.InCycle() {
				t.Errorf("Cohort %s: root %q (%v), in a cycle %v; want no root, in a cycle", name, root, ok, co.InCycle())
			}
			_, _ = co.SubtreeQuota(), co.Usage()
		}
	})
}

// Kueue: pkg/cache/scheduler/cache_test.go,
// TestDeleteCohortUpdatesAncestorSubtreeQuota. Quantities are default cpu.
func TestKueueDeleteCohortUpdatesAncestorSubtreeQuota(t *testing.T) {
	cpuQuota := func(w *CohortWrapper, q string) *kueue.Cohort {
		return w.Quota("default", corev1.ResourceCPU, q).Obj()
	}
	cases := []struct {
		name       string
		objs       []any
		deleteName string
		wantBefore map[string]string
		wantAfter  map[string]string
	}{
		{"deleting child cohort updates parent SubtreeQuota",
			[]any{cpuQuota(MakeCohort("root"), "10"), cpuQuota(MakeCohort("child").Parent("root"), "5")},
			"child", map[string]string{"root": "15"}, map[string]string{"root": "10"}},
		{"deleting grandchild cohort updates all ancestors SubtreeQuota",
			[]any{cpuQuota(MakeCohort("root"), "10"), cpuQuota(MakeCohort("mid").Parent("root"), "5"), cpuQuota(MakeCohort("leaf").Parent("mid"), "3")},
			"leaf", map[string]string{"mid": "8", "root": "18"}, map[string]string{"mid": "5", "root": "15"}},
		{"deleting cohort with children updates parent SubtreeQuota",
			[]any{cpuQuota(MakeCohort("root"), "10"), cpuQuota(MakeCohort("mid").Parent("root"), "5"),
				MakeClusterQueue("cq").Cohort("mid").Quota("default", corev1.ResourceCPU, "7").Obj()},
			"mid", map[string]string{"root": "22"}, map[string]string{"root": "10"}},
	}
	check := func(t *testing.T, c *Cache, when string, want map[string]string) {
		t.Helper()
		for name, q := range want {
			fr := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
			if got := khCohort(t, c, name).SubtreeQuota(); !reflect.DeepEqual(got, resources.Amounts{fr: khCPU(q)}) {
				t.Errorf("%s deletion, %s subtree quota %v, want %s cpu", when, name, got, q)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			for _, o := range tc.objs {
				switch v := o.(type) {
				case *kueue.Cohort:
					khMust(t, c.UpsertCohort(v))
				case *kueue.ClusterQueue:
					khMust(t, c.UpsertClusterQueue(v))
				}
			}
			check(t, c, "before", tc.wantBefore)
			c.DeleteCohort(tc.deleteName)
			check(t, c, "after", tc.wantAfter)
		})
	}
}

// khAncestorCohorts are the Cohorts of Kueue's ancestor tables: root, with
// first-left and first-right below it, and second-left and second-right below
// first-left; withCycle makes root a child of second-right.
func khAncestorCohorts(levels int, withCycle bool) []*kueue.Cohort {
	switch {
	case levels == 1:
		return []*kueue.Cohort{MakeCohort("root").Obj()}
	case levels == 2:
		return []*kueue.Cohort{MakeCohort("root").Obj(), MakeCohort("left").Parent("root").Obj(), MakeCohort("right").Parent("root").Obj()}
	}
	root := MakeCohort("root")
	if withCycle {
		root = root.Parent("second-right")
	}
	return []*kueue.Cohort{root.Obj(), MakeCohort("first-left").Parent("root").Obj(), MakeCohort("first-right").Parent("root").Obj(),
		MakeCohort("second-left").Parent("first-left").Obj(), MakeCohort("second-right").Parent("first-left").Obj()}
}

func khCohortsCache(t *testing.T, cohorts []*kueue.Cohort) *Cache {
	t.Helper()
	c := New(Options{})
	for _, co := range cohorts {
		khMust(t, c.UpsertCohort(co))
	}
	return c
}

// khAncestorNames is the queue's chain of Cohorts (ClusterQueue.Ancestors, the
// walk every hierarchical rule reads), its own first, and whether the chain
// has a cycle (Kueue's ErrCohortHasCycle).
func khAncestorNames(q *ClusterQueue) ([]string, bool) {
	var out []string
	for _, co := range q.Ancestors(nil) {
		out = append(out, co.Name())
	}
	return out, q.InCycle()
}

func khWantAncestors(t *testing.T, got []string, gotCycle bool, want []string, wantCycle bool) {
	t.Helper()
	// Kueue answers nil or an empty list alike for "no ancestors".
	if len(got) != 0 || len(want) != 0 {
		if !slices.Equal(got, want) {
			t.Errorf("ancestors %v, want %v", got, want)
		}
	}
	if gotCycle != wantCycle {
		t.Errorf("in a cycle %v, want %v", gotCycle, wantCycle)
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestClusterQueueAncestors: a
// ClusterQueue's Cohorts below the root, its own first.
func TestKueueClusterQueueAncestors(t *testing.T) {
	cases := []struct {
		name          string
		cohorts       []*kueue.Cohort
		cohort        string
		wantAncestors []string
		wantCycle     bool
	}{
		{name: "without cohort"},
		{name: "cohort not found", cohort: "root"},
		{name: "one level", cohorts: khAncestorCohorts(1, false), cohort: "root", wantAncestors: []string{}},
		{name: "two level", cohorts: khAncestorCohorts(2, false), cohort: "left", wantAncestors: []string{"left"}},
		{name: "three levels", cohorts: khAncestorCohorts(3, false), cohort: "second-left", wantAncestors: []string{"second-left", "first-left"}},
		{name: "with cycle", cohorts: khAncestorCohorts(3, true), cohort: "second-left", wantCycle: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := khCohortsCache(t, tc.cohorts)
			khMust(t, c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort(tc.cohort).Obj()))
			got, cycle := khAncestorNames(mustCQ(t, c, "cq"))
			if len(got) > 0 {
				got = got[:len(got)-1] // the root is left out
			}
			khWantAncestors(t, got, cycle, tc.wantAncestors, tc.wantCycle)
		})
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestWorkloadAncestors: the
// Cohorts of the ClusterQueue a workload is admitted to, its own first and
// the root last. Quokka's quota cache knows an admitted workload by its
// charge; a workload without one (none at all, or not admitted) has none.
func TestKueueWorkloadAncestors(t *testing.T) {
	cases := []struct {
		name          string
		cohorts       []*kueue.Cohort
		cqCohort      string
		admittedTo    string // "" for no charge
		wantAncestors []string
		wantCycle     bool
	}{
		{name: "workload is nil", cohorts: khAncestorCohorts(1, false), cqCohort: "root"},
		{name: "not admitted workload", cohorts: khAncestorCohorts(1, false), cqCohort: "root"},
		{name: "clusterqueue not found", cohorts: khAncestorCohorts(1, false), cqCohort: "root", admittedTo: "invalid"},
		{name: "clusterqueue doesn't have parent", cohorts: khAncestorCohorts(1, false), admittedTo: "cq"},
		{name: "one level", cohorts: khAncestorCohorts(1, false), cqCohort: "root", admittedTo: "cq", wantAncestors: []string{"root"}},
		{name: "two level", cohorts: khAncestorCohorts(2, false), cqCohort: "left", admittedTo: "cq", wantAncestors: []string{"left", "root"}},
		{name: "three levels", cohorts: khAncestorCohorts(3, false), cqCohort: "second-left", admittedTo: "cq",
			wantAncestors: []string{"second-left", "first-left", "root"}},
		{name: "with cycle", cohorts: khAncestorCohorts(3, true), cqCohort: "second-left", admittedTo: "cq", wantCycle: true},
	}
	key := types.NamespacedName{Namespace: "default", Name: "wl"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := khCohortsCache(t, tc.cohorts)
			khMust(t, c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort(tc.cqCohort).Obj()))
			if tc.admittedTo != "" {
				c.Charge(key, tc.admittedTo, resources.Amounts{})
			}
			var got []string
			var cycle bool
			if cq, _, ok := c.Charged(key); ok {
				if q, ok := c.ClusterQueue(cq); ok {
					got, cycle = khAncestorNames(q)
				}
			}
			khWantAncestors(t, got, cycle, tc.wantAncestors, tc.wantCycle)
		})
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestAncestors: a Cohort and its
// ancestors up to the root. Quokka walks them from a queue
// (ClusterQueue.Ancestors): a queue placed in the Cohort, when it exists,
// asks.
func TestKueueAncestors(t *testing.T) {
	cases := []struct {
		name          string
		cohorts       []*kueue.Cohort
		cohort        string
		wantAncestors []string
		wantCycle     bool
	}{
		{name: "without cohort"},
		{name: "cohort not found", cohort: "root"},
		{name: "one level", cohorts: khAncestorCohorts(1, false), cohort: "root", wantAncestors: []string{"root"}},
		{name: "two level", cohorts: khAncestorCohorts(2, false), cohort: "left", wantAncestors: []string{"left", "root"}},
		{name: "three levels", cohorts: khAncestorCohorts(3, false), cohort: "second-left",
			wantAncestors: []string{"second-left", "first-left", "root"}},
		{name: "with cycle", cohorts: khAncestorCohorts(3, true), cohort: "second-left", wantCycle: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := khCohortsCache(t, tc.cohorts)
			var got []string
			var cycle bool
			if _, ok := c.Cohort(tc.cohort); ok {
				khMust(t, c.UpsertClusterQueue(MakeClusterQueue("probe").Cohort(tc.cohort).Obj()))
				got, cycle = khAncestorNames(mustCQ(t, c, "probe"))
			}
			khWantAncestors(t, got, cycle, tc.wantAncestors, tc.wantCycle)
		})
	}
}
