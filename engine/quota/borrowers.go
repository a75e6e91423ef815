package quota

// Reclaiming preemption looks for victims in the queues of the preemptor's
// Cohort tree that borrow. On a tree of 1,000 queues, walking all of them for
// every search cost more than the search; the cache therefore keeps the set of
// queues that use more than their nominal quota in some cell, updated whenever
// a queue's usage or quota changes.

// noteBorrowing records whether q borrows in some cell now.
func (c *Cache) noteBorrowing(q *ClusterQueue) {
	if c.borrowers == nil {
		c.borrowers = map[string]*ClusterQueue{}
	}
	for fr, u := range q.usage {
		if u > q.subtree[fr] {
			c.borrowers[q.Name()] = q
			return
		}
	}
	delete(c.borrowers, q.Name())
}

// EachBorrowerInTree calls f for every queue of q's Cohort tree, q included,
// that uses more than its nominal quota in some cell, in no particular order.
// A queue without a Cohort, or in a tree with a cycle, has no tree.
func (c *Cache) EachBorrowerInTree(q *ClusterQueue, f func(*ClusterQueue)) {
	root, ok := treeRoot(q)
	if !ok {
		return
	}
	for _, o := range c.borrowers {
		if r, ok := treeRoot(o); ok && r == root {
			f(o)
		}
	}
}

func treeRoot(q *ClusterQueue) (*treeCohort, bool) {
	tc := q.tq.Cohort()
	if tc == nil {
		return nil, false
	}
	return tc.Root()
}
