package metrics

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// cohortFamilyNames are the seven Cohort families.
var cohortFamilyNames = []string{"kueue_cohort_info", "kueue_cluster_queue_info", "kueue_cohort_subtree_quota",
	"kueue_cohort_subtree_resource_reservations", "kueue_cohort_subtree_admitted_active_workloads",
	"kueue_cohort_weighted_share", "kueue_cohort_subtree_admitted_workloads_total"}

// snapshotVar is a snapshot a test changes between scrapes.
type snapshotVar struct {
	mu   sync.Mutex
	snap Snapshot
}

func (v *snapshotVar) set(s Snapshot) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.snap = s
}

func (v *snapshotVar) get() Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snap
}

// withSnapshot builds the metrics on snapshot and registers them, as Start
// does, without the manager.
func withSnapshot(t *testing.T, opts Options, snapshot func() Snapshot) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m := New(reg, opts, snapshot)
	for _, c := range m.collectors {
		if err := reg.Register(c); err != nil {
			t.Fatalf("registering: %v", err)
		}
	}
	return m, reg
}

// admittedIn is a workload of cq admitted with the Cohort path cohorts.
func admittedIn(m *Metrics, cq, priorityClass string, cohorts ...string) {
	m.Admitted(Workload{ClusterQueue: cq, Namespace: "ns", LocalQueue: "lq", PriorityClass: priorityClass,
		Cohorts: NewCohortPath(cohorts)}, time.Second)
}

// Kueue's Cohort families, with their label names and order
// (pkg/metrics/metrics.go, without the custom labels): an info series of 1
// per Cohort and per ClusterQueue, the subtree's quota and reservations per
// flavor and resource with a series only where they are positive
// (applyCohortMetricPoint clears a point at 0), the admitted workloads of the
// subtree, the weighted share with fair sharing, and the admissions counted in
// every Cohort above the admitting queue. A Cohort in a cycle has none of the
// gauges.
func TestCohortFamiliesExposition(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader",
		Cohorts: []Cohort{
			{Name: "root", Root: "root", ClusterQueues: 2, AdmittedWorkloads: 1, WeightedShare: 0, Cells: []CohortCell{
				{Flavor: "default", Resource: "cpu", Quota: 10, Reservations: 3},
				{Flavor: "default", Resource: "memory", Quota: 0, Reservations: 2 << 30},
				{Flavor: "default", Resource: "nvidia.com/gpu"},
			}},
			{Name: "child", Parent: "root", Root: "root", ClusterQueues: 1, AdmittedWorkloads: 1, WeightedShare: 187.5,
				Cells: []CohortCell{{Flavor: "default", Resource: "cpu", Quota: 4, Reservations: 3}}},
			{Name: "loop", InCycle: true},
		},
		ClusterQueues: []ClusterQueue{
			{Name: "a", Cohort: "child", ParentCohort: "child", RootCohort: "root"},
			{Name: "b", Cohort: "root", ParentCohort: "root", RootCohort: "root"},
			{Name: "alone"},
			{Name: "cycling", Cohort: "loop"},
		}}
	m, reg := withSnapshot(t, Options{Cohorts: true, FairSharing: true, ReplicaRole: leader}, func() Snapshot { return snap })
	admittedIn(m, "a", "high", "child", "root")
	admittedIn(m, "a", "high", "child", "root")
	admittedIn(m, "b", "", "root")
	admittedIn(m, "alone", "")

	want := `
# HELP kueue_cohort_info Reports a Cohort with its parent Cohort (empty for a root) and the root of its tree; always 1, for joins on these labels
# TYPE kueue_cohort_info gauge
kueue_cohort_info{cohort="child",parent_cohort="root",replica_role="leader",root_cohort="root"} 1
kueue_cohort_info{cohort="root",parent_cohort="",replica_role="leader",root_cohort="root"} 1
# HELP kueue_cluster_queue_info Reports a ClusterQueue with its Cohort and the root of that Cohort's tree (both empty without a Cohort); always 1, for joins on these labels
# TYPE kueue_cluster_queue_info gauge
kueue_cluster_queue_info{cluster_queue="a",parent_cohort="child",replica_role="leader",root_cohort="root"} 1
kueue_cluster_queue_info{cluster_queue="alone",parent_cohort="",replica_role="leader",root_cohort=""} 1
kueue_cluster_queue_info{cluster_queue="b",parent_cohort="root",replica_role="leader",root_cohort="root"} 1
kueue_cluster_queue_info{cluster_queue="cycling",parent_cohort="",replica_role="leader",root_cohort=""} 1
# HELP kueue_cohort_subtree_quota The nominal quota of a Cohort's subtree (its own plus what its children lend it), per flavor and resource
# TYPE kueue_cohort_subtree_quota gauge
kueue_cohort_subtree_quota{cohort="child",flavor="default",replica_role="leader",resource="cpu"} 4
kueue_cohort_subtree_quota{cohort="root",flavor="default",replica_role="leader",resource="cpu"} 10
# HELP kueue_cohort_subtree_resource_reservations The quota reserved by the workloads of the ClusterQueues of a Cohort's subtree, per flavor and resource
# TYPE kueue_cohort_subtree_resource_reservations gauge
kueue_cohort_subtree_resource_reservations{cohort="child",flavor="default",replica_role="leader",resource="cpu"} 3
kueue_cohort_subtree_resource_reservations{cohort="root",flavor="default",replica_role="leader",resource="cpu"} 3
kueue_cohort_subtree_resource_reservations{cohort="root",flavor="default",replica_role="leader",resource="memory"} 2.147483648e+09
# HELP kueue_cohort_subtree_admitted_active_workloads The number of admitted workloads that have not finished in the ClusterQueues of a Cohort's subtree
# TYPE kueue_cohort_subtree_admitted_active_workloads gauge
kueue_cohort_subtree_admitted_active_workloads{cohort="child",replica_role="leader"} 1
kueue_cohort_subtree_admitted_active_workloads{cohort="root",replica_role="leader"} 1
# HELP kueue_cohort_weighted_share The Cohort's dominant resource share in its parent (usage above its subtree quota over what the parent could lend, per thousand) divided by its fair sharing weight: 0 within quota, +Inf when it borrows with weight 0
# TYPE kueue_cohort_weighted_share gauge
kueue_cohort_weighted_share{cohort="child",replica_role="leader"} 187.5
kueue_cohort_weighted_share{cohort="root",replica_role="leader"} 0
# HELP kueue_cohort_subtree_admitted_workloads_total The total number of workloads admitted in the ClusterQueues of a Cohort's subtree, per priority_class
# TYPE kueue_cohort_subtree_admitted_workloads_total counter
kueue_cohort_subtree_admitted_workloads_total{cohort="child",priority_class="high",replica_role="leader"} 2
kueue_cohort_subtree_admitted_workloads_total{cohort="root",priority_class="",replica_role="leader"} 1
kueue_cohort_subtree_admitted_workloads_total{cohort="root",priority_class="high",replica_role="leader"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), cohortFamilyNames...); err != nil {
		t.Error(err)
	}
}

// Kueue's MetricsForCohorts gate turns off kueue_cohort_info and
// kueue_cluster_queue_info only (pkg/cache/scheduler: recordCohortInfo and
// recordCQInfo check it; the subtree gauges, the share and the counter are
// reported whatever it says).
func TestCohortInfoFamiliesOffWithTheGate(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader", Cohorts: []Cohort{{Name: "root", Root: "root", ClusterQueues: 1,
		Cells: []CohortCell{{Flavor: "default", Resource: "cpu", Quota: 1, Reservations: 1}}}},
		ClusterQueues: []ClusterQueue{{Name: "q", Cohort: "root", ParentCohort: "root", RootCohort: "root"}}}
	m, reg := withSnapshot(t, Options{FairSharing: true, ReplicaRole: leader}, func() Snapshot { return snap })
	admittedIn(m, "q", "", "root")
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, mf := range mfs {
		got[mf.GetName()] = true
	}
	for _, name := range cohortFamilyNames {
		want := name != "kueue_cohort_info" && name != "kueue_cluster_queue_info"
		if got[name] != want {
			t.Errorf("%s exported %v with MetricsForCohorts off, want %v", name, got[name], want)
		}
	}
}

// Kueue reports kueue_cohort_weighted_share only with fair sharing
// (Cache.ResyncCohortGaugeMetrics and the Cohort reconciler check
// fairSharingEnabled); the other families do not depend on it.
func TestCohortWeightedShareOnlyWithFairSharing(t *testing.T) {
	t.Parallel()
	snap := Snapshot{Cohorts: []Cohort{{Name: "root", Root: "root", WeightedShare: 0}}}
	for _, fs := range []bool{false, true} {
		_, reg := withSnapshot(t, Options{Cohorts: true, FairSharing: fs}, func() Snapshot { return snap })
		want := 0
		if fs {
			want = 1
		}
		if n, err := testutil.GatherAndCount(reg, "kueue_cohort_weighted_share"); err != nil || n != want {
			t.Errorf("fair sharing %v: %d kueue_cohort_weighted_share series (%v), want %d", fs, n, err, want)
		}
		if n, err := testutil.GatherAndCount(reg, "kueue_cohort_info"); err != nil || n != 1 {
			t.Errorf("fair sharing %v: %d kueue_cohort_info series (%v), want 1", fs, n, err)
		}
	}
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestApplyCohortMetricPointReportsUnlimitedAsInf: an unlimited subtree quota
// or reservation is reported as +Inf.
func TestKueueApplyCohortMetricPointReportsUnlimitedAsInf(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "standalone", Cohorts: []Cohort{{Name: "unlimited", Root: "unlimited",
		Cells: []CohortCell{{Flavor: "default", Resource: "memory", Quota: math.Inf(1), Reservations: math.Inf(1)}}}}}
	_, reg := withSnapshot(t, Options{Cohorts: true}, func() Snapshot { return snap })
	want := `
# HELP kueue_cohort_subtree_quota The nominal quota of a Cohort's subtree (its own plus what its children lend it), per flavor and resource
# TYPE kueue_cohort_subtree_quota gauge
kueue_cohort_subtree_quota{cohort="unlimited",flavor="default",replica_role="standalone",resource="memory"} +Inf
# HELP kueue_cohort_subtree_resource_reservations The quota reserved by the workloads of the ClusterQueues of a Cohort's subtree, per flavor and resource
# TYPE kueue_cohort_subtree_resource_reservations gauge
kueue_cohort_subtree_resource_reservations{cohort="unlimited",flavor="default",replica_role="standalone",resource="memory"} +Inf
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"kueue_cohort_subtree_quota", "kueue_cohort_subtree_resource_reservations"); err != nil {
		t.Error(err)
	}
}

// Kueue reports the subtree's admitted workloads for the Cohorts above a
// ClusterQueue, 0 included (clusterQueue.reportActiveWorkloads walks its
// parent's path to the root), and for no other Cohort.
func TestCohortAdmittedActiveWorkloadsOnlyAboveQueues(t *testing.T) {
	t.Parallel()
	snap := Snapshot{Cohorts: []Cohort{
		{Name: "idle", Root: "idle", ClusterQueues: 1},
		{Name: "empty", Root: "empty"},
	}}
	_, reg := withSnapshot(t, Options{Cohorts: true}, func() Snapshot { return snap })
	want := `
# HELP kueue_cohort_subtree_admitted_active_workloads The number of admitted workloads that have not finished in the ClusterQueues of a Cohort's subtree
# TYPE kueue_cohort_subtree_admitted_active_workloads gauge
kueue_cohort_subtree_admitted_active_workloads{cohort="idle",replica_role=""} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_cohort_subtree_admitted_active_workloads"); err != nil {
		t.Error(err)
	}
}

// kueue_cohort_subtree_admitted_workloads_total keeps a Cohort's series while
// the Cohort exists and forgets it once a scrape finds the Cohort gone, as
// Kueue clears it when the Cohort is deleted (Cache.DeleteCohort) or, for an
// implicit one, when nothing refers to it any more (handleParentUpdate): a
// Cohort of the same name created later counts from zero.
func TestCohortAdmittedCounterForgetsDeletedCohorts(t *testing.T) {
	t.Parallel()
	both := Snapshot{Cohorts: []Cohort{{Name: "child", Parent: "root", Root: "root"}, {Name: "root", Root: "root"}}}
	var snap snapshotVar
	snap.set(both)
	m, reg := withSnapshot(t, Options{Cohorts: true}, snap.get)
	admittedIn(m, "q", "", "child", "root")
	counts := func() map[string]float64 {
		t.Helper()
		out := map[string]float64{}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != "kueue_cohort_subtree_admitted_workloads_total" {
				continue
			}
			for _, s := range mf.GetMetric() {
				out[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
			}
		}
		return out
	}
	if got := counts(); got["child"] != 1 || got["root"] != 1 {
		t.Fatalf("counts %v, want child and root 1", got)
	}
	snap.set(Snapshot{Cohorts: []Cohort{{Name: "root", Root: "root"}}})
	if got := counts(); len(got) != 1 || got["root"] != 1 {
		t.Errorf("after child is deleted: counts %v, want root 1 alone", got)
	}
	snap.set(both)
	if got := counts(); len(got) != 1 {
		t.Errorf("child recreated: counts %v, want root alone until child counts again", got)
	}
	admittedIn(m, "q", "", "child", "root")
	if got := counts(); got["child"] != 1 || got["root"] != 2 {
		t.Errorf("child recreated and counted: counts %v, want child 1 and root 2", got)
	}
}

// An admission in a Cohort created after a scrape's snapshot was taken is
// not forgotten by that scrape: the snapshot is older than the admission.
func TestCohortAdmittedCounterKeepsAdmissionsDuringAScrape(t *testing.T) {
	t.Parallel()
	var m *Metrics
	var during atomic.Bool
	snapshot := func() Snapshot {
		// An admission happens while each snapshot of the scrape is being
		// taken (the gauges take theirs too, maybe first), in a Cohort
		// the snapshot does not have.
		if during.Load() {
			admittedIn(m, "q", "", "new")
		}
		return Snapshot{}
	}
	var reg *prometheus.Registry
	m, reg = withSnapshot(t, Options{Cohorts: true}, snapshot)
	during.Store(true)
	n, err := testutil.GatherAndCount(reg, "kueue_cohort_subtree_admitted_workloads_total")
	during.Store(false)
	if err != nil || n != 1 {
		t.Errorf("%d series (%v) after an admission during the scrape, want 1", n, err)
	}
	// The next scrape's snapshot is newer: new is gone for good.
	if n, err := testutil.GatherAndCount(reg, "kueue_cohort_subtree_admitted_workloads_total"); err != nil || n != 0 {
		t.Errorf("%d series (%v) once a later snapshot misses the Cohort, want 0", n, err)
	}
}

// The counter's replica_role is the role at the admission, as Kueue's.
func TestCohortAdmittedCounterRoleIsReadAtIncrement(t *testing.T) {
	t.Parallel()
	role := "follower"
	snap := Snapshot{ReplicaRole: "leader", Cohorts: []Cohort{{Name: "root", Root: "root"}}}
	m, reg := withSnapshot(t, Options{Cohorts: true, ReplicaRole: func() string { return role }}, func() Snapshot { return snap })
	admittedIn(m, "q", "", "root")
	role = "leader"
	admittedIn(m, "q", "", "root")
	want := `
# HELP kueue_cohort_subtree_admitted_workloads_total The total number of workloads admitted in the ClusterQueues of a Cohort's subtree, per priority_class
# TYPE kueue_cohort_subtree_admitted_workloads_total counter
kueue_cohort_subtree_admitted_workloads_total{cohort="root",priority_class="",replica_role="follower"} 1
kueue_cohort_subtree_admitted_workloads_total{cohort="root",priority_class="",replica_role="leader"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_cohort_subtree_admitted_workloads_total"); err != nil {
		t.Error(err)
	}
}

// A CohortPath keeps the names and their order; an empty one has none.
func TestCohortPathNames(t *testing.T) {
	t.Parallel()
	if got := NewCohortPath(nil).Names(); got != nil {
		t.Errorf("empty path: %v, want nil", got)
	}
	names := []string{"team.a", "org-1", "root"}
	if got := NewCohortPath(names).Names(); !slices.Equal(got, names) {
		t.Errorf("path %v, want %v", got, names)
	}
}

// A scrape reads the engine once: the Cohort families are reported from the
// gauges' snapshot, which lists every cached Workload too.
func TestOneSnapshotPerScrape(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	_, reg := withSnapshot(t, Options{Cohorts: true, FairSharing: true, LocalQueue: true, Unadmitted: true}, func() Snapshot {
		calls.Add(1)
		return Snapshot{Cohorts: []Cohort{{Name: "root", Root: "root"}}}
	})
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("one scrape took %d snapshots, want 1", n)
	}
}
