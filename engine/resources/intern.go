package resources

import (
	"unique"

	corev1 "k8s.io/api/core/v1"
)

// Flavor and resource names are compared far more often than they are made:
// the quota cache finds a node's cell by comparing keys (engine/quota's
// cellSet), for every node of a chain, many times per workload assigned. Two
// equal strings that share their bytes compare by pointer; two copies decoded
// from different objects compare byte by byte. So the engine keeps the
// canonical copy (package unique) of every name it reads from an object.

// Intern returns the canonical copy of a flavor or resource name. The copy
// stays canonical while a handle to it is held (the quota cache holds one for
// each of its cells); a name no handle holds is still correct, only compared
// byte by byte.
func Intern(s string) string { return unique.Make(s).Value() }

// InternResource is Intern for a resource name.
func InternResource(r corev1.ResourceName) corev1.ResourceName {
	return corev1.ResourceName(Intern(string(r)))
}

// Handles holds the canonical copies of a key's names, and makes the key
// itself canonical.
type Handles struct {
	flavor, resource unique.Handle[string]
}

// Canonical returns fr with canonical names and the handles that keep them so.
func Canonical(fr FlavorResource) (FlavorResource, Handles) {
	h := Handles{flavor: unique.Make(fr.Flavor), resource: unique.Make(string(fr.Resource))}
	return FlavorResource{Flavor: h.flavor.Value(), Resource: corev1.ResourceName(h.resource.Value())}, h
}
