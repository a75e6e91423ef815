package scheduler

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
)

// probeKey charges a head's assignment while its shares are measured.
var probeKey = types.NamespacedName{Name: "fair-sharing-probe"}

// fairHead is a head's path from the root and the share of each node on it
// with the head's workload admitted.
type fairHead struct {
	path   []quota.FairNode
	shares []fairsharing.Share
}

// fairPick returns the index of the head fair sharing admits next: a
// tournament down the cohort tree, where at each cohort the child whose share,
// with its best head's workload admitted, is lowest wins (Kueue compares
// queues at their almost-lowest-common-ancestors); ties fall back to the
// classic order.
func (s *Scheduler) fairPick(items []*head) int {
	if len(items) == 1 {
		return 0
	}
	fh := make([]fairHead, len(items))
	for i, hd := range items {
		s.cache.Charge(probeKey, hd.run.q.Name(), hd.res.Usage)
		path := fairsharing.Path(hd.run.q, nil)
		shares := make([]fairsharing.Share, len(path))
		for d := 1; d < len(path); d++ {
			shares[d] = fairsharing.Of(path[d])
		}
		s.cache.Release(probeKey)
		fh[i] = fairHead{path: path, shares: shares}
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	return s.tournament(items, fh, idx, 1)
}

func (s *Scheduler) tournament(items []*head, fh []fairHead, idx []int, depth int) int {
	if len(idx) == 1 {
		return idx[0]
	}
	var order []quota.FairNode
	groups := map[quota.FairNode][]int{}
	for _, i := range idx {
		if depth >= len(fh[i].path) {
			// Cannot happen for queues of one tree; keep the head in play.
			order = append(order, quota.FairNode(nil))
			groups[nil] = append(groups[nil], i)
			continue
		}
		n := fh[i].path[depth]
		if _, ok := groups[n]; !ok {
			order = append(order, n)
		}
		groups[n] = append(groups[n], i)
	}
	best := -1
	for _, n := range order {
		g := groups[n]
		if g == nil {
			continue
		}
		delete(groups, n)
		w := g[0]
		if len(g) > 1 {
			w = s.tournament(items, fh, g, depth+1)
		}
		if best < 0 || fairBefore(items, fh, w, best, depth) {
			best = w
		}
	}
	return best
}

func fairBefore(items []*head, fh []fairHead, a, b, depth int) bool {
	var sa, sb fairsharing.Share
	if depth < len(fh[a].shares) {
		sa = fh[a].shares[depth]
	}
	if depth < len(fh[b].shares) {
		sb = fh[b].shares[depth]
	}
	if sa != sb {
		return sa < sb
	}
	return headLess(items[a], items[b])
}
