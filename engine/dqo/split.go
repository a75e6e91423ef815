package dqo

import (
	"math/big"
	"math/bits"
)

// claim is one participant in the split of one (flavor, resource) pair.
type claim struct {
	// weight is the participant's nominal quota for the pair in spec.resourceGroups,
	// in canonical units. It must not be negative.
	weight int64
	// rank is the participant's place in the tie-break order, which puts the
	// smaller UID first (000: "Ties go to the smaller UID") and, between equal UIDs
	// (only objects that never went through an API server have them), orders by kind
	// and name. Ranks within one split must be distinct. Comparing precomputed ranks
	// instead of strings keeps the split cheap on large subtrees.
	rank int
}

// splitter divides capacity with the largest-remainder method. It keeps its scratch
// slices between calls, so that distributing many pairs over a large subtree does not
// allocate per pair; it is not safe for concurrent use, and need not be (the package
// runs no goroutines).
type splitter struct {
	remainders []uint64
	bigRems    []*big.Int
	order      []int
}

// split writes into out[i] the share of total that claims[i] gets, in whole
// canonical units (000: "Kueue rounds down to whole units: 1m for CPU and 1 for every
// other resource. It gives the units that are left over to the participants with the
// largest remainders. Ties go to the smaller UID.").
//
// The exact share of claim i is total·w_i/W with W the sum of weights. Each claim
// first gets floor(total·w_i/W); the remainders (total·w_i mod W) sum to a multiple of
// W, namely W·left where left is the number of units not yet given, and each is below
// W, so at least `left` claims have a nonzero remainder: the `left` largest get one
// unit more. The result therefore sums exactly to total, and no claim is a unit or
// more away from its exact share. A claim of weight 0 never gets anything. When every
// weight is 0 nobody gets anything (000: "If every participant has a nominal quota of
// 0 ... every participant gets an effective nominal quota of 0.").
//
// Products are computed exactly: in 128 bits (math/bits) when W fits into 64 bits,
// which real quotas always do (it takes several nominal quotas near 2^63 canonical
// units to exceed it), and with math/big otherwise. Neither path uses floating point.
func (s *splitter) split(total int64, claims []claim, out []int64) {
	for i := range out {
		out[i] = 0
	}
	if total <= 0 || len(claims) == 0 {
		return
	}
	var sum uint64
	for _, c := range claims {
		var carry uint64
		sum, carry = bits.Add64(sum, weightOf(c), 0)
		if carry != 0 {
			s.splitBig(total, claims, out)
			return
		}
	}
	if sum == 0 {
		return
	}
	rems := grow(s.remainders, len(claims))
	s.remainders = rems
	given := int64(0)
	for i, c := range claims {
		hi, lo := bits.Mul64(uint64(total), weightOf(c))
		// weight ≤ sum, so total·weight/sum ≤ total < 2^63 and hi < sum: Div64's
		// precondition holds.
		q, r := bits.Div64(hi, lo, sum)
		out[i] = int64(q)
		rems[i] = r
		given += int64(q)
	}
	s.giveLeftover(total-given, claims, out, func(a, b int) int {
		switch {
		case rems[a] > rems[b]:
			return -1
		case rems[a] < rems[b]:
			return 1
		}
		return 0
	})
}

// splitBig is split with math/big arithmetic, for weights whose sum exceeds 64 bits.
func (s *splitter) splitBig(total int64, claims []claim, out []int64) {
	sum := new(big.Int)
	for _, c := range claims {
		sum.Add(sum, new(big.Int).SetUint64(weightOf(c)))
	}
	if sum.Sign() == 0 {
		return
	}
	if cap(s.bigRems) < len(claims) {
		s.bigRems = make([]*big.Int, len(claims))
	}
	rems := s.bigRems[:len(claims)]
	bt := big.NewInt(total)
	q := new(big.Int)
	given := int64(0)
	for i, c := range claims {
		if rems[i] == nil {
			rems[i] = new(big.Int)
		}
		num := new(big.Int).Mul(bt, new(big.Int).SetUint64(weightOf(c)))
		q.QuoRem(num, sum, rems[i])
		out[i] = q.Int64() // q ≤ total, so it fits
		given += out[i]
	}
	s.giveLeftover(total-given, claims, out, func(a, b int) int { return -rems[a].Cmp(rems[b]) })
}

// giveLeftover hands one unit each to the `left` claims that come first by
// remainder (cmpRem < 0 means a's remainder is larger), then by rank.
//
// Only the set of the first `left` claims matters, not their order, so a selection
// (expected linear time) replaces a full sort: on a subtree of a thousand queues and
// 64 pairs this is most of the split's cost.
func (s *splitter) giveLeftover(left int64, claims []claim, out []int64, cmpRem func(a, b int) int) {
	if left <= 0 {
		return
	}
	order := s.order[:0]
	for i, c := range claims {
		if c.weight > 0 {
			order = append(order, i)
		}
	}
	s.order = order
	// The arithmetic guarantees left ≤ len(order) (see split); min only guards it.
	k := int(min(left, int64(len(order))))
	before := func(a, b int) bool {
		if c := cmpRem(a, b); c != 0 {
			return c < 0
		}
		return claims[a].rank < claims[b].rank
	}
	selectFirst(order, k, before)
	for _, i := range order[:k] {
		out[i]++
	}
}

// selectFirst reorders xs so that its first k elements are the k first under the
// strict total order before (quickselect, middle element as pivot, which is fine for
// the inputs here and deterministic).
func selectFirst(xs []int, k int, before func(a, b int) bool) {
	lo, hi := 0, len(xs)
	for hi-lo > 1 && k > lo && k < hi {
		pivot := xs[lo+(hi-lo)/2]
		// Three-way partition: [lo,lt) before pivot, [lt,gt) the pivot, [gt,hi) after.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := xs[i]; {
			case before(x, pivot):
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case before(pivot, x):
				gt--
				xs[gt], xs[i] = xs[i], xs[gt]
			default:
				i++
			}
		}
		switch {
		case k <= lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
}

// weightOf returns a claim's weight as unsigned; a negative weight, which callers
// must not pass, counts as 0 rather than as a huge number.
func weightOf(c claim) uint64 {
	if c.weight < 0 {
		return 0
	}
	return uint64(c.weight)
}

// grow returns s resized to n, reusing its backing array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
