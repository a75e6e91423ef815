package dqo

import (
	"quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// effectiveResourceGroups builds an object's status.effectiveQuotas.resourceGroups
// from its spec and its shares (perNode of computeShares).
//
// The result is a deep copy of spec.resourceGroups, so that the structure (groups,
// covered resources, flavor order, borrowing limits) stays what the administrator
// wrote, with these changes:
//   - Every resource of an orchestrated flavor gets its share as nominalQuota; a
//     resource that no provider reports has capacity 0 and so gets 0 (000: "If an
//     orchestrated flavor has a resource that the providers do not report, that
//     resource gets an effective nominal quota of 0.").
//   - A flavor that is not orchestrated keeps its spec quota (000: "A flavor that DQO
//     does not orchestrate keeps its quota from spec.resourceGroups.").
//   - borrowingLimit is copied (000: "borrowingLimit is copied from the spec.").
//   - lendingLimit is copied, and on a ClusterQueue lowered to the effective nominal
//     quota when above it (000: "lendingLimit is copied from the spec. For a
//     ClusterQueue, it is capped at the effective nominal quota."). A Cohort's
//     lendingLimit bounds what its whole subtree lends, not its own quota, so it is
//     copied unchanged.
//
// An object without resource groups gets an empty, non-nil list (000: "A Cohort with
// no spec.resourceGroups gets an empty list of effective quotas."), which the
// scheduler uses as is instead of falling back to the spec.
func effectiveResourceGroups(n *quotaNode, capacity *Capacity, shares []int64) []v1beta2.ResourceGroup {
	out := make([]v1beta2.ResourceGroup, len(n.spec))
	k := 0
	for gi := range n.spec {
		n.spec[gi].DeepCopyInto(&out[gi])
		for fi := range out[gi].Flavors {
			fq := &out[gi].Flavors[fi]
			orchestrated := capacity.Orchestrates(string(fq.Name))
			for ri := range fq.Resources {
				rq := &fq.Resources[ri]
				if orchestrated {
					rq.NominalQuota = resources.ToQuantity(rq.Name, shares[k])
					k++
				}
				if n.clusterQueue && rq.LendingLimit != nil && rq.LendingLimit.Cmp(rq.NominalQuota) > 0 {
					capped := rq.NominalQuota.DeepCopy()
					rq.LendingLimit = &capped
				}
			}
		}
	}
	return out
}
