package scheduler

import (
	"testing"

	config "quokka.dev/quokka/apis/config/v1beta2"
)

// The manager's Configuration reaches the engine: fair sharing is on when the
// fairSharing block is present (002: "The manager turns fair sharing on when the
// block is present"), and the DQO and RecomputeAssignmentUponPreemptionTargetsOverlap
// gates are read once.
func TestOptionsFromConfiguration(t *testing.T) {
	plain, err := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := OptionsFromConfiguration(plain); o.FairSharing != nil || o.DynamicQuotaOrchestration || o.WaitOnOverlappingTargets {
		t.Errorf("defaults: %+v, want fair sharing and DQO off, and recomputation upon overlapping targets on", o)
	}
	if o := OptionsFromConfiguration(plain); o.WaitForPodsReady == nil || o.WaitForPodsReady.BlockAdmission {
		t.Errorf("defaults: waitForPodsReady %+v, want on (Kueue v0.19) without blockAdmission", o.WaitForPodsReady)
	}
	block, err := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" +
		"waitForPodsReady:\n  blockAdmission: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o := OptionsFromConfiguration(block); o.WaitForPodsReady == nil || !o.WaitForPodsReady.BlockAdmission {
		t.Errorf("waitForPodsReady.blockAdmission: true gave %+v, want BlockAdmission", o.WaitForPodsReady)
	}
	fs, err := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" +
		"fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n" +
		"featureGates:\n  DynamicQuotaOrchestration: true\n  RecomputeAssignmentUponPreemptionTargetsOverlap: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := OptionsFromConfiguration(fs)
	if o.FairSharing == nil || len(o.FairSharing.PreemptionStrategies) != 2 || !o.DynamicQuotaOrchestration || !o.WaitOnOverlappingTargets {
		t.Errorf("got %+v, want fair sharing with both strategies, DQO on and preemptors waiting on overlapping targets", o)
	}
}
