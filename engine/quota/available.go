package quota

import (
	"quokka.dev/quokka/engine/resources"
)

// Availability is what a ClusterQueue can still take of one cell, and why not
// more.
type Availability struct {
	// Available is how much more the queue can use now, counting what it may
	// borrow. It can be negative when quotas shrank below usage.
	Available int64
	// LimitedBy names the node whose borrowingLimit bounded Available: the queue
	// itself or one of its cohorts; "" when the cohort's unused quota did.
	LimitedBy string
	// LimitedByCohort tells whether LimitedBy is a Cohort.
	LimitedByCohort bool
}

// chain returns the queue's node and its ancestors' nodes, nearest first, or nil
// when the chain has a cycle. buf avoids an allocation for shallow trees.
func chain(q *ClusterQueue, buf []*node) []*node {
	out := append(buf[:0], &q.node)
	tc := q.tq.Cohort()
	if tc == nil {
		return out
	}
	if tc.HasCycle() {
		return nil
	}
	for p := tc; p != nil; p = p.Parent() {
		out = append(out, &p.Value.node)
	}
	return out
}

// Available computes Kueue's hierarchical "available" for a queue's cell:
// available(root) = subtreeQuota - usage and, for every node below, its unused
// guaranteed share plus what it may still take from its parent, capped by its
// borrowingLimit.
//
// A queue's cells are asked for again and again at one state of the cache (by
// the flavor assigner, for every workload of a walk, and by the scheduler's
// checks), and a Cohort's share of them for every queue below it. So every
// node remembers its answers for the cache's current Version, which identifies
// the content: a queue's answer then costs its own step of the chain only.
func (c *Cache) Available(q *ClusterQueue, fr resources.FlavorResource) Availability {
	if a, ok := q.remembered(c.version, fr); ok {
		return a
	}
	var buf [8]*node
	nodes := chain(q, buf[:])
	if nodes == nil {
		return Availability{}
	}
	return c.availableAt(nodes, 0, fr)
}

// availableAt is the availability of nodes[i] (nodes[0] is the queue, the
// last the root): what the root has unused, then, step by step down, each
// node's unused guaranteed share plus what its parent can give it, capped by
// its borrowingLimit.
func (c *Cache) availableAt(nodes []*node, i int, fr resources.FlavorResource) Availability {
	n := nodes[i]
	if a, ok := n.remembered(c.version, fr); ok {
		return a
	}
	var res Availability
	if i == len(nodes)-1 {
		res.Available = n.subtree[fr] - n.usage[fr]
	} else {
		res = c.availableAt(nodes, i+1, fr)
		q, defined := n.quotas[fr]
		var g int64 // n.guaranteed(fr), with one lookup of the quota for both
		if defined && q.LendingLimit != resources.Unlimited {
			g = max(0, n.subtree[fr]-q.LendingLimit)
		}
		used := n.usage[fr]
		local := max(0, g-used)
		fromParent := res.Available
		if defined && q.BorrowingLimit != resources.Unlimited {
			storedInParent := n.subtree[fr] - g
			usedInParent := max(0, used-g)
			capped := resources.Add(storedInParent-usedInParent, q.BorrowingLimit)
			if capped < fromParent {
				fromParent = capped
				res.LimitedBy = n.name
				res.LimitedByCohort = i > 0
			}
		}
		res.Available = local + fromParent
	}
	n.remember(c.version, fr, res)
	return res
}

// remembered returns the node's answer for fr if it was given at version ver.
func (n *node) remembered(ver uint64, fr resources.FlavorResource) (Availability, bool) {
	if e, ok := n.avail[fr]; ok && e.ver == ver {
		return e.Availability, true
	}
	return Availability{}, false
}

// remember keeps the answer for fr at version ver. Answers are tagged rather
// than cleared when the version moves: a node has few cells, and clearing
// its map on every change of usage cost more than it saved.
func (n *node) remember(ver uint64, fr resources.FlavorResource, a Availability) {
	if n.avail == nil {
		n.avail = map[resources.FlavorResource]versioned{}
	}
	n.avail[fr] = versioned{ver: ver, Availability: a}
}

// versioned is an availability answer and the cache version it holds for.
type versioned struct {
	ver uint64
	Availability
}

// PotentialAvailable is what the queue could use of a cell if nothing else were
// admitted anywhere: the ceiling that decides "can never fit".
func (c *Cache) PotentialAvailable(q *ClusterQueue, fr resources.FlavorResource) int64 {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if nodes == nil {
		return 0
	}
	pot := nodes[len(nodes)-1].subtree[fr]
	for i := len(nodes) - 2; i >= 0; i-- {
		n := nodes[i]
		pot = resources.Add(n.guaranteed(fr), pot)
		if bl := n.borrowingLimit(fr); bl != resources.Unlimited {
			pot = min(pot, resources.Add(n.subtree[fr], bl))
		}
	}
	return pot
}

// CohortAvailable is the unused quota of a cell that the queue's cohort could
// hand out (available of the cohort itself), for messages; 0 without a cohort.
func (c *Cache) CohortAvailable(q *ClusterQueue, fr resources.FlavorResource) int64 {
	var buf [8]*node
	nodes := chain(q, buf[:])
	if len(nodes) < 2 {
		return 0
	}
	nodes = nodes[1:]
	avail := nodes[len(nodes)-1].subtree[fr] - nodes[len(nodes)-1].usage[fr]
	for i := len(nodes) - 2; i >= 0; i-- {
		n := nodes[i]
		g := n.guaranteed(fr)
		fromParent := avail
		if bl := n.borrowingLimit(fr); bl != resources.Unlimited {
			fromParent = min(fromParent, resources.Add(n.subtree[fr]-g-max(0, n.usage[fr]-g), bl))
		}
		avail = max(0, g-n.usage[fr]) + fromParent
	}
	return avail
}
