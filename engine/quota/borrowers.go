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
// a loaded simulation. Each entry keeps the queue's cell, so that a look
// into the set can tell at once whether the queue still borrows there.
//
// The set may hold queues that no longer borrow in its cell (see
// noteBorrowingCell): EachBorrowerInTree passes over them, and drops them
// unless a charge is lifted.
type borrowerSet map[int32]borrowerEntry

// borrowerEntry is a queue of a borrower set and its cell of the set's key.
type borrowerEntry struct {
	q  *ClusterQueue
	cl *cell
}

// borrows tells whether the queue uses more than its nominal quota in the
// cell.
func (e borrowerEntry) borrows() bool { return e.cl.used() > e.cl.sub() }

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
			set[q.id] = borrowerEntry{q: q, cl: cl}
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
				c.borrowerSetOf(fr, cl)[q.id] = borrowerEntry{q: q, cl: cl}
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

// noteBorrowingAt records that q borrows in cell fr, if it does.
//
// The cell remembers whether the queue is listed, and the index's maps,
// whose hashing of names was a sixth of a loaded simulation, are touched only
// when a queue that is not listed starts to borrow. A queue that stops
// borrowing stays listed until a look into the set passes over it (see
// EachBorrowerInTree): the holds lifted around every question of a week's
// backlog moved hundreds of queues below their nominal quota and back each
// time, and deleting and adding them again was a twentieth of its run.
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
	if cl.listed || cl.used() <= cl.sub() {
		return
	}
	cl.listed = true
	c.borrowerSetOf(fr, cl)[q.id] = borrowerEntry{q: q, cl: cl}
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
		set := c.borrowers[fr]
		for id, e := range set {
			if !e.borrows() {
				// Listed, but no longer borrowing here (see
				// noteBorrowingCell). While a charge is lifted, the
				// queue most likely borrows again once it is put back:
				// keep it listed then.
				if c.lifted == 0 {
					delete(set, id)
					e.cl.listed = false
				}
				continue
			}
			if seen != nil {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			if r, ok := treeRoot(e.q); ok && r == root {
				f(e.q)
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
