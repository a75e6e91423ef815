package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/labels"
)

// registered builds the metrics and registers its collectors, as Start does,
// without the manager.
func registered(t *testing.T, opts Options) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m := New(reg, opts, func() Snapshot { return Snapshot{} })
	for _, c := range m.collectors {
		if err := reg.Register(c); err != nil {
			t.Fatalf("registering: %v", err)
		}
	}
	return m, reg
}

func leader() string { return "leader" }

// histogramCounts is the sample count of each series of a histogram family,
// keyed by its labels as name=value pairs joined by commas, in label order.
func histogramCounts(t *testing.T, reg prometheus.Gatherer, name string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for k, h := range histograms(t, reg, name) {
		out[k] = h.count
	}
	return out
}

// histogramSeries is one histogram series' sample count and sum.
type histogramSeries struct {
	count uint64
	sum   float64
}

// histograms is every series of a histogram family, keyed as
// histogramCounts keys them.
func histograms(t *testing.T, reg prometheus.Gatherer, name string) map[string]histogramSeries {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]histogramSeries{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, p := range m.GetLabel() {
				parts = append(parts, p.GetName()+"="+p.GetValue())
			}
			out[strings.Join(parts, ",")] = histogramSeries{count: m.GetHistogram().GetSampleCount(), sum: m.GetHistogram().GetSampleSum()}
		}
	}
	return out
}

// Kueue's counters and histograms carry the workload's priority_class and
// the replica_role at the moment they change; an admission counts as a quota
// reservation too, since Quokka reserves and admits in one write.
func TestClusterQueueCounterLabels(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader})
	high := Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq", PriorityClass: "high"}
	none := Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq"}
	m.Admitted(high, 3*time.Second)
	m.Admitted(high, 4*time.Second)
	m.Admitted(none, time.Second)
	m.Evicted(high, "Preempted", "", true)
	m.Evicted(high, "Preempted", "", false) // its second preemption
	m.Evicted(none, "Deactivated", "MaximumExecutionTimeExceeded", true)
	m.Preempted("cq", "InClusterQueue")
	m.AdmissionAttempt(ResultSuccess, time.Millisecond)

	want := `
# HELP kueue_admitted_workloads_total The total number of admitted workloads per cluster_queue and priority_class
# TYPE kueue_admitted_workloads_total counter
kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="leader"} 1
kueue_admitted_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 2
# HELP kueue_quota_reserved_workloads_total The total number of workloads that got quota reserved, per cluster_queue and priority_class (without admission checks, the admitted ones)
# TYPE kueue_quota_reserved_workloads_total counter
kueue_quota_reserved_workloads_total{cluster_queue="cq",priority_class="",replica_role="leader"} 1
kueue_quota_reserved_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 2
# HELP kueue_evicted_workloads_total The number of evicted workloads per cluster_queue, reason and priority_class; underlying_cause is the cause of a Deactivated eviction (MaximumExecutionTimeExceeded), else empty
# TYPE kueue_evicted_workloads_total counter
kueue_evicted_workloads_total{cluster_queue="cq",priority_class="",reason="Deactivated",replica_role="leader",underlying_cause="MaximumExecutionTimeExceeded"} 1
kueue_evicted_workloads_total{cluster_queue="cq",priority_class="high",reason="Preempted",replica_role="leader",underlying_cause=""} 2
# HELP kueue_evicted_workloads_once_total The number of workloads evicted for the first time for a reason and underlying_cause, per cluster_queue and priority_class
# TYPE kueue_evicted_workloads_once_total counter
kueue_evicted_workloads_once_total{cluster_queue="cq",priority_class="",reason="Deactivated",replica_role="leader",underlying_cause="MaximumExecutionTimeExceeded"} 1
kueue_evicted_workloads_once_total{cluster_queue="cq",priority_class="high",reason="Preempted",replica_role="leader",underlying_cause=""} 1
# HELP kueue_preempted_workloads_total The number of preempted workloads per preempting_cluster_queue and reason
# TYPE kueue_preempted_workloads_total counter
kueue_preempted_workloads_total{preempting_cluster_queue="cq",reason="InClusterQueue",replica_role="leader"} 1
# HELP kueue_admission_attempts_total The total number of attempts to admit workloads; result is success when at least one workload was admitted in the cycle, inadmissible otherwise
# TYPE kueue_admission_attempts_total counter
kueue_admission_attempts_total{replica_role="leader",result="success"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_admitted_workloads_total",
		"kueue_quota_reserved_workloads_total", "kueue_evicted_workloads_total", "kueue_evicted_workloads_once_total", "kueue_preempted_workloads_total",
		"kueue_admission_attempts_total"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"kueue_admission_wait_time_seconds", "kueue_quota_reserved_wait_time_seconds"} {
		got := histogramCounts(t, reg, name)
		wantCounts := map[string]uint64{
			"cluster_queue=cq,priority_class=,replica_role=leader":     1,
			"cluster_queue=cq,priority_class=high,replica_role=leader": 2,
		}
		if len(got) != len(wantCounts) {
			t.Errorf("%s: %v, want %v", name, got, wantCounts)
		}
		for k, v := range wantCounts {
			if got[k] != v {
				t.Errorf("%s{%s}: %d observations, want %d", name, k, got[k], v)
			}
		}
	}
	if got := histogramCounts(t, reg, "kueue_admission_attempt_duration_seconds"); got["replica_role=leader,result=success"] != 1 {
		t.Errorf("kueue_admission_attempt_duration_seconds: %v, want one success observation for the leader", got)
	}
	// Without LocalQueue metrics the LocalQueue families are neither
	// registered nor counted.
	if n := testutil.CollectAndCount(m.lqAdmitted) + testutil.CollectAndCount(m.lqEvicted) +
		testutil.CollectAndCount(m.lqQuotaReserved); n != 0 {
		t.Errorf("%d LocalQueue counter series without LocalQueue metrics", n)
	}
}

// With LocalQueue metrics, admissions and evictions are counted per
// LocalQueue too, for the LocalQueues the selector keeps.
func TestLocalQueueCounters(t *testing.T) {
	t.Parallel()
	lqLabels := map[string]string{"metrics": "on"}
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true,
		LocalQueueSelector: labels.SelectorFromSet(labels.Set{"metrics": "on"}),
		LocalQueueLabels: func(namespace, name string) map[string]string {
			if namespace == "team-a" {
				return lqLabels
			}
			return nil
		}})
	kept := Workload{ClusterQueue: "cq", Namespace: "team-a", LocalQueue: "lq", PriorityClass: "high"}
	skipped := Workload{ClusterQueue: "cq", Namespace: "team-b", LocalQueue: "lq", PriorityClass: "high"}
	m.Admitted(kept, 2*time.Second)
	m.Admitted(skipped, 2*time.Second)
	m.Evicted(kept, "PodsReadyTimeout", "WaitForStart", true)
	m.Evicted(skipped, "PodsReadyTimeout", "WaitForStart", true)

	want := `
# HELP kueue_local_queue_admitted_workloads_total The total number of admitted workloads per LocalQueue and priority_class
# TYPE kueue_local_queue_admitted_workloads_total counter
kueue_local_queue_admitted_workloads_total{name="lq",namespace="team-a",priority_class="high",replica_role="leader"} 1
# HELP kueue_local_queue_quota_reserved_workloads_total The total number of workloads that got quota reserved, per LocalQueue and priority_class
# TYPE kueue_local_queue_quota_reserved_workloads_total counter
kueue_local_queue_quota_reserved_workloads_total{name="lq",namespace="team-a",priority_class="high",replica_role="leader"} 1
# HELP kueue_local_queue_evicted_workloads_total The number of evicted workloads per LocalQueue, reason, underlying_cause and priority_class
# TYPE kueue_local_queue_evicted_workloads_total counter
kueue_local_queue_evicted_workloads_total{name="lq",namespace="team-a",priority_class="high",reason="PodsReadyTimeout",replica_role="leader",underlying_cause="WaitForStart"} 1
# HELP kueue_admitted_workloads_total The total number of admitted workloads per cluster_queue and priority_class
# TYPE kueue_admitted_workloads_total counter
kueue_admitted_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_local_queue_admitted_workloads_total",
		"kueue_local_queue_quota_reserved_workloads_total", "kueue_local_queue_evicted_workloads_total",
		"kueue_admitted_workloads_total"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"kueue_local_queue_admission_wait_time_seconds", "kueue_local_queue_quota_reserved_wait_time_seconds"} {
		got := histogramCounts(t, reg, name)
		if len(got) != 1 || got["name=lq,namespace=team-a,priority_class=high,replica_role=leader"] != 1 {
			t.Errorf("%s: %v, want one observation for team-a/lq", name, got)
		}
	}
}

// The replica_role of a counter is the role when it changes: a follower
// that becomes leader counts under leader from then on.
func TestCounterRoleIsReadAtIncrement(t *testing.T) {
	t.Parallel()
	role := "follower"
	m, reg := registered(t, Options{ReplicaRole: func() string { return role }})
	m.AdmissionAttempt(ResultInadmissible, time.Millisecond)
	role = "leader"
	m.AdmissionAttempt(ResultInadmissible, time.Millisecond)
	want := `
# HELP kueue_admission_attempts_total The total number of attempts to admit workloads; result is success when at least one workload was admitted in the cycle, inadmissible otherwise
# TYPE kueue_admission_attempts_total counter
kueue_admission_attempts_total{replica_role="follower",result="inadmissible"} 1
kueue_admission_attempts_total{replica_role="leader",result="inadmissible"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_admission_attempts_total"); err != nil {
		t.Error(err)
	}
}
