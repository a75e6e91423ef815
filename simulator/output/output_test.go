package output

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/simulator"
)

func TestFlavorsText(t *testing.T) {
	t.Parallel()
	same := simulator.Flavors{"main": {"cpu": "h100", "nvidia.com/gpu": "h100"}}
	if got := FlavorsText(same); got != "h100" {
		t.Errorf("one flavor: %q", got)
	}
	mixed := simulator.Flavors{"workers": {"nvidia.com/gpu": "a100"}, "main": {"cpu": "cpu-pool", "nvidia.com/gpu": "h100"}}
	if got := FlavorsText(mixed); got != "main: cpu=cpu-pool, nvidia.com/gpu=h100; workers: nvidia.com/gpu=a100" {
		t.Errorf("mixed: %q", got)
	}
}

func TestJSONShape(t *testing.T) {
	t.Parallel()
	r := &simulator.Result{
		End: 90 * time.Second,
		Events: []simulator.Event{
			{Time: 0, Type: simulator.Submitted, Workload: "ns/a", ClusterQueue: "cq"},
			{Time: 90 * time.Second, Type: simulator.Preempted, Workload: "ns/a", ClusterQueue: "cq", Reason: "InClusterQueue", Preemptor: "ns/b"},
		},
		Workloads: []simulator.WorkloadResult{{Name: "ns/a", State: simulator.StatePending, ClusterQueue: "cq", Reason: "InsufficientQuota"}},
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(buf.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	events := generic["events"].([]any)
	second := events[1].(map[string]any)
	if second["time"] != 90.0 || second["type"] != "Preempted" || second["preemptor"] != "ns/b" || second["reason"] != "InClusterQueue" {
		t.Errorf("event = %v", second)
	}
	if _, ok := events[0].(map[string]any)["flavors"]; ok {
		t.Errorf("empty fields must be left out: %v", events[0])
	}
	final := generic["final"].(map[string]any)
	if final["time"] != 90.0 || final["workloads"].([]any)[0].(map[string]any)["state"] != "Pending" {
		t.Errorf("final = %v", final)
	}
	if _, ok := generic["quotaUpdates"]; ok {
		t.Errorf("quotaUpdates must be left out when there are none")
	}
}

func TestQuantities(t *testing.T) {
	t.Parallel()
	got := quantities(resources.Amounts{
		{Flavor: "h100", Resource: corev1.ResourceCPU}:    96000,
		{Flavor: "h100", Resource: corev1.ResourceMemory}: 960 << 30,
		{Flavor: "h100", Resource: "nvidia.com/gpu"}:      8,
	})
	want := map[corev1.ResourceName]string{"cpu": "96", "memory": "960Gi", "nvidia.com/gpu": "8"}
	for r, q := range want {
		if got["h100"][r] != q {
			t.Errorf("%s = %q, want %q", r, got["h100"][r], q)
		}
	}
}
