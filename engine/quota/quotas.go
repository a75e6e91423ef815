package quota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// Quota is the quota of one flavor and resource, in canonical units.
type Quota struct {
	Nominal int64
	// BorrowingLimit is resources.Unlimited when unset.
	BorrowingLimit int64
	// LendingLimit is resources.Unlimited when unset (everything is lendable).
	LendingLimit int64
}

// ResourceGroup is a set of resources always charged to one flavor, and the
// flavors that provide them in the order they are tried.
type ResourceGroup struct {
	Covered []corev1.ResourceName
	Flavors []string
}

// Quotas is a converted list of resource groups.
type Quotas struct {
	Groups []ResourceGroup
	Cells  map[resources.FlavorResource]Quota
}

// GroupOf returns the index of the group that covers the resource, or -1.
func (q *Quotas) GroupOf(r corev1.ResourceName) int {
	for i := range q.Groups {
		for _, c := range q.Groups[i].Covered {
			if c == r {
				return i
			}
		}
	}
	return -1
}

// Flavors returns every flavor named by the groups, in order, without duplicates.
func (q *Quotas) Flavors() []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range q.Groups {
		for _, f := range g.Flavors {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// ConvertResourceGroups turns API resource groups into canonical quotas. path is
// where the groups live (spec.resourceGroups or status.effectiveQuotas.resourceGroups)
// so that an error names the exact field.
func ConvertResourceGroups(path *field.Path, groups []kueue.ResourceGroup) (Quotas, error) {
	out := Quotas{Cells: map[resources.FlavorResource]Quota{}}
	for gi, g := range groups {
		gp := path.Index(gi)
		rg := ResourceGroup{Covered: make([]corev1.ResourceName, 0, len(g.CoveredResources))}
		for _, r := range g.CoveredResources {
			rg.Covered = append(rg.Covered, resources.InternResource(r))
		}
		for fi, f := range g.Flavors {
			fp := gp.Child("flavors").Index(fi)
			rg.Flavors = append(rg.Flavors, resources.Intern(string(f.Name)))
			for ri, r := range f.Resources {
				rp := fp.Child("resources").Index(ri)
				q := Quota{BorrowingLimit: resources.Unlimited, LendingLimit: resources.Unlimited}
				var err error
				if q.Nominal, err = canonical(rp.Child("nominalQuota"), r.Name, &r.NominalQuota); err != nil {
					return Quotas{}, err
				}
				if r.BorrowingLimit != nil {
					if q.BorrowingLimit, err = canonical(rp.Child("borrowingLimit"), r.Name, r.BorrowingLimit); err != nil {
						return Quotas{}, err
					}
				}
				if r.LendingLimit != nil {
					if q.LendingLimit, err = canonical(rp.Child("lendingLimit"), r.Name, r.LendingLimit); err != nil {
						return Quotas{}, err
					}
				}
				out.Cells[resources.FlavorResource{Flavor: resources.Intern(string(f.Name)), Resource: resources.InternResource(r.Name)}] = q
			}
		}
		out.Groups = append(out.Groups, rg)
	}
	return out, nil
}

func canonical(p *field.Path, name corev1.ResourceName, q *resource.Quantity) (int64, error) {
	v, err := resources.ToCanonical(name, *q)
	if err != nil {
		return 0, field.Invalid(p, q.String(), err.Error())
	}
	return v, nil
}

// resourceGroupsOf picks the quotas in effect: status.effectiveQuotas when the
// DynamicQuotaOrchestration gate is on and they are set (an empty list is used as
// is), else spec.resourceGroups.
func resourceGroupsOf(gate bool, spec []kueue.ResourceGroup, eff *kueue.EffectiveQuotas) (*field.Path, []kueue.ResourceGroup) {
	if gate && eff != nil {
		return field.NewPath("status", "effectiveQuotas", "resourceGroups"), eff.ResourceGroups
	}
	return field.NewPath("spec", "resourceGroups"), spec
}

func wrapObject(kind, name string, err error) error {
	return fmt.Errorf("%s %q: %w", kind, name, err)
}
