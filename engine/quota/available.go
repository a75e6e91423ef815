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
	// One lookup of the cell serves the memo, the formula and the answer
	// kept for the next question.
	cl := n.cellFor(fr)
	if cl.hasAvail && cl.avail.ver == c.version {
		return cl.avail.Availability
	}
	var res Availability
	if i == len(nodes)-1 {
		res.Available = cl.sub() - cl.used()
	} else {
		res = c.availableAt(nodes, i+1, fr)
		g := cl.guaranteed()
		used := cl.used()
		local := max(0, g-used)
		fromParent := res.Available
		if bl := cl.borrowingLimit(); bl != resources.Unlimited {
			storedInParent := cl.sub() - g
			usedInParent := max(0, used-g)
			capped := resources.Add(storedInParent-usedInParent, bl)
			if capped < fromParent {
				fromParent = capped
				res.LimitedBy = n.name
				res.LimitedByCohort = i > 0
			}
		}
		res.Available = local + fromParent
	}
	cl.avail, cl.hasAvail = versioned{ver: c.version, Availability: res}, true
	return res
}

// remembered returns the node's answer for fr if it was given at version ver.
// Answers are tagged with their version rather than cleared when the version
// moves: a node has few cells, and clearing them on every change of usage cost
// more than it saved.
func (n *node) remembered(ver uint64, fr resources.FlavorResource) (Availability, bool) {
	if c := n.cell(fr); c != nil && c.hasAvail && c.avail.ver == ver {
		return c.avail.Availability, true
	}
	return Availability{}, false
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
	pot := nodes[len(nodes)-1].cell(fr).sub()
	for i := len(nodes) - 2; i >= 0; i-- {
		cl := nodes[i].cell(fr)
		pot = resources.Add(cl.guaranteed(), pot)
		if bl := cl.borrowingLimit(); bl != resources.Unlimited {
			pot = min(pot, resources.Add(cl.sub(), bl))
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
	root := nodes[len(nodes)-1].cell(fr)
	avail := root.sub() - root.used()
	for i := len(nodes) - 2; i >= 0; i-- {
		cl := nodes[i].cell(fr)
		g := cl.guaranteed()
		fromParent := avail
		if bl := cl.borrowingLimit(); bl != resources.Unlimited {
			fromParent = min(fromParent, resources.Add(cl.sub()-g-max(0, cl.used()-g), bl))
		}
		avail = max(0, g-cl.used()) + fromParent
	}
	return avail
}
