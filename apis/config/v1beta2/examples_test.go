package v1beta2

import (
	"path/filepath"
	"testing"
)

// Every Configuration under examples/config loads, so the examples cannot rot.
func TestExampleConfigurationsLoad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "config", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples/config/*.yaml: the examples the README lists are gone")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			if _, err := Load(f); err != nil {
				t.Errorf("Load(%s): %v", f, err)
			}
		})
	}
}

func TestExampleFairSharingMatchesTheSpec(t *testing.T) {
	t.Parallel()
	cfg, err := Load(filepath.Join("..", "..", "..", "examples", "config", "fair-sharing.yaml"))
	if err != nil {
		t.Fatalf("examples/config/fair-sharing.yaml: %v", err)
	}
	if !cfg.FairSharingEnabled() || !cfg.Metrics.EnableClusterQueueResources {
		t.Errorf("fair-sharing.yaml: fairSharing=%v enableClusterQueueResources=%v; want both on",
			cfg.FairSharingEnabled(), cfg.Metrics.EnableClusterQueueResources)
	}
}
