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
	if o := OptionsFromConfiguration(plain); o.FairSharing != nil || o.DynamicQuotaOrchestration || o.WaitOnOverlappingTargets || o.NoPartialAdmission ||
		o.NoReclaimablePods || o.NoPrioritySortingWithinCohort || o.NoEquivalenceHashing {
		t.Errorf("defaults: %+v, want fair sharing and DQO off, recomputation upon overlapping targets, partial admission, reclaimable pods, priority sorting and equivalence hashing on", o)
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
		"featureGates:\n  DynamicQuotaOrchestration: true\n  RecomputeAssignmentUponPreemptionTargetsOverlap: false\n  PartialAdmission: false\n" +
		"  ReclaimablePods: false\n  PrioritySortingWithinCohort: false\n  SchedulingEquivalenceHashing: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := OptionsFromConfiguration(fs)
	if o.FairSharing == nil || len(o.FairSharing.PreemptionStrategies) != 2 || !o.DynamicQuotaOrchestration || !o.WaitOnOverlappingTargets || !o.NoPartialAdmission ||
		!o.NoReclaimablePods || !o.NoPrioritySortingWithinCohort || !o.NoEquivalenceHashing {
		t.Errorf("got %+v, want fair sharing with both strategies, DQO on, preemptors waiting on overlapping targets, and partial admission, reclaimable pods, priority sorting and equivalence hashing off", o)
	}
}

// The Configuration's resources block reaches the engine: excluded prefixes,
// and each transformation by its input, Retain by default (Kueue's default).
func TestOptionsFromConfigurationResources(t *testing.T) {
	cfg, err := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" +
		"resources:\n  excludeResourcePrefixes: [networking.example.com/]\n  transformations:\n" +
		"  - input: cpu\n    outputs:\n      cpu_credits: \"1\"\n" +
		"  - input: nvidia.com/gpumem\n    strategy: Replace\n    multiplyBy: nvidia.com/gpu\n    outputs:\n      example.com/total-gpumem: \"1\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := OptionsFromConfiguration(cfg).Resources
	if r == nil || len(r.ExcludePrefixes) != 1 || r.ExcludePrefixes[0] != "networking.example.com/" {
		t.Fatalf("resources %+v, want the excluded prefix", r)
	}
	cpu, mem := r.Transformations["cpu"], r.Transformations["nvidia.com/gpumem"]
	if cpu.Replace || cpu.Outputs.Name("cpu_credits", "").String() != "1" {
		t.Errorf("cpu transformation %+v, want Retain (the default) into 1 cpu_credits", cpu)
	}
	if !mem.Replace || mem.MultiplyBy != "nvidia.com/gpu" || mem.Outputs.Name("example.com/total-gpumem", "").String() != "1" {
		t.Errorf("gpumem transformation %+v, want Replace, multiplied by nvidia.com/gpu", mem)
	}
	if r.IgnoreUndeclared {
		t.Error("quotaCheckStrategy left out gave IgnoreUndeclared; Kueue's default is BlockUndeclared")
	}
	ig, err := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n  quotaCheckStrategy: IgnoreUndeclared\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := OptionsFromConfiguration(ig).Resources; r == nil || !r.IgnoreUndeclared {
		t.Errorf("quotaCheckStrategy IgnoreUndeclared gave %+v", r)
	}
	if plain, _ := config.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n")); OptionsFromConfiguration(plain).Resources != nil {
		t.Error("a Configuration without a resources block gave resource rules")
	}
}
