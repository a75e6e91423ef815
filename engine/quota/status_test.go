package quota

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: pkg/cache/scheduler/cache_test.go, TestClusterQueueReadiness (the
// cases without admission checks, which Quokka does not have), and Kueue's
// inactiveReason: a queue being deleted says so first; otherwise every cause
// is listed, the reason being the first of stopped and missing flavors, and
// every missing flavor is named.
func TestKueueClusterQueueReadiness(t *testing.T) {
	const gpu = corev1.ResourceName("nvidia.com/gpu")
	deleting := func(cq *kueue.ClusterQueue) *kueue.ClusterQueue {
		cq.DeletionTimestamp = &metav1.Time{}
		return cq
	}
	cases := []struct {
		name       string
		cq         *kueue.ClusterQueue
		flavors    []string
		wantActive bool
		wantReason string
		wantCond   string
	}{
		{"flavor not found", MakeClusterQueue("queue1").Quota("flavor1", gpu, "1").Obj(), nil,
			false, kueue.ClusterQueueActiveReasonFlavorNotFound, "Can't admit new workloads: references missing ResourceFlavor(s): flavor1."},
		{"terminating", deleting(MakeClusterQueue("queue1").Quota("flavor1", gpu, "1").Obj()), []string{"flavor1"},
			false, kueue.ClusterQueueActiveReasonTerminating, "Can't admit new workloads; clusterQueue is terminating"},
		{"ready", MakeClusterQueue("queue1").Quota("flavor1", gpu, "1").Obj(), []string{"flavor1"},
			true, kueue.ClusterQueueActiveReasonReady, "Can admit new workloads"},
		{"stopped", MakeClusterQueue("queue1").StopPolicy(kueue.HoldAndDrain).Obj(), nil,
			false, kueue.ClusterQueueActiveReasonStopped, "Can't admit new workloads: is stopped."},
		// Kueue's "flavor and check not found" joins its causes so; with
		// a stop policy instead of a missing check:
		{"stopped and flavors not found", MakeClusterQueue("queue1").StopPolicy(kueue.Hold).
			Quota("flavor1", gpu, "1").Quota("flavor2", gpu, "1").Obj(), nil,
			false, kueue.ClusterQueueActiveReasonStopped, "Can't admit new workloads: is stopped, references missing ResourceFlavor(s): flavor1,flavor2."},
		{"terminating and flavor not found", deleting(MakeClusterQueue("queue1").Quota("flavor1", gpu, "1").Obj()), nil,
			false, kueue.ClusterQueueActiveReasonTerminating, "Can't admit new workloads; clusterQueue is terminating"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			for _, f := range tc.flavors {
				c.UpsertResourceFlavor(MakeFlavor(f).Obj())
			}
			if err := c.UpsertClusterQueue(tc.cq); err != nil {
				t.Fatal(err)
			}
			q, ok := c.ClusterQueue("queue1")
			if !ok {
				t.Fatal("queue1 not in the cache")
			}
			st := c.Status(q)
			if st.Active != tc.wantActive || st.Reason != tc.wantReason || st.Condition != tc.wantCond {
				t.Errorf("got active %v, reason %q, message %q; want %v, %q, %q",
					st.Active, st.Reason, st.Condition, tc.wantActive, tc.wantReason, tc.wantCond)
			}
			if q.Terminating != (tc.wantReason == kueue.ClusterQueueActiveReasonTerminating) {
				t.Errorf("Terminating = %v", q.Terminating)
			}
		})
	}
}
