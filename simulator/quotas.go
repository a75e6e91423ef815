package simulator

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// CellQuota is the quota of one flavor and resource of a ClusterQueue, in
// canonical units; BorrowingLimit is resources.Unlimited when unset.
type CellQuota struct {
	Nominal        int64
	BorrowingLimit int64
	LendingLimit   int64
}

// Quotas is the quota in effect per cell, and the order in which the ClusterQueue
// lists its cells (resource group, flavor, resource), which the report follows.
type Quotas struct {
	Cells map[resources.FlavorResource]CellQuota
	Order []resources.FlavorResource
}

// groupsInEffect returns the resource groups the engine uses: the effective quotas
// when Dynamic Quota Orchestration is on and they are set (an empty list included),
// the spec otherwise (000, "Which quota Kueue uses").
func groupsInEffect(spec []kueue.ResourceGroup, eq *kueue.EffectiveQuotas, dqoGate bool) []kueue.ResourceGroup {
	if dqoGate && eq != nil {
		return eq.ResourceGroups
	}
	return spec
}

// quotasOf converts resource groups to canonical cells. Quantities were validated
// when loaded, so conversion errors cannot happen here and read as zero.
func quotasOf(groups []kueue.ResourceGroup) Quotas {
	q := Quotas{Cells: map[resources.FlavorResource]CellQuota{}}
	for _, g := range groups {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				fr := resources.FlavorResource{Flavor: string(f.Name), Resource: r.Name}
				nominal, _ := resources.ToCanonical(r.Name, r.NominalQuota)
				cell := CellQuota{Nominal: nominal, BorrowingLimit: resources.Unlimited, LendingLimit: resources.Unlimited}
				if r.BorrowingLimit != nil {
					cell.BorrowingLimit, _ = resources.ToCanonical(r.Name, *r.BorrowingLimit)
				}
				if r.LendingLimit != nil {
					cell.LendingLimit, _ = resources.ToCanonical(r.Name, *r.LendingLimit)
				}
				if _, dup := q.Cells[fr]; !dup {
					q.Order = append(q.Order, fr)
				}
				q.Cells[fr] = cell
			}
		}
	}
	return q
}

// equal reports whether two quota sets are the same, to record only changes.
func (q Quotas) equal(o Quotas) bool {
	if len(q.Cells) != len(o.Cells) {
		return false
	}
	for k, v := range q.Cells {
		if w, ok := o.Cells[k]; !ok || w != v {
			return false
		}
	}
	return true
}
