package job

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Port of Kueue's pkg/controller/jobframework/utils_test.go,
// TestRecordWorkloadCreationLatency, its "GenericJob" case (the
// LeaderWorkerSet and StatefulSet cases need integrations Quokka does not
// have): a Job of generation 2 is not observed; of generation 1, created 5 s
// before its Workload, it is observed as 5 s under job_kind Job.
func TestKueueRecordWorkloadCreationLatency(t *testing.T) {
	t.Run("GenericJob", func(t *testing.T) {
		reg := prometheus.NewRegistry()
		c, err := NewCreationLatency(reg, "standalone")
		if err != nil {
			t.Fatal(err)
		}
		base := time.Now().Truncate(time.Second)
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "test-job", Namespace: "default",
			CreationTimestamp: metav1.NewTime(base.Add(-5 * time.Second))}}
		wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "job-test-job", Namespace: "default",
			CreationTimestamp: metav1.NewTime(base)}}

		job.Generation = 2
		c.observe(job, wl)
		if n := testutil.CollectAndCount(c.hist); n != 0 {
			t.Errorf("a Job of generation 2 was observed: %d series", n)
		}
		job.Generation = 1
		c.observe(job, wl)
		count, sum := observed(t, reg, "Job", "standalone")
		if count != 1 || sum != 5 {
			t.Errorf("observed %d samples summing to %v s, want one of 5 s", count, sum)
		}
	})
}

// A second manager in the process (tests, a restart) shares the histogram the
// first registered instead of failing, and a nil CreationLatency (the gate
// off) observes nothing.
func TestCreationLatencyIsShared(t *testing.T) {
	reg := prometheus.NewRegistry()
	first, err := NewCreationLatency(reg, "leader")
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewCreationLatency(reg, "leader")
	if err != nil {
		t.Fatalf("a second registration failed: %v", err)
	}
	if first.hist != second.hist {
		t.Error("the second registration did not share the first's histogram")
	}
	var off *CreationLatency
	off.observe(&batchv1.Job{}, &kueue.Workload{})
	if _, err := NewCreationLatency(failingRegisterer{}, "leader"); err == nil {
		t.Error("a registry refusing the histogram gave no error")
	}
}

type failingRegisterer struct{ prometheus.Registerer }

func (failingRegisterer) Register(prometheus.Collector) error {
	return prometheus.AlreadyRegisteredError{ExistingCollector: prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})}
}

// observed is the sample count and sum of the series of job_kind and role.
func observed(t *testing.T, reg prometheus.Gatherer, kind, role string) (uint64, float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "kueue_workload_creation_latency_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["job_kind"] == kind && got["replica_role"] == role {
				return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
			}
		}
	}
	return 0, 0
}
