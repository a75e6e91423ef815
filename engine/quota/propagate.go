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
	n.subtree = resources.Amounts{}
	n.usage = resources.Amounts{}
	for fr, q := range n.quotas {
		set(n.subtree, fr, q.Nominal)
	}
	add := func(child *node) {
		for fr := range child.subtree {
			set(n.subtree, fr, n.subtree[fr]+child.lent(fr))
		}
		for fr := range child.usage {
			set(n.usage, fr, n.usage[fr]+child.usageInParent(fr))
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
			after := contrib{child.lent(fr), child.usageInParent(fr)}
			dl, du := after.lent-before[i].lent, after.used-before[i].used
			// Record the parent's own contribution before changing it.
			before[i] = contrib{pn.lent(fr), pn.usageInParent(fr)}
			if dl != 0 {
				set(pn.subtree, fr, pn.subtree[fr]+dl)
				changed = true
			}
			if du != 0 {
				set(pn.usage, fr, pn.usage[fr]+du)
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
	n := &q.node
	pass := max(0, v-max(0, n.guaranteed(fr)-n.usage[fr]))
	set(n.usage, fr, n.usage[fr]+v)
	tc := q.tq.Cohort()
	if tc == nil || pass == 0 || tc.HasCycle() {
		return
	}
	for p := tc; p != nil && pass > 0; p = p.Parent() {
		pn := &p.Value.node
		next := max(0, pass-max(0, pn.guaranteed(fr)-pn.usage[fr]))
		set(pn.usage, fr, pn.usage[fr]+pass)
		pass = next
	}
}

// removeUsage releases v of fr from a queue; only the part of the usage that was
// stored in the parent is released there.
func removeUsage(q *ClusterQueue, fr resources.FlavorResource, v int64) {
	n := &q.node
	pass := min(v, max(0, n.usage[fr]-n.guaranteed(fr)))
	set(n.usage, fr, n.usage[fr]-v)
	tc := q.tq.Cohort()
	if tc == nil || pass == 0 || tc.HasCycle() {
		return
	}
	for p := tc; p != nil && pass > 0; p = p.Parent() {
		pn := &p.Value.node
		next := min(pass, max(0, pn.usage[fr]-pn.guaranteed(fr)))
		set(pn.usage, fr, pn.usage[fr]-pass)
		pass = next
	}
}
