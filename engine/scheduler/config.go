package scheduler

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/workload"
)

// OptionsFromConfiguration resolves a validated Configuration into engine options,
// once, at start-up (STYLE: feature gates are resolved into options, never checked
// on the hot path): the DynamicQuotaOrchestration,
// RecomputeAssignmentUponPreemptionTargetsOverlap, PartialAdmission,
// ReclaimablePods, PrioritySortingWithinCohort and SchedulingEquivalenceHashing gates, fair sharing when the
// fairSharing block is present, and admission fair sharing when its gate is on.
func OptionsFromConfiguration(cfg *config.Configuration) Options {
	opts := Options{
		DynamicQuotaOrchestration:     cfg.FeatureGate(config.FeatureDynamicQuotaOrchestration),
		WaitOnOverlappingTargets:      !cfg.FeatureGate(config.FeatureRecomputeAssignmentUponPreemptionTargetsOverlap),
		NoPartialAdmission:            !cfg.FeatureGate(config.FeaturePartialAdmission),
		NoReclaimablePods:             !cfg.FeatureGate(config.FeatureReclaimablePods),
		NoPrioritySortingWithinCohort: !cfg.FeatureGate(config.FeaturePrioritySortingWithinCohort),
		NoEquivalenceHashing:          !cfg.FeatureGate(config.FeatureSchedulingEquivalenceHashing),
		PriorityBoost:                 cfg.FeatureGate(config.FeaturePriorityBoost),
	}
	if cfg.FairSharingEnabled() {
		opts.FairSharing = cfg.FairSharing
	}
	if cfg.AdmissionFairSharingEnabled() {
		opts.AdmissionFairSharing = cfg.AdmissionFairSharing
	}
	if w := cfg.WaitForPodsReady; w != nil {
		opts.WaitForPodsReady = WaitForPodsReadyOptions(w)
	}
	opts.Resources = ResourceRules(cfg.Resources)
	return opts
}

// ResourceRules resolves a validated resources block (nil for none) into
// the engine's rules, for every driver that reads a Configuration.
func ResourceRules(r *config.Resources) *workload.ResourceRules {
	if r == nil {
		return nil
	}
	out := &workload.ResourceRules{ExcludePrefixes: r.ExcludeResourcePrefixes,
		IgnoreUndeclared: r.QuotaCheckStrategy != nil && *r.QuotaCheckStrategy == config.QuotaCheckIgnoreUndeclared}
	if len(r.Transformations) > 0 {
		out.Transformations = make(map[corev1.ResourceName]workload.Transformation, len(r.Transformations))
	}
	for _, t := range r.Transformations {
		out.Transformations[t.Input] = workload.Transformation{
			Replace:    t.Strategy != nil && *t.Strategy == config.Replace,
			MultiplyBy: t.MultiplyBy,
			Outputs:    t.Outputs,
		}
	}
	return out
}

// WaitForPodsReadyOptions resolves a defaulted waitForPodsReady block, for
// every driver that reads a Configuration; nil for none.
func WaitForPodsReadyOptions(w *config.WaitForPodsReady) *WaitForPodsReady {
	if w == nil {
		return nil
	}
	out := &WaitForPodsReady{Timeout: w.Timeout.Duration, OrderByEviction: true,
		BlockAdmission: w.BlockAdmission != nil && *w.BlockAdmission}
	if w.RecoveryTimeout != nil {
		out.RecoveryTimeout = w.RecoveryTimeout.Duration
	}
	if rs := w.RequeuingStrategy; rs != nil {
		if rs.Timestamp != nil {
			out.OrderByEviction = *rs.Timestamp == config.EvictionTimestamp
		}
		if rs.BackoffBaseSeconds != nil {
			out.BackoffBase = time.Duration(*rs.BackoffBaseSeconds) * time.Second
		}
		if rs.BackoffMaxSeconds != nil {
			out.BackoffMax = time.Duration(*rs.BackoffMaxSeconds) * time.Second
		}
		out.BackoffLimitCount = rs.BackoffLimitCount
	}
	return out
}
