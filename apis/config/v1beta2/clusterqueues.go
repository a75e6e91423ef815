package v1beta2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// ValidateClusterQueue checks one ClusterQueue against the Configuration, with
// paths rooted at the ClusterQueue (spec....), as an admission webhook reports them.
//
// Fair sharing replaces classic preemption's "borrow within cohort" rule, so a
// ClusterQueue asking for it while fair sharing is on is refused rather than having
// its policy ignored (spec 002: "borrowWithinCohort is classic-only").
func (c *Configuration) ValidateClusterQueue(cq *kueue.ClusterQueue) field.ErrorList {
	if !c.FairSharingEnabled() || cq.Spec.Preemption == nil || cq.Spec.Preemption.BorrowWithinCohort == nil {
		return nil
	}
	policy := cq.Spec.Preemption.BorrowWithinCohort.Policy
	if policy == "" || policy == kueue.BorrowWithinCohortPolicyNever {
		return nil
	}
	p := field.NewPath("spec", "preemption", "borrowWithinCohort", "policy")
	return field.ErrorList{field.Invalid(p, policy,
		"must be Never while fair sharing is enabled (fairSharing is set in the Configuration): borrowWithinCohort applies to classic preemption only")}
}

// ValidateAgainstClusterQueues checks every ClusterQueue against the Configuration.
// Paths start with clusterQueues[<name>] so that the message names the queue; the
// manager and the simulator both call this before they start, because the
// combination "will not start" in Kueue either (spec 002, Failure modes).
func ValidateAgainstClusterQueues(cfg *Configuration, cqs []kueue.ClusterQueue) field.ErrorList {
	var errs field.ErrorList
	for i := range cqs {
		root := field.NewPath("clusterQueues").Key(cqs[i].Name)
		for _, e := range cfg.ValidateClusterQueue(&cqs[i]) {
			e.Field = root.String() + "." + e.Field
			errs = append(errs, e)
		}
	}
	return errs
}
