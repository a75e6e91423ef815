package quota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// DefaultWeight is spec.fairSharing.weight when unset, in thousandths.
const DefaultWeight int64 = 1000

// weightOf converts spec.fairSharing.weight to thousandths, so that fair-sharing
// decisions compare integers; a negative weight (rejected by the API server) is
// treated as 0.
func weightOf(fs *kueue.FairSharing) int64 {
	if fs == nil || fs.Weight == nil {
		return DefaultWeight
	}
	return max(0, weightMilli(fs.Weight))
}

func weightMilli(q *resource.Quantity) int64 { return q.MilliValue() }

// FairNode is what fair sharing reads of a ClusterQueue or Cohort: its weight,
// its parent and, per cell, the quota its subtree holds and the usage it
// accounts for. Only *ClusterQueue and *Cohort implement it (it is sealed), so
// that callers may switch on the two types to avoid dynamic calls.
type FairNode interface {
	sealed()
	// NodeName is the object's name.
	NodeName() string
	// IsCohort tells a Cohort from a ClusterQueue with the same name.
	IsCohort() bool
	// FairWeight is spec.fairSharing.weight in thousandths.
	FairWeight() int64
	// ParentCohort is the node's cohort, nil for a root or a queue without one.
	ParentCohort() *Cohort
	// EachBorrowed calls f for every cell where the node uses more than its
	// subtree quota, with the amount above it.
	EachBorrowed(f func(fr resources.FlavorResource, borrowed int64))
	// BorrowedOf is the amount above subtree quota for one cell.
	BorrowedOf(fr resources.FlavorResource) int64
}

func (n *node) sealed() {}

func (n *node) EachBorrowed(f func(fr resources.FlavorResource, borrowed int64)) {
	for fr, cl := range n.cells.all() {
		if b := cl.usage - cl.subtree; cl.usage != 0 && b > 0 {
			f(fr, b)
		}
	}
}

func (n *node) BorrowedOf(fr resources.FlavorResource) int64 {
	cl := n.cell(fr)
	return max(0, cl.used()-cl.sub())
}

// NodeName is the queue's name.
func (q *ClusterQueue) NodeName() string { return q.name }

// IsCohort is false for a ClusterQueue.
func (q *ClusterQueue) IsCohort() bool { return false }

// FairWeight is spec.fairSharing.weight in thousandths (default 1000).
func (q *ClusterQueue) FairWeight() int64 { return q.weight }

// ParentCohort is the queue's cohort, or nil.
func (q *ClusterQueue) ParentCohort() *Cohort {
	if c := q.tq.Cohort(); c != nil {
		return c.Value
	}
	return nil
}

// NodeName is the cohort's name.
func (c *Cohort) NodeName() string { return c.name }

// IsCohort is true for a Cohort.
func (c *Cohort) IsCohort() bool { return true }

// FairWeight is spec.fairSharing.weight in thousandths (default 1000). An
// implicit cohort (no Cohort object) has 0, as in Kueue, where only a Cohort
// object sets the weight; it is a root, whose weight fair sharing never reads.
func (c *Cohort) FairWeight() int64 { return c.weight }

// ParentCohort is the cohort's parent, or nil for a root (or in a cycle, where
// fair sharing does not apply since the queues are inactive).
func (c *Cohort) ParentCohort() *Cohort {
	if c.tc.HasCycle() {
		return nil
	}
	if p := c.tc.Parent(); p != nil {
		return p.Value
	}
	return nil
}

// LendableOf is what the cohort's subtree could use of a resource, summed
// over flavors, if nothing else were admitted: the denominator of the share
// of each of its children. As in Kueue, each cell counts the cohort's
// potential (its unused reserve plus what its ancestors could lend it, within
// its borrowing limit), so that in a deep tree a queue's borrowing is
// measured against what its Cohort could reach, not only against what that
// Cohort owns.
func (c *Cohort) LendableOf(r corev1.ResourceName) int64 {
	root, ok := c.tc.Root()
	if !ok {
		return 0
	}
	var sum int64
	for fr, cl := range root.Value.cells.all() {
		if cl.subtree != 0 && fr.Resource == r {
			sum = resources.Add(sum, c.potential(fr))
		}
	}
	return sum
}

// potential is what the cohort could use of a cell if nothing else were
// admitted (Kueue's potentialAvailable).
func (c *Cohort) potential(fr resources.FlavorResource) int64 {
	p := c.tc.Parent()
	if p == nil {
		return c.cell(fr).sub()
	}
	cl := c.cell(fr)
	pot := resources.Add(cl.guaranteed(), p.Value.potential(fr))
	if bl := cl.borrowingLimit(); bl != resources.Unlimited {
		pot = min(pot, resources.Add(cl.sub(), bl))
	}
	return pot
}

// TreeQueues calls f for every ClusterQueue that shares quota with q: the
// queues under q's root cohort, or q alone when it has no cohort (or its chain
// has a cycle). Preemption looks for candidates there.
func (c *Cache) TreeQueues(q *ClusterQueue, f func(*ClusterQueue)) {
	tc := q.tq.Cohort()
	if tc == nil {
		f(q)
		return
	}
	root, ok := tc.Root()
	if !ok {
		f(q)
		return
	}
	var walk func(*treeCohort)
	walk = func(n *treeCohort) {
		n.EachChild(walk, func(tq *treeQueue) { f(tq.Value) })
	}
	walk(root)
}

// Nominal is the queue's nominal quota of a cell (0 when undefined).
func (q *ClusterQueue) Nominal(fr resources.FlavorResource) int64 {
	v, _ := q.quotaOf(fr)
	return v.Nominal
}
