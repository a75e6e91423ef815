package manifest

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
)

// validateCapacityProvider is the CRD schema of CapacityProvider (API reference
// 001), status included: the simulator reads the capacity exactly as written, so a
// status the API server would refuse must be refused here.
func validateCapacityProvider(cp *kueuev1alpha1.CapacityProvider) field.ErrorList {
	errs := validateRequiredName(cp.Name, false)
	spec := field.NewPath("spec")
	errs = append(errs, validateLength(cp.Spec.ControllerName, 1, 253, spec.Child("controllerName"))...)
	of := spec.Child("orchestratedFlavors")
	errs = append(errs, validateItemCount(len(cp.Spec.OrchestratedFlavors), 1, 64, of)...)
	seen := map[kueuev1alpha1.ResourceFlavorReference]bool{}
	for i, f := range cp.Spec.OrchestratedFlavors {
		p := of.Index(i).Child("name")
		errs = append(errs, validateRequiredRef(string(f.Name), p)...)
		if seen[f.Name] {
			errs = append(errs, field.Duplicate(p, string(f.Name)))
		}
		seen[f.Name] = true
	}
	if pr := cp.Spec.Parameters; pr != nil {
		p := spec.Child("parameters")
		errs = append(errs, validateLength(pr.APIGroup, 1, 253, p.Child("apiGroup"))...)
		errs = append(errs, validateLength(pr.Kind, 1, 63, p.Child("kind"))...)
		errs = append(errs, validateLength(pr.Name, 1, 253, p.Child("name"))...)
	}
	status := field.NewPath("status")
	errs = append(errs, validateMaxItems(len(cp.Status.Conditions), 16, status.Child("conditions"))...)
	errs = append(errs, metav1validation.ValidateConditions(cp.Status.Conditions, status.Child("conditions"))...)
	if c := cp.Status.Capacity; c != nil {
		fp := status.Child("capacity", "flavors")
		errs = append(errs, validateFlavorCapacities(c.Flavors, 1, fp)...)
	}
	return errs
}

// validateFlavorCapacities checks a list of per-flavor capacities: at least min
// flavors, at most 128, names unique, at most 64 resources each, none negative.
func validateFlavorCapacities(flavors []kueuev1alpha1.FlavorCapacity, min int, path *field.Path) field.ErrorList {
	errs := validateItemCount(len(flavors), min, kueuev1alpha1.MaxEffectiveCapacityFlavors, path)
	seen := map[kueuev1alpha1.ResourceFlavorReference]bool{}
	for i, f := range flavors {
		p := path.Index(i)
		errs = append(errs, validateRequiredRef(string(f.Name), p.Child("name"))...)
		if seen[f.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), string(f.Name)))
		}
		seen[f.Name] = true
		errs = append(errs, validateResourceList(f.Resources, 64, p.Child("resources"))...)
	}
	return errs
}

// validateResourceList checks a map of quantities: size and signs, in sorted order
// so that messages are stable.
func validateResourceList(list corev1.ResourceList, max int, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(list) > max {
		errs = append(errs, field.TooMany(path, len(list), max))
	}
	for _, name := range sortedResourceNames(list) {
		q := list[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(path.Key(string(name)), q.String(), "capacity must be non-negative"))
		}
	}
	return errs
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for n := range list {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// validateRequiredRef checks a reference that must be set.
func validateRequiredRef(value string, path *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return validateDNSSubdomain(value, path)
}

// validateDynamicQuotaOrchestrator is the CRD schema of DynamicQuotaOrchestrator:
// 1 to 8 providers with distinct names, multipliers of 0 or more, and a subtree
// root that is a ClusterQueue or a Cohort.
func validateDynamicQuotaOrchestrator(dqo *kueuev1alpha1.DynamicQuotaOrchestrator) field.ErrorList {
	errs := validateRequiredName(dqo.Name, false)
	pp := field.NewPath("spec", "capacityDiscovery", "providers")
	errs = append(errs, validateItemCount(len(dqo.Spec.CapacityDiscovery.Providers), 1, 8, pp)...)
	seen := map[string]bool{}
	for i, p := range dqo.Spec.CapacityDiscovery.Providers {
		ip := pp.Index(i)
		errs = append(errs, validateLength(p.Name, 1, 253, ip.Child("name"))...)
		if seen[p.Name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), p.Name))
		}
		seen[p.Name] = true
		if m := p.EffectiveCapacityMultiplier; m != nil && m.Sign() < 0 {
			errs = append(errs, field.Invalid(ip.Child("effectiveCapacityMultiplier"), m.String(), "effectiveCapacityMultiplier must be 0 or more"))
		}
	}
	if d := dqo.Spec.CapacityDistribution; d != nil {
		rp := field.NewPath("spec", "capacityDistribution", "subtreeRootQuotaRef")
		errs = append(errs, validateEnum(d.SubtreeRootQuotaRef.Kind, rp.Child("kind"), false, kueuev1alpha1.ClusterQueueKind, kueuev1alpha1.CohortKind)...)
		errs = append(errs, validateLength(d.SubtreeRootQuotaRef.Name, 1, 253, rp.Child("name"))...)
	}
	return errs
}

// validatePreemptionConfig is the CRD schema of PreemptionConfig (API reference 001).
func validatePreemptionConfig(pc *kueuev1alpha1.PreemptionConfig) field.ErrorList {
	errs := validateRequiredName(pc.Name, false)
	rp := field.NewPath("spec", "rules")
	errs = append(errs, validateMaxItems(len(pc.Spec.Rules), 64, rp)...)
	seen := map[string]bool{}
	for i, r := range pc.Spec.Rules {
		p := rp.Index(i)
		errs = append(errs, validateLength(r.Name, 1, 63, p.Child("name"))...)
		if r.Name != "" {
			errs = append(errs, validateDNSLabel(r.Name, p.Child("name"))...)
		}
		if seen[r.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		}
		seen[r.Name] = true
		errs = append(errs, validateLabelSelector(r.PreemptorSelector, p.Child("preemptorSelector"))...)
		errs = append(errs, validateEnum(r.ActivationPolicy.Trigger, p.Child("activationPolicy", "trigger"), false,
			kueuev1alpha1.Always, kueuev1alpha1.InsufficientQuota, kueuev1alpha1.QuotaFeasibleAndInsufficientTopology)...)
		cp := p.Child("candidateSelectors")
		errs = append(errs, validateMaxItems(len(r.CandidateSelectors), 16, cp)...)
		for j, cs := range r.CandidateSelectors {
			errs = append(errs, validateCandidateSelector(cs, cp.Index(j))...)
		}
	}
	return errs
}

func validateCandidateSelector(cs kueuev1alpha1.CandidateSelector, path *field.Path) field.ErrorList {
	errs := validateEnum(cs.Scope, path.Child("scope"), false, kueuev1alpha1.WithinLocalQueue, kueuev1alpha1.WithinClusterQueue,
		kueuev1alpha1.WithinParentCohort, kueuev1alpha1.WithinCohortTree, kueuev1alpha1.AnyClusterQueue)
	errs = append(errs, validateLabelSelector(cs.ClusterQueueSelector, path.Child("clusterQueueSelector"))...)
	errs = append(errs, validateLabelSelector(cs.LabelSelector, path.Child("labelSelector"))...)
	nl := path.Child("numericLabels")
	errs = append(errs, validateMaxItems(len(cs.NumericLabels), 8, nl)...)
	comparisons := []kueuev1alpha1.NumericComparison{kueuev1alpha1.LessThan, kueuev1alpha1.GreaterThan, kueuev1alpha1.LessThanOrEqual, kueuev1alpha1.GreaterThanOrEqual}
	for k, c := range cs.NumericLabels {
		p := nl.Index(k)
		errs = append(errs, validateLength(c.Key, 1, 316, p.Child("key"))...)
		if c.Comparison != nil {
			errs = append(errs, validateEnum(*c.Comparison, p.Child("comparison"), false, comparisons...)...)
		}
		if c.MinValue != nil && c.MaxValue != nil && *c.MinValue > *c.MaxValue {
			errs = append(errs, field.Invalid(p.Child("minValue"), *c.MinValue,
				fmt.Sprintf("minValue must be less than or equal to maxValue (%d)", *c.MaxValue)))
		}
	}
	if pr := cs.Priority; pr != nil {
		p := path.Child("priority")
		errs = append(errs, validateEnum(pr.Mode, p.Child("mode"), true, kueuev1alpha1.BasePriority, kueuev1alpha1.BoostedPriority)...)
		errs = append(errs, validateEnum(pr.Comparison, p.Child("comparison"), false, comparisons...)...)
	}
	return errs
}

// validateElasticQuota is the CRD schema of Koord-Queue's ElasticQuota (spec 004):
// at most 64 resources in min and max, none negative, min ≤ max per resource.
func validateElasticQuota(eq *koordv1alpha1.ElasticQuota) field.ErrorList {
	errs := validateRequiredName(eq.Name, false)
	spec := field.NewPath("spec")
	errs = append(errs, validateResourceList(eq.Spec.Min, 64, spec.Child("min"))...)
	errs = append(errs, validateResourceList(eq.Spec.Max, 64, spec.Child("max"))...)
	for _, name := range sortedResourceNames(eq.Spec.Min) {
		minQ := eq.Spec.Min[name]
		if maxQ, ok := eq.Spec.Max[name]; ok && minQ.Cmp(maxQ) > 0 {
			errs = append(errs, field.Invalid(spec.Child("min").Key(string(name)), minQ.String(),
				fmt.Sprintf("min: every resource must be less than or equal to its max (%s)", maxQ.String())))
		}
	}
	return errs
}
