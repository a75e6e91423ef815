package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// kueue_admission_cycle_preemption_skips is the last cycle's count per
// ClusterQueue, 0 for one without skips, and has no series for a ClusterQueue
// the snapshot no longer lists.
func TestPreemptionSkipsGauge(t *testing.T) {
	t.Parallel()
	snap := &snapshotVar{}
	snap.set(Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{{Name: "a"}, {Name: "b"}}})
	m, reg := withSnapshot(t, Options{}, snap.get)
	check := func(step, want string) {
		t.Helper()
		head := "# HELP kueue_admission_cycle_preemption_skips The number of Workloads in the ClusterQueue that got preemption candidates but had to be skipped because other ClusterQueues needed the same resources in the same cycle (the last cycle's count)\n# TYPE kueue_admission_cycle_preemption_skips gauge\n"
		if err := testutil.GatherAndCompare(reg, strings.NewReader(head+want), "kueue_admission_cycle_preemption_skips"); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	check("before any cycle", "kueue_admission_cycle_preemption_skips{cluster_queue=\"a\",replica_role=\"leader\"} 0\nkueue_admission_cycle_preemption_skips{cluster_queue=\"b\",replica_role=\"leader\"} 0\n")
	m.PreemptionSkips(map[string]int{"a": 2})
	check("a cycle that skipped two of a's", "kueue_admission_cycle_preemption_skips{cluster_queue=\"a\",replica_role=\"leader\"} 2\nkueue_admission_cycle_preemption_skips{cluster_queue=\"b\",replica_role=\"leader\"} 0\n")
	m.PreemptionSkips(nil)
	snap.set(Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{{Name: "a"}}})
	check("a cycle without skips, b deleted", "kueue_admission_cycle_preemption_skips{cluster_queue=\"a\",replica_role=\"leader\"} 0\n")
}

// kueue_pending_scheduling_hashes is exported with Kueue's
// SchedulingEquivalenceHashing gate only, per ClusterQueue and status.
func TestPendingSchedulingHashesGauge(t *testing.T) {
	t.Parallel()
	snap := Snapshot{ReplicaRole: "leader", ClusterQueues: []ClusterQueue{{Name: "a", ActiveHashes: 2, InadmissibleHashes: 1}}}
	for _, on := range []bool{true, false} {
		_, reg := withSnapshot(t, Options{SchedulingHashes: on}, func() Snapshot { return snap })
		want := ""
		if on {
			want = "# HELP kueue_pending_scheduling_hashes The number of distinct scheduling equivalence hashes of the pending workloads, per cluster_queue and status (active: not parked; inadmissible: parked until a requeue event)\n# TYPE kueue_pending_scheduling_hashes gauge\n" +
				"kueue_pending_scheduling_hashes{cluster_queue=\"a\",replica_role=\"leader\",status=\"active\"} 2\n" +
				"kueue_pending_scheduling_hashes{cluster_queue=\"a\",replica_role=\"leader\",status=\"inadmissible\"} 1\n"
		}
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "kueue_pending_scheduling_hashes"); err != nil {
			t.Errorf("gate %v: %v", on, err)
		}
	}
}
