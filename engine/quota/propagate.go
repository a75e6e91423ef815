package quota

import (
	"quokka.dev/quokka/engine/resources"
)

// refreshTreeOf recomputes every cohort of the tree that contains tc, bottom-up.
// It is the slow path, used only when edges change (a queue or cohort moves,
// appears or disappears), because then contributions of whole subtrees move.
// Trees with a cycle are left alone: their queues are inactive, and the edge
// change that breaks the cycle refreshes them.
func (c *Cache) refreshTreeOf(tc *treeCohort) {
	if tc == nil {
		return
	}
	root, ok := tc.Root()
	if !ok {
		return
	}
	recomputeSubtree(root)
}

func recomputeSubtree(tc *treeCohort) {
	n := &tc.Value.node
	for _, c := range n.cells.all() {
		c.subtree, c.usage = 0, 0
		if c.defined {
			c.subtree = c.quota.Nominal
		}
	}
	add := func(child *node) {
		for fr, cc := range child.cells.all() {
			lent, used := cc.lent(), cc.usageInParent()
			if lent != 0 || used != 0 {
				c := n.cellFor(fr)
				c.subtree += lent
				c.usage += used
			}
		}
	}
	h := min(tc.NumChildren(), 1)
	tc.EachChild(func(ch *treeCohort) {
		recomputeSubtree(ch)
		add(&ch.Value.node)
		h = max(h, ch.Value.height+1)
	}, func(q *treeQueue) {
		add(&q.Value.node)
	})
	tc.Value.height = h
}

// replaceAndPropagate swaps a node's state (swap installs the new one) and walks
// the ancestors from parent up, adding to each the change in its child's
// contribution (lent quota and usage above the guaranteed share) for the cells in
// frs. A chain with a cycle is not touched (see refreshTreeOf).
func (c *Cache) replaceAndPropagate(parent *treeCohort, old, updated *node, frs []resources.FlavorResource, swap func()) {
	type contrib struct{ lent, used int64 }
	before := make([]contrib, len(frs))
	for i, fr := range frs {
		before[i] = contrib{old.lent(fr), old.usageInParent(fr)}
	}
	swap()
	if parent == nil || parent.HasCycle() {
		return
	}
	child := updated
	for p := parent; p != nil; p = p.Parent() {
		pn := &p.Value.node
		changed := false
		for i, fr := range frs {
			cc := child.cell(fr)
			after := contrib{cc.lent(), cc.usageInParent()}
			dl, du := after.lent-before[i].lent, after.used-before[i].used
			// Record the parent's own contribution before changing it.
			pc := pn.cell(fr)
			before[i] = contrib{pc.lent(), pc.usageInParent()}
			if dl != 0 || du != 0 {
				pc = pn.cellFor(fr)
				pc.subtree += dl
				pc.usage += du
				changed = true
			}
		}
		if !changed {
			return
		}
		child = pn
	}
}

// addUsage charges v of fr to a queue and bubbles the part above each node's
// guaranteed share up to its parent.
func addUsage(q *ClusterQueue, fr resources.FlavorResource, v int64) {
	propagate(q, fr, v, putIn)
}

// removeUsage releases v of fr from a queue; only the part of the usage that was
// stored in the parent is released there.
func removeUsage(q *ClusterQueue, fr resources.FlavorResource, v int64) {
	propagate(q, fr, v, takeOut)
}

// propagate applies step to q's cell fr and then, with what passes up, to each
// Cohort's cell above it while something does; a Cohort's cell is added only
// when something reaches it.
func propagate(q *ClusterQueue, fr resources.FlavorResource, v int64, step func(*cell, int64) int64) {
	pass := step(q.cellFor(fr), v)
	tc := q.tq.Cohort()
	if tc == nil || pass == 0 || tc.HasCycle() {
		return
	}
	for p := tc; p != nil && pass > 0; p = p.Parent() {
		pass = step(p.Value.cellFor(fr), pass)
	}
}

// putIn adds v to a cell's usage and returns the part of it above the cell's
// guaranteed share, which its parent holds too.
func putIn(c *cell, v int64) int64 {
	pass := max(0, v-max(0, c.guaranteed()-c.usage))
	c.usage += v
	return pass
}

// takeOut removes v from a cell's usage and returns the part of it its parent
// held.
func takeOut(c *cell, v int64) int64 {
	pass := min(v, max(0, c.usage-c.guaranteed()))
	c.usage -= v
	return pass
}
