package dqo

import (
	"math/big"
	"math/bits"
	"slices"
	"strings"
)

// claim is one participant in the split of one (flavor, resource) pair.
type claim struct {
	// weight is the participant's nominal quota for the pair in spec.resourceGroups,
	// in canonical units. It must not be negative.
	weight int64
	// uid breaks ties between equal remainders (000: "Ties go to the smaller UID").
	uid string
	// ref breaks ties between equal UIDs, which only objects that never went through
	// an API server have; it keeps the result independent of input order anyway.
	ref NodeRef
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
// which is always the case below 2^63 canonical units times two participants, and
// with math/big otherwise. Neither path uses floating point.
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
// remainder (cmpRem < 0 means a's remainder is larger), then smaller UID, then ref.
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
	slices.SortFunc(order, func(a, b int) int {
		if c := cmpRem(a, b); c != 0 {
			return c
		}
		if c := strings.Compare(claims[a].uid, claims[b].uid); c != 0 {
			return c
		}
		if claims[a].ref.less(claims[b].ref) {
			return -1
		}
		return 1
	})
	// The arithmetic guarantees left ≤ len(order) (see split); min only guards it.
	for _, i := range order[:min(left, int64(len(order)))] {
		out[i]++
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
