package metrics

import (
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
