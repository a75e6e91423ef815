package scheduler

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/quota"
)

// probeKey charges a head's assignment while its shares are measured.
var probeKey = types.NamespacedName{Name: "fair-sharing-probe"}

// fairHead is a head's path from the root and the share of each node on it
// with the head's workload admitted, with the node versions it was computed at.
type fairHead struct {
	path   []quota.FairNode
	ids    []int
	shares []fairsharing.Share
	vers   []uint64
}

// nodeID numbers fair-sharing nodes for sorting heads by path.
func (s *Scheduler) nodeID(n quota.FairNode) int {
	id, ok := s.nodeIDs[n]
	if !ok {
		id = len(s.nodeIDs)
		s.nodeIDs[n] = id
	}
	return id
}

// touch records that usage below every node on q's path changed, so that
// cached shares of heads under those nodes are computed again. The root is
// never compared, so its version does not matter.
func (s *Scheduler) touch(q *quota.ClusterQueue) {
	if s.strategies == nil {
		return
	}
	var buf [8]quota.FairNode
	for _, n := range fairsharing.Path(q, buf[:]) {
		s.nodeVer[n]++
	}
}

// fairOf returns the head's shares, computed again only when usage below one
// of its nodes changed since (an admission elsewhere in the tree leaves most
// heads' shares as they were).
func (s *Scheduler) fairOf(hd *head) *fairHead {
	if f := hd.fair; f != nil {
		valid := true
		for d := 1; d < len(f.path); d++ {
			if s.nodeVer[f.path[d]] != f.vers[d] {
				valid = false
				break
			}
		}
		if valid {
			return f
		}
	}
	s.cache.Charge(probeKey, hd.run.q.Name(), hd.res.Usage)
	// Reuse the head's buffers: its queue, hence its path length, does not
	// change within a cycle.
	f := hd.fair
	if f == nil {
		f = &fairHead{}
	}
	path := fairsharing.Path(hd.run.q, f.path)
	f.path = path
	f.ids = resize(f.ids, len(path))
	f.shares = resize(f.shares, len(path))
	f.vers = resize(f.vers, len(path))
	for d := range path {
		f.ids[d] = s.nodeID(path[d])
	}
	for d := 1; d < len(path); d++ {
		f.shares[d] = fairsharing.Of(path[d])
		f.vers[d] = s.nodeVer[path[d]]
	}
	s.cache.Release(probeKey)
	hd.fair = f
	return f
}

// fairPick returns the index of the head fair sharing admits next: a
// tournament down the cohort tree, where at each cohort the child whose share,
// with its best head's workload admitted, is lowest wins (Kueue compares
// queues at their almost-lowest-common-ancestors); ties fall back to the
// classic order. Heads are sorted by their paths' node ids, so that every
// subtree is a contiguous range and the tournament needs no maps.
func (s *Scheduler) fairPick(items []*head) int {
	if len(items) == 1 {
		return 0
	}
	fh := resize(s.fairBuf.heads, len(items))
	idx := resize(s.fairBuf.idx, len(items))
	s.fairBuf.heads, s.fairBuf.idx = fh, idx
	for i, hd := range items {
		fh[i] = s.fairOf(hd)
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(fh[a].ids, fh[b].ids) })
	return s.tournament(items, fh, idx, 1)
}

// tournament returns the winner among idx, heads that share their path down
// to depth-1: split them by the node at depth, let each part pick its winner
// one level down, and compare the winners by their share at depth.
func (s *Scheduler) tournament(items []*head, fh []*fairHead, idx []int, depth int) int {
	if len(idx) == 1 {
		return idx[0]
	}
	best := -1
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && nodeAt(fh[idx[hi]], depth) == nodeAt(fh[idx[lo]], depth) {
			hi++
		}
		w := s.tournament(items, fh, idx[lo:hi], depth+1)
		if best < 0 || fairBefore(items, fh, w, best, depth) {
			best = w
		}
		lo = hi
	}
	return best
}

// nodeAt is the id of the node at depth on the head's path, -1 past its end.
func nodeAt(f *fairHead, depth int) int {
	if depth < len(f.ids) {
		return f.ids[depth]
	}
	return -1
}

func fairBefore(items []*head, fh []*fairHead, a, b, depth int) bool {
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

// resize returns a slice of length n, reusing buf's array when it is large
// enough.
func resize[T any](buf []T, n int) []T {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]T, n)
}

// fairBuffers are fairPick's scratch slices, kept between pops.
type fairBuffers struct {
	heads []*fairHead
	idx   []int
}
