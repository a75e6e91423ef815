package adapter

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/simulator"
)

// The simulator decides with the options the manager would: the manager's
// reading of the Configuration (scheduler.OptionsFromConfiguration), for every
// feature gate on and off and with every block that reaches the engine, but
// for two things of the simulator's own: quiet cycles, and waitForPodsReady
// only where some job's pods take time to be ready (without that, a block
// would make every admitted workload wait for a PodsReady no one sets).
func TestSimulatorEngineOptionsAreTheManagers(t *testing.T) {
	base := func() *configapi.Configuration {
		cfg := configapi.Default()
		cfg.FairSharing = &configapi.FairSharing{PreemptionStrategies: []configapi.PreemptionStrategy{configapi.LessThanOrEqualToFinalShare}}
		cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{UsageHalfLifeTime: metav1.Duration{Duration: time.Hour}}
		cfg.WaitForPodsReady = &configapi.WaitForPodsReady{Timeout: metav1.Duration{Duration: 5 * time.Minute}}
		cfg.Resources = &configapi.Resources{ExcludeResourcePrefixes: []string{"example.com/"}}
		return cfg
	}
	check := func(name string, cfg *configapi.Configuration) {
		t.Helper()
		want := scheduler.OptionsFromConfiguration(cfg)
		got := SchedulerOptions(simulator.EngineOptions{Configuration: cfg, PodsReadyModelled: true})
		if !got.QuietCycles {
			t.Errorf("%s: the simulator's cycles must be quiet", name)
		}
		got.QuietCycles = want.QuietCycles
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the simulator's engine options\n  %+v\nare not the manager's\n  %+v", name, got, want)
		}
		if got := SchedulerOptions(simulator.EngineOptions{Configuration: cfg}); got.WaitForPodsReady != nil {
			t.Errorf("%s: waitForPodsReady reaches the engine of a simulation whose pods are all ready at admission", name)
		}
	}
	check("defaults with every block", base())
	for gate := range configapi.KnownFeatures() {
		for _, on := range []bool{true, false} {
			cfg := base()
			cfg.FeatureGates = map[string]bool{string(gate): on}
			check(string(gate)+"="+map[bool]string{true: "on", false: "off"}[on], cfg)
		}
	}
}
