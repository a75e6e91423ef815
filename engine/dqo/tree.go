package dqo

import (
	"fmt"
	"sort"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
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
// share it between ResolveConflicts and Distribute.
//
// Why here and not in engine/quota: DQO needs only edges and objects, while the quota
// cache keeps usage per node; this small tree keeps the package free of the cache.
// It follows the same rules (implicit Cohorts, cycles tolerated), so the two agree.
type Tree struct {
	clusterQueues map[string]*v1beta2.ClusterQueue
	cohorts       map[string]*v1beta2.Cohort
	// parent maps a node to the name of its parent Cohort; roots are absent.
	parent map[NodeRef]string
	// children maps every Cohort name, created or implicit, to its children sorted
	// by kind and name. An implicit Cohort is a key here but not in cohorts.
	children map[string][]NodeRef
}

// NewTree builds the tree. Nil entries are skipped; when two objects of the same kind
// share a name, the later one wins (an API server never returns both).
func NewTree(clusterQueues []*v1beta2.ClusterQueue, cohorts []*v1beta2.Cohort) *Tree {
	t := &Tree{
		clusterQueues: make(map[string]*v1beta2.ClusterQueue, len(clusterQueues)),
		cohorts:       make(map[string]*v1beta2.Cohort, len(cohorts)),
		parent:        make(map[NodeRef]string, len(clusterQueues)+len(cohorts)),
		children:      make(map[string][]NodeRef, len(cohorts)),
	}
	for _, cq := range clusterQueues {
		if cq != nil {
			t.clusterQueues[cq.Name] = cq
		}
	}
	for _, co := range cohorts {
		if co != nil {
			t.cohorts[co.Name] = co
			if _, ok := t.children[co.Name]; !ok {
				t.children[co.Name] = nil
			}
		}
	}
	for name, cq := range t.clusterQueues {
		if p := string(cq.Spec.CohortName); p != "" {
			t.link(NodeRef{v1alpha1.ClusterQueueKind, name}, p)
		}
	}
	for name, co := range t.cohorts {
		if p := string(co.Spec.ParentName); p != "" {
			t.link(NodeRef{v1alpha1.CohortKind, name}, p)
		}
	}
	for _, kids := range t.children {
		sort.Slice(kids, func(i, j int) bool { return kids[i].less(kids[j]) })
	}
	return t
}

func (t *Tree) link(child NodeRef, parent string) {
	t.parent[child] = parent
	t.children[parent] = append(t.children[parent], child)
}

// Exists reports whether the node is in the tree: a created ClusterQueue, or a Cohort
// that is created or referenced by a child (implicit).
func (t *Tree) Exists(ref NodeRef) bool {
	switch ref.Kind {
	case v1alpha1.ClusterQueueKind:
		return t.clusterQueues[ref.Name] != nil
	case v1alpha1.CohortKind:
		_, ok := t.children[ref.Name]
		return ok
	}
	return false
}

// ClusterQueue returns the ClusterQueue object of that name, or nil.
func (t *Tree) ClusterQueue(name string) *v1beta2.ClusterQueue { return t.clusterQueues[name] }

// Cohort returns the Cohort object of that name, or nil when the Cohort does not
// exist or exists only implicitly.
func (t *Tree) Cohort(name string) *v1beta2.Cohort { return t.cohorts[name] }

// Subtree returns the root and all its descendants, depth first, children in kind
// and name order, implicit Cohorts included. A root that does not exist gives nil.
// A Cohort cycle reachable from the root is visited once, never looped.
func (t *Tree) Subtree(root NodeRef) []NodeRef {
	if !t.Exists(root) {
		return nil
	}
	var out []NodeRef
	seen := make(map[string]bool)
	var walk func(NodeRef)
	walk = func(n NodeRef) {
		out = append(out, n)
		if n.Kind != v1alpha1.CohortKind || seen[n.Name] {
			return
		}
		seen[n.Name] = true
		for _, c := range t.children[n.Name] {
			if c.Kind == v1alpha1.CohortKind && seen[c.Name] {
				continue
			}
			walk(c)
		}
	}
	walk(root)
	return out
}

// ancestors returns the Cohorts above ref, nearest first, stopping before a name
// repeats. The starting node is not marked as seen, so for a Cohort on a cycle the
// list ends with the Cohort itself, which is how cohortCycle finds cycles.
func (t *Tree) ancestors(ref NodeRef) []string {
	var out []string
	seen := make(map[string]bool)
	p, ok := t.parent[ref]
	for ok && !seen[p] {
		seen[p] = true
		out = append(out, p)
		p, ok = t.parent[NodeRef{v1alpha1.CohortKind, p}]
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
