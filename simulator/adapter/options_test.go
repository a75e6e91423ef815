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

// The simulator decides with the options the manager would: for every feature
// gate Quokka knows, on and off, and with the Configuration's blocks that
// reach the engine (fair sharing, admission fair sharing, waitForPodsReady,
// resources), the simulator's options, through the adapter, are the
// manager's (scheduler.OptionsFromConfiguration), but for QuietCycles, a
// driver's choice. A gate added to one and not the other fails here.
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
		got := SchedulerOptions(simulator.EngineOptionsFromConfiguration(cfg, true))
		got.QuietCycles = want.QuietCycles
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the simulator's engine options\n  %+v\nare not the manager's\n  %+v", name, got, want)
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
