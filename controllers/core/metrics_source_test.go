package core

import (
	"fmt"
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/scheduler"
)

// The gauges' snapshot counts the workloads holding quota per ClusterQueue and
// LocalQueue (kueue_*_reserving_active_workloads and
// kueue_*_admitted_active_workloads), and reports each LocalQueue's Active
// condition as the status writer sets it (kueue_local_queue_status): False
// when its ClusterQueue is missing or inactive, or when it is stopped. An
// unset borrowing or lending limit is reported as +Inf.
func TestMetricsSnapshotActiveWorkloadsAndLocalQueueStatus(t *testing.T) {
	t.Parallel()
	e := NewEngine(scheduler.Options{})
	e.Do(func(s *scheduler.Scheduler) {
		s.UpsertResourceFlavor(MakeFlavor("default").Obj())
		for _, cq := range []*kueue.ClusterQueue{
			MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "4").Obj(),
			MakeClusterQueue("no-flavor").Quota("missing", corev1.ResourceCPU, "4").Obj(),
		} {
			if err := s.UpsertClusterQueue(cq); err != nil {
				t.Fatal(err)
			}
		}
		s.UpsertLocalQueue(MakeLocalQueue("ns", "ready", "cq").Obj())
		s.UpsertLocalQueue(MakeLocalQueue("ns", "stopped", "cq").StopPolicy(kueue.Hold).Obj())
		s.UpsertLocalQueue(MakeLocalQueue("ns", "orphan", "missing").Obj())
		s.UpsertLocalQueue(MakeLocalQueue("ns", "inactive", "no-flavor").Obj())
		for _, wl := range []*WorkloadWrapper{
			MakeWorkload("ns", "a").Queue("ready").Request(corev1.ResourceCPU, "1").ReserveQuota("cq", "default"),
			MakeWorkload("ns", "b").Queue("ready").Request(corev1.ResourceCPU, "1").ReserveQuota("cq", "default"),
			MakeWorkload("ns", "c").Queue("stopped").Request(corev1.ResourceCPU, "1").ReserveQuota("cq", "default"),
			MakeWorkload("ns", "pending").Queue("ready").Request(corev1.ResourceCPU, "1"),
		} {
			if err := s.UpsertWorkload(wl.Obj()); err != nil {
				t.Fatal(err)
			}
		}
	})
	snap := metricsSnapshot(e, NewRole(false), newPendingTracker(), nil, nil, true, false)()
	if snap.ReplicaRole != RoleStandalone {
		t.Errorf("replica role %q, want %q", snap.ReplicaRole, RoleStandalone)
	}
	limit := func(v *float64) string {
		if v == nil {
			return "not reported"
		}
		return fmt.Sprint(*v)
	}
	admittedCQ := map[string]int{}
	for _, cq := range snap.ClusterQueues {
		admittedCQ[cq.Name] = cq.AdmittedWorkloads
		// kueue_cluster_queue_resource_pending: the one pending workload's
		// CPU, in cores.
		if cq.Name == "cq" && (len(cq.Pending) != 1 || cq.Pending[0].Resource != "cpu" || cq.Pending[0].Amount != 1) {
			t.Errorf("ClusterQueue cq pending resources %+v, want 1 cpu", cq.Pending)
		}
		// Kueue's main branch reports an unset borrowing or lending limit
		// as +Inf.
		for _, c := range cq.Cells {
			if c.BorrowingLimit == nil || !math.IsInf(*c.BorrowingLimit, 1) || c.LendingLimit == nil || !math.IsInf(*c.LendingLimit, 1) {
				t.Errorf("ClusterQueue %s, %s/%s: borrowing limit %s, lending limit %s; want +Inf for both, unset",
					cq.Name, c.Flavor, c.Resource, limit(c.BorrowingLimit), limit(c.LendingLimit))
			}
		}
	}
	if admittedCQ["cq"] != 3 || admittedCQ["no-flavor"] != 0 {
		t.Errorf("ClusterQueues' workloads holding quota %v, want cq 3 and no-flavor 0", admittedCQ)
	}
	want := map[string]struct {
		admitted int
		active   string
	}{
		"ready":    {2, metrics.ActiveTrue},
		"stopped":  {1, metrics.ActiveFalse},
		"orphan":   {0, metrics.ActiveFalse},
		"inactive": {0, metrics.ActiveFalse},
	}
	if len(snap.LocalQueues) != len(want) {
		t.Errorf("%d LocalQueues in the snapshot, want %d", len(snap.LocalQueues), len(want))
	}
	for _, lq := range snap.LocalQueues {
		w := want[lq.Name]
		if lq.AdmittedWorkloads != w.admitted || lq.Active != w.active {
			t.Errorf("LocalQueue %s: %d holding quota, Active %q; want %d, %q", lq.Name, lq.AdmittedWorkloads, lq.Active, w.admitted, w.active)
		}
	}
}

// The counters label a workload by its priority class's name, whichever kind
// the class is, as Kueue's priority_class; without one, by "".
func TestMetricsWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		wl   *WorkloadWrapper
		want string
	}{
		{"WorkloadPriorityClass", MakeWorkload("ns", "w").Queue("lq").PriorityClass("high", false), "high"},
		{"pod PriorityClass", MakeWorkload("ns", "w").Queue("lq").PriorityClass("system-critical", true), "system-critical"},
		{"none", MakeWorkload("ns", "w").Queue("lq").Priority(5), ""},
	} {
		got := metricsWorkload(tc.wl.Obj(), "cq")
		want := metrics.Workload{ClusterQueue: "cq", Namespace: "ns", LocalQueue: "lq", PriorityClass: tc.want}
		if got != want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, want)
		}
	}
}
