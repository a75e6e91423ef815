package job

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// CreationLatency is kueue_workload_creation_latency_seconds{job_kind,
// replica_role}: the time from a Job's creation to its Workload's, observed by
// the replica that creates the Workload (Kueue's jobframework
// RecordWorkloadCreationLatency, behind its MetricForWorkloadCreationLatency
// gate, beta and on since v0.18). A nil CreationLatency observes nothing.
type CreationLatency struct {
	hist *prometheus.HistogramVec
	role string
}

// NewCreationLatency registers the histogram with reg. role is the
// replica_role label of every observation: the Job reconciler runs on the
// leader only, so it is leader with leader election and standalone without.
// A histogram another manager of the process registered first is shared,
// since observations of one process go to one series either way.
func NewCreationLatency(reg prometheus.Registerer, role string) (*CreationLatency, error) {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kueue_workload_creation_latency_seconds",
		Help:    "The time between a Job's creation and its Workload's, per job_kind; observed only for Jobs of generation 1",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 11),
	}, []string{"job_kind", "replica_role"})
	if err := reg.Register(h); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			return nil, fmt.Errorf("registering kueue_workload_creation_latency_seconds: %w", err)
		}
		existing, ok := already.ExistingCollector.(*prometheus.HistogramVec)
		if !ok {
			return nil, fmt.Errorf("registering kueue_workload_creation_latency_seconds: another collector has the name: %w", err)
		}
		h = existing
	}
	return &CreationLatency{hist: h, role: role}, nil
}

// observe records the latency of wl, just created for job. A Job whose spec
// changed since its creation (generation above 1) is skipped, as in Kueue: its
// Workload may have been created again for the new spec, long after the Job.
func (c *CreationLatency) observe(job *batchv1.Job, wl *kueue.Workload) {
	if c == nil || job.Generation > 1 {
		return
	}
	latency := wl.CreationTimestamp.Sub(job.CreationTimestamp.Time)
	c.hist.WithLabelValues(jobGVK.Kind, c.role).Observe(latency.Seconds())
}
