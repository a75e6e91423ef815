package quota

import "quokka.dev/quokka/engine/resources"

// Reclaiming preemption looks for victims in the queues of the preemptor's
// Cohort tree that borrow in the cells it needs. On a tree of 1,000 queues,
// walking all of them for every search cost more than the search, and so did
// walking every borrower of the cluster when a week's backlog asks the
// preemption oracle a question per flavor per pending workload: the cache
// therefore keeps, per cell, the queues that use more than their nominal
// quota in it, updated whenever a queue's usage or quota changes.

// noteBorrowing records in which cells q borrows now, after a change of its
// quotas or place.
func (c *Cache) noteBorrowing(q *ClusterQueue) {
	if c.borrowers == nil {
		c.borrowers = map[resources.FlavorResource]map[string]*ClusterQueue{}
	}
	name := q.Name()
	for fr, set := range c.borrowers {
		cl := q.cell(fr)
		borrows := cl.used() > cl.sub()
		if borrows {
			set[name] = q
		} else {
			delete(set, name)
		}
		if cl != nil {
			cl.listed = borrows
		}
	}
	for fr, cl := range q.cells.all() {
		if _, indexed := c.borrowers[fr]; !indexed {
			borrows := cl.usage != 0 && cl.usage > cl.subtree
			if borrows {
				c.borrowers[fr] = map[string]*ClusterQueue{name: q}
			}
			cl.listed = borrows
		}
	}
}

// noteBorrowingIn records whether q borrows in the cells of a charge that
// changed: the only cells whose state a charge or release can change.
func (c *Cache) noteBorrowingIn(q *ClusterQueue, cells resources.Amounts) {
	for fr := range cells {
		c.noteBorrowingAt(q, fr)
	}
}

// noteBorrowingAt records whether q borrows in cell fr.
//
// A charge's release and charge again (a hold released around a question,
// a candidate lifted in a preemption search) rarely moves a queue across its
// nominal quota, so the cell remembers whether the queue is listed and the
// index's maps, whose hashing of names was a sixth of a loaded simulation,
// are touched only when that changes.
func (c *Cache) noteBorrowingAt(q *ClusterQueue, fr resources.FlavorResource) {
	c.noteBorrowingCell(q, fr, q.cell(fr))
}

// noteBorrowingCell is noteBorrowingAt with q's cell fr already found (nil
// when q has none).
func (c *Cache) noteBorrowingCell(q *ClusterQueue, fr resources.FlavorResource, cl *cell) {
	borrows := cl.used() > cl.sub()
	if cl != nil && cl.listed == borrows {
		return
	}
	if cl != nil {
		cl.listed = borrows
	}
	if c.borrowers == nil {
		c.borrowers = map[resources.FlavorResource]map[string]*ClusterQueue{}
	}
	set, indexed := c.borrowers[fr]
	switch {
	case borrows && indexed:
		set[q.Name()] = q
	case borrows:
		c.borrowers[fr] = map[string]*ClusterQueue{q.Name(): q}
	case indexed:
		delete(set, q.Name())
	}
}

// forgetBorrower drops a deleted queue from the index.
func (c *Cache) forgetBorrower(name string) {
	for _, set := range c.borrowers {
		delete(set, name)
	}
}

// EachBorrowerInTree calls f once for every queue of q's Cohort tree, q
// included, that uses more than its nominal quota in one of the cells frs,
// in no particular order. A queue without a Cohort, or in a tree with a
// cycle, has no tree.
func (c *Cache) EachBorrowerInTree(q *ClusterQueue, frs map[resources.FlavorResource]bool, f func(*ClusterQueue)) {
	root, ok := treeRoot(q)
	if !ok {
		return
	}
	var seen map[string]bool
	if len(frs) > 1 {
		seen = map[string]bool{}
	}
	for fr := range frs {
		for name, o := range c.borrowers[fr] {
			if seen != nil {
				if seen[name] {
					continue
				}
				seen[name] = true
			}
			if r, ok := treeRoot(o); ok && r == root {
				f(o)
			}
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
