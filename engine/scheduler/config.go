package scheduler

import (
	config "quokka.dev/quokka/apis/config/v1beta2"
)

// OptionsFromConfiguration resolves a validated Configuration into engine options,
// once, at start-up (STYLE: feature gates are resolved into options, never checked
// on the hot path): the DynamicQuotaOrchestration and
// RecomputeAssignmentUponPreemptionTargetsOverlap gates, fair sharing when the
// fairSharing block is present, and admission fair sharing when its gate is on.
func OptionsFromConfiguration(cfg *config.Configuration) Options {
	opts := Options{
		DynamicQuotaOrchestration: cfg.FeatureGate(config.FeatureDynamicQuotaOrchestration),
		WaitOnOverlappingTargets:  !cfg.FeatureGate(config.FeatureRecomputeAssignmentUponPreemptionTargetsOverlap),
	}
	if cfg.FairSharingEnabled() {
		opts.FairSharing = cfg.FairSharing
	}
	if cfg.AdmissionFairSharingEnabled() {
		opts.AdmissionFairSharing = cfg.AdmissionFairSharing
	}
	return opts
}
