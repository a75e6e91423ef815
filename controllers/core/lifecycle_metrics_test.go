package core

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/internal/scheme"
)

// Kueue: pkg/workload/workload_test.go, TestEvictionPendingLatency. The
// latency runs from the Evicted condition's transition on the new object;
// the ClusterQueue is the old object's admission's.
func TestKueueEvictionPendingLatency(t *testing.T) {
	t.Parallel()
	evictTime := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	metricNow := evictTime.Add(30 * time.Second)
	evictedBy := func(reason string) metav1.Condition {
		return metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue, Reason: reason,
			LastTransitionTime: metav1.NewTime(evictTime)}
	}
	admittedTrue := metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(evictTime)}
	quotaReservedTrue := metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(evictTime)}
	wl := func(cq *kueue.ClusterQueueReference, conds ...metav1.Condition) *kueue.Workload {
		w := &kueue.Workload{Status: kueue.WorkloadStatus{Conditions: conds}}
		if cq != nil {
			w.Status.Admission = &kueue.Admission{ClusterQueue: *cq}
		}
		return w
	}
	cq := func(name string) *kueue.ClusterQueueReference { return ptr.To(kueue.ClusterQueueReference(name)) }
	// Kueue's WorkloadEvictedByAdmissionCheck: Quokka has no admission
	// checks, but a Workload Kueue evicted may carry the reason.
	const evictedByAdmissionCheck = "AdmissionCheck"
	for _, tc := range []struct {
		name       string
		old, cur   *kueue.Workload
		wantOK     bool
		wantCQ     string
		wantReason string
	}{
		{name: "nil old workload", cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption))},
		{name: "admitted to pending due to preemption eviction (cq from old admission)",
			old: wl(cq("cq-a"), admittedTrue), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption)),
			wantOK: true, wantCQ: "cq-a", wantReason: kueue.WorkloadEvictedByPreemption},
		{name: "quota reserved to pending due to preemption eviction",
			old: wl(cq("cq-b"), quotaReservedTrue), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption)),
			wantOK: true, wantCQ: "cq-b", wantReason: kueue.WorkloadEvictedByPreemption},
		{name: "admitted to pending due to PodsReadyTimeout eviction",
			old: wl(cq("cq-a"), admittedTrue), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPodsReadyTimeout)),
			wantOK: true, wantCQ: "cq-a", wantReason: kueue.WorkloadEvictedByPodsReadyTimeout},
		{name: "admitted to pending due to AdmissionCheck eviction",
			old: wl(cq("cq-a"), admittedTrue), cur: wl(nil, evictedBy(evictedByAdmissionCheck)),
			wantOK: true, wantCQ: "cq-a", wantReason: evictedByAdmissionCheck},
		{name: "skip when old admission missing (no cluster queue for metric)",
			old: wl(nil), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption))},
		{name: "skip when cluster queue empty string",
			old: wl(cq(""), admittedTrue), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption))},
		{name: "skip when new status not pending (still admitted)",
			old: wl(cq("cq-a"), admittedTrue), cur: wl(cq("cq-a"), admittedTrue, evictedBy(kueue.WorkloadEvictedByPreemption))},
		{name: "skip when previous status already pending",
			old: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption)), cur: wl(nil, evictedBy(kueue.WorkloadEvictedByPreemption))},
		{name: "skip missing eviction condition", old: wl(cq("cq-a"), admittedTrue), cur: wl(nil)},
		{name: "skip eviction condition not true", old: wl(cq("cq-a"), admittedTrue),
			cur: wl(nil, metav1.Condition{Type: kueue.WorkloadEvicted, Status: metav1.ConditionFalse,
				Reason: kueue.WorkloadEvictedByPreemption, LastTransitionTime: metav1.NewTime(evictTime)})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gotCQ, gotReason, gotLatency, ok := evictionPendingLatency(tc.old, tc.cur, metricNow)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v (cq %q, reason %q, latency %v)", ok, tc.wantOK, gotCQ, gotReason, gotLatency)
			}
			if ok && (gotCQ != tc.wantCQ || gotReason != tc.wantReason || gotLatency != 30*time.Second) {
				t.Errorf("got %q, %q, %v; want %q, %q, 30s", gotCQ, gotReason, gotLatency, tc.wantCQ, tc.wantReason)
			}
		})
	}
}

// at is a condition of type typ, status and reason, transitioned at at.
func at(typ string, status metav1.ConditionStatus, reason string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(at)}
}

// Kueue: pkg/workload/workload_test.go, TestTotalExecutionTime: the last
// admission's time to the finish, plus the earlier admissions' accumulated
// seconds; nothing unless Admitted and Finished are both True.
func TestKueueTotalExecutionTime(t *testing.T) {
	t.Parallel()
	now := time.Now().Truncate(time.Second)
	reserved := at(kueue.WorkloadQuotaReserved, metav1.ConditionTrue, "QuotaReserved", now)
	admitted := at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", now)
	wl := func(past *int32, conds ...metav1.Condition) *kueue.Workload {
		return &kueue.Workload{Status: kueue.WorkloadStatus{Conditions: conds, AccumulatedPastExecutionTimeSeconds: past,
			Admission: &kueue.Admission{ClusterQueue: "cq"}}}
	}
	for _, tc := range []struct {
		name string
		wl   *kueue.Workload
		want *time.Duration
	}{
		{"admitted and finished", wl(nil, reserved, admitted,
			at(kueue.WorkloadFinished, metav1.ConditionTrue, "ByTest", now.Add(10*time.Second))), ptr.To(10 * time.Second)},
		{"not admitted", &kueue.Workload{}, nil},
		{"admitted but not finished", wl(nil, reserved, admitted), nil},
		{"admitted false", wl(nil, reserved, at(kueue.WorkloadAdmitted, metav1.ConditionFalse, "ByTest", now),
			at(kueue.WorkloadFinished, metav1.ConditionTrue, "ByTest", now.Add(10*time.Second))), nil},
		{"finished condition false", wl(nil, reserved, admitted,
			at(kueue.WorkloadFinished, metav1.ConditionFalse, "ByTest", now.Add(10*time.Second))), nil},
		{"with accumulated past execution time", wl(ptr.To[int32](30), reserved, admitted,
			at(kueue.WorkloadFinished, metav1.ConditionTrue, "ByTest", now.Add(5*time.Second))), ptr.To(35 * time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := totalExecutionTime(tc.wl)
			switch {
			case tc.want == nil && ok:
				t.Errorf("totalExecutionTime = %v, want none", got)
			case tc.want != nil && (!ok || got != *tc.want):
				t.Errorf("totalExecutionTime = %v, %v; want %v", got, ok, *tc.want)
			}
		})
	}
}

// PodsReady turning True with reason Started, on an admitted workload, is
// observed once: from the Requeued condition's transition (else the
// creation) to now, and from the Admitted condition's transition to the
// PodsReady one's. A recovery (Recovered) and a condition already Started
// are not observed again, as Kueue's job framework does not report them.
func TestPodsReadyWaits(t *testing.T) {
	t.Parallel()
	created := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	admittedAt, readyAt, now := created.Add(60*time.Second), created.Add(75*time.Second), created.Add(80*time.Second)
	admitted := at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", admittedAt)
	wl := func(admission bool, conds ...metav1.Condition) *kueue.Workload {
		w := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)},
			Status: kueue.WorkloadStatus{Conditions: conds}}
		if admission {
			w.Status.Admission = &kueue.Admission{ClusterQueue: "cq"}
		}
		return w
	}
	started := at(kueue.WorkloadPodsReady, metav1.ConditionTrue, kueue.WorkloadStarted, readyAt)
	for _, tc := range []struct {
		name                string
		old, cur            *kueue.Workload
		wantOK              bool
		wantQueued, wantAdm time.Duration
	}{
		{name: "first start after admission", old: wl(true, admitted), cur: wl(true, admitted, started),
			wantOK: true, wantQueued: 80 * time.Second, wantAdm: 15 * time.Second},
		{name: "from WaitForStart, queued since a requeue",
			old: wl(true, admitted, at(kueue.WorkloadRequeued, metav1.ConditionTrue, "Preempted", created.Add(50*time.Second)),
				at(kueue.WorkloadPodsReady, metav1.ConditionFalse, kueue.WorkloadWaitForStart, admittedAt)),
			cur:    wl(true, admitted, at(kueue.WorkloadRequeued, metav1.ConditionTrue, "Preempted", created.Add(50*time.Second)), started),
			wantOK: true, wantQueued: 30 * time.Second, wantAdm: 15 * time.Second},
		{name: "already started", old: wl(true, admitted, started), cur: wl(true, admitted, started)},
		{name: "recovered", old: wl(true, admitted, at(kueue.WorkloadPodsReady, metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, readyAt)),
			cur: wl(true, admitted, at(kueue.WorkloadPodsReady, metav1.ConditionTrue, kueue.WorkloadRecovered, readyAt))},
		{name: "not ready", old: wl(true, admitted), cur: wl(true, admitted,
			at(kueue.WorkloadPodsReady, metav1.ConditionFalse, kueue.WorkloadWaitForStart, readyAt))},
		{name: "without admission", old: wl(false), cur: wl(false, started)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			queued, adm, ok := podsReadyWaits(tc.old, tc.cur, now)
			if ok != tc.wantOK || queued != tc.wantQueued || adm != tc.wantAdm {
				t.Errorf("got %v, %v, %v; want %v, %v, %v", queued, adm, ok, tc.wantQueued, tc.wantAdm, tc.wantOK)
			}
		})
	}
}

// Kueue: pkg/workload/evict/evict.go, workloadsWithPodsReadyToEvictedTime:
// only a workload evicted while PodsReady is True is observed.
func TestPodsReadyToEvicted(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	evicted := at(kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadDeactivated, t0.Add(42*time.Second))
	wl := &kueue.Workload{Status: kueue.WorkloadStatus{Conditions: []metav1.Condition{
		at(kueue.WorkloadPodsReady, metav1.ConditionTrue, kueue.WorkloadStarted, t0), evicted}}}
	if d, ok := podsReadyToEvicted(wl); !ok || d != 42*time.Second {
		t.Errorf("ready then evicted: %v, %v; want 42s", d, ok)
	}
	wl.Status.Conditions[0].Status = metav1.ConditionFalse
	if d, ok := podsReadyToEvicted(wl); ok {
		t.Errorf("evicted before its pods were ready: %v, want none", d)
	}
	wl.Status.Conditions = wl.Status.Conditions[:1]
	if d, ok := podsReadyToEvicted(wl); ok {
		t.Errorf("not evicted: %v, want none", d)
	}
}

// The finished gauges count every Workload whose Finished condition is True,
// by the LocalQueue it names, being deleted or not.
func TestCountFinished(t *testing.T) {
	t.Parallel()
	finished := func(ns, queue string) kueue.Workload {
		w := kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns}}
		w.Spec.QueueName = kueue.LocalQueueName(queue)
		w.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue}}
		return w
	}
	deleting := finished("a", "lq")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	running := finished("a", "lq")
	running.Status.Conditions[0].Status = metav1.ConditionFalse
	got := countFinished([]kueue.Workload{finished("a", "lq"), deleting, running, finished("b", "lq"), {}})
	want := metrics.FinishedWorkloads{{Namespace: "a", Name: "lq"}: 2, {Namespace: "b", Name: "lq"}: 1}
	if len(got) != len(want) {
		t.Fatalf("counted %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%v: %d, want %d", k, got[k], v)
		}
	}
}

// observer is a lifecycleObserver on a registry of its own, its LocalQueues
// in a fake client, with LocalQueue metrics on.
func observer(t *testing.T, role *Role, podsReady bool, now time.Time, objs ...client.Object) (*lifecycleObserver, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	// A ClusterQueue in the snapshot, so that a gauge tells when the
	// collectors are registered.
	snap := metrics.Snapshot{ClusterQueues: []metrics.ClusterQueue{{Name: "probe"}}}
	m := metrics.New(reg, metrics.Options{LocalQueue: true, ReplicaRole: role.Label}, func() metrics.Snapshot { return snap })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(5 * time.Second); !slices.Contains(gathered(t, reg), "kueue_pending_workloads"); {
		if time.Now().After(deadline) {
			t.Fatal("metrics not registered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	return &lifecycleObserver{metrics: m, role: role, now: func() time.Time { return now }, localQueues: c, podsReady: podsReady}, reg
}

// gathered is the names of the families reg gathers.
func gathered(t *testing.T, reg prometheus.Gatherer) []string {
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

// sampleOf is a series of family name: a counter's value, or a histogram's
// count and sum; labels are name=value pairs in label order, comma-joined.
type sampleOf struct {
	value, sum float64
	count      uint64
}

func seriesOf(t *testing.T, reg prometheus.Gatherer, name string) map[string]sampleOf {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sampleOf{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, p := range m.GetLabel() {
				parts = append(parts, p.GetName()+"="+p.GetValue())
			}
			out[strings.Join(parts, ",")] = sampleOf{value: m.GetCounter().GetValue(),
				count: m.GetHistogram().GetSampleCount(), sum: m.GetHistogram().GetSampleSum()}
		}
	}
	return out
}

// lifecycleWL is Workload ns/wl of LocalQueue lq, of priority class "high",
// admitted to cq when admitted, with conds.
func lifecycleWL(admitted bool, conds ...metav1.Condition) *kueue.Workload {
	w := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "wl"}}
	w.Spec.QueueName = "lq"
	w.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: "high"}
	w.Status.Conditions = conds
	if admitted {
		w.Status.Admission = &kueue.Admission{ClusterQueue: "cq"}
	}
	return w
}

// Kueue's Update handler (pkg/controller/core/workload_controller.go,
// reportFinishedWorkload) counts a workload when its status becomes
// finished, on every replica, under the replica's role: a follower counts
// too. Its execution time is observed when it was admitted; its LocalQueue
// only when that LocalQueue exists and points to the admission's
// ClusterQueue. The same update seen again (old already finished) counts
// nothing more.
func TestObserverCountsFinishedWorkloads(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"}}
	o, reg := observer(t, NewRole(true), true, t0, lq)
	admitted := at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", t0)
	done := at(kueue.WorkloadFinished, metav1.ConditionTrue, "Succeeded", t0.Add(40*time.Second))
	old, cur := lifecycleWL(true, admitted), lifecycleWL(true, admitted, done)
	cur.Status.AccumulatedPastExecutionTimeSeconds = ptr.To[int32](5)
	o.update(old, cur)
	o.update(cur, cur)
	// Finished without admission: cluster_queue="", no LocalQueue, no
	// execution time.
	o.update(lifecycleWL(false), lifecycleWL(false, done))

	cq := "cluster_queue=cq,priority_class=high,replica_role=follower"
	if got := seriesOf(t, reg, "kueue_finished_workloads_total"); len(got) != 2 || got[cq].value != 1 ||
		got["cluster_queue=,priority_class=high,replica_role=follower"].value != 1 {
		t.Errorf("kueue_finished_workloads_total %v, want 1 for cq and 1 for none", got)
	}
	lqKey := "name=lq,namespace=ns,priority_class=high,replica_role=follower"
	if got := seriesOf(t, reg, "kueue_local_queue_finished_workloads_total"); len(got) != 1 || got[lqKey].value != 1 {
		t.Errorf("kueue_local_queue_finished_workloads_total %v, want 1 for ns/lq", got)
	}
	for name, key := range map[string]string{"kueue_execution_time_seconds": cq, "kueue_local_queue_execution_time_seconds": lqKey} {
		if got := seriesOf(t, reg, name); len(got) != 1 || got[key].count != 1 || got[key].sum != 45 {
			t.Errorf("%s %v, want one observation of 45s (40s plus 5s accumulated)", name, got)
		}
	}
	// A follower does not observe the pods' readiness: Kueue's job
	// framework, which does, runs on the leader.
	o.update(lifecycleWL(true, admitted), lifecycleWL(true, admitted,
		at(kueue.WorkloadPodsReady, metav1.ConditionTrue, kueue.WorkloadStarted, t0.Add(time.Second))))
	if got := seriesOf(t, reg, "kueue_ready_wait_time_seconds"); len(got) != 0 {
		t.Errorf("a follower observed kueue_ready_wait_time_seconds: %v", got)
	}
}

// A LocalQueue that is gone, or points elsewhere than the admission's
// ClusterQueue, gets no LocalQueue series (Kueue's
// ShouldExposeLocalQueueMetricsForWorkload); the ClusterQueue's are counted.
func TestObserverLeavesOutMissingLocalQueues(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	admitted := at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", t0)
	done := at(kueue.WorkloadFinished, metav1.ConditionTrue, "Succeeded", t0.Add(time.Second))
	elsewhere := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "other"}}
	for name, objs := range map[string][]client.Object{"missing": nil, "elsewhere": {elsewhere}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, reg := observer(t, NewRole(false), true, t0, objs...)
			o.update(lifecycleWL(true, admitted), lifecycleWL(true, admitted, done))
			if got := seriesOf(t, reg, "kueue_finished_workloads_total"); got["cluster_queue=cq,priority_class=high,replica_role=standalone"].value != 1 {
				t.Errorf("kueue_finished_workloads_total %v, want 1 for cq", got)
			}
			for _, family := range []string{"kueue_local_queue_finished_workloads_total", "kueue_local_queue_execution_time_seconds"} {
				if got := seriesOf(t, reg, family); len(got) != 0 {
					t.Errorf("%s %v, want none", family, got)
				}
			}
		})
	}
}

// On a replica that may write, with waitForPodsReady, PodsReady turning True
// (Started) observes both ready waits, per ClusterQueue and LocalQueue;
// without waitForPodsReady, under which Kueue's job framework does not write
// the condition, nothing.
func TestObserverRecordsReadyWaits(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lq"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "cq"}}
	admitted := at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", t0.Add(20*time.Second))
	old := lifecycleWL(true, admitted)
	old.CreationTimestamp = metav1.NewTime(t0)
	cur := old.DeepCopy()
	cur.Status.Conditions = append(cur.Status.Conditions, at(kueue.WorkloadPodsReady, metav1.ConditionTrue, kueue.WorkloadStarted, t0.Add(26*time.Second)))

	o, reg := observer(t, NewRole(false), true, t0.Add(30*time.Second), lq)
	o.update(old, cur)
	cq := "cluster_queue=cq,priority_class=high,replica_role=standalone"
	lqKey := "name=lq,namespace=ns,priority_class=high,replica_role=standalone"
	for name, want := range map[string]struct {
		key string
		sum float64
	}{
		"kueue_ready_wait_time_seconds":                            {cq, 30},
		"kueue_admitted_until_ready_wait_time_seconds":             {cq, 6},
		"kueue_local_queue_ready_wait_time_seconds":                {lqKey, 30},
		"kueue_local_queue_admitted_until_ready_wait_time_seconds": {lqKey, 6},
	} {
		if got := seriesOf(t, reg, name); len(got) != 1 || got[want.key].count != 1 || got[want.key].sum != want.sum {
			t.Errorf("%s %v, want one observation of %vs", name, got, want.sum)
		}
	}

	o, reg = observer(t, NewRole(false), false, t0.Add(30*time.Second), lq)
	o.update(old, cur)
	if got := seriesOf(t, reg, "kueue_ready_wait_time_seconds"); len(got) != 0 {
		t.Errorf("observed without waitForPodsReady: %v", got)
	}
}

// The release of an evicted workload's quota is observed on every replica,
// with the old admission's ClusterQueue and the Evicted condition's reason;
// a deactivated workload's is not, because Kueue's Update handler takes an
// inactive workload down another branch first.
func TestObserverRecordsEvictionLatency(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	evicted := at(kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPreemption, t0)
	old := lifecycleWL(true, at(kueue.WorkloadQuotaReserved, metav1.ConditionTrue, "QuotaReserved", t0.Add(-time.Minute)),
		at(kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", t0.Add(-time.Minute)), evicted)
	cur := lifecycleWL(false, at(kueue.WorkloadQuotaReserved, metav1.ConditionFalse, "Pending", t0.Add(3*time.Second)),
		at(kueue.WorkloadAdmitted, metav1.ConditionFalse, "NoReservation", t0.Add(3*time.Second)), evicted)

	o, reg := observer(t, NewRole(true), true, t0.Add(4*time.Second))
	o.update(old, cur)
	inactive := cur.DeepCopy()
	inactive.Spec.Active = ptr.To(false)
	o.update(old, inactive)
	key := "cluster_queue=cq,reason=Preempted,replica_role=follower"
	if got := seriesOf(t, reg, "kueue_workload_eviction_latency_seconds"); len(got) != 1 || got[key].count != 1 || got[key].sum != 4 {
		t.Errorf("kueue_workload_eviction_latency_seconds %v, want one observation of 4s for %s", got, key)
	}
}
