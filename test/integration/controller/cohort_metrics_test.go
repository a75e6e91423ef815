//go:build integration

package controller

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// The Cohort families (Kueue's MetricsForCohorts gate), through the
// manager's metrics endpoint.

// cohortFamilies are the six gauges and the counter.
var cohortFamilies = []string{"kueue_cohort_info", "kueue_cluster_queue_info", "kueue_cohort_subtree_quota",
	"kueue_cohort_subtree_resource_reservations", "kueue_cohort_subtree_admitted_active_workloads",
	"kueue_cohort_weighted_share", "kueue_cohort_subtree_admitted_workloads_total"}

var (
	exactSampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\s+(\S+)$`)
	labelPair       = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// exactSample finds the sample of name whose labels, replica_role aside, are
// exactly labels: the label values of these families name each other
// (cohort, parent_cohort, root_cohort), so matching a subset would mistake
// one series for another. Its replica_role must be standalone.
func exactSample(text, name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		m := exactSampleLine.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		got := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			got[p[1]] = p[2]
		}
		if got["replica_role"] != "standalone" || len(got) != len(labels)+1 {
			continue
		}
		match := true
		for k, v := range labels {
			if g, ok := got[k]; !ok || g != v {
				match = false
				break
			}
		}
		if match {
			v, err := strconv.ParseFloat(m[3], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// series names one series of a family.
type series struct {
	name   string
	labels map[string]string
}

func (s series) String() string { return fmt.Sprintf("%s%v", s.name, s.labels) }

func infoOf(cohort, parent, root string) series {
	return series{"kueue_cohort_info", map[string]string{"cohort": cohort, "parent_cohort": parent, "root_cohort": root}}
}

func queueInfoOf(cq, parent, root string) series {
	return series{"kueue_cluster_queue_info", map[string]string{"cluster_queue": cq, "parent_cohort": parent, "root_cohort": root}}
}

func quotaOf(cohort string) series {
	return series{"kueue_cohort_subtree_quota", map[string]string{"cohort": cohort, "flavor": "default", "resource": "cpu"}}
}

func reservationsOf(cohort string) series {
	return series{"kueue_cohort_subtree_resource_reservations", map[string]string{"cohort": cohort, "flavor": "default", "resource": "cpu"}}
}

func activeOf(cohort string) series {
	return series{"kueue_cohort_subtree_admitted_active_workloads", map[string]string{"cohort": cohort}}
}

func shareOf(cohort string) series {
	return series{"kueue_cohort_weighted_share", map[string]string{"cohort": cohort}}
}

func admittedTotalOf(cohort, priorityClass string) series {
	return series{"kueue_cohort_subtree_admitted_workloads_total", map[string]string{"cohort": cohort, "priority_class": priorityClass}}
}

// valued is a series and the value it should have.
type valued struct {
	s series
	v float64
}

func is(s series, v float64) valued { return valued{s, v} }

// waitSeries waits until every series of want has its value.
func waitSeries(t *testing.T, mgr *runningManager, want ...valued) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		text := mgr.scrape(t)
		for _, w := range want {
			v, ok := exactSample(text, w.s.name, w.s.labels)
			switch {
			case !ok:
				return fmt.Sprintf("no %s", w.s)
			case v != w.v:
				return fmt.Sprintf("%s = %v, want %v", w.s, v, w.v)
			}
		}
		return ""
	})
}

// waitNoSeries waits until none of the series exists.
func waitNoSeries(t *testing.T, mgr *runningManager, gone ...series) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		text := scraped(t, mgr)
		for _, s := range gone {
			if v, ok := exactSample(text, s.name, s.labels); ok {
				return fmt.Sprintf("%s = %v, want no series", s, v)
			}
		}
		return ""
	})
}

// cohortObj is a Cohort with parent and cpus CPUs of flavor default ("" for
// none).
func cohortObj(name, parent, cpus string) *kueue.Cohort {
	co := &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.CohortSpec{ParentName: kueue.CohortReference(parent)}}
	if cpus != "" {
		co.Spec.ResourceGroups = makeCQ("").flavor("default", quota("cpu", cpus, "", "")).obj().Spec.ResourceGroups
	}
	return co
}

// cohortQueue is a ClusterQueue of cohort with cpus CPUs of flavor default,
// for the namespaces labelled team=name.
func cohortQueue(name, cohort, cpus string) *kueue.ClusterQueue {
	return makeCQ(name).cohort(cohort).selector("team", name).flavor("default", quota("cpu", cpus, "", "")).obj()
}

// queueNamespace creates namespace ns, labelled for ClusterQueue cq, with a
// LocalQueue "q" pointing at it.
func queueNamespace(t *testing.T, ns, cq string) {
	t.Helper()
	create(t, makeNS(ns, map[string]string{"team": cq}), makeLQ(ns, "q", cq))
}

func setCohortParent(t *testing.T, name, parent string) {
	t.Helper()
	eventually(t, 10*time.Second, func() string {
		co := &kueue.Cohort{}
		if err := env.Client.Get(context.Background(), keyOf("", name), co); err != nil {
			return err.Error()
		}
		co.Spec.ParentName = kueue.CohortReference(parent)
		if err := env.Client.Update(context.Background(), co); err != nil {
			return err.Error()
		}
		return ""
	})
}

// With the default configuration (MetricsForCohorts on) and fair sharing,
// which kueue_cohort_weighted_share needs as in Kueue, a small tree exports
// all seven families: an explicit root Cohort with a child Cohort, a
// ClusterQueue in each, one workload admitted in the child's queue. Deleting
// a ClusterQueue removes its kueue_cluster_queue_info; deleting the child
// Cohort, once nothing refers to it, removes all its series, the counter
// included (Kueue: Cache.DeleteCohort, ClearCohortAdmittedWorkloadsMetrics),
// and its quota from the root's subtree.
func TestCohortMetricsExportedAndRemoved(t *testing.T) {
	ns := "cm-metrics"
	create(t, makeFlavor("default"), cohortObj("cm-root", "", "2"), cohortObj("cm-child", "cm-root", "1"),
		cohortQueue("cm-a", "cm-child", "1"), cohortQueue("cm-b", "cm-root", "1"))
	queueNamespace(t, ns, "cm-a")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, func(cfg *configapi.Configuration) { cfg.FairSharing = &configapi.FairSharing{} })
	create(t, makeWL(ns, "wl", "q", "cpu", "1"))
	waitAdmitted(t, ns, "wl")

	waitSeries(t, mgr,
		is(infoOf("cm-root", "", "cm-root"), 1),
		is(infoOf("cm-child", "cm-root", "cm-root"), 1),
		is(queueInfoOf("cm-a", "cm-child", "cm-root"), 1),
		is(queueInfoOf("cm-b", "cm-root", "cm-root"), 1),
		// cm-child: its 1 and cm-a's 1; cm-root: its 2, cm-child's 2 and
		// cm-b's 1.
		is(quotaOf("cm-child"), 2),
		is(quotaOf("cm-root"), 5),
		is(reservationsOf("cm-child"), 1),
		is(reservationsOf("cm-root"), 1),
		is(activeOf("cm-child"), 1),
		is(activeOf("cm-root"), 1),
		// Within quota: 0.
		is(shareOf("cm-child"), 0),
		is(shareOf("cm-root"), 0),
		is(admittedTotalOf("cm-child", ""), 1),
		is(admittedTotalOf("cm-root", ""), 1),
	)

	finish(t, getWL(t, ns, "wl"))
	waitSeries(t, mgr,
		is(activeOf("cm-child"), 0),
		is(activeOf("cm-root"), 0),
	)
	waitNoSeries(t, mgr, reservationsOf("cm-child"), reservationsOf("cm-root"))

	cqB := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cm-b"}}
	deleteObj(t, cqB)
	waitGone(t, cqB)
	waitNoSeries(t, mgr, queueInfoOf("cm-b", "cm-root", "cm-root"))

	cqA := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cm-a"}}
	deleteObj(t, cqA)
	waitGone(t, cqA)
	deleteObj(t, &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "cm-child"}})
	waitNoSeries(t, mgr, queueInfoOf("cm-a", "cm-child", "cm-root"), infoOf("cm-child", "cm-root", "cm-root"),
		quotaOf("cm-child"), activeOf("cm-child"), shareOf("cm-child"), admittedTotalOf("cm-child", ""))
	// The root keeps its own series, its quota now its own, and its count.
	waitSeries(t, mgr,
		is(infoOf("cm-root", "", "cm-root"), 1),
		is(quotaOf("cm-root"), 2),
		is(shareOf("cm-root"), 0),
		is(admittedTotalOf("cm-root", ""), 1),
	)
}

// With featureGates MetricsForCohorts: false, kueue_cohort_info and
// kueue_cluster_queue_info are not exported, as in Kueue, whose gate covers
// those two only; the subtree families still are.
func TestCohortMetricsOffWithTheGate(t *testing.T) {
	ns := "cm-off"
	create(t, makeFlavor("default"), cohortObj("cm-off-root", "", "2"), cohortObj("cm-off-child", "cm-off-root", "1"),
		cohortQueue("cm-off-a", "cm-off-child", "1"), cohortQueue("cm-off-b", "cm-off-root", "1"))
	queueNamespace(t, ns, "cm-off-a")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, func(cfg *configapi.Configuration) {
		cfg.FairSharing = &configapi.FairSharing{}
		cfg.FeatureGates = map[string]bool{string(configapi.FeatureMetricsForCohorts): false}
	})
	create(t, makeWL(ns, "wl", "q", "cpu", "1"))
	waitAdmitted(t, ns, "wl")
	waitForSample(t, mgr, "kueue_cohort_subtree_admitted_workloads_total", map[string]string{"cohort": "cm-off-root"}, 1)
	for _, line := range strings.Split(scraped(t, mgr), "\n") {
		for _, name := range []string{"kueue_cohort_info", "kueue_cluster_queue_info"} {
			if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, "# HELP "+name+" ") {
				t.Errorf("exported with MetricsForCohorts off: %s", line)
			}
		}
	}
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "correctly handles cohort metrics when workload admitted with workload
// priority class" (names prefixed, the flavor Quokka's tests share): the
// counter is per priority_class in every Cohort above the admitting queue,
// the implicit root included; the active count sums the subtree.
func TestKueueCohortMetricsWithWorkloadPriorityClass(t *testing.T) {
	ns1, ns2 := "cmp-1", "cmp-2"
	create(t, makeFlavor("default"), cohortObj("cmp-ch1", "cmp-root", "5"), cohortObj("cmp-ch2", "cmp-root", "2"),
		cohortQueue("cmp-cq1", "cmp-ch1", "5"), cohortQueue("cmp-cq2", "cmp-ch2", "2"),
		&kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "cmp-high"}, Value: 100},
		&kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "cmp-low"}, Value: 10})
	queueNamespace(t, ns1, "cmp-cq1")
	queueNamespace(t, ns2, "cmp-cq2")
	finishWorkloadsAtEnd(t, ns1)
	finishWorkloadsAtEnd(t, ns2)
	mgr := startManager(t, nil)
	withClass := func(ns, name, class string, priority int32) *kueue.Workload {
		wl := makeWL(ns, name, "q", "cpu", "1")
		wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup,
			Kind: kueue.WorkloadPriorityClassKind, Name: class}
		wl.Spec.Priority = ptr.To(priority)
		return wl
	}
	for i := range 5 {
		create(t, withClass(ns1, fmt.Sprintf("high-%d", i), "cmp-high", 100))
	}
	for i := range 2 {
		create(t, withClass(ns2, fmt.Sprintf("low-%d", i), "cmp-low", 10))
	}
	waitSeries(t, mgr,
		is(admittedTotalOf("cmp-root", "cmp-high"), 5),
		is(admittedTotalOf("cmp-root", "cmp-low"), 2),
		is(admittedTotalOf("cmp-ch1", "cmp-high"), 5),
		is(admittedTotalOf("cmp-ch2", "cmp-low"), 2),
		is(activeOf("cmp-root"), 7),
		is(activeOf("cmp-ch1"), 5),
		is(activeOf("cmp-ch2"), 2),
	)
	waitNoSeries(t, mgr, admittedTotalOf("cmp-ch1", "cmp-low"), admittedTotalOf("cmp-ch2", "cmp-high"))
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "should clear metrics for the implicit root Cohort after deleting
// ClusterQueues then Cohort" (names prefixed; the workloads are finished
// rather than deleted, which releases their quota the same way): the counts
// stay while the Cohorts exist, and go with them; the implicit root goes
// with its last child.
func TestKueueCohortMetricsClearedAfterDeletingClusterQueuesThenCohort(t *testing.T) {
	ns := "cmd"
	create(t, makeFlavor("default"), cohortObj("cmd-ch1", "cmd-root", "5"), cohortQueue("cmd-cq1", "cmd-ch1", "5"))
	queueNamespace(t, ns, "cmd-cq1")
	finishWorkloadsAtEnd(t, ns)
	mgr := startManager(t, nil)
	for i := range 5 {
		create(t, makeWL(ns, fmt.Sprintf("wl-%d", i), "q", "cpu", "1"))
	}
	waitSeries(t, mgr,
		is(admittedTotalOf("cmd-root", ""), 5),
		is(admittedTotalOf("cmd-ch1", ""), 5),
		is(activeOf("cmd-root"), 5),
		is(activeOf("cmd-ch1"), 5),
	)

	for _, wl := range listWLs(t, ns) {
		finish(t, &wl)
	}
	waitSeries(t, mgr,
		is(admittedTotalOf("cmd-root", ""), 5),
		is(admittedTotalOf("cmd-ch1", ""), 5),
		is(activeOf("cmd-root"), 0),
		is(activeOf("cmd-ch1"), 0),
	)

	deleteObj(t, makeLQ(ns, "q", "cmd-cq1"))
	cq := &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "cmd-cq1"}}
	deleteObj(t, cq)
	waitGone(t, cq)
	// Kueue keeps the active count at 0 for Cohorts that had queues; with
	// no queue below, Quokka has no series (which Kueue's check, reading 0
	// for a missing series, does not tell apart).
	waitNoSeries(t, mgr, activeOf("cmd-root"), activeOf("cmd-ch1"))
	waitSeries(t, mgr,
		is(admittedTotalOf("cmd-root", ""), 5),
		is(admittedTotalOf("cmd-ch1", ""), 5),
	)

	deleteObj(t, &kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "cmd-ch1"}})
	waitNoSeries(t, mgr, admittedTotalOf("cmd-root", ""), admittedTotalOf("cmd-ch1", ""),
		infoOf("cmd-ch1", "cmd-root", "cmd-root"), infoOf("cmd-root", "", "cmd-root"))
}

// Kueue: test/integration/singlecluster/scheduler/fairsharing/metrics_test.go,
// "should clear metrics for the implicit root Cohort after switching to
// another root Cohort" (names prefixed):
//
//	cq1 -> ch1 -> root1 (implicit)  =>  cq1 -> ch1 -> root2 (explicit)
//	cq2 -> root2 (explicit)         =>  cq2 -> root2 (explicit)
//
// root1 goes, with its series; the counters of ch1 and root2 stay as they
// were (an admission is counted where it happened). Kueue's check then reads
// root2's active count as 2, the count its cache kept from before the move;
// the workloads holding quota under root2 are 5 after it, which Quokka
// reports.
func TestKueueCohortMetricsClearedAfterSwitchingToAnotherRoot(t *testing.T) {
	ns1, ns2 := "cms-1", "cms-2"
	create(t, makeFlavor("default"), cohortObj("cms-ch1", "cms-root1", "5"), cohortObj("cms-root2", "", "5"),
		cohortQueue("cms-cq1", "cms-ch1", "5"), cohortQueue("cms-cq2", "cms-root2", "5"))
	queueNamespace(t, ns1, "cms-cq1")
	queueNamespace(t, ns2, "cms-cq2")
	finishWorkloadsAtEnd(t, ns1)
	finishWorkloadsAtEnd(t, ns2)
	mgr := startManager(t, nil)
	for i := range 3 {
		create(t, makeWL(ns1, fmt.Sprintf("wl-%d", i), "q", "cpu", "1"))
	}
	for i := range 2 {
		create(t, makeWL(ns2, fmt.Sprintf("wl-%d", i), "q", "cpu", "1"))
	}
	waitSeries(t, mgr,
		is(admittedTotalOf("cms-ch1", ""), 3),
		is(activeOf("cms-ch1"), 3),
		is(admittedTotalOf("cms-root1", ""), 3),
		is(activeOf("cms-root1"), 3),
		is(admittedTotalOf("cms-root2", ""), 2),
		is(activeOf("cms-root2"), 2),
	)

	setCohortParent(t, "cms-ch1", "cms-root2")
	waitNoSeries(t, mgr, admittedTotalOf("cms-root1", ""), activeOf("cms-root1"), infoOf("cms-root1", "", "cms-root1"))
	waitSeries(t, mgr,
		is(admittedTotalOf("cms-ch1", ""), 3),
		is(activeOf("cms-ch1"), 3),
		is(admittedTotalOf("cms-root2", ""), 2),
		is(activeOf("cms-root2"), 5),
		is(infoOf("cms-ch1", "cms-root2", "cms-root2"), 1),
		is(queueInfoOf("cms-cq1", "cms-ch1", "cms-root2"), 1),
	)
}
