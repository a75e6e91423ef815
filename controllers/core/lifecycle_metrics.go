package core

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
)

// The families of a workload's life after admission are observed where Kueue
// observes them:
//
//   - kueue_finished_workloads_total, kueue_execution_time_seconds and
//     kueue_workload_eviction_latency_seconds (and their LocalQueue twins) in
//     the Update handler of Kueue's workload controller, which sees the old
//     and the new object on every replica. Here a handler of the manager's
//     Workload informer does the same (lifecycleObserver): every replica
//     observes, labelled with its role at the time.
//   - kueue_ready_wait_time_seconds and kueue_admitted_until_ready_wait_time_seconds
//     by Kueue's job framework, right after it wrote PodsReady=True (Started):
//     only on the leader, and only with waitForPodsReady, under which it
//     writes the condition at all. Here the same handler, on a replica that
//     may write, when PodsReady turns True with reason Started.
//   - kueue_pods_ready_to_evicted_time_seconds by Kueue's eviction, beside
//     kueue_evicted_workloads_total: here the scheduling loop's evict, with
//     the eviction's reason and underlying cause (podsReadyToEvicted).
//
// The kueue_finished_workloads gauges are counted at scrape time
// (countFinished).

// Kueue's names for the state of a workload (pkg/workload, Status).
const (
	statusPending       = "pending"
	statusQuotaReserved = "quotaReserved"
	statusAdmitted      = "admitted"
	statusFinished      = "finished"
)

// workloadStatus is Kueue's workload.Status: finished, else admitted, else
// holding a quota reservation, else pending, from the conditions.
func workloadStatus(wl *kueue.Workload) string {
	switch {
	case isTrue(wl, kueue.WorkloadFinished):
		return statusFinished
	case isTrue(wl, kueue.WorkloadAdmitted):
		return statusAdmitted
	case isTrue(wl, kueue.WorkloadQuotaReserved):
		return statusQuotaReserved
	}
	return statusPending
}

// totalExecutionTime is how long a finished workload ran, Kueue's
// TotalExecutionTime: its Finished condition's time less its Admitted
// condition's (the last admission's), plus status.accumulatedPastExecutionTimeSeconds
// (the earlier admissions', added at each eviction). False unless both
// conditions are True: a workload that finished without being admitted has
// none.
func totalExecutionTime(wl *kueue.Workload) (time.Duration, bool) {
	admitted := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted)
	finished := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
	if admitted == nil || admitted.Status != metav1.ConditionTrue || finished == nil || finished.Status != metav1.ConditionTrue {
		return 0, false
	}
	past := time.Duration(ptr.Deref(wl.Status.AccumulatedPastExecutionTimeSeconds, 0)) * time.Second
	return past + finished.LastTransitionTime.Sub(admitted.LastTransitionTime.Time), true
}

// evictionPendingLatency is Kueue's EvictionPendingLatency: when old→cur
// released the quota of an evicted workload (quota reserved or admitted, then
// pending, with Evicted=True), the ClusterQueue of the admission it lost, the
// Evicted condition's reason and the time since that condition's transition.
func evictionPendingLatency(old, cur *kueue.Workload, now time.Time) (clusterQueue, reason string, d time.Duration, ok bool) {
	if old == nil || cur == nil {
		return "", "", 0, false
	}
	if prev := workloadStatus(old); (prev != statusQuotaReserved && prev != statusAdmitted) || workloadStatus(cur) != statusPending {
		return "", "", 0, false
	}
	c := meta.FindStatusCondition(cur.Status.Conditions, kueue.WorkloadEvicted)
	if c == nil || c.Status != metav1.ConditionTrue || old.Status.Admission == nil || old.Status.Admission.ClusterQueue == "" {
		return "", "", 0, false
	}
	return string(old.Status.Admission.ClusterQueue), c.Reason, now.Sub(c.LastTransitionTime.Time), true
}

// podsReadyWaits is what Kueue's job framework observes once it wrote
// PodsReady=True with reason Started over a condition that said otherwise (a
// recovery, reason Recovered, is not observed again): how long the workload
// had been queued, since its Requeued condition's transition or else its
// creation (Kueue's QueuedWaitTime), until now, and how long from its
// Admitted condition's transition to its PodsReady one. False for any other
// update, and for a workload without admission.
func podsReadyWaits(old, cur *kueue.Workload, now time.Time) (queued, sinceAdmission time.Duration, ok bool) {
	started := func(wl *kueue.Workload) bool {
		c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == kueue.WorkloadStarted
	}
	admitted := meta.FindStatusCondition(cur.Status.Conditions, kueue.WorkloadAdmitted)
	if started(old) || !started(cur) || cur.Status.Admission == nil || admitted == nil {
		return 0, 0, false
	}
	since := cur.CreationTimestamp.Time
	if c := meta.FindStatusCondition(cur.Status.Conditions, kueue.WorkloadRequeued); c != nil {
		since = c.LastTransitionTime.Time
	}
	ready := meta.FindStatusCondition(cur.Status.Conditions, kueue.WorkloadPodsReady)
	return now.Sub(since), ready.LastTransitionTime.Sub(admitted.LastTransitionTime.Time), true
}

// podsReadyToEvicted is Kueue's workloadsWithPodsReadyToEvictedTime: for a
// workload evicted while its pods were ready, the time from its PodsReady
// condition's transition to its Evicted one's.
func podsReadyToEvicted(wl *kueue.Workload) (time.Duration, bool) {
	ready := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPodsReady)
	evicted := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadEvicted)
	if ready == nil || ready.Status != metav1.ConditionTrue || evicted == nil || evicted.Status != metav1.ConditionTrue {
		return 0, false
	}
	return evicted.LastTransitionTime.Sub(ready.LastTransitionTime.Time), true
}

// countFinished counts the finished Workloads of list by the LocalQueue they
// name; the gauges report those of existing LocalQueues. A Workload being
// deleted still counts: Kueue forgets it at its deletion.
func countFinished(list []kueue.Workload) metrics.FinishedWorkloads {
	out := metrics.FinishedWorkloads{}
	for i := range list {
		if wl := &list[i]; isTrue(wl, kueue.WorkloadFinished) {
			out[metrics.LocalQueueKey{Namespace: wl.Namespace, Name: string(wl.Spec.QueueName)}]++
		}
	}
	return out
}

// lifecycleObserver observes the updates of Workloads for the families above.
// It writes nothing and enqueues nothing.
type lifecycleObserver struct {
	metrics *metrics.Metrics
	role    *Role
	now     func() time.Time
	// localQueues reads LocalQueues from the manager's cache.
	localQueues client.Reader
	// podsReady is waitForPodsReady's being configured.
	podsReady bool
}

// observeLifecycle adds the observer to the manager's Workload informer. Its
// Update events are the controllers' (the informer is shared), so it sees
// every transition they see, on every replica; Add events (a manager's
// initial list, a Workload created finished) are not transitions and count
// nothing, as in Kueue's Create handler.
func observeLifecycle(mgr manager.Manager, m *metrics.Metrics, role *Role, now func() time.Time, podsReady bool) error {
	o := &lifecycleObserver{metrics: m, role: role, now: now, localQueues: mgr.GetCache(), podsReady: podsReady}
	informer, err := mgr.GetCache().GetInformer(context.Background(), &kueue.Workload{})
	if err != nil {
		return fmt.Errorf("getting the workload informer for metrics: %w", err)
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{UpdateFunc: func(oldObj, newObj any) {
		old, okOld := oldObj.(*kueue.Workload)
		cur, okNew := newObj.(*kueue.Workload)
		if okOld && okNew {
			o.update(old, cur)
		}
	}})
	if err != nil {
		return fmt.Errorf("observing workloads for metrics: %w", err)
	}
	return nil
}

// update observes one transition of a Workload, as Kueue's handlers do.
func (o *lifecycleObserver) update(old, cur *kueue.Workload) {
	if workloadStatus(cur) == statusFinished && workloadStatus(old) != statusFinished {
		w := o.workload(cur)
		o.metrics.Finished(w)
		if d, ok := totalExecutionTime(cur); ok {
			o.metrics.Executed(w, d)
		}
	}
	if o.podsReady && o.role.CanWrite() {
		if queued, sinceAdmission, ok := podsReadyWaits(old, cur, o.now()); ok {
			o.metrics.PodsReady(o.workload(cur), queued, sinceAdmission)
		}
	}
	// Kueue's handler takes an inactive workload's update down another
	// branch first: the release of a deactivated workload's quota is not
	// observed.
	if ptr.Deref(cur.Spec.Active, true) {
		if cq, reason, d, ok := evictionPendingLatency(old, cur, o.now()); ok {
			o.metrics.EvictionLatency(cq, reason, d)
		}
	}
}

// workload labels wl by its admission's ClusterQueue (empty without one) and,
// for the LocalQueue families, by its LocalQueue only when Kueue's
// ShouldExposeLocalQueueMetricsForWorkload would: admitted, through a
// LocalQueue that exists and points to the admission's ClusterQueue.
func (o *lifecycleObserver) workload(wl *kueue.Workload) metrics.Workload {
	var cq string
	if wl.Status.Admission != nil {
		cq = string(wl.Status.Admission.ClusterQueue)
	}
	w := metricsWorkload(wl, cq)
	lq := &kueue.LocalQueue{}
	if cq == "" || o.localQueues.Get(context.Background(), client.ObjectKey{Namespace: wl.Namespace, Name: w.LocalQueue}, lq) != nil ||
		string(lq.Spec.ClusterQueue) != cq {
		w.LocalQueue = ""
	}
	return w
}
