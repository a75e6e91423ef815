package v1beta2

import (
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

func TestFeatureGateDefaults(t *testing.T) {
	t.Parallel()
	want := map[Feature]bool{
		FeatureDynamicQuotaOrchestration:                    false,
		FeatureAdmissionFairSharing:                         true,
		FeatureAdmissionFairSharingAnchorAtQuotaReservation: true,
		FeatureLocalQueueMetrics:                            true,
		// Kueue v0.20's default; Kueue before v0.20 behaves as if it were off.
		FeatureRecomputeAssignmentUponPreemptionTargetsOverlap: true,
		// Beta and on in Kueue (pkg/features/kube_features.go).
		FeaturePartialAdmission: true,
		// Beta and on in Kueue since v0.15 (pkg/features/kube_features.go).
		FeatureReclaimablePods: true,
		// Beta and on in Kueue since v0.6.
		FeaturePrioritySortingWithinCohort: true,
		// Beta, off in Kueue v0.17 and on since v0.18.
		FeatureSchedulingEquivalenceHashing: true,
		// Beta, off in Kueue v0.19 and on in its main branch (v0.20).
		FeatureUnadmittedWorkloadsObservability: true,
		// Beta and on in Kueue since v0.18.
		FeatureMetricsForCohorts:                true,
		FeatureMetricForWorkloadCreationLatency: true,
		// Alpha and off in Kueue since v0.17.
		FeaturePriorityBoost: false,
		// Beta and on in Kueue since v0.20.
		FeatureWorkloadPriorityClassDefaulting: true,
	}
	if got := Default().ResolvedFeatureGates(); !reflect.DeepEqual(got, want) {
		t.Errorf("ResolvedFeatureGates() = %v; want %v", got, want)
	}
	if KnownFeatures()[FeatureDynamicQuotaOrchestration].Maturity != Alpha {
		t.Error("DynamicQuotaOrchestration should be alpha")
	}
	if (*Configuration)(nil).FeatureGate(FeatureAdmissionFairSharing) != true {
		t.Error("a nil Configuration should report defaults")
	}
	if Default().FeatureGate("NoSuchGate") {
		t.Error("an unknown gate reported true")
	}
}

func TestFeatureGatesFromTheFile(t *testing.T) {
	t.Parallel()
	cfg, err := Decode([]byte(header + "featureGates:\n  DynamicQuotaOrchestration: true\n  LocalQueueMetrics: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.FeatureGate(FeatureDynamicQuotaOrchestration) {
		t.Error("DynamicQuotaOrchestration: true was not applied")
	}
	if cfg.FeatureGate(FeatureLocalQueueMetrics) {
		t.Error("LocalQueueMetrics: false was not applied")
	}
	if !cfg.FeatureGate(FeatureAdmissionFairSharing) {
		t.Error("an unset gate lost its default")
	}
}

// 002: "The manager turns fair sharing on when the block is present."
func TestFairSharingIsOnWhenTheBlockIsPresent(t *testing.T) {
	t.Parallel()
	cfg, err := Decode([]byte(header + "fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.FairSharingEnabled() {
		t.Fatal("fair sharing is off with the block present")
	}
	want := []PreemptionStrategy{LessThanOrEqualToFinalShare, LessThanInitialShare}
	if got := cfg.PreemptionStrategies(); !slices.Equal(got, want) {
		t.Errorf("PreemptionStrategies() = %v; want %v", got, want)
	}
	if Default().PreemptionStrategies() != nil {
		t.Error("strategies reported with fair sharing off")
	}
}

func clusterQueue(name string, policy kueue.BorrowWithinCohortPolicy) kueue.ClusterQueue {
	cq := kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if policy != "-" {
		cq.Spec.Preemption = &kueue.ClusterQueuePreemption{
			ReclaimWithinCohort: kueue.PreemptionPolicyAny,
			BorrowWithinCohort:  &kueue.BorrowWithinCohort{Policy: policy},
		}
	}
	return cq
}

// 002: "borrowWithinCohort combined with fair sharing ... is rejected".
func TestBorrowWithinCohortWithFairSharingIsRejected(t *testing.T) {
	t.Parallel()
	fair, err := Decode([]byte(header + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cqs := []kueue.ClusterQueue{
		clusterQueue("no-preemption", "-"),
		clusterQueue("never", kueue.BorrowWithinCohortPolicyNever),
		clusterQueue("unset", ""),
		clusterQueue("research", kueue.BorrowWithinCohortPolicyLowerPriority),
	}
	errs := ValidateAgainstClusterQueues(fair, cqs)
	if len(errs) != 1 {
		t.Fatalf("ValidateAgainstClusterQueues = %v; want exactly one error, for research", errs)
	}
	wantField(t, errs, "clusterQueues[research].spec.preemption.borrowWithinCohort.policy", "LowerPriority", "fair sharing")

	one := cqs[3]
	wantField(t, fair.ValidateClusterQueue(&one), "spec.preemption.borrowWithinCohort.policy")

	// Classic preemption: borrowWithinCohort is fine.
	if errs := ValidateAgainstClusterQueues(Default(), cqs); len(errs) != 0 {
		t.Errorf("without fair sharing: %v; want no errors", errs)
	}
}

// Kueue v0.17 exports the LocalQueue gauges when both its LocalQueueMetrics
// gate and metrics.localQueueMetrics.enable (default true) say so, for the
// LocalQueues localQueueSelector matches (LocalQueueMetricsConfig).
func TestLocalQueueMetricsFollowGateAndBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		enabled   bool
		selector  bool
	}{
		{"defaults", header, true, false},
		{"enable false", header + "metrics:\n  localQueueMetrics:\n    enable: false\n", false, false},
		{"gate off", header + "featureGates: {LocalQueueMetrics: false}\n", false, false},
		{"a selector", header + "metrics:\n  localQueueMetrics:\n    enable: true\n    localQueueSelector: {matchLabels: {team: a}}\n", true, true},
	} {
		cfg, err := Decode([]byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := cfg.LocalQueueMetricsEnabled(); got != tc.enabled {
			t.Errorf("%s: enabled %v, want %v", tc.name, got, tc.enabled)
		}
		if got := cfg.LocalQueueMetricsSelector() != nil; got != tc.selector {
			t.Errorf("%s: a selector %v, want %v", tc.name, got, tc.selector)
		}
	}
}
