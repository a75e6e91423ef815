package metrics

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/labels"
)

func f(v float64) *float64 { return &v }

// 002: the chargeback gauges are labelled cohort, cluster_queue, flavor,
// resource and replica_role, and exported only with enableClusterQueueResources.
func TestClusterQueueResourceGauges(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{{
		Name: "research", Cohort: "ml-platform", PendingInadmissible: 1,
		Cells: []Cell{{Flavor: "h100", Resource: "nvidia.com/gpu", Usage: 48, Nominal: f(32), BorrowingLimit: f(16)}},
	}}}
	reg := prometheus.NewRegistry()
	m := New(reg, Options{ClusterQueueResources: true}, func() Snapshot { return snap })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Start(ctx) }()
	defer func() { cancel(); <-done }()

	want := `
# HELP kueue_cluster_queue_resource_usage The quota a ClusterQueue's admitted workloads hold, per flavor and resource
# TYPE kueue_cluster_queue_resource_usage gauge
kueue_cluster_queue_resource_usage{cluster_queue="research",cohort="ml-platform",flavor="h100",replica_role="leader",resource="nvidia.com/gpu"} 48
# HELP kueue_cluster_queue_borrowing_limit The borrowing limit of a ClusterQueue, per flavor and resource
# TYPE kueue_cluster_queue_borrowing_limit gauge
kueue_cluster_queue_borrowing_limit{cluster_queue="research",cohort="ml-platform",flavor="h100",replica_role="leader",resource="nvidia.com/gpu"} 16
`
	var err error
	for range 100 { // Start registers asynchronously
		if err = testutil.GatherAndCompare(reg, strings.NewReader(want),
			"kueue_cluster_queue_resource_usage", "kueue_cluster_queue_borrowing_limit"); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Error(err)
	}
}

// Without enableClusterQueueResources the per-flavor gauges are absent.
func TestResourceGaugesOffByDefault(t *testing.T) {
	t.Parallel()
	g := newGaugeCollector(Options{}, func() Snapshot {
		return Snapshot{ClusterQueues: []ClusterQueue{{Name: "q", Cells: []Cell{{Flavor: "f", Resource: "cpu", Usage: 1}}}}}
	})
	if n := testutil.CollectAndCount(g, "kueue_cluster_queue_resource_usage"); n != 0 {
		t.Errorf("%d resource usage samples without enableClusterQueueResources", n)
	}
	if n := testutil.CollectAndCount(g, "kueue_pending_workloads"); n != 2 {
		t.Errorf("%d kueue_pending_workloads samples, want active and inadmissible", n)
	}
}

// Kueue's kueue_cluster_queue_status: one series per status, 1 for the
// queue's own (pending when it cannot admit, terminating while it is being
// deleted) and 0 for the others.
func TestClusterQueueStatusGauge(t *testing.T) {
	t.Parallel()
	g := newGaugeCollector(Options{}, func() Snapshot {
		return Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{
			{Name: "going", Status: StatusTerminating}, {Name: "ready", Status: StatusActive}}}
	})
	want := `
# HELP kueue_cluster_queue_status Reports cluster_queue with its status (pending, active or terminating): 1 for the one it has, 0 for the others
# TYPE kueue_cluster_queue_status gauge
kueue_cluster_queue_status{cluster_queue="going",replica_role="leader",status="active"} 0
kueue_cluster_queue_status{cluster_queue="going",replica_role="leader",status="pending"} 0
kueue_cluster_queue_status{cluster_queue="going",replica_role="leader",status="terminating"} 1
kueue_cluster_queue_status{cluster_queue="ready",replica_role="leader",status="active"} 1
kueue_cluster_queue_status{cluster_queue="ready",replica_role="leader",status="pending"} 0
kueue_cluster_queue_status{cluster_queue="ready",replica_role="leader",status="terminating"} 0
`
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), "kueue_cluster_queue_status"); err != nil {
		t.Error(err)
	}
}

// Kueue v0.17's metrics.localQueueMetrics.localQueueSelector: only the
// LocalQueues whose labels it matches get the kueue_local_queue_* gauges.
func TestLocalQueueGaugesFollowTheSelector(t *testing.T) {
	t.Parallel()
	snap := Snapshot{LocalQueues: []LocalQueue{
		{Namespace: "a", Name: "team", Labels: map[string]string{"metrics": "on"}, PendingActive: 1},
		{Namespace: "b", Name: "team", Labels: map[string]string{"metrics": "off"}, PendingActive: 2},
		{Namespace: "c", Name: "team", PendingActive: 3},
	}}
	for _, tc := range []struct {
		name string
		sel  labels.Selector
		want int
	}{
		{"no selector: every LocalQueue", nil, 3},
		{"metrics=on", labels.SelectorFromSet(labels.Set{"metrics": "on"}), 1},
	} {
		g := newGaugeCollector(Options{LocalQueue: true, LocalQueueSelector: tc.sel}, func() Snapshot { return snap })
		// Two series (active, inadmissible) per LocalQueue.
		if n := testutil.CollectAndCount(g, "kueue_local_queue_pending_workloads"); n != 2*tc.want {
			t.Errorf("%s: %d kueue_local_queue_pending_workloads samples, want %d", tc.name, n, 2*tc.want)
		}
	}
}

// Kueue (main): kueue_local_queue_admission_fair_sharing_usage reports a
// LocalQueue's admission fair sharing usage, with its ClusterQueue, when
// admission fair sharing is configured; LocalQueues without it report none.
func TestLocalQueueAdmissionFairSharingUsageGauge(t *testing.T) {
	t.Parallel()
	usage := 14.0
	snap := Snapshot{ReplicaRole: "leader", LocalQueues: []LocalQueue{
		{Namespace: "default", Name: "lq-afs-metric", ClusterQueue: "cq-afs-metric", AFSUsage: &usage},
		{Namespace: "default", Name: "lq-plain", ClusterQueue: "cq-afs-metric"},
	}}
	g := newGaugeCollector(Options{LocalQueue: true}, func() Snapshot { return snap })
	want := `
# HELP kueue_local_queue_admission_fair_sharing_usage The LocalQueue's admission fair sharing usage: the resource-weighted sum of its decayed consumed resources, divided by its fair sharing weight
# TYPE kueue_local_queue_admission_fair_sharing_usage gauge
kueue_local_queue_admission_fair_sharing_usage{cluster_queue="cq-afs-metric",name="lq-afs-metric",namespace="default",replica_role="leader"} 14
`
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), "kueue_local_queue_admission_fair_sharing_usage"); err != nil {
		t.Error(err)
	}
}

// Kueue: pkg/cache/queue/manager_test.go, TestUpdateUnadmittedWorkload and
// TestUpdateUnadmittedWorkload_LQMetricsDisabled. kueue_unadmitted_workloads
// sums a ClusterQueue's LocalQueues per pair of reasons; the LocalQueue gauge
// is exported only with LocalQueue metrics, and neither counts a workload
// without a ClusterQueue.
func TestUnadmittedWorkloadGauges(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader", Unadmitted: []Unadmitted{
		{ClusterQueue: "cq", Namespace: "a", LocalQueue: "lq", Reason: "NoReservation", UnderlyingCause: "WaitingForQuota", Count: 2},
		{ClusterQueue: "cq", Namespace: "b", LocalQueue: "lq", Reason: "NoReservation", UnderlyingCause: "WaitingForQuota", Count: 3},
		{ClusterQueue: "cq", Namespace: "b", LocalQueue: "lq", Reason: "NoReservation", UnderlyingCause: "PendingEvaluation", Count: 1},
		{Reason: "NoReservation", UnderlyingCause: "Misconfigured", Count: 4},
	}}
	want := `
# HELP kueue_unadmitted_workloads The number of unadmitted workloads, per cluster_queue, reason (their Admitted condition's) and underlying_cause (their QuotaReserved condition's)
# TYPE kueue_unadmitted_workloads gauge
kueue_unadmitted_workloads{cluster_queue="cq",reason="NoReservation",replica_role="leader",underlying_cause="PendingEvaluation"} 1
kueue_unadmitted_workloads{cluster_queue="cq",reason="NoReservation",replica_role="leader",underlying_cause="WaitingForQuota"} 5
`
	wantLQ := `
# HELP kueue_local_queue_unadmitted_workloads The number of unadmitted workloads of a LocalQueue, per cluster_queue, reason and underlying_cause
# TYPE kueue_local_queue_unadmitted_workloads gauge
kueue_local_queue_unadmitted_workloads{cluster_queue="cq",name="lq",namespace="a",reason="NoReservation",replica_role="leader",underlying_cause="WaitingForQuota"} 2
kueue_local_queue_unadmitted_workloads{cluster_queue="cq",name="lq",namespace="b",reason="NoReservation",replica_role="leader",underlying_cause="PendingEvaluation"} 1
kueue_local_queue_unadmitted_workloads{cluster_queue="cq",name="lq",namespace="b",reason="NoReservation",replica_role="leader",underlying_cause="WaitingForQuota"} 3
`
	g := newGaugeCollector(Options{Unadmitted: true, LocalQueue: true}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(want+wantLQ),
		"kueue_unadmitted_workloads", "kueue_local_queue_unadmitted_workloads"); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{Unadmitted: true}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(want),
		"kueue_unadmitted_workloads", "kueue_local_queue_unadmitted_workloads"); err != nil {
		t.Errorf("without LocalQueue metrics: %v", err)
	}
	g = newGaugeCollector(Options{LocalQueue: true}, func() Snapshot { return snap })
	if n := testutil.CollectAndCount(g, "kueue_unadmitted_workloads", "kueue_local_queue_unadmitted_workloads"); n != 0 {
		t.Errorf("%d samples with the gate off", n)
	}
}

// Kueue's pending and active workload gauges carry replica_role; the
// reserving and admitted counts are the workloads holding quota (the same
// without admission checks). The LocalQueue ones need LocalQueue metrics.
func TestWorkloadCountGauges(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader",
		ClusterQueues: []ClusterQueue{{Name: "cq", PendingActive: 2, PendingInadmissible: 1, AdmittedWorkloads: 3}},
		LocalQueues: []LocalQueue{{Namespace: "ns", Name: "lq", ClusterQueue: "cq", PendingActive: 1, AdmittedWorkloads: 2,
			Active: ActiveTrue}},
	}
	cq := `
# HELP kueue_pending_workloads The number of pending workloads, per cluster_queue and status (active: waiting for a cycle; inadmissible: the last cycle could not admit it)
# TYPE kueue_pending_workloads gauge
kueue_pending_workloads{cluster_queue="cq",replica_role="leader",status="active"} 2
kueue_pending_workloads{cluster_queue="cq",replica_role="leader",status="inadmissible"} 1
# HELP kueue_reserving_active_workloads The number of workloads holding quota reserved in a ClusterQueue
# TYPE kueue_reserving_active_workloads gauge
kueue_reserving_active_workloads{cluster_queue="cq",replica_role="leader"} 3
# HELP kueue_admitted_active_workloads The number of admitted workloads of a ClusterQueue that have not finished
# TYPE kueue_admitted_active_workloads gauge
kueue_admitted_active_workloads{cluster_queue="cq",replica_role="leader"} 3
`
	lq := `
# HELP kueue_local_queue_pending_workloads The number of pending workloads of a LocalQueue, per status
# TYPE kueue_local_queue_pending_workloads gauge
kueue_local_queue_pending_workloads{name="lq",namespace="ns",replica_role="leader",status="active"} 1
kueue_local_queue_pending_workloads{name="lq",namespace="ns",replica_role="leader",status="inadmissible"} 0
# HELP kueue_local_queue_reserving_active_workloads The number of workloads of a LocalQueue holding quota reserved
# TYPE kueue_local_queue_reserving_active_workloads gauge
kueue_local_queue_reserving_active_workloads{name="lq",namespace="ns",replica_role="leader"} 2
# HELP kueue_local_queue_admitted_active_workloads The number of admitted workloads of a LocalQueue that have not finished
# TYPE kueue_local_queue_admitted_active_workloads gauge
kueue_local_queue_admitted_active_workloads{name="lq",namespace="ns",replica_role="leader"} 2
`
	names := []string{"kueue_pending_workloads", "kueue_reserving_active_workloads", "kueue_admitted_active_workloads",
		"kueue_local_queue_pending_workloads", "kueue_local_queue_reserving_active_workloads", "kueue_local_queue_admitted_active_workloads"}
	g := newGaugeCollector(Options{LocalQueue: true}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(cq+lq), names...); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(cq), names...); err != nil {
		t.Errorf("without LocalQueue metrics: %v", err)
	}
}

// kueue_cluster_queue_resource_reservation and
// kueue_local_queue_resource_reservation report the quota held, which is the
// usage without admission checks, under the same options as the usage gauges.
func TestResourceReservationGauges(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "standalone",
		ClusterQueues: []ClusterQueue{{Name: "cq", Cohort: "all", Cells: []Cell{{Flavor: "default", Resource: "cpu", Usage: 1.5, Nominal: f(4)}},
			Pending: []PendingResource{{Resource: "cpu", Amount: 6}, {Resource: "memory", Amount: 0}}}},
		LocalQueues: []LocalQueue{{Namespace: "ns", Name: "lq", ClusterQueue: "cq", Cells: []Cell{{Flavor: "default", Resource: "cpu", Usage: 1.5}}}},
	}
	want := `
# HELP kueue_cluster_queue_resource_pending What a ClusterQueue's pending workloads ask for, per resource, before flavors are assigned
# TYPE kueue_cluster_queue_resource_pending gauge
kueue_cluster_queue_resource_pending{cluster_queue="cq",replica_role="standalone",resource="cpu"} 6
kueue_cluster_queue_resource_pending{cluster_queue="cq",replica_role="standalone",resource="memory"} 0
# HELP kueue_cluster_queue_resource_reservation The quota reserved by a ClusterQueue's workloads, per flavor and resource (its usage, without admission checks)
# TYPE kueue_cluster_queue_resource_reservation gauge
kueue_cluster_queue_resource_reservation{cluster_queue="cq",cohort="all",flavor="default",replica_role="standalone",resource="cpu"} 1.5
# HELP kueue_cluster_queue_resource_usage The quota a ClusterQueue's admitted workloads hold, per flavor and resource
# TYPE kueue_cluster_queue_resource_usage gauge
kueue_cluster_queue_resource_usage{cluster_queue="cq",cohort="all",flavor="default",replica_role="standalone",resource="cpu"} 1.5
# HELP kueue_local_queue_resource_reservation The quota reserved by a LocalQueue's workloads, per flavor and resource (its usage, without admission checks)
# TYPE kueue_local_queue_resource_reservation gauge
kueue_local_queue_resource_reservation{flavor="default",name="lq",namespace="ns",replica_role="standalone",resource="cpu"} 1.5
# HELP kueue_local_queue_resource_usage The quota a LocalQueue's admitted workloads hold, per flavor and resource
# TYPE kueue_local_queue_resource_usage gauge
kueue_local_queue_resource_usage{flavor="default",name="lq",namespace="ns",replica_role="standalone",resource="cpu"} 1.5
`
	names := []string{"kueue_cluster_queue_resource_pending", "kueue_cluster_queue_resource_reservation", "kueue_cluster_queue_resource_usage",
		"kueue_local_queue_resource_reservation", "kueue_local_queue_resource_usage"}
	g := newGaugeCollector(Options{ClusterQueueResources: true, LocalQueue: true}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{}, func() Snapshot { return snap })
	if n := testutil.CollectAndCount(g, names...); n != 0 {
		t.Errorf("%d reservation or usage samples without enableClusterQueueResources and LocalQueue metrics", n)
	}
}

// Kueue's kueue_local_queue_status: one series per status of the LocalQueue's
// Active condition, 1 for the one it has; a LocalQueue whose status is not
// known reports Unknown.
func TestLocalQueueStatusGauge(t *testing.T) {
	t.Parallel()
	g := newGaugeCollector(Options{LocalQueue: true}, func() Snapshot {
		return Snapshot{ReplicaRole: "leader", LocalQueues: []LocalQueue{
			{Namespace: "ns", Name: "ready", Active: ActiveTrue},
			{Namespace: "ns", Name: "stopped", Active: ActiveFalse},
			{Namespace: "ns", Name: "new"},
		}}
	})
	want := `
# HELP kueue_local_queue_status Reports a LocalQueue with the status of its Active condition (True, False or Unknown): 1 for the one it has, 0 for the others
# TYPE kueue_local_queue_status gauge
kueue_local_queue_status{active="False",name="new",namespace="ns",replica_role="leader"} 0
kueue_local_queue_status{active="False",name="ready",namespace="ns",replica_role="leader"} 0
kueue_local_queue_status{active="False",name="stopped",namespace="ns",replica_role="leader"} 1
kueue_local_queue_status{active="True",name="new",namespace="ns",replica_role="leader"} 0
kueue_local_queue_status{active="True",name="ready",namespace="ns",replica_role="leader"} 1
kueue_local_queue_status{active="True",name="stopped",namespace="ns",replica_role="leader"} 0
kueue_local_queue_status{active="Unknown",name="new",namespace="ns",replica_role="leader"} 1
kueue_local_queue_status{active="Unknown",name="ready",namespace="ns",replica_role="leader"} 0
kueue_local_queue_status{active="Unknown",name="stopped",namespace="ns",replica_role="leader"} 0
`
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), "kueue_local_queue_status"); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{}, func() Snapshot {
		return Snapshot{LocalQueues: []LocalQueue{{Namespace: "ns", Name: "ready", Active: ActiveTrue}}}
	})
	if n := testutil.CollectAndCount(g, "kueue_local_queue_status"); n != 0 {
		t.Errorf("%d kueue_local_queue_status samples without LocalQueue metrics", n)
	}
}

// kueue_cluster_queue_weighted_share is labelled cluster_queue, cohort and
// replica_role, as Kueue's, exported with fair sharing only, and reports
// Kueue's precise share (a third of the lendable cpu is 333.33..., not the
// status's 334), NaN for a borrower of weight 0 (pkg/cache/scheduler:
// reportWeightedShare turns +Inf into NaN).
func TestWeightedShareGaugeLabels(t *testing.T) {
	t.Parallel()
	share, third, inf := 250.0, 1000.0/3, math.Inf(1)
	snap := Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{
		{Name: "cq", Cohort: "all", WeightedShare: &share},
		{Name: "third", Cohort: "all", WeightedShare: &third},
		{Name: "zero-weight", Cohort: "all", WeightedShare: &inf},
	}}
	want := `
# HELP kueue_cluster_queue_weighted_share The ClusterQueue's dominant resource share divided by its fair sharing weight, per thousand
# TYPE kueue_cluster_queue_weighted_share gauge
kueue_cluster_queue_weighted_share{cluster_queue="cq",cohort="all",replica_role="leader"} 250
kueue_cluster_queue_weighted_share{cluster_queue="third",cohort="all",replica_role="leader"} 333.3333333333333
kueue_cluster_queue_weighted_share{cluster_queue="zero-weight",cohort="all",replica_role="leader"} NaN
`
	g := newGaugeCollector(Options{FairSharing: true}, func() Snapshot { return snap })
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), "kueue_cluster_queue_weighted_share"); err != nil {
		t.Error(err)
	}
	g = newGaugeCollector(Options{}, func() Snapshot { return snap })
	if n := testutil.CollectAndCount(g, "kueue_cluster_queue_weighted_share"); n != 0 {
		t.Errorf("%d weighted share samples without fair sharing", n)
	}
}
