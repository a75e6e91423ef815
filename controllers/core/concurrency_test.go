package core

import (
	"testing"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
)

// The core's Workload controller reconciles as many Workloads at once as the
// Configuration's controller.groupKindConcurrency gives Workload.kueue.x-k8s.io
// (Kueue's shipped configuration: 5), and 16 when it does not say.
func TestWorkloadConcurrencyFollowsTheConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		want int
	}{
		{"unset", "", defaultWorkloadConcurrency},
		{"other kinds only", "controller:\n  groupKindConcurrency:\n    Job.batch: 5\n", defaultWorkloadConcurrency},
		{"Kueue's shipped value", "controller:\n  groupKindConcurrency:\n    Job.batch: 5\n    Workload.kueue.x-k8s.io: 5\n", 5},
	} {
		cfg, err := configapi.Decode([]byte("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := workloadConcurrency(cfg); got != tc.want {
			t.Errorf("%s: %d Workloads at once, want %d", tc.name, got, tc.want)
		}
	}
}
