package quota

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/hierarchy"
	"quokka.dev/quokka/engine/resources"
)

// Cohort is the cache's view of a Cohort, explicit or implicit (an implicit one
// has no quota of its own).
type Cohort struct {
	node
	Quotas
	// weight is spec.fairSharing.weight in thousandths; 0 while no Cohort
	// object exists (see New).
	weight int64
	tc     *hierarchy.Cohort[*ClusterQueue, *Cohort]
	// height is Height, worked out with the subtree quotas whenever the
	// tree's edges change (refreshTreeOf): BorrowHeight asks for it for
	// every cell a pending workload borrows in, and walking the children's
	// map each time was a twentieth of a loaded simulation.
	height int
}

// Name is the Cohort's name.
func (c *Cohort) Name() string { return c.name }

// Explicit reports whether a Cohort object exists.
func (c *Cohort) Explicit() bool { return c.tc.Explicit() }

// ParentName is the parent's name, "" for a root.
func (c *Cohort) ParentName() string {
	if p := c.tc.Parent(); p != nil {
		return p.Name()
	}
	return ""
}

// InCycle reports whether the cohort is in or below a cycle of parents.
func (c *Cohort) InCycle() bool { return c.tc.HasCycle() }

// SubtreeQuota returns a copy of the quota the subtree holds, per cell.
func (c *Cohort) SubtreeQuota() resources.Amounts { return c.subtreeAmounts() }

// Usage returns a copy of the usage the subtree accounts for above its children's
// guaranteed shares.
func (c *Cohort) Usage() resources.Amounts { return c.usageAmounts() }

// OwnQuota returns the cohort's own quota of a cell.
func (c *Cohort) OwnQuota(fr resources.FlavorResource) (Quota, bool) {
	return c.quotaOf(fr)
}

func cohortQuotasFromAPI(gate bool, co *kueue.Cohort) (Quotas, error) {
	path, groups := resourceGroupsOf(gate, co.Spec.ResourceGroups, co.Status.EffectiveQuotas)
	return ConvertResourceGroups(path, groups)
}

// RootName is the name of the root of the cohort's tree, or false in a cycle.
func (c *Cohort) RootName() (string, bool) {
	root, ok := c.tc.Root()
	if !ok {
		return "", false
	}
	return root.Name(), true
}
