package fairsharing

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
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
	borrowed := map[corev1.ResourceName]int64{}
	add := func(fr resources.FlavorResource, b int64) {
		borrowed[fr.Resource] = resources.Add(borrowed[fr.Resource], b)
	}
	n.EachBorrowed(add)
	var ratio float64
	for r, b := range borrowed {
		if l := parent.LendableOf(r); l > 0 {
			ratio = max(ratio, float64(b)*1000/float64(l))
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
