package quota

import "quokka.dev/quokka/engine/resources"

// node is the resource state shared by ClusterQueues and Cohorts.
type node struct {
	name    string
	quotas  map[resources.FlavorResource]Quota
	subtree resources.Amounts
	usage   resources.Amounts
	// avail remembers availability answers with the cache version they hold
	// for (see Cache.Available).
	avail map[resources.FlavorResource]versioned
}

func newNode(name string) node {
	return node{name: name, quotas: map[resources.FlavorResource]Quota{}, subtree: resources.Amounts{}, usage: resources.Amounts{}}
}

// guaranteed is the part of the subtree's quota that the node keeps for itself:
// subtreeQuota - lendingLimit, or 0 when everything is lendable.
func (n *node) guaranteed(fr resources.FlavorResource) int64 {
	q, ok := n.quotas[fr]
	if !ok || q.LendingLimit == resources.Unlimited {
		return 0
	}
	return max(0, n.subtree[fr]-q.LendingLimit)
}

// lent is what the node makes available to its parent: subtreeQuota - guaranteed.
func (n *node) lent(fr resources.FlavorResource) int64 {
	return n.subtree[fr] - n.guaranteed(fr)
}

// usageInParent is the part of the node's usage that its parent accounts for.
func (n *node) usageInParent(fr resources.FlavorResource) int64 {
	return max(0, n.usage[fr]-n.guaranteed(fr))
}

func (n *node) borrowingLimit(fr resources.FlavorResource) int64 {
	if q, ok := n.quotas[fr]; ok {
		return q.BorrowingLimit
	}
	return resources.Unlimited
}

// set stores v in m, dropping zero cells so that "no usage" compares equal to a
// fresh map.
func set(m resources.Amounts, fr resources.FlavorResource, v int64) {
	if v == 0 {
		delete(m, fr)
	} else {
		m[fr] = v
	}
}
