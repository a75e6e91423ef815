package quota

import "quokka.dev/quokka/engine/resources"

// node is the resource state shared by ClusterQueues and Cohorts, one cell per
// flavor and resource.
//
// The cells are one map of pointers rather than a map per quantity (quota,
// subtree quota, usage, remembered availability): every question the flavor
// assigner and the preemption oracle ask reads two to five of those
// quantities of one cell on every node of a chain, and each read of a map
// keyed by FlavorResource hashes the key's two strings. On a simulated week of
// 1,000 queues those hashes were about 40% of the CPU (docs/simulator-perf.md); a
// call now hashes the key once per node and reads the rest through the
// pointer.
type node struct {
	name  string
	cells map[resources.FlavorResource]*cell
}

// cell is one flavor-resource pair of a node. A cell absent from the map (a nil
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
}

func newNode(name string) node {
	return node{name: name, cells: map[resources.FlavorResource]*cell{}}
}

// cell returns the node's cell fr, nil when the node has none.
func (n *node) cell(fr resources.FlavorResource) *cell { return n.cells[fr] }

// cellFor returns the node's cell fr, adding an empty one when it has none.
func (n *node) cellFor(fr resources.FlavorResource) *cell {
	c := n.cells[fr]
	if c == nil {
		if n.cells == nil {
			n.cells = map[resources.FlavorResource]*cell{}
		}
		c = &cell{}
		n.cells[fr] = c
	}
	return c
}

// setQuotas replaces the node's quota cells with qs; subtree quotas and usage
// are left to the caller.
func (n *node) setQuotas(qs map[resources.FlavorResource]Quota) {
	for _, c := range n.cells {
		c.quota, c.defined = Quota{}, false
	}
	for fr, q := range qs {
		c := n.cellFor(fr)
		c.quota, c.defined = q, true
	}
}

// quotaOf returns the node's quota of a cell and whether its spec defines it.
func (n *node) quotaOf(fr resources.FlavorResource) (Quota, bool) {
	if c := n.cells[fr]; c != nil && c.defined {
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
	for fr, c := range n.cells {
		if v := of(c); v != 0 {
			out[fr] = v
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

func (n *node) guaranteed(fr resources.FlavorResource) int64 { return n.cells[fr].guaranteed() }

func (n *node) lent(fr resources.FlavorResource) int64 { return n.cells[fr].lent() }

func (n *node) usageInParent(fr resources.FlavorResource) int64 {
	return n.cells[fr].usageInParent()
}

func (n *node) borrowingLimit(fr resources.FlavorResource) int64 {
	return n.cells[fr].borrowingLimit()
}
