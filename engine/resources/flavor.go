package resources

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// FlavorResource names one quota cell: a resource of a ResourceFlavor.
type FlavorResource struct {
	Flavor   string
	Resource corev1.ResourceName
}

func (fr FlavorResource) String() string { return fr.Flavor + "/" + string(fr.Resource) }

// Amounts maps quota cells to canonical amounts. A missing cell is zero.
type Amounts map[FlavorResource]int64

// Add adds other into a, cell by cell, saturating.
func (a Amounts) Add(other Amounts) {
	for k, v := range other {
		a[k] = Add(a[k], v)
	}
}

// Sub subtracts other from a, cell by cell; cells that reach zero are removed so
// that an empty usage map compares equal to a fresh one.
func (a Amounts) Sub(other Amounts) {
	for k, v := range other {
		n := Sub(a[k], v)
		if n == 0 {
			delete(a, k)
		} else {
			a[k] = n
		}
	}
}

// Clone returns a copy of a.
func (a Amounts) Clone() Amounts {
	c := make(Amounts, len(a))
	for k, v := range a {
		c[k] = v
	}
	return c
}

// Keys returns the cells of a in a stable order (flavor, then resource), so that
// anything built by iterating over amounts is deterministic.
func (a Amounts) Keys() []FlavorResource {
	keys := make([]FlavorResource, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Flavor != keys[j].Flavor {
			return keys[i].Flavor < keys[j].Flavor
		}
		return keys[i].Resource < keys[j].Resource
	})
	return keys
}

// Requests is a per-resource amount without a flavor, for example what a pod set
// needs before flavors are assigned.
type Requests map[corev1.ResourceName]int64

// Add adds other into r, saturating.
func (r Requests) Add(other Requests) {
	for k, v := range other {
		r[k] = Add(r[k], v)
	}
}

// Names returns the resource names of r, sorted.
func (r Requests) Names() []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Clone returns a copy of r.
func (r Requests) Clone() Requests {
	c := make(Requests, len(r))
	for k, v := range r {
		c[k] = v
	}
	return c
}
