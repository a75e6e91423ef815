package dqo

import (
	"reflect"
	"testing"

	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// 000 defines the subtree by spec.cohortName and spec.parentName edges; Cohorts that
// are referenced but not created exist implicitly.
func TestTreeSubtreeAndImplicitCohorts(t *testing.T) {
	tree := NewTree(
		[]*v1beta2.ClusterQueue{
			makeCQ("b-q").Cohort("implicit").Obj(),
			makeCQ("a-q").Cohort("org").Obj(),
			makeCQ("lonely").Obj(),
		},
		[]*v1beta2.Cohort{makeCohort("org").Obj(), makeCohort("implicit-parent-child").Parent("implicit").Obj()},
	)
	// implicit has no object but a parent reference makes it exist; its own parent
	// is not known, so it is a root.
	if !tree.Exists(cohort("implicit")) || tree.Cohort("implicit") != nil {
		t.Error("an implicit Cohort exists without an object")
	}
	if tree.Exists(cohort("nowhere")) || tree.Exists(cq("nowhere")) || tree.Exists(cohort("a-q")) {
		t.Error("unknown nodes must not exist; kinds have separate names")
	}
	got := tree.Subtree(cohort("implicit"))
	want := []NodeRef{cohort("implicit"), cq("b-q"), cohort("implicit-parent-child")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Subtree(implicit) = %v, want %v", got, want)
	}
	if got := tree.Subtree(cq("lonely")); !reflect.DeepEqual(got, []NodeRef{cq("lonely")}) {
		t.Errorf("Subtree of a ClusterQueue = %v, want itself", got)
	}
	if tree.Subtree(cohort("nowhere")) != nil {
		t.Error("the subtree of a missing root is empty")
	}
}

func TestTreeAncestryAndCycles(t *testing.T) {
	tree := NewTree(
		[]*v1beta2.ClusterQueue{makeCQ("q").Cohort("c").Obj(), makeCQ("looped").Cohort("x").Obj()},
		[]*v1beta2.Cohort{
			makeCohort("c").Parent("b").Obj(), makeCohort("b").Parent("a").Obj(),
			makeCohort("x").Parent("y").Obj(), makeCohort("y").Parent("x").Obj(),
			makeCohort("self").Parent("self").Obj(),
		},
	)
	for _, c := range []struct {
		a, b NodeRef
		want bool
	}{
		{cohort("a"), cq("q"), true},
		{cohort("b"), cohort("c"), true},
		{cq("q"), cq("q"), true},
		{cohort("c"), cohort("a"), false},
		{cq("q"), cohort("c"), false},
		{cohort("x"), cohort("y"), true},
		{cohort("y"), cohort("x"), true},
	} {
		if got := tree.IsAncestorOrSelf(c.a, c.b); got != c.want {
			t.Errorf("IsAncestorOrSelf(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := tree.cohortCycle("x"); !reflect.DeepEqual(got, []string{"x", "y", "x"}) {
		t.Errorf("cohortCycle(x) = %v", got)
	}
	if got := tree.cohortCycle("self"); !reflect.DeepEqual(got, []string{"self", "self"}) {
		t.Errorf("cohortCycle(self) = %v", got)
	}
	if tree.cohortCycle("c") != nil || tree.cohortCycle("a") != nil {
		t.Error("c and a are not on a cycle")
	}
	// A cycle is walked once.
	if got := tree.Subtree(cohort("x")); len(got) != 3 {
		t.Errorf("Subtree(x) = %v, want x, looped, y", got)
	}
}
