package quota

import (
	"iter"

	"quokka.dev/quokka/engine/resources"
)

// node is the resource state shared by ClusterQueues and Cohorts, one cell per
// flavor and resource.
//
// The cells are one map of pointers rather than a map per quantity (quota,
// subtree quota, usage, remembered availability): every question the flavor
// assigner and the preemption oracle ask reads two to five of those
// quantities of one cell on every node of a chain, and each read of a map
// keyed by FlavorResource hashes the key's two strings. On a simulated week of
// 1,000 queues those hashes were about 40% of the CPU (docs/simulator-perf.md); a
// call now finds the cell once per node (see cellSet) and reads the rest
// through the pointer.
type node struct {
	name  string
	cells cellSet
}

// cellSet holds a node's cells, in the order they were added. Most nodes have
// a few (a flavor or two times a few resources), and finding one of those by
// comparing keys costs less than hashing the key's two strings, which a map
// does on every lookup: the names compared are usually the very strings the
// objects carried, which compare equal by pointer, and unequal ones mostly
// differ in length. A node with more cells than cellScanLimit also keeps a
// map.
type cellSet struct {
	list  []cellEntry
	index map[resources.FlavorResource]*cell
}

type cellEntry struct {
	fr resources.FlavorResource
	c  *cell
	// names keeps fr's names canonical (resources.Intern), so that keys
	// built from interned names find the cell by pointer comparisons.
	names resources.Handles
}

// cellScanLimit is the most cells a node finds by scanning its list.
const cellScanLimit = 8

// get returns cell fr, nil when there is none.
func (s *cellSet) get(fr resources.FlavorResource) *cell {
	if s.index != nil {
		return s.index[fr]
	}
	for i := range s.list {
		if s.list[i].fr == fr {
			return s.list[i].c
		}
	}
	return nil
}

// add returns cell fr, adding an empty one when there is none.
func (s *cellSet) add(fr resources.FlavorResource) *cell {
	if c := s.get(fr); c != nil {
		return c
	}
	c := &cell{}
	fr, names := resources.Canonical(fr)
	s.list = append(s.list, cellEntry{fr: fr, c: c, names: names})
	switch {
	case s.index != nil:
		s.index[fr] = c
	case len(s.list) > cellScanLimit:
		s.index = make(map[resources.FlavorResource]*cell, 2*len(s.list))
		for _, e := range s.list {
			s.index[e.fr] = e.c
		}
	}
	return c
}

// all yields every cell with its key, in the order they were added.
func (s *cellSet) all() iter.Seq2[resources.FlavorResource, *cell] {
	return func(yield func(resources.FlavorResource, *cell) bool) {
		for _, e := range s.list {
			if !yield(e.fr, e.c) {
				return
			}
		}
	}
}

// len is how many cells there are.
func (s *cellSet) len() int { return len(s.list) }

// cell is one flavor-resource pair of a node. A cell the node lacks (a nil
// *cell) holds no quota, no subtree quota, no usage and no remembered answer;
// the methods below accept nil.
type cell struct {
	quota Quota
	// defined tells whether the node's spec defines quota for the cell.
	defined bool
	// subtree is the node's subtree quota: a ClusterQueue's nominal quota, a
	// Cohort's own quota plus what its children lend it.
	subtree int64
	// usage is a ClusterQueue's usage, or what a Cohort's children use above
	// their guaranteed shares.
	usage int64
	// avail is the availability answer remembered for the cache version it
	// holds for, when hasAvail (see Cache.Available).
	avail    versioned
	hasAvail bool
	// listed tells, for a ClusterQueue's cell, that the Cache's borrower
	// index lists the queue as borrowing in it (see noteBorrowingAt).
	listed bool
	// borrowers is the borrower index's set of this cell's key, remembered
	// the first time the queue is listed in it or dropped from it (see
	// Cache.borrowerSetOf); nil until then.
	borrowers borrowerSet
}

func newNode(name string) node {
	return node{name: name}
}

// cell returns the node's cell fr, nil when the node has none.
func (n *node) cell(fr resources.FlavorResource) *cell { return n.cells.get(fr) }

// cellFor returns the node's cell fr, adding an empty one when it has none.
func (n *node) cellFor(fr resources.FlavorResource) *cell { return n.cells.add(fr) }

// setQuotas replaces the node's quota cells with qs; subtree quotas and usage
// are left to the caller.
func (n *node) setQuotas(qs map[resources.FlavorResource]Quota) {
	for _, e := range n.cells.list {
		e.c.quota, e.c.defined = Quota{}, false
	}
	for fr, q := range qs {
		c := n.cellFor(fr)
		c.quota, c.defined = q, true
	}
}

// quotaOf returns the node's quota of a cell and whether its spec defines it.
func (n *node) quotaOf(fr resources.FlavorResource) (Quota, bool) {
	if c := n.cell(fr); c != nil && c.defined {
		return c.quota, true
	}
	return Quota{}, false
}

// subtreeAmounts returns a copy of the nonzero subtree quotas.
func (n *node) subtreeAmounts() resources.Amounts {
	return n.amounts(func(c *cell) int64 { return c.subtree })
}

// usageAmounts returns a copy of the nonzero usage.
func (n *node) usageAmounts() resources.Amounts {
	return n.amounts(func(c *cell) int64 { return c.usage })
}

// amounts returns the nonzero values of one quantity of the node's cells,
// which compare equal to a fresh map when all are zero.
func (n *node) amounts(of func(*cell) int64) resources.Amounts {
	out := resources.Amounts{}
	for _, e := range n.cells.list {
		if v := of(e.c); v != 0 {
			out[e.fr] = v
		}
	}
	return out
}

func (c *cell) sub() int64 {
	if c == nil {
		return 0
	}
	return c.subtree
}

func (c *cell) used() int64 {
	if c == nil {
		return 0
	}
	return c.usage
}

// guaranteed is the part of the subtree's quota that the node keeps for itself:
// subtreeQuota - lendingLimit, or 0 when everything is lendable.
func (c *cell) guaranteed() int64 {
	if c == nil || !c.defined || c.quota.LendingLimit == resources.Unlimited {
		return 0
	}
	return max(0, c.subtree-c.quota.LendingLimit)
}

// lent is what the node makes available to its parent: subtreeQuota - guaranteed.
func (c *cell) lent() int64 { return c.sub() - c.guaranteed() }

// usageInParent is the part of the node's usage that its parent accounts for.
func (c *cell) usageInParent() int64 { return max(0, c.used()-c.guaranteed()) }

func (c *cell) borrowingLimit() int64 {
	if c == nil || !c.defined {
		return resources.Unlimited
	}
	return c.quota.BorrowingLimit
}

func (n *node) guaranteed(fr resources.FlavorResource) int64 { return n.cell(fr).guaranteed() }

func (n *node) lent(fr resources.FlavorResource) int64 { return n.cell(fr).lent() }

func (n *node) usageInParent(fr resources.FlavorResource) int64 {
	return n.cell(fr).usageInParent()
}

func (n *node) borrowingLimit(fr resources.FlavorResource) int64 {
	return n.cell(fr).borrowingLimit()
}
