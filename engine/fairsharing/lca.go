package fairsharing

import "quokka.dev/quokka/engine/quota"

// Path returns the node and its ancestors, root first. buf avoids an
// allocation for shallow trees.
func Path(q *quota.ClusterQueue, buf []quota.FairNode) []quota.FairNode {
	out := append(buf[:0], quota.FairNode(q))
	for c := q.ParentCohort(); c != nil; c = c.ParentCohort() {
		out = append(out, c)
		if len(out) > 64 {
			break // a cycle; its queues are inactive anyway
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// AlmostLCA returns, for two queues of one tree, the children of their lowest
// common ancestor on the way to each: the nodes whose shares fair sharing
// compares ("AlmostLCA" in Kueue). For the same queue both are that queue.
func AlmostLCA(a, b *quota.ClusterQueue) (quota.FairNode, quota.FairNode) {
	if a == b {
		return a, b
	}
	var ba, bb [8]quota.FairNode
	pa, pb := Path(a, ba[:]), Path(b, bb[:])
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	if i == len(pa) || i == len(pb) {
		// Not in one tree (or one path is a prefix, which queues cannot be).
		return a, b
	}
	return pa[i], pb[i]
}
