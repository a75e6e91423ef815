package metrics

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"quokka.dev/quokka/internal/version"
)

// Histograms have Kueue's bucket bounds (pkg/metrics/metrics.go:
// generateExponentialBuckets(16) for kueue_admission_wait_time_seconds, (14)
// for the other wait times, the client's default buckets for
// kueue_admission_attempt_duration_seconds), because a dashboard or an SLO
// reads a single bucket, such as le="10", and a bound Kueue does not have is
// a series that is not there.
func TestHistogramBucketsAreKueues(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true})
	m.Admitted(Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq"}, 3*time.Second)
	m.AdmissionAttempt(ResultSuccess, time.Millisecond)
	kueue16 := []float64{1, 2.5, 5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960}
	kueue14 := kueue16[:14]
	for name, want := range map[string][]float64{
		"kueue_admission_wait_time_seconds":                  kueue16,
		"kueue_quota_reserved_wait_time_seconds":             kueue14,
		"kueue_local_queue_admission_wait_time_seconds":      kueue14,
		"kueue_local_queue_quota_reserved_wait_time_seconds": kueue14,
		"kueue_admission_attempt_duration_seconds":           prometheus.DefBuckets,
	} {
		if got := bucketBounds(t, reg, name); !slices.Equal(got, want) {
			t.Errorf("%s buckets = %v, want Kueue's %v", name, got, want)
		}
	}
}

// bucketBounds is the upper bounds of the first series of a histogram family.
func bucketBounds(t *testing.T, reg prometheus.Gatherer, name string) []float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.GetMetric()) == 0 {
			continue
		}
		var out []float64
		for _, b := range mf.GetMetric()[0].GetHistogram().GetBucket() {
			out = append(out, b.GetUpperBound())
		}
		return out
	}
	t.Fatalf("no series of %s", name)
	return nil
}

// kueue_build_info is 1, with Kueue's label names, whatever Options say.
func TestBuildInfo(t *testing.T) {
	t.Parallel()
	_, reg := registered(t, Options{})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "kueue_build_info" {
			continue
		}
		if len(mf.GetMetric()) != 1 || mf.GetMetric()[0].GetGauge().GetValue() != 1 {
			t.Fatalf("kueue_build_info = %v, want one series of value 1", mf.GetMetric())
		}
		got := map[string]string{}
		for _, l := range mf.GetMetric()[0].GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		info := version.Get()
		want := map[string]string{"git_version": info.Version, "git_commit": info.Commit, "build_date": info.BuildDate,
			"go_version": info.GoVersion, "compiler": info.Compiler, "platform": info.Platform}
		if !maps.Equal(got, want) {
			t.Errorf("kueue_build_info labels = %v, want %v", got, want)
		}
		if got["go_version"] == "" || got["compiler"] != "gc" || got["git_version"] == "" {
			t.Errorf("kueue_build_info labels %v: go_version, compiler and git_version must be set", got)
		}
		return
	}
	t.Fatal("kueue_build_info is not exported")
}
