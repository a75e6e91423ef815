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
	// borrowing tells, per node, whether with the workload admitted it uses
	// more than its subtree quota in a cell the workload requests.
	borrowing []bool
	vers      []uint64
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
	usage := hd.res.Usage
	if !hd.res.Fits && hd.res.Preemption != nil {
		usage = hd.res.Preemption.Usage
	}
	// The cycle's preemptors count whole, their victims too, as Kueue's
	// cycle counts a preempting workload's usage while its targets still
	// hold theirs: a queue that has just preempted does not look poorer than
	// it will be once its preemptors are in. Preemptors of earlier cycles
	// count their reservations only, as Kueue counts nothing for a workload
	// still waiting for its victims in a later cycle.
	covered := s.chargeCovered(true)
	s.cache.Charge(probeKey, hd.run.q.Name(), usage)
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
	f.borrowing = resize(f.borrowing, len(path))
	f.vers = resize(f.vers, len(path))
	for d := range path {
		f.ids[d] = s.nodeID(path[d])
	}
	for d := 1; d < len(path); d++ {
		f.shares[d] = fairsharing.Of(path[d])
		f.borrowing[d] = false
		for fr := range usage {
			if path[d].BorrowedOf(fr) > 0 {
				f.borrowing[d] = true
				break
			}
		}
		f.vers[d] = s.nodeVer[path[d]]
	}
	s.cache.Release(probeKey)
	for _, ck := range covered {
		s.cache.Release(ck)
	}
	hd.fair = f
	return f
}

// fairPick returns the index of the head fair sharing admits next: a
// tournament down the cohort tree, where at each cohort the child that, with
// its best head's workload admitted, does not borrow in a cell that workload
// requests wins, then the one whose share is lowest (Kueue compares queues at
// their almost-lowest-common-ancestors, and prefers non-borrowing ones under
// its FairSharingPrioritizeNonBorrowing gate, on by default); ties fall back
// to the classic order. Heads are sorted by their paths' node ids, so that every
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
	var ba, bb bool
	if depth < len(fh[a].borrowing) {
		ba = fh[a].borrowing[depth]
	}
	if depth < len(fh[b].borrowing) {
		bb = fh[b].borrowing[depth]
	}
	if ba != bb {
		return !ba
	}
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
	// Then, as Kueue, priority and queue order; the borrowing level does not
	// enter here.
	if c := compareHeadOrder(items[a].r, items[b].r); c != 0 {
		return c < 0
	}
	return items[a].run.q.Name() < items[b].run.q.Name()
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
