package workload

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"quokka.dev/quokka/engine/resources"
)

// Kueue counts a pod set as the API server will create its pods (its
// workload.AdjustResources): a container without a request or limit gets
// its namespace's LimitRange defaults, and a pod set naming a RuntimeClass
// without an overhead gets the class's. A pod set whose containers or pods
// fall outside the namespace's LimitRange minimum and maximum is never
// admitted (its ValidateLimitRange). Environment carries what the engine
// needs of those objects; the drivers keep it current.

// Messages of Kueue's pkg/util/limitrange.
const (
	aboveLimitRangeMax = "requests must not be above the limitRange max"
	belowLimitRangeMin = "requests must not be below the limitRange min"
	// limitRangeUnsatisfied prefixes the reason a workload is never admitted
	// (Kueue's errLimitRangeConstraintsUnsatisfiedResources).
	limitRangeUnsatisfied = "resources didn't satisfy LimitRange constraints"
)

// Environment is what the cluster adds to the pod sets of a workload of one
// namespace. Both maps are shared and never changed: a change makes new ones.
type Environment struct {
	// LimitRanges summarizes the namespace's LimitRanges.
	LimitRanges LimitRangeSummary
	// RuntimeClassOverhead is each RuntimeClass's overhead.podFixed, by name.
	RuntimeClassOverhead map[string]corev1.ResourceList
}

// LimitRangeSummary is a namespace's LimitRanges folded into one item per
// type, as Kueue's limitrange.Summarize folds them: the lowest maximum and
// maxLimitRequestRatio, the highest minimum, and the first default and
// defaultRequest met for each resource.
type LimitRangeSummary map[corev1.LimitType]corev1.LimitRangeItem

// SummarizeLimitRanges folds ranges, in the order given (Kueue lists them
// by name), into a summary; nil when there are none.
func SummarizeLimitRanges(ranges ...corev1.LimitRange) LimitRangeSummary {
	if len(ranges) == 0 {
		return nil
	}
	out := LimitRangeSummary{}
	for i := range ranges {
		for _, item := range ranges[i].Spec.Limits {
			sum := out[item.Type]
			sum.Type = item.Type
			sum.Max = mergeQuantities(sum.Max, item.Max, keepMin)
			sum.Min = mergeQuantities(sum.Min, item.Min, keepMax)
			sum.Default = mergeQuantities(sum.Default, item.Default, nil)
			sum.DefaultRequest = mergeQuantities(sum.DefaultRequest, item.DefaultRequest, nil)
			sum.MaxLimitRequestRatio = mergeQuantities(sum.MaxLimitRequestRatio, item.MaxLimitRequestRatio, keepMin)
			out[item.Type] = sum
		}
	}
	return out
}

func keepMin(a, b resource.Quantity) resource.Quantity {
	if a.Cmp(b) > 0 {
		return b
	}
	return a
}

func keepMax(a, b resource.Quantity) resource.Quantity {
	if a.Cmp(b) < 0 {
		return b
	}
	return a
}

// mergeQuantities is a copy of dst with src's resources dst lacks; for one
// both have, resolve picks the value, or dst's is kept when resolve is nil.
func mergeQuantities(dst, src corev1.ResourceList, resolve func(a, b resource.Quantity) resource.Quantity) corev1.ResourceList {
	if dst == nil && src == nil {
		return nil
	}
	out := dst.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for name, v := range src {
		if cur, ok := out[name]; !ok {
			out[name] = v.DeepCopy()
		} else if resolve != nil {
			out[name] = resolve(cur, v)
		}
	}
	return out
}

// adjust returns spec as Kueue counts it in env (see the top of this
// file): spec itself when env changes nothing, else an adjusted copy.
func (env *Environment) adjust(spec *corev1.PodSpec) *corev1.PodSpec {
	if env == nil {
		return spec
	}
	var overhead corev1.ResourceList
	if name := spec.RuntimeClassName; name != nil && len(spec.Overhead) == 0 {
		overhead = env.RuntimeClassOverhead[*name]
	}
	container, defaults := env.LimitRanges[corev1.LimitTypeContainer]
	defaults = defaults && (len(container.Default) > 0 || len(container.DefaultRequest) > 0)
	if len(overhead) == 0 && !defaults {
		return spec
	}
	out := spec.DeepCopy()
	if len(overhead) > 0 {
		out.Overhead = overhead.DeepCopy()
	}
	if defaults {
		for _, cs := range [][]corev1.Container{out.InitContainers, out.Containers} {
			for i := range cs {
				res := &cs[i].Resources
				res.Limits = mergeQuantities(res.Limits, container.Default, nil)
				res.Requests = mergeQuantities(res.Requests, container.DefaultRequest, nil)
			}
		}
	}
	return out
}

// limitRangeViolation is Kueue's reason a pod set outside its namespace's
// LimitRanges is never admitted, "" when it is within them: each container's
// larger of request and limit against the container maximum, its smaller
// against the minimum, and the pod's requests against the pod maximum and
// minimum. As in Kueue, only resources that both sides name are compared,
// and maxLimitRequestRatio is not checked.
func (env *Environment) limitRangeViolation(path *field.Path, spec *corev1.PodSpec, perPod resources.Requests) string {
	if env == nil || len(env.LimitRanges) == 0 {
		return ""
	}
	var errs field.ErrorList
	if c, ok := env.LimitRanges[corev1.LimitTypeContainer]; ok {
		check := func(kind string, cs []corev1.Container) {
			for i := range cs {
				res := &cs[i].Resources
				low := mergeQuantities(res.Requests, res.Limits, keepMin)
				high := mergeQuantities(res.Requests, res.Limits, keepMax)
				if over := greaterKeys(high, c.Max); len(over) > 0 {
					errs = append(errs, field.Invalid(path.Child(kind).Index(i), over, aboveLimitRangeMax))
				}
				if under := greaterKeys(c.Min, low); len(under) > 0 {
					errs = append(errs, field.Invalid(path.Child(kind).Index(i), under, belowLimitRangeMin))
				}
			}
		}
		check("initContainers", spec.InitContainers)
		check("containers", spec.Containers)
	}
	if p, ok := env.LimitRanges[corev1.LimitTypePod]; ok {
		pod := quantities(perPod)
		if over := greaterKeys(pod, p.Max); len(over) > 0 {
			errs = append(errs, field.Invalid(path, over, aboveLimitRangeMax))
		}
		if under := greaterKeys(p.Min, pod); len(under) > 0 {
			errs = append(errs, field.Invalid(path, under, belowLimitRangeMin))
		}
	}
	if len(errs) == 0 {
		return ""
	}
	return limitRangeUnsatisfied + ": " + errs.ToAggregate().Error()
}

// greaterKeys lists, sorted, the resources both a and b name whose value in
// a is greater (Kueue's Requests.GreaterKeys).
func greaterKeys(a, b corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if v, ok := b[name]; ok {
			if q := a[name]; q.Cmp(v) <= 0 {
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

// quantities is canonical per-pod requests as quantities, for comparing
// with a LimitRange's.
func quantities(perPod resources.Requests) corev1.ResourceList {
	out := make(corev1.ResourceList, len(perPod))
	for name, v := range perPod {
		out[name] = resources.ToQuantity(name, v)
	}
	return out
}
