package workload

import (
	"math"
	"math/big"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/engine/resources"
)

// ResourceRules are the Configuration's resources block, which decides what a
// pod's requests count as before any quota is looked at (Kueue's
// excludeResourcePrefixes and transformations): requests of a resource whose
// name starts with an excluded prefix are not counted at all; a transformed
// input adds its outputs, per unit of input (times the request of MultiplyBy
// when set), and is kept (Retain) or dropped (Replace). A nil *ResourceRules
// counts requests as they are.
type ResourceRules struct {
	ExcludePrefixes []string
	Transformations map[corev1.ResourceName]Transformation
	// IgnoreUndeclared is quotaCheckStrategy IgnoreUndeclared: a request of
	// a resource no resource group of a ClusterQueue covers is not checked
	// there (the flavor assigner reads it; requests are counted as above).
	IgnoreUndeclared bool
}

// Transformation is one resources.transformations entry.
type Transformation struct {
	// Replace drops the input from the requests; otherwise it is retained.
	Replace bool
	// MultiplyBy, when set, multiplies the input by the pod's request of
	// that resource before the outputs are computed (the retained input
	// is not multiplied).
	MultiplyBy corev1.ResourceName
	// Outputs are the resources one unit of input counts as. A negative
	// factor is an allowance: it lowers what the transformations generate
	// under that name, never below zero, and never a direct request.
	Outputs corev1.ResourceList
}

// apply turns one pod's counted requests (perPod, canonical, and the
// resources it names with none, zero) into what the rules count: the
// requests of every excluded resource dropped, then each transformation
// applied to the requests as they were before any of them, as Kueue applies
// them. Resources left at zero (a Replace input of zero, an allowance that
// covers the whole output) go to the zero list, which stays sorted.
func (r *ResourceRules) apply(perPod resources.Requests, zero []corev1.ResourceName) (resources.Requests, []corev1.ResourceName) {
	if r == nil || len(r.ExcludePrefixes) == 0 && len(r.Transformations) == 0 {
		return perPod, zero // IgnoreUndeclared is the flavor assigner's
	}
	in := make(map[corev1.ResourceName]*big.Rat, len(perPod)+len(zero))
	for name, v := range perPod {
		if !r.excluded(name) {
			in[name] = canonicalRat(name, v)
		}
	}
	for _, name := range zero {
		if _, ok := in[name]; !ok && !r.excluded(name) {
			in[name] = new(big.Rat)
		}
	}
	retained := map[corev1.ResourceName]*big.Rat{}
	generated := map[corev1.ResourceName]*big.Rat{}
	for name, q := range in {
		t, ok := r.Transformations[name]
		if !ok {
			retained[name] = q
			continue
		}
		base := q
		if t.MultiplyBy != "" {
			if m, ok := in[t.MultiplyBy]; ok {
				base = new(big.Rat).Mul(q, m)
			}
		}
		for out, factor := range t.Outputs {
			f := quantityRat(factor)
			sum, ok := generated[out]
			if !ok {
				sum = new(big.Rat)
				generated[out] = sum
			}
			sum.Add(sum, new(big.Rat).Mul(base, f))
		}
		if !t.Replace {
			retained[name] = q
		}
	}
	total := retained
	for name, g := range generated {
		if g.Sign() < 0 {
			g.SetInt64(0)
		}
		if cur, ok := total[name]; ok {
			total[name] = new(big.Rat).Add(cur, g)
		} else {
			total[name] = g
		}
	}
	outReqs := make(resources.Requests, len(total))
	var outZero []corev1.ResourceName
	for name, q := range total {
		name = resources.InternResource(name)
		if v := ratCanonical(name, q); v > 0 {
			outReqs[name] = v
		} else {
			outZero = append(outZero, name)
		}
	}
	slices.Sort(outZero)
	return outReqs, outZero
}

func (r *ResourceRules) excluded(name corev1.ResourceName) bool {
	for _, p := range r.ExcludePrefixes {
		if strings.HasPrefix(string(name), p) {
			return true
		}
	}
	return false
}

// canonicalRat is a canonical amount as the exact quantity it stands for
// (millicores for cpu).
func canonicalRat(name corev1.ResourceName, v int64) *big.Rat {
	if resources.IsMilli(name) {
		return big.NewRat(v, 1000)
	}
	return new(big.Rat).SetInt64(v)
}

// quantityRat is a quantity's exact value.
func quantityRat(q resource.Quantity) *big.Rat {
	d := q.AsDec()
	r, ok := new(big.Rat).SetString(d.String())
	if !ok {
		return new(big.Rat)
	}
	return r
}

// ratCanonical is the canonical amount of an exact quantity: rounded up, as
// ToCanonical rounds a request, negative as zero and, past int64, Unlimited
// (a transformation's product that large can never fit, as in Kueue).
func ratCanonical(name corev1.ResourceName, q *big.Rat) int64 {
	if q.Sign() <= 0 {
		return 0
	}
	v := q
	if resources.IsMilli(name) {
		v = new(big.Rat).Mul(q, big.NewRat(1000, 1))
	}
	n, rem := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if rem.Sign() > 0 {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() || n.Int64() == math.MaxInt64 {
		return resources.Unlimited
	}
	return n.Int64()
}
