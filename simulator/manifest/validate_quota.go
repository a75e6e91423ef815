package manifest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// limitRules says which per-resource limits a resource group may carry where it is
// used: a ClusterQueue without cohortName cannot borrow, and a root Cohort can
// neither borrow from nor lend to a parent it does not have.
type limitRules struct {
	borrowingLimit string // when non-empty, borrowingLimit is forbidden with this reason
	lendingLimit   string // when non-empty, lendingLimit is forbidden with this reason
	// lendingAboveNominal lets a lendingLimit exceed nominalQuota: a
	// Cohort's bounds what its whole subtree lends (Kueue allows it).
	lendingAboveNominal bool
}

// validateResourceGroups checks spec.resourceGroups (or status.effectiveQuotas) the
// way the CRD schema and Kueue's webhook do: counts, every flavor listing every
// covered resource in order, resources and flavors not repeated across groups,
// non-negative quantities, and lendingLimit ≤ nominalQuota.
func validateResourceGroups(groups []kueue.ResourceGroup, path *field.Path, rules limitRules) field.ErrorList {
	errs := validateMaxItems(len(groups), 16, path)
	seenResource := map[corev1.ResourceName]bool{}
	seenFlavor := map[kueue.ResourceFlavorReference]bool{}
	for i, rg := range groups {
		rgPath := path.Index(i)
		crPath := rgPath.Child("coveredResources")
		errs = append(errs, validateItemCount(len(rg.CoveredResources), 1, 16, crPath)...)
		for j, name := range rg.CoveredResources {
			errs = append(errs, validateResourceName(name, crPath.Index(j))...)
			if seenResource[name] {
				errs = append(errs, field.Duplicate(crPath.Index(j), string(name)))
			}
			seenResource[name] = true
		}
		fPath := rgPath.Child("flavors")
		errs = append(errs, validateItemCount(len(rg.Flavors), 1, 16, fPath)...)
		for j, fq := range rg.Flavors {
			fqPath := fPath.Index(j)
			if fq.Name == "" {
				errs = append(errs, field.Required(fqPath.Child("name"), ""))
			} else {
				errs = append(errs, validateDNSSubdomain(string(fq.Name), fqPath.Child("name"))...)
				if seenFlavor[fq.Name] {
					errs = append(errs, field.Duplicate(fqPath.Child("name"), string(fq.Name)))
				}
				seenFlavor[fq.Name] = true
			}
			errs = append(errs, validateFlavorQuotas(fq, rg.CoveredResources, fqPath, rules)...)
		}
	}
	return errs
}

// validateFlavorQuotas checks one flavor of a resource group.
func validateFlavorQuotas(fq kueue.FlavorQuotas, covered []corev1.ResourceName, path *field.Path, rules limitRules) field.ErrorList {
	rPath := path.Child("resources")
	errs := validateItemCount(len(fq.Resources), 1, 16, rPath)
	if len(covered) > 0 && len(fq.Resources) != len(covered) {
		errs = append(errs, field.Invalid(rPath, len(fq.Resources),
			fmt.Sprintf("every flavor must list every resource of coveredResources, in the same order (%s)", quoteList(covered))))
	}
	for k, rq := range fq.Resources {
		p := rPath.Index(k)
		if k < len(covered) && rq.Name != covered[k] {
			errs = append(errs, field.Invalid(p.Child("name"), string(rq.Name),
				fmt.Sprintf("must be %q: every flavor must list every resource of coveredResources, in the same order (%s)", covered[k], quoteList(covered))))
		}
		errs = append(errs, validateResourceQuota(rq, p, rules)...)
	}
	return errs
}

// validateResourceQuota checks nominalQuota, borrowingLimit and lendingLimit of one
// resource.
func validateResourceQuota(rq kueue.ResourceQuota, path *field.Path, rules limitRules) field.ErrorList {
	var errs field.ErrorList
	if rq.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, validateResourceName(rq.Name, path.Child("name"))...)
	}
	errs = append(errs, validateQuotaAmount(rq.Name, rq.NominalQuota, path.Child("nominalQuota"))...)
	if rq.BorrowingLimit != nil {
		p := path.Child("borrowingLimit")
		if rules.borrowingLimit != "" {
			errs = append(errs, field.Forbidden(p, rules.borrowingLimit))
		}
		errs = append(errs, validateQuotaAmount(rq.Name, *rq.BorrowingLimit, p)...)
	}
	if rq.LendingLimit != nil {
		p := path.Child("lendingLimit")
		if rules.lendingLimit != "" {
			errs = append(errs, field.Forbidden(p, rules.lendingLimit))
		}
		errs = append(errs, validateQuotaAmount(rq.Name, *rq.LendingLimit, p)...)
		if !rules.lendingAboveNominal && rq.LendingLimit.Sign() >= 0 && rq.LendingLimit.Cmp(rq.NominalQuota) > 0 {
			errs = append(errs, field.Invalid(p, rq.LendingLimit.String(),
				fmt.Sprintf("must be less than or equal to nominalQuota (%s)", rq.NominalQuota.String())))
		}
	}
	return errs
}

// validateResourceName refuses a resource name that is not a qualified name
// ("@cpu"), as Kueue's ClusterQueue and Cohort webhooks do.
func validateResourceName(name corev1.ResourceName, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(path, string(name), msg))
	}
	return errs
}

// validateQuotaAmount refuses negative quantities and quantities that do not fit
// the engine's canonical int64 units.
func validateQuotaAmount(name corev1.ResourceName, q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), "must be non-negative")}
	}
	if name == "" {
		return nil
	}
	if _, err := resources.ToCanonical(name, q); err != nil {
		return field.ErrorList{field.Invalid(path, q.String(), err.Error())}
	}
	return nil
}

const (
	noCohortBorrowing = "must be unset when cohortName is empty: a ClusterQueue without a cohort has nothing to borrow from"
	rootCohortLimit   = "must be unset on a root Cohort (no parentName): it has no parent to borrow from or lend to"
)

// validateClusterQueue is the CRD schema and webhook of ClusterQueue.
func validateClusterQueue(cq *kueue.ClusterQueue) field.ErrorList {
	errs := validateRequiredName(cq.Name, false)
	spec := field.NewPath("spec")
	errs = append(errs, validateOptionalRef(string(cq.Spec.CohortName), spec.Child("cohortName"))...)
	rules := limitRules{}
	if cq.Spec.CohortName == "" {
		rules.borrowingLimit = noCohortBorrowing
	}
	errs = append(errs, validateResourceGroups(cq.Spec.ResourceGroups, spec.Child("resourceGroups"), rules)...)
	errs = append(errs, validateEnum(cq.Spec.QueueingStrategy, spec.Child("queueingStrategy"), true, kueue.StrictFIFO, kueue.BestEffortFIFO)...)
	errs = append(errs, validateLabelSelector(cq.Spec.NamespaceSelector, spec.Child("namespaceSelector"))...)
	if ff := cq.Spec.FlavorFungibility; ff != nil {
		p := spec.Child("flavorFungibility")
		errs = append(errs, validateEnum(ff.WhenCanBorrow, p.Child("whenCanBorrow"), true, kueue.MayStopSearch, kueue.TryNextFlavor)...)
		errs = append(errs, validateEnum(ff.WhenCanPreempt, p.Child("whenCanPreempt"), true, kueue.MayStopSearch, kueue.TryNextFlavor)...)
	}
	if pr := cq.Spec.Preemption; pr != nil {
		errs = append(errs, validatePreemption(pr, spec.Child("preemption"))...)
	}
	if ac := cq.Spec.AdmissionChecksStrategy; ac != nil && len(ac.AdmissionChecks) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("admissionChecksStrategy", "admissionChecks"),
			"admission checks are not supported by Quokka"))
	}
	if sp := cq.Spec.StopPolicy; sp != nil {
		errs = append(errs, validateEnum(*sp, spec.Child("stopPolicy"), true, kueue.None, kueue.Hold, kueue.HoldAndDrain)...)
	}
	if fs := cq.Spec.FairSharing; fs != nil {
		errs = append(errs, validateWeight(fs.Weight, spec.Child("fairSharing", "weight"))...)
	}
	if as := cq.Spec.AdmissionScope; as != nil {
		errs = append(errs, validateEnum(as.AdmissionMode, spec.Child("admissionScope", "admissionMode"), false,
			kueue.UsageBasedAdmissionFairSharing, kueue.NoAdmissionFairSharing)...)
	}
	if eq := cq.Status.EffectiveQuotas; eq != nil {
		errs = append(errs, validateEffectiveQuotas(eq, field.NewPath("status", "effectiveQuotas"), rules)...)
	}
	return errs
}

// validatePreemption checks the preemption enums and the rule that borrowing while
// preempting needs reclaiming.
func validatePreemption(pr *kueue.ClusterQueuePreemption, path *field.Path) field.ErrorList {
	errs := validateEnum(pr.ReclaimWithinCohort, path.Child("reclaimWithinCohort"), true,
		kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyAny)
	errs = append(errs, validateEnum(pr.WithinClusterQueue, path.Child("withinClusterQueue"), true,
		kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority)...)
	if bwc := pr.BorrowWithinCohort; bwc != nil {
		p := path.Child("borrowWithinCohort", "policy")
		errs = append(errs, validateEnum(bwc.Policy, p, true, kueue.BorrowWithinCohortPolicyNever, kueue.BorrowWithinCohortPolicyLowerPriority)...)
		reclaim := pr.ReclaimWithinCohort
		if (reclaim == "" || reclaim == kueue.PreemptionPolicyNever) && bwc.Policy != "" && bwc.Policy != kueue.BorrowWithinCohortPolicyNever {
			errs = append(errs, field.Invalid(p, string(bwc.Policy), "must be Never when reclaimWithinCohort is Never"))
		}
	}
	return errs
}

// validateEffectiveQuotas checks quotas written into status by hand (or copied from
// a cluster): they are used instead of the spec when DynamicQuotaOrchestration is on.
func validateEffectiveQuotas(eq *kueue.EffectiveQuotas, path *field.Path, rules limitRules) field.ErrorList {
	ref := path.Child("orchestratorRef")
	errs := validateLength(eq.OrchestratorRef.APIGroup, 0, 253, ref.Child("apiGroup"))
	errs = append(errs, validateLength(eq.OrchestratorRef.Kind, 1, 63, ref.Child("kind"))...)
	errs = append(errs, validateLength(eq.OrchestratorRef.Name, 1, 253, ref.Child("name"))...)
	return append(errs, validateResourceGroups(eq.ResourceGroups, path.Child("resourceGroups"), rules)...)
}

// validateCohort is the CRD schema of Cohort.
func validateCohort(c *kueue.Cohort) field.ErrorList {
	errs := validateRequiredName(c.Name, false)
	spec := field.NewPath("spec")
	errs = append(errs, validateOptionalRef(string(c.Spec.ParentName), spec.Child("parentName"))...)
	if c.Spec.ParentName != "" && string(c.Spec.ParentName) == c.Name {
		errs = append(errs, field.Invalid(spec.Child("parentName"), c.Spec.ParentName, "a Cohort cannot be its own parent"))
	}
	rules := limitRules{lendingAboveNominal: true}
	if c.Spec.ParentName == "" {
		rules = limitRules{borrowingLimit: rootCohortLimit, lendingLimit: rootCohortLimit, lendingAboveNominal: true}
	}
	errs = append(errs, validateResourceGroups(c.Spec.ResourceGroups, spec.Child("resourceGroups"), rules)...)
	if fs := c.Spec.FairSharing; fs != nil {
		errs = append(errs, validateWeight(fs.Weight, spec.Child("fairSharing", "weight"))...)
	}
	if eq := c.Status.EffectiveQuotas; eq != nil {
		errs = append(errs, validateEffectiveQuotas(eq, field.NewPath("status", "effectiveQuotas"), rules)...)
	}
	return errs
}
