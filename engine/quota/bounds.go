package quota

import "quokka.dev/quokka/engine/resources"

// The scheduler lets a ClusterQueue whose pending workloads did not fit sleep
// until quota that could matter to them is freed. Computing Available for every
// sleeping queue whenever anything is released would cost as much as the
// evaluation it saves, so the scheduler watches one number per cell instead:
// the unused quota at the root of the queue's tree, which bounds Available from
// above as long as no node on the way keeps a guaranteed (non-lendable) share.

// TreeFree fills free with the unused quota of every cell at the root of q's
// Cohort tree (subtreeQuota - usage of the root) and returns the root's name.
// ok is false when q has no Cohort or its tree has a cycle.
func (c *Cache) TreeFree(q *ClusterQueue, free resources.Amounts) (root string, ok bool) {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if len(nodes) < 2 {
		return "", false
	}
	r := nodes[len(nodes)-1]
	clear(free)
	for fr, cl := range r.cells.all() {
		if cl.subtree != 0 {
			free[fr] = cl.subtree - cl.usage
		}
	}
	return r.name, true
}

// TreeRoot returns the name of the root of q's Cohort tree, as TreeFree does,
// without reading its quota.
func (c *Cache) TreeRoot(q *ClusterQueue) (root string, ok bool) {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if len(nodes) < 2 {
		return "", false
	}
	return nodes[len(nodes)-1].name, true
}

// BoundedByTreeFree reports whether Available(q, fr) <= TreeFree(q)[fr] holds
// for every cell: true when q is in a Cohort tree without cycles and neither q
// nor any Cohort between it and the root has a lendingLimit, so that no node
// keeps unused quota of its own that the root does not see.
func (c *Cache) BoundedByTreeFree(q *ClusterQueue) bool {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if len(nodes) < 2 {
		return false
	}
	for _, n := range nodes[:len(nodes)-1] {
		for _, cl := range n.cells.all() {
			if cl.defined && cl.quota.LendingLimit != resources.Unlimited {
				return false
			}
		}
	}
	return true
}
