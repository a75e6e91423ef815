package quota

import "quokka.dev/quokka/engine/resources"

// Reclaiming preemption looks for victims in the queues of the preemptor's
// Cohort tree that borrow in the cells it needs. On a tree of 1,000 queues,
// walking all of them for every search cost more than the search, and so did
// walking every borrower of the cluster when a week's backlog asks the
// preemption oracle a question per flavor per pending workload: the cache
// therefore keeps, per cell, the queues that use more than their nominal
// quota in it, updated whenever a queue's usage or quota changes.

// borrowerSet is the queues that borrow in one cell, by queue id (see
// Cache.queueID): hashing an id instead of a queue's name, on every move of a
// queue across its nominal quota and every look into the set, was a tenth of
// a loaded simulation.
type borrowerSet map[int32]*ClusterQueue

// noteBorrowing records in which cells q borrows now, after a change of its
// quotas or place.
func (c *Cache) noteBorrowing(q *ClusterQueue) {
	if c.borrowers == nil {
		c.borrowers = map[resources.FlavorResource]borrowerSet{}
	}
	for fr, set := range c.borrowers {
		cl := q.cell(fr)
		borrows := cl.used() > cl.sub()
		if borrows {
			set[q.id] = q
		} else {
			delete(set, q.id)
		}
		if cl != nil {
			cl.listed = borrows
		}
	}
	for fr, cl := range q.cells.all() {
		if _, indexed := c.borrowers[fr]; !indexed {
			borrows := cl.usage != 0 && cl.usage > cl.subtree
			if borrows {
				c.borrowerSetOf(fr, cl)[q.id] = q
			}
			cl.listed = borrows
		}
	}
}

// borrowerSetOf returns the borrower set of cell fr, adding an empty one when
// there is none, and remembers it in cl (when not nil) so that the queue's
// later moves across its nominal quota find it without a lookup by key. Sets
// are never replaced or dropped, so a cell's remembered set stays the one the
// index holds.
func (c *Cache) borrowerSetOf(fr resources.FlavorResource, cl *cell) borrowerSet {
	if cl != nil && cl.borrowers != nil {
		return cl.borrowers
	}
	if c.borrowers == nil {
		c.borrowers = map[resources.FlavorResource]borrowerSet{}
	}
	set, ok := c.borrowers[fr]
	if !ok {
		set = borrowerSet{}
		c.borrowers[fr] = set
	}
	if cl != nil {
		cl.borrowers = set
	}
	return set
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
	if cl == nil {
		// No cell, no usage: the queue borrows nothing there.
		if set, indexed := c.borrowers[fr]; indexed {
			delete(set, q.id)
		}
		return
	}
	borrows := cl.used() > cl.sub()
	if cl.listed == borrows {
		return
	}
	cl.listed = borrows
	set := c.borrowerSetOf(fr, cl)
	if borrows {
		set[q.id] = q
	} else {
		delete(set, q.id)
	}
}

// forgetBorrower drops a deleted queue from the index.
func (c *Cache) forgetBorrower(id int32) {
	for _, set := range c.borrowers {
		delete(set, id)
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
	var seen map[int32]bool
	if len(frs) > 1 {
		seen = map[int32]bool{}
	}
	for fr := range frs {
		for id, o := range c.borrowers[fr] {
			if seen != nil {
				if seen[id] {
					continue
				}
				seen[id] = true
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
