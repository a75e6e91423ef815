package core

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// Ports of Kueue's tests of its Cohort families, through the engine and a
// scrape of the manager's metrics (the snapshot metricsSnapshot takes, and
// the collectors of package metrics). Kueue records these gauges when its
// cache changes; Quokka reads them from the engine at each scrape, so where
// Kueue's tests call a recording function, these scrape.

const gpu corev1.ResourceName = "nvidia.com/gpu"

// cohortSeries is a scrape of the Cohort families: each series' value, keyed
// by its family and its labels but replica_role, in label order.
type cohortSeries map[string]float64

// scrapeCohorts registers the metrics of a manager on e, with the Cohort
// families on, scrapes them once and unregisters them.
func scrapeCohorts(t *testing.T, e *Engine, fairSharing bool) cohortSeries {
	t.Helper()
	var calls atomic.Int32
	inner := metricsSnapshot(e, NewRole(false), newPendingTracker(), nil, nil, false, false)
	reg := prometheus.NewRegistry()
	m := metrics.New(reg, metrics.Options{Cohorts: true, FairSharing: fairSharing}, func() metrics.Snapshot {
		calls.Add(1)
		return inner()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	defer func() { cancel(); <-done }()
	// Start registers asynchronously: the gauge collector, which reports
	// the Cohort families too, takes one snapshot per scrape once
	// registered.
	deadline := time.Now().Add(5 * time.Second)
	for {
		calls.Store(0)
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
		if calls.Load() >= 1 {
			return cohortSeriesOf(t, reg)
		}
		if time.Now().After(deadline) {
			t.Fatal("the metrics were not registered")
		}
		time.Sleep(time.Millisecond)
	}
}

func cohortSeriesOf(t *testing.T, reg prometheus.Gatherer) cohortSeries {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := cohortSeries{}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "kueue_cohort_") && mf.GetName() != "kueue_cluster_queue_info" {
			continue
		}
		for _, s := range mf.GetMetric() {
			var parts []string
			for _, l := range s.GetLabel() {
				if l.GetName() == "replica_role" {
					if l.GetValue() != RoleStandalone {
						t.Errorf("%s: replica_role %q, want %q", mf.GetName(), l.GetValue(), RoleStandalone)
					}
					continue
				}
				parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := s.GetGauge().GetValue()
			if s.GetCounter() != nil {
				v = s.GetCounter().GetValue()
			}
			out[mf.GetName()+"{"+strings.Join(parts, ",")+"}"] = v
		}
	}
	return out
}

// The keys of series, labels in alphabetical order as a scrape gives them.
func cohortInfoKey(cohort, parent, root string) string {
	return fmt.Sprintf("kueue_cohort_info{cohort=%q,parent_cohort=%q,root_cohort=%q}", cohort, parent, root)
}

func queueInfoKey(cq, parent, root string) string {
	return fmt.Sprintf("kueue_cluster_queue_info{cluster_queue=%q,parent_cohort=%q,root_cohort=%q}", cq, parent, root)
}

func quotaKey(cohort, flavor string, r corev1.ResourceName) string {
	return fmt.Sprintf("kueue_cohort_subtree_quota{cohort=%q,flavor=%q,resource=%q}", cohort, flavor, r)
}

func reservationsKey(cohort, flavor string, r corev1.ResourceName) string {
	return fmt.Sprintf("kueue_cohort_subtree_resource_reservations{cohort=%q,flavor=%q,resource=%q}", cohort, flavor, r)
}

func shareKey(cohort string) string {
	return fmt.Sprintf("kueue_cohort_weighted_share{cohort=%q}", cohort)
}

func gib(n float64) float64 { return n * (1 << 30) }

// expect checks that each series of want has its value, and that none of
// absent exists (Kueue's "...Cleaned" and value-0 checks of info series).
func (got cohortSeries) expect(t *testing.T, step string, want map[string]float64, absent ...string) {
	t.Helper()
	for k, w := range want {
		v, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: no %s", step, k)
		case v != w:
			t.Errorf("%s: %s = %v, want %v", step, k, v, w)
		}
	}
	for _, k := range absent {
		if v, ok := got[k]; ok {
			t.Errorf("%s: %s = %v, want no series", step, k, v)
		}
	}
}

// family returns the keys of got's series of a family for one cohort.
func (got cohortSeries) of(family, cohort string) []string {
	var out []string
	for k := range got {
		if strings.HasPrefix(k, family+"{") && strings.Contains(k, fmt.Sprintf("cohort=%q", cohort)) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// upsert feeds objects to the engine as the reconcilers do.
func upsert(t *testing.T, e *Engine, objs ...any) {
	t.Helper()
	e.Do(func(s *scheduler.Scheduler) {
		for _, o := range objs {
			var err error
			switch v := o.(type) {
			case *kueue.ResourceFlavor:
				s.UpsertResourceFlavor(v)
			case *kueue.Cohort:
				err = s.UpsertCohort(v)
			case *kueue.ClusterQueue:
				err = s.UpsertClusterQueue(v)
			case *kueue.Workload:
				err = s.UpsertWorkload(v)
			default:
				t.Fatalf("unknown object %T", o)
			}
			if err != nil {
				t.Fatalf("upsert %T: %v", o, err)
			}
		}
	})
}

func deleteCohort(e *Engine, name string) {
	e.Do(func(s *scheduler.Scheduler) { s.DeleteCohort(name) })
}

func deleteClusterQueue(e *Engine, name string) {
	e.Do(func(s *scheduler.Scheduler) { s.DeleteClusterQueue(name) })
}

// holding is a workload of cpus CPUs holding quota in cq's flavor.
func holding(name, cq, flavor, cpus string) *kueue.Workload {
	return MakeWorkload("ns", name).Queue("lq").Request(corev1.ResourceCPU, cpus).ReserveQuota(cq, flavor).Obj()
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go, TestRecordCohortMetrics_Guards.
func TestKueueRecordCohortMetricsGuards(t *testing.T) {
	t.Parallel()
	// "Empty cohort name skips recording": a ClusterQueue without a Cohort
	// gives no Cohort series named "".
	t.Run("Empty cohort name skips recording", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("flavor1").Obj(), MakeClusterQueue("no-cohort").Quota("flavor1", corev1.ResourceCPU, "5").Obj())
		got := scrapeCohorts(t, e, true)
		for _, family := range []string{"kueue_cohort_info", "kueue_cohort_subtree_quota", "kueue_cohort_subtree_resource_reservations",
			"kueue_cohort_subtree_admitted_active_workloads", "kueue_cohort_weighted_share"} {
			if keys := got.of(family, ""); len(keys) != 0 {
				t.Errorf("series of the empty Cohort: %v", keys)
			}
		}
		got.expect(t, "queue without Cohort", map[string]float64{queueInfoKey("no-cohort", "", ""): 1})
	})
	// "Records target cohort and ancestors only": Kueue records the
	// values of record-left and of its ancestor; a scrape reports every
	// Cohort, record-right included.
	t.Run("Records target cohort and ancestors only", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("flavor1").Obj(),
			MakeCohort("record-root").Quota("flavor1", corev1.ResourceCPU, "30").Obj(),
			MakeCohort("record-left").Parent("record-root").Quota("flavor1", corev1.ResourceCPU, "20").Obj(),
			MakeCohort("record-right").Parent("record-root").Quota("flavor1", corev1.ResourceCPU, "10").Obj(),
			MakeClusterQueue("record-left-cq").Cohort("record-left").Quota("flavor1", corev1.ResourceCPU, "10").Obj(),
			MakeClusterQueue("record-right-cq").Cohort("record-right").Quota("flavor1", corev1.ResourceCPU, "5").Obj())
		scrapeCohorts(t, e, false).expect(t, "recorded", map[string]float64{
			quotaKey("record-left", "flavor1", corev1.ResourceCPU):  30,
			quotaKey("record-root", "flavor1", corev1.ResourceCPU):  75,
			quotaKey("record-right", "flavor1", corev1.ResourceCPU): 15,
		}, reservationsKey("record-left", "flavor1", corev1.ResourceCPU),
			reservationsKey("record-root", "flavor1", corev1.ResourceCPU))
	})
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestRecordCohortMetrics_QuotaHierarchyLikeIntegration: a Cohort's subtree
// quota adds its own to its children's, per flavor and resource, across
// flavors the children do not share.
func TestKueueRecordCohortMetricsQuotaHierarchyLikeIntegration(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(), MakeFlavor("flavor1").Obj(),
		MakeCohort("root").Quota("flavor1", corev1.ResourceCPU, "20").Quota("flavor1", gpu, "5").Obj(),
		MakeCohort("ch1").Parent("root").Quota("default", corev1.ResourceCPU, "15").Obj(),
		MakeCohort("ch2").Parent("root").Quota("default", corev1.ResourceCPU, "10").Obj(),
		MakeCohort("ch3").Parent("root").Quota("flavor1", corev1.ResourceCPU, "5").Quota("flavor1", gpu, "1").Obj(),
		MakeClusterQueue("cqa").Cohort("ch1").Quota("default", corev1.ResourceCPU, "10").Obj(),
		MakeClusterQueue("cqb").Cohort("ch1").Quota("default", corev1.ResourceCPU, "5").Obj(),
		MakeClusterQueue("cqd").Cohort("ch2").Quota("default", corev1.ResourceCPU, "5").Obj(),
		MakeClusterQueue("cqe").Cohort("ch2").Quota("default", corev1.ResourceCPU, "5").Obj())
	scrapeCohorts(t, e, false).expect(t, "QuotaHierarchyLikeIntegration", map[string]float64{
		quotaKey("ch1", "default", corev1.ResourceCPU):  30,
		quotaKey("ch2", "default", corev1.ResourceCPU):  20,
		quotaKey("ch3", "flavor1", corev1.ResourceCPU):  5,
		quotaKey("ch3", "flavor1", gpu):                 1,
		quotaKey("root", "default", corev1.ResourceCPU): 50,
		quotaKey("root", "flavor1", corev1.ResourceCPU): 25,
		quotaKey("root", "flavor1", gpu):                6,
	})
}

// rootCh1Ch2 is Kueue's setupDefaultRootCh1Ch2Hierarchy.
func rootCh1Ch2(t *testing.T) *Engine {
	t.Helper()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", corev1.ResourceCPU, "30").Obj(),
		MakeCohort("ch1").Parent("root").Quota("default", corev1.ResourceCPU, "8").Obj(),
		MakeCohort("ch2").Parent("root").Quota("default", corev1.ResourceCPU, "6").Obj(),
		MakeClusterQueue("cqa").Cohort("ch1").Quota("default", corev1.ResourceCPU, "10").Obj(),
		MakeClusterQueue("cqb").Cohort("ch2").Quota("default", corev1.ResourceCPU, "8").Obj())
	return e
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestRecordCohortMetrics_ReservationsChildParentLikeIntegration: a Cohort's
// reservations are its queues' usage, its ancestors' the sum of theirs. Kueue
// sets the queues' usage directly; here workloads hold it.
func TestKueueRecordCohortMetricsReservationsChildParentLikeIntegration(t *testing.T) {
	t.Parallel()
	e := rootCh1Ch2(t)
	cpu := corev1.ResourceCPU
	upsert(t, e, holding("a", "cqa", "default", "6"))
	scrapeCohorts(t, e, false).expect(t, "cqa uses 6", map[string]float64{
		reservationsKey("ch1", "default", cpu): 6, reservationsKey("root", "default", cpu): 6})
	upsert(t, e, holding("a", "cqa", "default", "16"))
	scrapeCohorts(t, e, false).expect(t, "cqa uses 16", map[string]float64{
		reservationsKey("ch1", "default", cpu): 16, reservationsKey("root", "default", cpu): 16})
	upsert(t, e, holding("b", "cqb", "default", "7"))
	scrapeCohorts(t, e, false).expect(t, "cqb uses 7", map[string]float64{
		reservationsKey("ch2", "default", cpu): 7, reservationsKey("root", "default", cpu): 23})
	upsert(t, e, holding("a", "cqa", "default", "6"))
	scrapeCohorts(t, e, false).expect(t, "cqa back to 6", map[string]float64{
		reservationsKey("ch1", "default", cpu): 6, reservationsKey("ch2", "default", cpu): 7,
		reservationsKey("root", "default", cpu): 13})
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestClearCohortMetrics_ClearsTargetAndAncestors: once ch1's subtree is
// gone (Kueue clears ch1 and subtracts its subtree from its ancestors; here
// ch1 and its queue are deleted), ch1 has no series and root's quota and
// reservations lose ch1's part; ch2 is untouched.
func TestKueueClearCohortMetricsClearsTargetAndAncestors(t *testing.T) {
	t.Parallel()
	e := rootCh1Ch2(t)
	cpu := corev1.ResourceCPU
	upsert(t, e, holding("a", "cqa", "default", "6"), holding("b", "cqb", "default", "7"))
	scrapeCohorts(t, e, false).expect(t, "before", map[string]float64{
		quotaKey("ch1", "default", cpu): 18, quotaKey("ch2", "default", cpu): 14,
		quotaKey("root", "default", cpu): 62, reservationsKey("root", "default", cpu): 13})
	e.Do(func(s *scheduler.Scheduler) { s.FinishWorkload(types.NamespacedName{Namespace: "ns", Name: "a"}) })
	deleteClusterQueue(e, "cqa")
	deleteCohort(e, "ch1")
	got := scrapeCohorts(t, e, false)
	got.expect(t, "ch1 cleared", map[string]float64{
		quotaKey("ch2", "default", cpu): 14, reservationsKey("ch2", "default", cpu): 7,
		quotaKey("root", "default", cpu): 44, reservationsKey("root", "default", cpu): 7})
	for _, family := range []string{"kueue_cohort_info", "kueue_cohort_subtree_quota", "kueue_cohort_subtree_resource_reservations"} {
		if keys := got.of(family, "ch1"); len(keys) != 0 {
			t.Errorf("ch1 deleted, still %v", keys)
		}
	}
}

// rootChildCQ is Kueue's setupDefaultRootChildCQHierarchy.
func rootChildCQ(t *testing.T) *Engine {
	t.Helper()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(),
		MakeCohort("root").Quota("default", corev1.ResourceCPU, "10").Obj(),
		MakeCohort("child").Parent("root").Obj(),
		MakeClusterQueue("cq1").Cohort("child").Quota("default", corev1.ResourceCPU, "5").Obj())
	return e
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go, TestAddOrUpdateCohort_Table.
func TestKueueAddOrUpdateCohort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e *Engine)
	}{
		{"IntegratedInfoMetricsOnReparent", func(t *testing.T, e *Engine) {
			upsert(t, e, MakeCohort("new-root").Quota("default", corev1.ResourceCPU, "20").Obj(),
				MakeCohort("child").Parent("new-root").Obj())
			scrapeCohorts(t, e, false).expect(t, "child reparented", map[string]float64{
				cohortInfoKey("new-root", "", "new-root"):      1,
				cohortInfoKey("child", "new-root", "new-root"): 1,
				queueInfoKey("cq1", "child", "new-root"):       1,
				// root is explicit: it stays though child left.
				cohortInfoKey("root", "", "root"): 1,
			}, cohortInfoKey("child", "root", "root"))
		}},
		{"DeleteAndRecreateWithDifferentHierarchy", func(t *testing.T, e *Engine) {
			deleteCohort(e, "child")
			upsert(t, e, MakeCohort("child").Parent("root2").Obj())
			scrapeCohorts(t, e, false).expect(t, "child recreated under root2", map[string]float64{
				cohortInfoKey("child", "root2", "root2"): 1,
				cohortInfoKey("root2", "", "root2"):      1,
				queueInfoKey("cq1", "child", "root2"):    1,
			}, cohortInfoKey("child", "root", "root"))
		}},
		{"ClearsInfoForRemovedImplicitOldParent", func(t *testing.T, e *Engine) {
			upsert(t, e, MakeCohort("child").Parent("implicit-old").Obj())
			scrapeCohorts(t, e, false).expect(t, "child under implicit-old", map[string]float64{
				cohortInfoKey("child", "implicit-old", "implicit-old"): 1,
				cohortInfoKey("implicit-old", "", "implicit-old"):      1,
			})
			upsert(t, e, MakeCohort("child").Parent("root").Obj())
			scrapeCohorts(t, e, false).expect(t, "child back under root", nil, cohortInfoKey("implicit-old", "", "implicit-old"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, rootChildCQ(t))
		})
	}
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go, TestUpdateClusterQueue_Table.
func TestKueueUpdateClusterQueue(t *testing.T) {
	t.Parallel()
	t.Run("UpdatesInfoMetricsOnHierarchyChange", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("default").Obj(),
			MakeCohort("old-root").Quota("default", corev1.ResourceCPU, "10").Obj(),
			MakeCohort("old-child").Parent("old-root").Obj(),
			MakeCohort("new-root").Quota("default", corev1.ResourceCPU, "20").Obj(),
			MakeCohort("new-child").Parent("new-root").Obj(),
			MakeClusterQueue("cq1").Cohort("old-child").Quota("default", corev1.ResourceCPU, "5").Obj())
		upsert(t, e, MakeClusterQueue("cq1").Cohort("new-child").Quota("default", corev1.ResourceCPU, "5").Obj())
		scrapeCohorts(t, e, false).expect(t, "cq1 moved", map[string]float64{queueInfoKey("cq1", "new-child", "new-root"): 1},
			queueInfoKey("cq1", "old-child", "old-root"))
	})
	t.Run("ExplicitParentRetainsCohortInfoAfterCQMoves", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("default").Obj(),
			MakeCohort("source").Quota("default", corev1.ResourceCPU, "10").Obj(),
			MakeCohort("dest").Quota("default", corev1.ResourceCPU, "20").Obj(),
			MakeClusterQueue("cq1").Cohort("source").Quota("default", corev1.ResourceCPU, "5").Obj())
		scrapeCohorts(t, e, false).expect(t, "cq1 in source", map[string]float64{cohortInfoKey("source", "", "source"): 1})
		upsert(t, e, MakeClusterQueue("cq1").Cohort("dest").Quota("default", corev1.ResourceCPU, "5").Obj())
		scrapeCohorts(t, e, false).expect(t, "cq1 moved to dest", map[string]float64{cohortInfoKey("source", "", "source"): 1})
	})
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go, TestDeleteClusterQueue_Table.
func TestKueueDeleteClusterQueue(t *testing.T) {
	t.Parallel()
	t.Run("ClearsInfoForImplicitParentAfterCQDeleted", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("default").Obj(),
			MakeClusterQueue("cq1").Cohort("implicit").Quota("default", corev1.ResourceCPU, "5").Obj())
		// Kueue's event path has no kueue_cohort_info for an implicit
		// Cohort of ClusterQueues alone until a resync; a scrape reports
		// every Cohort the engine has, as Kueue's resync does.
		scrapeCohorts(t, e, false).expect(t, "cq1 in implicit", map[string]float64{
			queueInfoKey("cq1", "implicit", "implicit"): 1, cohortInfoKey("implicit", "", "implicit"): 1})
		deleteClusterQueue(e, "cq1")
		var gone bool
		e.Do(func(s *scheduler.Scheduler) { _, ok := s.CohortSnapshot("implicit"); gone = !ok })
		if !gone {
			t.Fatal("the implicit Cohort outlived its last ClusterQueue")
		}
		scrapeCohorts(t, e, false).expect(t, "cq1 deleted", nil,
			queueInfoKey("cq1", "implicit", "implicit"), cohortInfoKey("implicit", "", "implicit"))
	})
	t.Run("RetainsCohortInfoForExplicitParentAfterLastCQDeleted", func(t *testing.T) {
		t.Parallel()
		e := NewEngine(scheduler.Options{})
		upsert(t, e, MakeFlavor("default").Obj(),
			MakeCohort("explicit-root").Quota("default", corev1.ResourceCPU, "10").Obj(),
			MakeClusterQueue("sole-cq").Cohort("explicit-root").Quota("default", corev1.ResourceCPU, "5").Obj())
		scrapeCohorts(t, e, false).expect(t, "sole-cq", map[string]float64{cohortInfoKey("explicit-root", "", "explicit-root"): 1})
		deleteClusterQueue(e, "sole-cq")
		scrapeCohorts(t, e, false).expect(t, "sole-cq deleted", map[string]float64{cohortInfoKey("explicit-root", "", "explicit-root"): 1},
			queueInfoKey("sole-cq", "explicit-root", "explicit-root"))
	})
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestAddClusterQueue_RecordsInfoOnCreateWithoutCohort.
func TestKueueAddClusterQueueRecordsInfoOnCreateWithoutCohort(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(), MakeClusterQueue("cqa").Quota("default", corev1.ResourceCPU, "10").Obj())
	scrapeCohorts(t, e, false).expect(t, "cqa", map[string]float64{queueInfoKey("cqa", "", ""): 1})
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestResyncGaugeMetrics_ReportsHierarchyInfoWithFairSharing.
func TestKueueResyncGaugeMetricsReportsHierarchyInfoWithFairSharing(t *testing.T) {
	t.Parallel()
	got := scrapeCohorts(t, rootChildCQ(t), true)
	got.expect(t, "resync", map[string]float64{
		queueInfoKey("cq1", "child", "root"):   1,
		cohortInfoKey("root", "", "root"):      1,
		cohortInfoKey("child", "root", "root"): 1,
		shareKey("child"):                      0,
	})
	if keys := got.of("kueue_cohort_weighted_share", "child"); len(keys) != 1 {
		t.Errorf("weighted share series of child: %v, want one", keys)
	}
}

// Kueue: pkg/cache/scheduler/cohort_metrics_test.go,
// TestResyncGaugeMetrics_SkipsCohortInfoForCycle: Cohorts in a cycle have
// no kueue_cohort_info (nor any other gauge); their queue has no parent or
// root.
func TestKueueResyncGaugeMetricsSkipsCohortInfoForCycle(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(), MakeCohort("cohort-a").Parent("cohort-b").Quota("default", corev1.ResourceCPU, "1").Obj(),
		MakeClusterQueue("q").Cohort("cohort-a").Quota("default", corev1.ResourceCPU, "1").Obj())
	// cohort-b -> cohort-a closes the cycle; the engine takes it and
	// reports the cycle on the queues.
	e.Do(func(s *scheduler.Scheduler) { _ = s.UpsertCohort(MakeCohort("cohort-b").Parent("cohort-a").Obj()) })
	got := scrapeCohorts(t, e, true)
	for k := range got {
		if strings.Contains(k, `cohort="cohort-a"`) || strings.Contains(k, `cohort="cohort-b"`) {
			t.Errorf("series of a Cohort in a cycle: %s", k)
		}
	}
	got.expect(t, "cycle", map[string]float64{queueInfoKey("q", "", ""): 1})
}

// Kueue: pkg/controller/core/cohort_controller_test.go,
// TestCohortReconcileLifecycle: a Cohort's subtree quota follows its spec
// and goes with it.
func TestKueueCohortReconcileLifecycle(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	key := quotaKey("cohort", "red", corev1.ResourceCPU)
	upsert(t, e, MakeFlavor("red").Obj(), MakeCohort("cohort").Quota("red", corev1.ResourceCPU, "10").Obj())
	scrapeCohorts(t, e, false).expect(t, "create", map[string]float64{key: 10})
	upsert(t, e, MakeCohort("cohort").Quota("red", corev1.ResourceCPU, "5").Obj())
	scrapeCohorts(t, e, false).expect(t, "update", map[string]float64{key: 5})
	deleteCohort(e, "cohort")
	scrapeCohorts(t, e, false).expect(t, "delete", nil, key)
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "follows reporting correct metrics", step by step through the engine.
func TestKueueCohortsFollowReportingCorrectMetrics(t *testing.T) {
	t.Parallel()
	cpu, mem := corev1.ResourceCPU, corev1.ResourceMemory
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(), MakeFlavor("flavor1").Obj(), MakeFlavor("flavor2").Obj())
	cq := func(name, cohort, flavor, cpus, memory string) *kueue.ClusterQueue {
		return MakeClusterQueue(name).Cohort(cohort).Quota(flavor, cpu, cpus).Quota(flavor, mem, memory).Obj()
	}

	upsert(t, e, cq("cqa", "", "default", "10", "10Gi"))
	scrapeCohorts(t, e, false).expect(t, "cqa without cohort", map[string]float64{queueInfoKey("cqa", "", ""): 1},
		quotaKey("ch1", "default", cpu), quotaKey("ch1", "default", mem))

	upsert(t, e, cq("cqa", "ch1", "default", "10", "10Gi"))
	scrapeCohorts(t, e, false).expect(t, "cqa in ch1", map[string]float64{
		quotaKey("ch1", "default", cpu): 10, quotaKey("ch1", "default", mem): gib(10),
		queueInfoKey("cqa", "ch1", "ch1"): 1})

	upsert(t, e, MakeCohort("ch1").Quota("default", cpu, "15").Quota("default", mem, "15Gi").Obj(),
		cq("cqb", "ch1", "default", "5", "5Gi"))
	scrapeCohorts(t, e, false).expect(t, "ch1 and cqb created", map[string]float64{
		quotaKey("ch1", "default", cpu): 30, quotaKey("ch1", "default", mem): gib(30),
		cohortInfoKey("ch1", "", "ch1"): 1, queueInfoKey("cqa", "ch1", "ch1"): 1, queueInfoKey("cqb", "ch1", "ch1"): 1})

	upsert(t, e, MakeCohort("ch2").Quota("default", cpu, "10").Quota("default", mem, "10Gi").Obj(),
		cq("cqd", "ch2", "default", "5", "5Gi"), cq("cqe", "ch2", "default", "5", "5Gi"))
	scrapeCohorts(t, e, false).expect(t, "ch2, cqd and cqe created", map[string]float64{
		quotaKey("ch2", "default", cpu): 20, quotaKey("ch2", "default", mem): gib(20)})

	upsert(t, e, MakeCohort("root").Quota("flavor1", cpu, "20").Quota("flavor1", gpu, "5").Obj(),
		MakeCohort("ch1").Parent("root").Quota("default", cpu, "15").Quota("default", mem, "15Gi").Obj(),
		MakeCohort("ch2").Parent("root").Quota("default", cpu, "10").Quota("default", mem, "10Gi").Obj())
	scrapeCohorts(t, e, false).expect(t, "root over ch1 and ch2", map[string]float64{
		quotaKey("root", "default", cpu): 50, quotaKey("root", "default", mem): gib(50),
		quotaKey("root", "flavor1", cpu): 20, quotaKey("root", "flavor1", gpu): 5,
		cohortInfoKey("root", "", "root"): 1, cohortInfoKey("ch1", "root", "root"): 1, cohortInfoKey("ch2", "root", "root"): 1,
		queueInfoKey("cqa", "ch1", "root"): 1, queueInfoKey("cqb", "ch1", "root"): 1,
		queueInfoKey("cqd", "ch2", "root"): 1, queueInfoKey("cqe", "ch2", "root"): 1,
	}, quotaKey("root", "flavor2", cpu), quotaKey("root", "flavor2", mem))

	upsert(t, e, MakeCohort("ch3").Parent("root").Quota("flavor1", cpu, "5").Quota("flavor1", gpu, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "ch3 without queues", map[string]float64{
		quotaKey("ch3", "flavor1", cpu): 5, quotaKey("ch3", "flavor1", gpu): 1,
		quotaKey("root", "default", cpu): 50, quotaKey("root", "default", mem): gib(50),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6,
		cohortInfoKey("ch3", "root", "root"): 1})

	upsert(t, e, cq("cqg", "ch3", "flavor2", "1", "1Gi"))
	scrapeCohorts(t, e, false).expect(t, "cqg in ch3", map[string]float64{
		quotaKey("ch3", "flavor1", cpu): 5, quotaKey("ch3", "flavor1", gpu): 1,
		quotaKey("ch3", "flavor2", cpu): 1, quotaKey("ch3", "flavor2", mem): 1.073741824e+09,
		quotaKey("root", "default", cpu): 50, quotaKey("root", "default", mem): gib(50),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6,
		quotaKey("root", "flavor2", cpu): 1, quotaKey("root", "flavor2", mem): gib(1),
		queueInfoKey("cqg", "ch3", "root"): 1})

	deleteClusterQueue(e, "cqg")
	scrapeCohorts(t, e, false).expect(t, "cqg deleted", map[string]float64{
		quotaKey("ch3", "flavor1", cpu): 5, quotaKey("ch3", "flavor1", gpu): 1,
		quotaKey("root", "default", cpu): 50, quotaKey("root", "default", mem): gib(50),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6,
	}, quotaKey("ch3", "flavor2", cpu), quotaKey("ch3", "flavor2", mem),
		quotaKey("root", "flavor2", cpu), quotaKey("root", "flavor2", mem), queueInfoKey("cqg", "ch3", "root"))

	upsert(t, e, cq("cqd", "ch3", "default", "5", "5Gi"), cq("cqe", "ch3", "default", "5", "5Gi"))
	scrapeCohorts(t, e, false).expect(t, "cqd and cqe moved to ch3", map[string]float64{
		quotaKey("ch3", "default", cpu): 10, quotaKey("ch3", "default", mem): gib(10),
		quotaKey("root", "default", cpu): 50, quotaKey("root", "default", mem): gib(50),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6,
		queueInfoKey("cqd", "ch3", "root"): 1, queueInfoKey("cqe", "ch3", "root"): 1,
	}, queueInfoKey("cqd", "ch2", "root"), queueInfoKey("cqe", "ch2", "root"))

	deleteCohort(e, "ch2")
	scrapeCohorts(t, e, false).expect(t, "ch2 deleted", map[string]float64{
		quotaKey("ch3", "default", cpu): 10, quotaKey("ch3", "default", mem): gib(10),
		quotaKey("root", "default", cpu): 40, quotaKey("root", "default", mem): gib(40),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6,
	}, quotaKey("ch2", "default", cpu), quotaKey("ch2", "default", mem), cohortInfoKey("ch2", "root", "root"))

	upsert(t, e, MakeCohort("ch1").Parent("root").Quota("default", cpu, "20").Quota("default", mem, "15Gi").Obj())
	scrapeCohorts(t, e, false).expect(t, "ch1's quota changed", map[string]float64{
		quotaKey("ch1", "default", cpu): 35, quotaKey("ch1", "default", mem): gib(30),
		quotaKey("root", "default", cpu): 45, quotaKey("root", "default", mem): gib(40),
		quotaKey("root", "flavor1", cpu): 25, quotaKey("root", "flavor1", gpu): 6})
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "correctly handles cohort metrics when clusterQueue moves between cohorts".
func TestKueueCohortMetricsWhenClusterQueueMovesBetweenCohorts(t *testing.T) {
	t.Parallel()
	cpu := corev1.ResourceCPU
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("flavor1").Obj(),
		MakeCohort("ch1").Quota("flavor1", cpu, "5").Quota("flavor1", gpu, "1").Obj(),
		MakeCohort("ch2").Quota("flavor1", cpu, "3").Quota("flavor1", gpu, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "ch1 and ch2", map[string]float64{
		quotaKey("ch1", "flavor1", cpu): 5, quotaKey("ch1", "flavor1", gpu): 1,
		quotaKey("ch2", "flavor1", cpu): 3, quotaKey("ch2", "flavor1", gpu): 1,
		cohortInfoKey("ch1", "", "ch1"): 1, cohortInfoKey("ch2", "", "ch2"): 1})
	cq1 := func(cohort string) *kueue.ClusterQueue {
		return MakeClusterQueue("cq1").Cohort(cohort).Quota("flavor1", cpu, "1").Quota("flavor1", gpu, "1").Obj()
	}
	upsert(t, e, cq1("ch0"))
	scrapeCohorts(t, e, false).expect(t, "cq1 in implicit ch0", map[string]float64{
		quotaKey("ch0", "flavor1", cpu): 1, quotaKey("ch0", "flavor1", gpu): 1,
		queueInfoKey("cq1", "ch0", "ch0"): 1})
	upsert(t, e, cq1("ch1"))
	scrapeCohorts(t, e, false).expect(t, "cq1 moved to ch1", map[string]float64{
		quotaKey("ch1", "flavor1", cpu): 6, quotaKey("ch1", "flavor1", gpu): 2,
		queueInfoKey("cq1", "ch1", "ch1"): 1,
	}, quotaKey("ch0", "flavor1", cpu), quotaKey("ch0", "flavor1", gpu),
		cohortInfoKey("ch0", "", "ch0"), queueInfoKey("cq1", "ch0", "ch0"))
	upsert(t, e, cq1("ch2"))
	scrapeCohorts(t, e, false).expect(t, "cq1 moved to ch2", map[string]float64{
		quotaKey("ch2", "flavor1", cpu): 4, quotaKey("ch2", "flavor1", gpu): 2,
		quotaKey("ch1", "flavor1", cpu): 5, quotaKey("ch1", "flavor1", gpu): 1,
		cohortInfoKey("ch1", "", "ch1"): 1, cohortInfoKey("ch2", "", "ch2"): 1, queueInfoKey("cq1", "ch2", "ch2"): 1,
	}, queueInfoKey("cq1", "ch1", "ch1"))
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "updates deep descendants info metrics when reparenting an ancestor cohort".
func TestKueueCohortInfoOfDeepDescendantsWhenReparentingAnAncestor(t *testing.T) {
	t.Parallel()
	cpu := corev1.ResourceCPU
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(), MakeCohort("a").Quota("default", cpu, "1").Obj(),
		MakeCohort("b").Parent("a").Obj(), MakeCohort("c").Parent("b").Obj(),
		MakeClusterQueue("qdeep").Cohort("c").Quota("default", cpu, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "a -> b -> c", map[string]float64{
		cohortInfoKey("b", "a", "a"): 1, cohortInfoKey("c", "b", "a"): 1, queueInfoKey("qdeep", "c", "a"): 1})
	upsert(t, e, MakeCohort("root2").Quota("default", cpu, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "root2", map[string]float64{cohortInfoKey("root2", "", "root2"): 1})
	upsert(t, e, MakeCohort("a").Parent("root2").Quota("default", cpu, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "a under root2", map[string]float64{
		cohortInfoKey("a", "root2", "root2"): 1, cohortInfoKey("b", "a", "root2"): 1, cohortInfoKey("c", "b", "root2"): 1,
		queueInfoKey("qdeep", "c", "root2"): 1}, queueInfoKey("qdeep", "c", "a"))
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "reports metrics for newly created implicit parent, remove implicit parent
// metrics when it has been removed".
func TestKueueCohortInfoOfImplicitParents(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	upsert(t, e, MakeFlavor("default").Obj(),
		MakeCohort("child").Parent("implicit-parent").Quota("default", corev1.ResourceCPU, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "child under implicit-parent", map[string]float64{
		cohortInfoKey("implicit-parent", "", "implicit-parent"): 1, cohortInfoKey("child", "implicit-parent", "implicit-parent"): 1})
	upsert(t, e, MakeCohort("child").Parent("new-implicit-parent").Quota("default", corev1.ResourceCPU, "1").Obj())
	scrapeCohorts(t, e, false).expect(t, "child under new-implicit-parent", map[string]float64{
		cohortInfoKey("new-implicit-parent", "", "new-implicit-parent"):      1,
		cohortInfoKey("child", "new-implicit-parent", "new-implicit-parent"): 1,
	}, cohortInfoKey("implicit-parent", "", "implicit-parent"))
}

// Kueue reports a saturated subtree amount (resources.Unlimited) as +Inf
// (TestApplyCohortMetricPointReportsUnlimitedAsInf); other amounts in the
// resource's usual unit, as the queues' gauges.
func TestCohortCellsUnits(t *testing.T) {
	t.Parallel()
	mem := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceMemory}
	cpu := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
	got := cohortCells(resources.Amounts{mem: resources.Unlimited, cpu: 1500}, resources.Amounts{mem: 1 << 30})
	want := []metrics.CohortCell{
		{Flavor: "default", Resource: "cpu", Quota: 1.5, Reservations: 0},
		{Flavor: "default", Resource: "memory", Quota: math.Inf(1), Reservations: 1 << 30},
	}
	if len(got) != len(want) {
		t.Fatalf("cells %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
