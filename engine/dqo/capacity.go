package dqo

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// Capacity is an effective capacity in canonical units: the set of orchestrated
// flavors and, for each, the amount per resource. It is what distribution splits.
//
// The set of flavors matters on its own: a flavor is orchestrated even when no
// provider reports a single resource for it, and then every resource of that flavor
// has capacity 0 (001: "An empty resources map means zero capacity for all resources
// of the flavor."). So a flavor with an empty map is kept, not dropped.
//
// A nil *Capacity means "not computed" (discovery failed); methods on it report
// nothing orchestrated.
type Capacity struct {
	flavors map[string]resources.Requests
}

// newCapacity returns an empty capacity with room for n flavors.
func newCapacity(n int) *Capacity {
	return &Capacity{flavors: make(map[string]resources.Requests, n)}
}

// Orchestrates reports whether flavor is in the effective capacity, that is, whether
// distribution overrides its nominal quotas.
func (c *Capacity) Orchestrates(flavor string) bool {
	if c == nil {
		return false
	}
	_, ok := c.flavors[flavor]
	return ok
}

// Amount returns the capacity of one resource of a flavor in canonical units; a
// resource that no provider reports is 0.
func (c *Capacity) Amount(flavor string, name corev1.ResourceName) int64 {
	if c == nil {
		return 0
	}
	return c.flavors[flavor][name]
}

// Flavors returns the orchestrated flavors, sorted by name.
func (c *Capacity) Flavors() []string {
	if c == nil {
		return nil
	}
	names := make([]string, 0, len(c.flavors))
	for f := range c.flavors {
		names = append(names, f)
	}
	sort.Strings(names)
	return names
}

// Status renders the capacity as status.effectiveCapacity: flavors sorted by name,
// quantities in the format users expect (resources.ToQuantity), an empty but non-nil
// resources map for a flavor with no reported resource. A nil capacity renders as
// nil, which clears the field.
func (c *Capacity) Status() *v1alpha1.EffectiveCapacity {
	if c == nil {
		return nil
	}
	names := c.Flavors()
	out := &v1alpha1.EffectiveCapacity{Flavors: make([]v1alpha1.FlavorCapacity, 0, len(names))}
	for _, f := range names {
		amounts := c.flavors[f]
		list := make(corev1.ResourceList, len(amounts))
		for r, v := range amounts {
			list[r] = resources.ToQuantity(r, v)
		}
		out.Flavors = append(out.Flavors, v1alpha1.FlavorCapacity{Name: v1alpha1.ResourceFlavorReference(f), Resources: list})
	}
	return out
}

// CapacityFromStatus reads a stored status.effectiveCapacity back into canonical
// units, for a controller that distributes from the DQO's status rather than from a
// fresh Discover. Values finer than a canonical unit are rounded down, as in
// discovery. A nil status gives a nil capacity (not computed).
func CapacityFromStatus(ec *v1alpha1.EffectiveCapacity) (*Capacity, error) {
	if ec == nil {
		return nil, nil
	}
	one := *resource.NewQuantity(1, resource.DecimalSI)
	c := newCapacity(len(ec.Flavors))
	for i, fc := range ec.Flavors {
		f := string(fc.Name)
		if _, dup := c.flavors[f]; dup {
			return nil, fmt.Errorf("status.effectiveCapacity.flavors[%d]: flavor %q is listed twice", i, f)
		}
		amounts := make(resources.Requests, len(fc.Resources))
		for r, q := range fc.Resources {
			v, err := scaleCapacity(r, q, one)
			if err != nil {
				return nil, fmt.Errorf("status.effectiveCapacity.flavors[%d].resources[%s]: %s %w", i, r, q.String(), err)
			}
			amounts[r] = v
		}
		c.flavors[f] = amounts
	}
	return c, nil
}

// EffectiveCapacityEqual compares two status.effectiveCapacity values semantically:
// the same flavors in the same order, the same resources, quantities equal by value
// ("1000m" equals "1"). A nil resources map equals an empty one. A controller writes
// the DQO status only when this returns false.
func EffectiveCapacityEqual(a, b *v1alpha1.EffectiveCapacity) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if len(a.Flavors) != len(b.Flavors) {
		return false
	}
	for i := range a.Flavors {
		fa, fb := a.Flavors[i], b.Flavors[i]
		if fa.Name != fb.Name || !resourceListEqual(fa.Resources, fb.Resources) {
			return false
		}
	}
	return true
}

func resourceListEqual(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for r, qa := range a {
		qb, ok := b[r]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}
