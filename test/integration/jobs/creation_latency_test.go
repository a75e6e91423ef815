//go:build integration

package jobs

import (
	"context"
	"fmt"
	"testing"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// kueue_workload_creation_latency_seconds (Kueue's jobframework
// RecordWorkloadCreationLatency, gate MetricForWorkloadCreationLatency, on by
// default): creating a labelled Job adds one observation under job_kind Job
// and the manager's role, of the time between the two objects' creation
// timestamps as the API server set them.
func TestWorkloadCreationLatencyIsObserved(t *testing.T) {
	before, beforeSum := creationLatency(t)
	ns := newNamespace(t)
	j := gpuJob(ns, "latency", "research-gpu")
	if err := k8s.Create(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	wl := waitForWorkload(t, j)
	want := wl.CreationTimestamp.Sub(j.CreationTimestamp.Time).Seconds()
	eventually(t, "one more observation of the Workload's creation latency", func() error {
		after, afterSum := creationLatency(t)
		if after != before+1 {
			return fmt.Errorf("%d observations, want %d", after, before+1)
		}
		if got := afterSum - beforeSum; got != want {
			return fmt.Errorf("observed %v s, want %v s (the Job at %v, its Workload at %v)", got, want, j.CreationTimestamp, wl.CreationTimestamp)
		}
		return nil
	})
}

// creationLatency reads the histogram's count and sum for Jobs observed by a
// manager without leader election (this package's).
func creationLatency(t *testing.T) (uint64, float64) {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "kueue_workload_creation_latency_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["job_kind"] == "Job" && labels["replica_role"] == "standalone" {
				return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
			}
		}
	}
	return 0, 0
}
