package metrics

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/labels"
)

// histogramSums is the sample sum of each series of a histogram family, keyed
// as histogramCounts keys them.
func histogramSums(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for k, h := range histograms(t, reg, name) {
		out[k] = h.sum
	}
	return out
}

// families is the names of the families reg gathers.
func families(t *testing.T, reg prometheus.Gatherer) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		out = append(out, mf.GetName())
	}
	return out
}

// Kueue's kueue_finished_workloads_total and its LocalQueue twin
// (pkg/metrics/metrics.go, IncrementFinishedWorkloadTotal and
// IncrementLocalQueueFinishedWorkloadTotal, called by the workload
// controller's reportFinishedWorkload): cluster_queue, priority_class and
// replica_role, and name, namespace, priority_class and replica_role. A
// workload that finished without admission is counted under
// cluster_queue="" (its status.admission is nil) and in no LocalQueue.
func TestFinishedWorkloadsTotal(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true})
	admitted := Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq", PriorityClass: "high"}
	m.Finished(admitted)
	m.Finished(admitted)
	m.Finished(Workload{Namespace: "ns", LocalQueue: "lq"})
	// The caller found no LocalQueue for it (deleted before it finished).
	m.Finished(Workload{ClusterQueue: "cq", Namespace: "ns"})

	want := `
# HELP kueue_finished_workloads_total The total number of workloads that finished, per cluster_queue (of their admission, empty if never admitted) and priority_class
# TYPE kueue_finished_workloads_total counter
kueue_finished_workloads_total{cluster_queue="",priority_class="",replica_role="leader"} 1
kueue_finished_workloads_total{cluster_queue="cq",priority_class="",replica_role="leader"} 1
kueue_finished_workloads_total{cluster_queue="cq",priority_class="high",replica_role="leader"} 2
# HELP kueue_local_queue_finished_workloads_total The total number of admitted workloads that finished, per LocalQueue and priority_class
# TYPE kueue_local_queue_finished_workloads_total counter
kueue_local_queue_finished_workloads_total{name="lq",namespace="ns",priority_class="high",replica_role="leader"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"kueue_finished_workloads_total", "kueue_local_queue_finished_workloads_total"); err != nil {
		t.Error(err)
	}
}

// kueue_execution_time_seconds and its LocalQueue twin (Kueue's
// ReportExecutionTime and ReportLocalQueueExecutionTime) observe the seconds
// given, a negative duration as 0 (Kueue's max(0, ...)).
func TestExecutionTimeSeconds(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true})
	w := Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq"}
	m.Executed(w, 90*time.Second)
	m.Executed(w, -5*time.Second)
	cq := "cluster_queue=cq,priority_class=,replica_role=leader"
	lq := "name=lq,namespace=ns,priority_class=,replica_role=leader"
	for name, key := range map[string]string{
		"kueue_execution_time_seconds":             cq,
		"kueue_local_queue_execution_time_seconds": lq,
	} {
		if got := histogramCounts(t, reg, name); len(got) != 1 || got[key] != 2 {
			t.Errorf("%s counts %v, want 2 observations for %s", name, got, key)
		}
		if got := histogramSums(t, reg, name)[key]; got != 90 {
			t.Errorf("%s sum %v, want 90 (the negative one as 0)", name, got)
		}
	}
}

// The ready wait histograms (Kueue's ReadyWaitTime, ReportAdmittedUntilReadyWaitTime
// and their LocalQueue twins) observe both durations under the workload's
// labels.
func TestReadyWaitTimes(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true})
	m.PodsReady(Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq", PriorityClass: "low"}, 30*time.Second, 12*time.Second)
	cq := "cluster_queue=cq,priority_class=low,replica_role=leader"
	lq := "name=lq,namespace=ns,priority_class=low,replica_role=leader"
	for name, want := range map[string]struct {
		key string
		sum float64
	}{
		"kueue_ready_wait_time_seconds":                            {cq, 30},
		"kueue_admitted_until_ready_wait_time_seconds":             {cq, 12},
		"kueue_local_queue_ready_wait_time_seconds":                {lq, 30},
		"kueue_local_queue_admitted_until_ready_wait_time_seconds": {lq, 12},
	} {
		if got := histogramCounts(t, reg, name); len(got) != 1 || got[want.key] != 1 {
			t.Errorf("%s counts %v, want one observation for %s", name, got, want.key)
		}
		if got := histogramSums(t, reg, name)[want.key]; got != want.sum {
			t.Errorf("%s sum %v, want %v", name, got, want.sum)
		}
	}
}

// kueue_pods_ready_to_evicted_time_seconds (Kueue's
// ReportPodsReadyToEvictedTimeSeconds) is labelled cluster_queue, reason,
// underlying_cause and replica_role, without priority_class;
// kueue_workload_eviction_latency_seconds (ReportWorkloadEvictionLatency)
// cluster_queue, reason and replica_role, a negative latency observed as 0.
func TestEvictionHistograms(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader})
	m.PodsReadyToEvicted("cq", "Deactivated", "MaximumExecutionTimeExceeded", 7*time.Second)
	m.PodsReadyToEvicted("cq", "Preempted", "", 3*time.Second)
	m.EvictionLatency("cq", "Preempted", 2*time.Second)
	m.EvictionLatency("cq", "Preempted", -time.Second)

	ready := histogramSums(t, reg, "kueue_pods_ready_to_evicted_time_seconds")
	wantReady := map[string]float64{
		"cluster_queue=cq,reason=Deactivated,replica_role=leader,underlying_cause=MaximumExecutionTimeExceeded": 7,
		"cluster_queue=cq,reason=Preempted,replica_role=leader,underlying_cause=":                               3,
	}
	if len(ready) != len(wantReady) {
		t.Errorf("kueue_pods_ready_to_evicted_time_seconds sums %v, want %v", ready, wantReady)
	}
	for k, v := range wantReady {
		if ready[k] != v {
			t.Errorf("kueue_pods_ready_to_evicted_time_seconds{%s} sum %v, want %v", k, ready[k], v)
		}
	}
	key := "cluster_queue=cq,reason=Preempted,replica_role=leader"
	if got := histogramCounts(t, reg, "kueue_workload_eviction_latency_seconds"); len(got) != 1 || got[key] != 2 {
		t.Errorf("kueue_workload_eviction_latency_seconds counts %v, want 2 for %s", got, key)
	}
	if got := histogramSums(t, reg, "kueue_workload_eviction_latency_seconds")[key]; got != 2 {
		t.Errorf("kueue_workload_eviction_latency_seconds sum %v, want 2 (the negative one as 0)", got)
	}
}

// Kueue's buckets: generateExponentialBuckets(16) for the execution time
// histograms, (14) for the ready waits, pods ready to eviction and eviction
// latency.
func TestLifecycleBucketsAreKueues(t *testing.T) {
	t.Parallel()
	m, reg := registered(t, Options{ReplicaRole: leader, LocalQueue: true})
	w := Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq"}
	m.Executed(w, time.Second)
	m.PodsReady(w, time.Second, time.Second)
	m.PodsReadyToEvicted("cq", "Preempted", "", time.Second)
	m.EvictionLatency("cq", "Preempted", time.Second)
	kueue16 := []float64{1, 2.5, 5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960}
	kueue14 := kueue16[:14]
	for name, want := range map[string][]float64{
		"kueue_execution_time_seconds":                             kueue16,
		"kueue_local_queue_execution_time_seconds":                 kueue16,
		"kueue_ready_wait_time_seconds":                            kueue14,
		"kueue_admitted_until_ready_wait_time_seconds":             kueue14,
		"kueue_local_queue_ready_wait_time_seconds":                kueue14,
		"kueue_local_queue_admitted_until_ready_wait_time_seconds": kueue14,
		"kueue_pods_ready_to_evicted_time_seconds":                 kueue14,
		"kueue_workload_eviction_latency_seconds":                  kueue14,
	} {
		if got := bucketBounds(t, reg, name); !slices.Equal(got, want) {
			t.Errorf("%s buckets = %v, want Kueue's %v", name, got, want)
		}
	}
}

// The LocalQueue twins are registered only with LocalQueue metrics (Kueue's
// RegisterLQMetrics) and follow the LocalQueue selector; the ClusterQueue
// families are registered by default.
func TestLifecycleLocalQueueTwins(t *testing.T) {
	t.Parallel()
	lqFamilies := []string{"kueue_local_queue_finished_workloads_total", "kueue_local_queue_execution_time_seconds",
		"kueue_local_queue_ready_wait_time_seconds", "kueue_local_queue_admitted_until_ready_wait_time_seconds"}
	observe := func(m *Metrics, w Workload) {
		m.Finished(w)
		m.Executed(w, time.Second)
		m.PodsReady(w, time.Second, time.Second)
	}
	m, reg := registered(t, Options{ReplicaRole: leader})
	observe(m, Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq"})
	got := families(t, reg)
	for _, name := range lqFamilies {
		if slices.Contains(got, name) {
			t.Errorf("%s exported without LocalQueue metrics", name)
		}
	}
	for _, name := range []string{"kueue_finished_workloads_total", "kueue_execution_time_seconds",
		"kueue_ready_wait_time_seconds", "kueue_admitted_until_ready_wait_time_seconds"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s not exported by default", name)
		}
	}

	m, reg = registered(t, Options{ReplicaRole: leader, LocalQueue: true,
		LocalQueueSelector: labels.SelectorFromSet(labels.Set{"metrics": "on"}),
		LocalQueueLabels: func(namespace, _ string) map[string]string {
			if namespace == "kept" {
				return map[string]string{"metrics": "on"}
			}
			return nil
		}})
	observe(m, Workload{ClusterQueue: "cq", Namespace: "kept", LocalQueue: "lq"})
	observe(m, Workload{ClusterQueue: "cq", Namespace: "skipped", LocalQueue: "lq"})
	for _, name := range lqFamilies[1:] {
		var series []string
		for k := range histogramCounts(t, reg, name) {
			series = append(series, k)
		}
		if len(series) != 1 || !strings.Contains(series[0], "namespace=kept") {
			t.Errorf("%s series %v, want only kept/lq's", name, series)
		}
	}
	want := `
# HELP kueue_local_queue_finished_workloads_total The total number of admitted workloads that finished, per LocalQueue and priority_class
# TYPE kueue_local_queue_finished_workloads_total counter
kueue_local_queue_finished_workloads_total{name="lq",namespace="kept",priority_class="",replica_role="leader"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), lqFamilies[0]); err != nil {
		t.Error(err)
	}
}

// kueue_finished_workloads and kueue_local_queue_finished_workloads (Kueue:
// pkg/cache/queue/metrics.go, reportCQFinishedWorkloads and
// reportLQFinishedWorkloads): the finished Workloads of each LocalQueue, and
// per ClusterQueue those of the LocalQueues pointing to it; a finished
// Workload whose LocalQueue does not exist is in neither. Every queue is
// reported, at 0 without any; the LocalQueue gauge needs LocalQueue metrics
// and follows the selector; a snapshot that could not count reports neither.
func TestFinishedWorkloadGauges(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "follower",
		ClusterQueues: []ClusterQueue{{Name: "cq-a"}, {Name: "cq-b"}},
		LocalQueues: []LocalQueue{
			{Namespace: "ns1", Name: "lq", ClusterQueue: "cq-a", Labels: map[string]string{"metrics": "on"}},
			{Namespace: "ns2", Name: "lq", ClusterQueue: "cq-a"},
			{Namespace: "ns3", Name: "lq", ClusterQueue: "cq-b", Labels: map[string]string{"metrics": "on"}},
		},
		Finished: FinishedWorkloads{
			{Namespace: "ns1", Name: "lq"}:      2,
			{Namespace: "ns2", Name: "lq"}:      3,
			{Namespace: "ns1", Name: "missing"}: 5,
		},
	}
	cq := `
# HELP kueue_finished_workloads The number of finished workloads that exist, per cluster_queue (of their LocalQueue)
# TYPE kueue_finished_workloads gauge
kueue_finished_workloads{cluster_queue="cq-a",replica_role="follower"} 5
kueue_finished_workloads{cluster_queue="cq-b",replica_role="follower"} 0
`
	lq := `
# HELP kueue_local_queue_finished_workloads The number of finished workloads that exist, per LocalQueue
# TYPE kueue_local_queue_finished_workloads gauge
kueue_local_queue_finished_workloads{name="lq",namespace="ns1",replica_role="follower"} 2
kueue_local_queue_finished_workloads{name="lq",namespace="ns3",replica_role="follower"} 0
`
	names := []string{"kueue_finished_workloads", "kueue_local_queue_finished_workloads"}
	g := newGaugeCollector(Options{LocalQueue: true, LocalQueueSelector: labels.SelectorFromSet(labels.Set{"metrics": "on"})},
		func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(cq+lq), names...); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(cq), names...); err != nil {
		t.Errorf("without LocalQueue metrics: %v", err)
	}
	uncounted := snap
	uncounted.Finished = nil
	g = newGaugeCollector(Options{LocalQueue: true}, func() Snapshot { return uncounted })
	if n := testutil.CollectAndCount(g, names...); n != 0 {
		t.Errorf("%d samples from a snapshot that could not count", n)
	}
}

// The histograms of the lifecycle carry the role at the moment they change.
func TestLifecycleRoleIsReadAtObservation(t *testing.T) {
	t.Parallel()
	role := "follower"
	m, reg := registered(t, Options{ReplicaRole: func() string { return role }})
	m.EvictionLatency("cq", "Preempted", time.Second)
	role = "leader"
	m.EvictionLatency("cq", "Preempted", 2*time.Second)
	got := histogramCounts(t, reg, "kueue_workload_eviction_latency_seconds")
	if got["cluster_queue=cq,reason=Preempted,replica_role=follower"] != 1 || got["cluster_queue=cq,reason=Preempted,replica_role=leader"] != 1 {
		t.Errorf("series %v, want one follower and one leader observation", got)
	}
}
