package fairsharing

import (
	"math"

	"quokka.dev/quokka/engine/quota"
)

// Precise is the node's share as Kueue's DRS.PreciseWeightedShare computes it,
// in floating point: per resource, what the node uses above its subtree quota
// (summed over flavors) times 1000 over what its parent could lend of it, the
// largest of these, divided by the weight; +Inf when it borrows with weight 0.
// Decisions use Of, which reads the same quantities in fixed point and rounds
// up; the metrics dashboards compare with Kueue's need Kueue's float
// (kueue_cluster_queue_weighted_share, kueue_cohort_weighted_share).
func Precise(n quota.FairNode) float64 {
	parent := n.ParentCohort()
	if parent == nil {
		return 0
	}
	var buf [8]borrowedResource
	var ratio float64
	for _, p := range borrowedByResource(n, buf[:0]) {
		if l := parent.LendableOf(p.r); l > 0 {
			ratio = max(ratio, float64(p.v)*1000/float64(l))
		}
	}
	switch w := n.FairWeight(); {
	case ratio == 0:
		return 0
	case w <= 0:
		return math.Inf(1)
	default:
		return ratio / (float64(w) / 1000)
	}
}
