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
// staying an integer.
type Share int64

// Scale is the Share of one per-thousand unit.
const Scale Share = 1_000_000

// Infinite is the share of a node that borrows with weight 0, or borrows from a
// parent that has nothing lendable.
const Infinite Share = math.MaxInt64

// Weighted is the status value: per thousand, rounded up (Infinite stays the
// largest int64).
func (s Share) Weighted() int64 {
	if s == Infinite {
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
	per := buf[:0]
	add := func(fr resources.FlavorResource, b int64) {
		for i := range per {
			if per[i].r == fr.Resource {
				per[i].v = resources.Add(per[i].v, b)
				return
			}
		}
		per = append(per, borrowedResource{fr.Resource, b})
	}
	// Static calls let the closure and buf stay on the stack; through the
	// interface they would be allocated on every share computed. FairNode is
	// sealed: these are its only implementations.
	switch v := n.(type) {
	case *quota.ClusterQueue:
		v.EachBorrowed(add)
	case *quota.Cohort:
		v.EachBorrowed(add)
	}
	if len(per) == 0 {
		return 0
	}
	w := n.FairWeight()
	if w <= 0 {
		return Infinite
	}
	var best Share
	for _, p := range per {
		s := ratio(p.v, parent.LendableOf(p.r), w)
		if s > best {
			best = s
		}
	}
	return best
}

type borrowedResource struct {
	r corev1.ResourceName
	v int64
}

// ratio is borrowed/lendable × 1e9 (per thousand × Scale) × 1000/weightMilli,
// with 128-bit intermediates; it saturates at Infinite.
func ratio(borrowed, lendable, weightMilli int64) Share {
	if lendable <= 0 {
		return Infinite
	}
	hi, lo := bits.Mul64(uint64(borrowed), 1_000_000_000)
	if hi >= uint64(lendable) {
		return Infinite
	}
	q, _ := bits.Div64(hi, lo, uint64(lendable))
	hi, lo = bits.Mul64(q, 1000)
	if hi >= uint64(weightMilli) {
		return Infinite
	}
	q, _ = bits.Div64(hi, lo, uint64(weightMilli))
	if q >= uint64(Infinite) {
		return Infinite
	}
	return Share(q)
}
