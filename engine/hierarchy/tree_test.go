package hierarchy

import (
	"reflect"
	"testing"
)

func names[Q, C any](cs []*Cohort[Q, C]) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Name())
	}
	return out
}

// 002: "A Cohort that is referenced but not created exists implicitly" (cohort_types.go
// doc of parentName: "A Cohort that is referenced but not created exists implicitly,
// with no quota of its own.")
func TestImplicitCohortExistsWhileReferenced(t *testing.T) {
	tr := New[int, int](nil)
	tr.SetQueue("research", "ml-platform")
	c, ok := tr.Cohort("ml-platform")
	if !ok || c.Explicit() {
		t.Fatalf("ml-platform must exist implicitly, got ok=%v", ok)
	}
	tr.SetCohort("ml-platform", "org")
	if !c.Explicit() || c.Parent() == nil || c.Parent().Name() != "org" || c.Parent().Explicit() {
		t.Fatalf("explicit ml-platform under implicit org expected")
	}
	tr.DeleteCohort("ml-platform")
	if c.Explicit() || c.Parent() != nil {
		t.Fatal("a deleted cohort that is still referenced stays implicit without a parent")
	}
	if _, ok := tr.Cohort("org"); ok {
		t.Fatal("org is no longer referenced and must disappear")
	}
	tr.DeleteQueue("research")
	if _, ok := tr.Cohort("ml-platform"); ok {
		t.Fatal("unreferenced implicit cohort must disappear")
	}
	if got := tr.CohortNames(); len(got) != 0 {
		t.Fatalf("no cohorts expected, got %v", got)
	}
}

func TestMovingQueueUpdatesEdges(t *testing.T) {
	tr := New[int, string](func(c *Cohort[int, string]) string { return "payload-" + c.Name() })
	tr.SetQueue("a", "x")
	tr.SetQueue("b", "x")
	q := tr.SetQueue("a", "y")
	if q.Cohort().Name() != "y" || q.Cohort().Value != "payload-y" {
		t.Fatalf("queue a must be in y with its payload, got %s", q.Cohort().Name())
	}
	x, _ := tr.Cohort("x")
	if got := len(x.Queues()); got != 1 {
		t.Fatalf("x must keep only b, has %d", got)
	}
	tr.SetQueue("b", "")
	if _, ok := tr.Cohort("x"); ok {
		t.Fatal("x must be collected")
	}
	if !reflect.DeepEqual(tr.QueueNames(), []string{"a", "b"}) {
		t.Fatalf("queue names: %v", tr.QueueNames())
	}
}

// 002 (brief): "A cycle of parents makes the queues in it inactive, with a reason (CohortCycle)."
func TestCycleDetection(t *testing.T) {
	tr := New[int, int](nil)
	tr.SetCohort("a", "b")
	tr.SetCohort("b", "c")
	tr.SetCohort("below", "a")
	q := tr.SetQueue("q", "below")
	if q.HasCycle() {
		t.Fatal("no cycle yet")
	}
	root, ok := q.Cohort().Root()
	if !ok || root.Name() != "c" {
		t.Fatalf("root must be c, got %v %v", root, ok)
	}
	tr.SetCohort("c", "a")
	if !q.HasCycle() {
		t.Fatal("a -> b -> c -> a is a cycle; queues below it are affected")
	}
	if _, ok := q.Cohort().Root(); ok {
		t.Fatal("no root in a cycle")
	}
	visits := 0
	q.Cohort().Ancestors(func(*Cohort[int, int]) bool { visits++; return true })
	if visits != 4 {
		t.Fatalf("ancestor walk must visit below, a, b, c once each, visited %d", visits)
	}
	tr.SetCohort("self", "self")
	if s, _ := tr.Cohort("self"); !s.HasCycle() {
		t.Fatal("a self-parent is a cycle")
	}
	tr.SetCohort("c", "")
	if q.HasCycle() {
		t.Fatal("cycle broken")
	}
	c, _ := tr.Cohort("c")
	if got := names(c.ChildCohorts()); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("children of c: %v", got)
	}
}
