package v1beta2

import (
	"maps"
	"slices"
)

// Feature names a feature gate that Quokka knows.
type Feature string

const (
	// FeatureDynamicQuotaOrchestration lets DynamicQuotaOrchestrator objects rewrite
	// ClusterQueue quotas from CapacityProviders (spec 000).
	FeatureDynamicQuotaOrchestration Feature = "DynamicQuotaOrchestration"
	// FeatureAdmissionFairSharing orders workloads of a ClusterQueue by the decayed usage
	// of their LocalQueues.
	FeatureAdmissionFairSharing Feature = "AdmissionFairSharing"
	// FeatureAdmissionFairSharingAnchorAtQuotaReservation counts admission-fair-sharing
	// usage from quota reservation instead of from admission (Kueue v0.20).
	FeatureAdmissionFairSharingAnchorAtQuotaReservation Feature = "AdmissionFairSharingAnchorAtQuotaReservation"
	// FeatureLocalQueueMetrics exports per-LocalQueue metrics.
	FeatureLocalQueueMetrics Feature = "LocalQueueMetrics"
	// FeatureRecomputeAssignmentUponPreemptionTargetsOverlap: a preemptor whose
	// victims are already being evicted for another preemptor looks for victims
	// of its own at once (on, Kueue v0.20's default), or evicts nothing and waits
	// for those evictions to finish (off, and Kueue before v0.20).
	FeatureRecomputeAssignmentUponPreemptionTargetsOverlap Feature = "RecomputeAssignmentUponPreemptionTargetsOverlap"
	// FeaturePartialAdmission lets a workload whose pod set has a minCount be
	// admitted with fewer pods when all of them do not fit (Kueue's gate,
	// beta and on by default; the Job integration's
	// kueue.x-k8s.io/job-min-parallelism annotation sets the minCount).
	FeaturePartialAdmission Feature = "PartialAdmission"
	// FeatureReclaimablePods gives back the quota of a workload's pods that
	// finished for good (status.reclaimablePods, written by the Job
	// integration) while the workload runs (Kueue's gate, beta and on by
	// default). Off, a workload holds all its quota until it finishes.
	FeatureReclaimablePods Feature = "ReclaimablePods"
	// FeaturePrioritySortingWithinCohort orders the heads of a cohort's
	// ClusterQueues by priority before their arrival (Kueue's gate, beta
	// and on by default since v0.6). Off, only borrowing and arrival order
	// them, and a workload preempted to reclaim what it borrowed arrives
	// again just after its preemption; within a ClusterQueue priority
	// orders its workloads either way.
	FeaturePrioritySortingWithinCohort Feature = "PrioritySortingWithinCohort"
	// FeatureSchedulingEquivalenceHashing: when a workload of a
	// BestEffortFIFO ClusterQueue gets no flavor, or needs preemption and
	// finds no victims, the workloads of its queue that the scheduler cannot
	// tell apart from it (same priority, same pod sets) wait with it until
	// the next requeue event, without being evaluated (Kueue's gate, beta,
	// on by default since v0.18; off in v0.17).
	FeatureSchedulingEquivalenceHashing Feature = "SchedulingEquivalenceHashing"
	// FeatureUnadmittedWorkloadsObservability: a pending Workload's
	// QuotaReserved=False condition carries one of Kueue's tiered reasons
	// (WaitingForQuota, NoMatchingFlavor, ExceedsMaxQuota, Misconfigured,
	// Suspended, ...) with Admitted=False (NoReservation) beside it, and the
	// kueue_unadmitted_workloads gauges count them (Kueue's gate, beta, on by
	// default from v0.20, off in v0.19). Off, the reasons are Kueue v0.19's:
	// Pending, Inadmissible and Waiting.
	FeatureUnadmittedWorkloadsObservability Feature = "UnadmittedWorkloadsObservability"
	// FeatureMetricsForCohorts exports kueue_cohort_info and
	// kueue_cluster_queue_info, the Cohort tree's joins (Kueue's gate, beta
	// and on by default since v0.18); as in Kueue, the other Cohort families
	// (kueue_cohort_weighted_share and the kueue_cohort_subtree_* gauges and
	// counter) are exported whatever it says.
	FeatureMetricsForCohorts Feature = "MetricsForCohorts"
	// FeatureMetricForWorkloadCreationLatency exports
	// kueue_workload_creation_latency_seconds, the time from a Job's creation
	// to its Workload's (Kueue's gate, beta and on by default since v0.18).
	FeatureMetricForWorkloadCreationLatency Feature = "MetricForWorkloadCreationLatency"
	// FeaturePriorityBoost adds a Workload's kueue.x-k8s.io/priority-boost
	// annotation (a signed integer) to its priority wherever priority
	// decides: queue order, preemption policies and victim order (Kueue's
	// gate, KEP-7990, alpha and off by default since v0.17).
	FeaturePriorityBoost Feature = "PriorityBoost"
	// FeatureWorkloadPriorityClassDefaulting gives a Job created without the
	// kueue.x-k8s.io/priority-class label the WorkloadPriorityClass named
	// "default", when one exists (Kueue's gate, beta and on by default since
	// v0.20; alpha and off in v0.18 and v0.19).
	FeatureWorkloadPriorityClassDefaulting Feature = "WorkloadPriorityClassDefaulting"
)

// Maturity is a feature's stage; it only documents what a default means.
type Maturity string

const (
	// Alpha features are off by default and may change without notice.
	Alpha Maturity = "Alpha"
	// Beta features are usually on by default.
	Beta Maturity = "Beta"
	// GA features can no longer be turned off in Kueue; kept for completeness.
	GA Maturity = "GA"
)

// FeatureSpec is a feature's default state and maturity.
type FeatureSpec struct {
	Default  bool
	Maturity Maturity
}

// knownFeatures is the whole list. A gate outside it is refused at start-up rather
// than ignored, because a Kueue gate Quokka does not implement would otherwise look
// as if it had taken effect.
var knownFeatures = map[Feature]FeatureSpec{
	FeatureDynamicQuotaOrchestration:                       {Default: false, Maturity: Alpha},
	FeatureAdmissionFairSharing:                            {Default: true, Maturity: Beta},
	FeatureAdmissionFairSharingAnchorAtQuotaReservation:    {Default: true, Maturity: Beta},
	FeatureLocalQueueMetrics:                               {Default: true, Maturity: Beta},
	FeatureRecomputeAssignmentUponPreemptionTargetsOverlap: {Default: true, Maturity: Beta},
	FeaturePartialAdmission:                                {Default: true, Maturity: Beta},
	FeatureReclaimablePods:                                 {Default: true, Maturity: Beta},
	FeaturePrioritySortingWithinCohort:                     {Default: true, Maturity: Beta},
	FeatureSchedulingEquivalenceHashing:                    {Default: true, Maturity: Beta},
	FeatureUnadmittedWorkloadsObservability:                {Default: true, Maturity: Beta},
	FeatureMetricsForCohorts:                               {Default: true, Maturity: Beta},
	FeatureMetricForWorkloadCreationLatency:                {Default: true, Maturity: Beta},
	FeaturePriorityBoost:                                   {Default: false, Maturity: Alpha},
	FeatureWorkloadPriorityClassDefaulting:                 {Default: true, Maturity: Beta},
}

// KnownFeatures returns a copy of the features Quokka knows, with their defaults.
func KnownFeatures() map[Feature]FeatureSpec {
	return maps.Clone(knownFeatures)
}

// knownFeatureNames is sorted so that error messages are stable.
func knownFeatureNames() []string {
	names := make([]string, 0, len(knownFeatures))
	for f := range knownFeatures {
		names = append(names, string(f))
	}
	slices.Sort(names)
	return names
}

// FeatureGate reports whether a feature is on: the featureGates entry if there is
// one, else the feature's default. An unknown name reports false; Validate has
// already refused unknown names in the file, so that only happens for a typo in
// Go code, which the tests of the caller should catch.
func (c *Configuration) FeatureGate(name Feature) bool {
	spec, ok := knownFeatures[name]
	if !ok {
		return false
	}
	if c != nil {
		if v, set := c.FeatureGates[string(name)]; set {
			return v
		}
	}
	return spec.Default
}

// ResolvedFeatureGates returns the state of every known feature, so that callers
// can hand the engine plain booleans once instead of asking on every decision.
func (c *Configuration) ResolvedFeatureGates() map[Feature]bool {
	out := make(map[Feature]bool, len(knownFeatures))
	for f := range knownFeatures {
		out[f] = c.FeatureGate(f)
	}
	return out
}

// FairSharingEnabled reports whether fair sharing is on. As in Kueue v0.15 and
// later, the presence of the fairSharing block is the switch.
func (c *Configuration) FairSharingEnabled() bool {
	return c != nil && c.FairSharing != nil
}

// PreemptionStrategies returns the fair-sharing strategies in the order they are
// tried, or nil when fair sharing is off.
func (c *Configuration) PreemptionStrategies() []PreemptionStrategy {
	if !c.FairSharingEnabled() {
		return nil
	}
	return slices.Clone(c.FairSharing.PreemptionStrategies)
}

// AdmissionFairSharingEnabled reports whether usage-based admission fair sharing
// can be used: the gate is on and the admissionFairSharing block is present.
// ClusterQueues still opt in one by one through spec.admissionScope.
func (c *Configuration) AdmissionFairSharingEnabled() bool {
	return c != nil && c.AdmissionFairSharing != nil && c.FeatureGate(FeatureAdmissionFairSharing)
}

// LeaderElectionEnabled reports whether the manager should campaign for leadership.
func (c *Configuration) LeaderElectionEnabled() bool {
	return c != nil && c.LeaderElection != nil && c.LeaderElection.LeaderElect != nil && *c.LeaderElection.LeaderElect
}
