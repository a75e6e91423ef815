package quota

import "quokka.dev/quokka/engine/resources"

// Kueue's hierarchical rules read the Cohort tree node by node: classic
// preemption looks for the lowest subtree whose quota could hold a request
// (hierarchical reclaim) and skips subtrees that stay within their quota, and
// the flavor assigner measures how far up the tree a request must borrow. The
// accessors below give those rules each node's subtree quota and usage
// without copying, and the tree's shape in a deterministic order.

// SubtreeQuotaOf is the quota the node's subtree holds of a cell: a
// ClusterQueue's nominal quota, a Cohort's own quota plus what its children
// lend it.
func (n *node) SubtreeQuotaOf(fr resources.FlavorResource) int64 { return n.cell(fr).sub() }

// UsageOf is the usage the node accounts for in a cell: a ClusterQueue's
// usage, or what a Cohort's children use above their guaranteed shares.
func (n *node) UsageOf(fr resources.FlavorResource) int64 { return n.cell(fr).used() }

// LocalAvailable is the unused part of the quota the node keeps for its own
// subtree (subtreeQuota - lendingLimit), which its parent does not see.
func (n *node) LocalAvailable(fr resources.FlavorResource) int64 {
	cl := n.cell(fr)
	return max(0, cl.guaranteed()-cl.used())
}

// BorrowingWith tells whether v more of a cell would take the node above its
// subtree quota.
func (n *node) BorrowingWith(fr resources.FlavorResource, v int64) bool {
	cl := n.cell(fr)
	return cl.sub() < resources.Add(cl.used(), v)
}

// WithinQuotaIn tells whether the node uses no more than its subtree quota in
// every cell of frs (Kueue's IsWithinNominalInResources).
func (n *node) WithinQuotaIn(frs map[resources.FlavorResource]bool) bool {
	for fr := range frs {
		if cl := n.cell(fr); cl.used() > cl.sub() {
			return false
		}
	}
	return true
}

// Ancestors returns the queue's Cohorts, its own first and the root last, in
// buf; nil when it has no Cohort or its chain has a cycle.
func (q *ClusterQueue) Ancestors(buf []*Cohort) []*Cohort {
	out := buf[:0]
	tc := q.tq.Cohort()
	if tc == nil || tc.HasCycle() {
		return nil
	}
	for p := tc; p != nil; p = p.Parent() {
		out = append(out, p.Value)
	}
	return out
}

// HasParent tells whether the queue is in a Cohort tree without a cycle.
func (q *ClusterQueue) HasParent() bool {
	tc := q.tq.Cohort()
	return tc != nil && !tc.HasCycle()
}

// Parent returns the Cohort a Cohort belongs to, nil for a root or in a
// cycle.
func (c *Cohort) Parent() *Cohort { return c.ParentCohort() }

// ChildCohorts returns the Cohort's child Cohorts, sorted by name.
func (c *Cohort) ChildCohorts() []*Cohort {
	chs := c.tc.ChildCohorts()
	out := make([]*Cohort, len(chs))
	for i, ch := range chs {
		out[i] = ch.Value
	}
	return out
}

// ChildQueues returns the ClusterQueues directly in the Cohort, sorted by
// name.
func (c *Cohort) ChildQueues() []*ClusterQueue {
	qs := c.tc.Queues()
	out := make([]*ClusterQueue, len(qs))
	for i, q := range qs {
		out[i] = q.Value
	}
	return out
}

// Height is the distance from the Cohort to its furthest leaf: 1 for a
// Cohort of ClusterQueues, one more for each level of Cohorts below, 0 for a
// Cohort with no children. Kueue measures how far a request borrows by the
// height of the lowest subtree that can hold it.
func (c *Cohort) Height() int { return c.height }

// BorrowHeight is how far up its Cohort tree q must borrow for v of a cell
// (Kueue's FindHeightOfLowestSubtreeThatFits): 0 when q's own nominal quota
// holds its usage plus v, else the height of the lowest Cohort on its chain
// whose subtree quota holds what q's part of the chain cannot, and the root's
// height when none does. inSubtree tells whether that lowest Cohort is below
// the root (or, at height 0, that q has a Cohort at all): then quota that
// queues outside that subtree borrow from it may be reclaimed by preemption
// whatever the priorities (hierarchical reclaim).
func BorrowHeight(q *ClusterQueue, fr resources.FlavorResource, v int64) (height int, inSubtree bool) {
	var buf [8]*Cohort
	anc := q.Ancestors(buf[:])
	if !q.BorrowingWith(fr, v) || len(anc) == 0 {
		return 0, len(anc) > 0
	}
	remaining := v - q.LocalAvailable(fr)
	for _, a := range anc {
		if !a.BorrowingWith(fr, remaining) {
			return a.Height(), a.Parent() != nil
		}
		remaining -= a.LocalAvailable(fr)
	}
	return anc[len(anc)-1].Height(), false
}

// EachUnused calls f with every cell of the node's subtree quota and what of
// it is unused (subtreeQuota - usage; negative when over-admitted).
func (n *node) EachUnused(f func(fr resources.FlavorResource, unused int64)) {
	for fr, cl := range n.cells.all() {
		if cl.subtree != 0 {
			f(fr, cl.subtree-cl.usage)
		}
	}
}
