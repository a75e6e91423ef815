package dqo

import (
	"fmt"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/hierarchy"
)

// NodeRef names a node of the quota tree: a ClusterQueue or a Cohort. The two kinds
// have separate name spaces, so a ClusterQueue and a Cohort may share a name.
type NodeRef struct {
	Kind v1alpha1.QuotaNodeKind
	Name string
}

// String renders the reference as it appears in messages: ClusterQueue "team-a".
func (r NodeRef) String() string { return fmt.Sprintf("%s %q", r.Kind, r.Name) }

// less orders references by kind, then name, for deterministic output.
func (r NodeRef) less(o NodeRef) bool {
	if r.Kind != o.Kind {
		return r.Kind < o.Kind
	}
	return r.Name < o.Name
}

// Tree is the forest of Cohorts and ClusterQueues, built from spec.cohortName of
// ClusterQueues and spec.parentName of Cohorts. A Cohort that is referenced but not
// created exists implicitly: it has children but no object, no spec and no status.
//
// The tree only reads the objects it is built from and never modifies them. Build it
// once per reconcile (or per simulator step) from every ClusterQueue and Cohort, and
// share it between ResolveConflicts and Distribute. Its edges are the engine's one
// cohort tree (engine/hierarchy), so implicit Cohorts and cycles follow the same
// rules as for admission; the payloads are the objects themselves.
type Tree struct {
	h *hierarchy.Tree[*v1beta2.ClusterQueue, *v1beta2.Cohort]
}

// NewTree builds the tree. Nil entries are skipped; when two objects of the same kind
// share a name, the later one wins (an API server never returns both).
func NewTree(clusterQueues []*v1beta2.ClusterQueue, cohorts []*v1beta2.Cohort) *Tree {
	h := hierarchy.New[*v1beta2.ClusterQueue, *v1beta2.Cohort](nil)
	for _, co := range cohorts {
		if co != nil {
			h.SetCohort(co.Name, string(co.Spec.ParentName)).Value = co
		}
	}
	for _, cq := range clusterQueues {
		if cq != nil {
			h.SetQueue(cq.Name, string(cq.Spec.CohortName)).Value = cq
		}
	}
	return &Tree{h: h}
}

// Exists reports whether the node is in the tree: a created ClusterQueue, or a Cohort
// that is created or referenced by a child (implicit).
func (t *Tree) Exists(ref NodeRef) bool {
	switch ref.Kind {
	case v1alpha1.ClusterQueueKind:
		return t.ClusterQueue(ref.Name) != nil
	case v1alpha1.CohortKind:
		_, ok := t.h.Cohort(ref.Name)
		return ok
	}
	return false
}

// ClusterQueue returns the ClusterQueue object of that name, or nil.
func (t *Tree) ClusterQueue(name string) *v1beta2.ClusterQueue {
	if q, ok := t.h.Queue(name); ok {
		return q.Value
	}
	return nil
}

// Cohort returns the Cohort object of that name, or nil when the Cohort does not
// exist or exists only implicitly.
func (t *Tree) Cohort(name string) *v1beta2.Cohort {
	if c, ok := t.h.Cohort(name); ok && c.Explicit() {
		return c.Value
	}
	return nil
}

// Subtree returns the root and all its descendants, depth first, children in kind
// and name order (ClusterQueues, then Cohorts), implicit Cohorts included. A root
// that does not exist gives nil. A Cohort cycle reachable from the root is visited
// once, never looped.
func (t *Tree) Subtree(root NodeRef) []NodeRef {
	if !t.Exists(root) {
		return nil
	}
	if root.Kind != v1alpha1.CohortKind {
		return []NodeRef{root}
	}
	var out []NodeRef
	seen := make(map[string]bool)
	var walk func(c *hierarchy.Cohort[*v1beta2.ClusterQueue, *v1beta2.Cohort])
	walk = func(c *hierarchy.Cohort[*v1beta2.ClusterQueue, *v1beta2.Cohort]) {
		out = append(out, NodeRef{v1alpha1.CohortKind, c.Name()})
		if seen[c.Name()] {
			return
		}
		seen[c.Name()] = true
		for _, q := range c.Queues() {
			out = append(out, NodeRef{v1alpha1.ClusterQueueKind, q.Name()})
		}
		for _, child := range c.ChildCohorts() {
			if !seen[child.Name()] {
				walk(child)
			}
		}
	}
	c, _ := t.h.Cohort(root.Name)
	walk(c)
	return out
}

// ancestors returns the Cohorts above ref, nearest first, stopping before a name
// repeats. The starting node is not marked as seen, so for a Cohort on a cycle the
// list ends with the Cohort itself, which is how cohortCycle finds cycles.
func (t *Tree) ancestors(ref NodeRef) []string {
	var p *hierarchy.Cohort[*v1beta2.ClusterQueue, *v1beta2.Cohort]
	switch ref.Kind {
	case v1alpha1.ClusterQueueKind:
		if q, ok := t.h.Queue(ref.Name); ok {
			p = q.Cohort()
		}
	case v1alpha1.CohortKind:
		if c, ok := t.h.Cohort(ref.Name); ok {
			p = c.Parent()
		}
	}
	var out []string
	seen := make(map[string]bool)
	for p != nil && !seen[p.Name()] {
		seen[p.Name()] = true
		out = append(out, p.Name())
		p = p.Parent()
	}
	return out
}

// IsAncestorOrSelf reports whether a is b or a Cohort above b.
func (t *Tree) IsAncestorOrSelf(a, b NodeRef) bool {
	if a == b {
		return true
	}
	if a.Kind != v1alpha1.CohortKind {
		return false
	}
	for _, p := range t.ancestors(b) {
		if p == a.Name {
			return true
		}
	}
	return false
}

// cohortCycle returns the names along the cycle through the Cohort, starting and
// ending with it, or nil when the Cohort is not on a cycle. Kueue admits nothing in
// a Cohort cycle, and a cycle has no top, so distributing over it has no meaning.
func (t *Tree) cohortCycle(name string) []string {
	path := []string{name}
	for _, p := range t.ancestors(NodeRef{v1alpha1.CohortKind, name}) {
		path = append(path, p)
		if p == name {
			return path
		}
	}
	return nil
}
