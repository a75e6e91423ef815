package v1beta2

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Resources is Kueue's resources block: which requests count against quota,
// and as what. Kueue's deviceClassMappings (dynamic resource allocation)
// are not implemented: the field is refused when the file is decoded, with
// the reason (knownUnsupportedFields).
type Resources struct {
	// QuotaCheckStrategy is BlockUndeclared (the default: a request of a
	// resource a ClusterQueue does not cover keeps the workload out of it)
	// or IgnoreUndeclared (such requests are not checked there), Kueue's
	// beta field, on in Kueue v0.19.
	QuotaCheckStrategy *QuotaCheckStrategy `json:"quotaCheckStrategy,omitempty"`
	// ExcludeResourcePrefixes: requests of a resource whose name starts
	// with one of these are not counted (nor need quota).
	ExcludeResourcePrefixes []string `json:"excludeResourcePrefixes,omitempty"`
	// Transformations turn a requested resource into others; at most one
	// per input.
	Transformations []ResourceTransformation `json:"transformations,omitempty"`
}

// QuotaCheckStrategy says which requests a ClusterQueue checks.
type QuotaCheckStrategy string

const (
	// QuotaCheckBlockUndeclared checks every request (but excluded
	// prefixes): one the queue does not cover keeps the workload out.
	QuotaCheckBlockUndeclared QuotaCheckStrategy = "BlockUndeclared"
	// QuotaCheckIgnoreUndeclared checks only the requests of resources the
	// queue covers.
	QuotaCheckIgnoreUndeclared QuotaCheckStrategy = "IgnoreUndeclared"
)

// ResourceTransformationStrategy says whether a transformed input is still
// counted.
type ResourceTransformationStrategy string

const (
	// Retain counts the input as requested besides its outputs.
	Retain ResourceTransformationStrategy = "Retain"
	// Replace counts only the outputs.
	Replace ResourceTransformationStrategy = "Replace"
)

// ResourceTransformation is one input resource and what each unit of it
// counts as.
type ResourceTransformation struct {
	// Input is the requested resource transformed.
	Input corev1.ResourceName `json:"input"`
	// Strategy defaults to Retain.
	Strategy *ResourceTransformationStrategy `json:"strategy,omitempty"`
	// MultiplyBy, when set, names a resource whose request multiplies the
	// input before the outputs are computed (the retained input is not
	// multiplied).
	MultiplyBy corev1.ResourceName `json:"multiplyBy,omitempty"`
	// Outputs are the resources and amounts one unit of input counts as; a
	// negative amount is an allowance taken off what the transformations
	// generate under that name. Empty outputs with Replace make the input
	// not counted.
	Outputs corev1.ResourceList `json:"outputs,omitempty"`
}

func setResourcesDefaults(c *Configuration) {
	if c.Resources == nil {
		return
	}
	for i := range c.Resources.Transformations {
		if t := &c.Resources.Transformations[i]; t.Strategy == nil {
			s := Retain
			t.Strategy = &s
		}
	}
}

// validateResources checks the block as Kueue does: a known quota check
// strategy, not IgnoreUndeclared beside excluded prefixes, a known
// transformation strategy, and one transformation per input.
func validateResources(r *Resources, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	seen := map[corev1.ResourceName]bool{}
	tp := p.Child("transformations")
	for i, t := range r.Transformations {
		if t.Input == "" {
			errs = append(errs, field.Required(tp.Index(i).Child("input"), "names the requested resource to transform"))
		}
		if t.Strategy != nil && *t.Strategy != Retain && *t.Strategy != Replace {
			errs = append(errs, field.NotSupported(tp.Index(i).Child("strategy"), *t.Strategy, []ResourceTransformationStrategy{Retain, Replace}))
		}
		if seen[t.Input] {
			errs = append(errs, field.Duplicate(tp.Index(i).Child("input"), t.Input))
		}
		seen[t.Input] = true
	}
	if qs := r.QuotaCheckStrategy; qs != nil {
		qp := p.Child("quotaCheckStrategy")
		switch {
		case *qs != QuotaCheckBlockUndeclared && *qs != QuotaCheckIgnoreUndeclared:
			errs = append(errs, field.NotSupported(qp, *qs, []QuotaCheckStrategy{QuotaCheckIgnoreUndeclared, QuotaCheckBlockUndeclared}))
		case *qs == QuotaCheckIgnoreUndeclared && len(r.ExcludeResourcePrefixes) > 0:
			errs = append(errs, field.Invalid(qp, *qs, "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared"))
		}
	}
	for i, prefix := range r.ExcludeResourcePrefixes {
		if prefix == "" {
			errs = append(errs, field.Invalid(p.Child("excludeResourcePrefixes").Index(i), prefix, "an empty prefix would exclude every resource"))
		}
	}
	return errs
}
