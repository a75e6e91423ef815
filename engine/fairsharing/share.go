package fairsharing

import (
	"math"
	"math/bits"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// Share is a weighted dominant resource share in millionths of a per-thousand
// unit: 187.5 per thousand is 187_500_000. Six decimals below Kueue's
// per-thousand value keep the spec's examples exact (12/64 is 187.5) while
// staying an integer. A share that is not a whole number of millionths is
// rounded up (see ratio), so that a node that borrows never has share 0.
type Share int64

// Scale is the Share of one per-thousand unit.
const Scale Share = 1_000_000

// Infinite is the largest share: a node that borrows with weight 0 has an
// infinite share (Kueue reports it as the largest int64). Among such nodes,
// Kueue compares the unweighted shares, so they are encoded above
// zeroWeightBase in increasing order of their unweighted share.
const Infinite Share = math.MaxInt64

// zeroWeightBase is the least share of a node that borrows with weight 0; no
// finite weighted share reaches it.
const zeroWeightBase Share = 1 << 62

// IsInfinite tells whether the share is infinite: the node borrows with
// weight 0.
func (s Share) IsInfinite() bool { return s >= zeroWeightBase }

// Weighted is the status value: per thousand, rounded up (an infinite share is
// the largest int64).
func (s Share) Weighted() int64 {
	if s.IsInfinite() {
		return math.MaxInt64
	}
	return int64((s + Scale - 1) / Scale)
}

// Of is the node's share: the maximum over resources of (usage above its
// subtree quota, summed over flavors) / (its parent's subtree quota of that
// resource), per thousand, divided by the node's weight. A root, or a queue
// without a cohort, has share 0: it has nobody to borrow from.
func Of(n quota.FairNode) Share {
	parent := n.ParentCohort()
	if parent == nil {
		return 0
	}
	var buf [8]borrowedResource
	per := borrowedByResource(n, buf[:0])
	if len(per) == 0 {
		return 0
	}
	// A resource of which the parent has nothing lendable does not count,
	// as in Kueue (the node borrows, but its share does not show it).
	w := n.FairWeight()
	if w <= 0 {
		var unweighted Share
		for _, p := range per {
			if l := parent.LendableOf(p.r); l > 0 {
				unweighted = max(unweighted, ratio(p.v, l, 1000))
			}
		}
		if unweighted == 0 {
			return 0
		}
		return zeroWeightBase + min(unweighted, Infinite-zeroWeightBase)
	}
	var best Share
	for _, p := range per {
		if l := parent.LendableOf(p.r); l > 0 {
			best = max(best, min(ratio(p.v, l, w), zeroWeightBase-1))
		}
	}
	return best
}

type borrowedResource struct {
	r corev1.ResourceName
	v int64
}

// borrowedByResource appends to per what n uses above its subtree quota,
// summed over flavors, one entry per resource. Of and Precise pass a buffer
// on their stack, which holds the usual handful of resources.
func borrowedByResource(n quota.FairNode, per []borrowedResource) []borrowedResource {
	add := func(fr resources.FlavorResource, b int64) {
		for i := range per {
			if per[i].r == fr.Resource {
				per[i].v = resources.Add(per[i].v, b)
				return
			}
		}
		per = append(per, borrowedResource{fr.Resource, b})
	}
	// Static calls let the closure and the buffer stay on the stack;
	// through the interface they would be allocated on every share
	// computed. FairNode is sealed: these are its only implementations.
	switch v := n.(type) {
	case *quota.ClusterQueue:
		v.EachBorrowed(add)
	case *quota.Cohort:
		v.EachBorrowed(add)
	}
	return per
}

// ratio is borrowed/lendable per thousand, times Scale, times 1000/weightMilli:
// borrowed × 10^12 / (lendable × weightMilli), rounded up at the last unit
// (⌈⌈n/a⌉/b⌉ = ⌈n/(a·b)⌉, so the two divisions round once). Kueue's share is
// a float, positive whenever the node borrows however little (borrowing 1 CPU
// of an exabyte); rounding up keeps a positive ratio positive, and Weighted,
// which rounds up again, then equals Kueue's ceil of the precise share. The
// intermediates are 128-bit; the result saturates at Infinite.
func ratio(borrowed, lendable, weightMilli int64) Share {
	if lendable <= 0 || weightMilli <= 0 {
		return Infinite
	}
	if borrowed <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(borrowed), 1_000_000_000_000)
	hi, lo = ceilDiv128(hi, lo, uint64(lendable))
	hi, lo = ceilDiv128(hi, lo, uint64(weightMilli))
	if hi != 0 || lo >= uint64(Infinite) {
		return Infinite
	}
	return Share(lo)
}

// ceilDiv128 is ⌈(hi·2^64 + lo) / d⌉ for d > 0, as a 128-bit (hi, lo).
func ceilDiv128(hi, lo, d uint64) (uint64, uint64) {
	qhi, r := bits.Div64(0, hi, d)
	qlo, r := bits.Div64(r, lo, d)
	if r != 0 {
		var carry uint64
		qlo, carry = bits.Add64(qlo, 1, 0)
		qhi += carry
	}
	return qhi, qlo
}
