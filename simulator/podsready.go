package simulator

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's waitForPodsReady, played offline. A job whose manifest says its pods
// take time to be ready (simulation.quokka.dev/pods-ready-after) makes the
// engine enforce the Configuration's waitForPodsReady for the run, as the
// manager does in a cluster: until a job's pods are ready, blockAdmission
// holds other admissions; a job whose pods are not ready within the timeout
// is evicted (reason PodsReadyTimeout), backs off (status.requeueState) and
// comes back in its queue, and past backoffLimitCount timeouts it is
// deactivated. Jobs without the annotation have their pods ready at
// admission. Every admission is told to the engine as the manager's write
// reads back, with PodsReady when the pods are ready. Without any
// such job, nothing waits for pods and the engine is not told (the
// simulator's runs stay as cheap as before).

// startKueuePods tells the engine, for a job just admitted, whether its pods are
// ready, or sets the timer at which they will be.
func (s *sim) startKueuePods(w *workloadRecord) {
	w.podsReady = w.podsReadyAfter == 0
	// The admission turns a timeout's Evicted condition False (the manager's
	// write): a later eviction of another kind does not order the job by it.
	w.timedOut = false
	if !s.podsReadyModelled {
		return
	}
	if !w.podsReady {
		s.timers.addPodsReady(s.now+w.podsReadyAfter, w.key, w.gen)
	}
	// The admission as the manager writes it, which the engine reads back:
	// PodsReady when the pods are, and no Evicted condition left from a
	// PodsReady timeout (the engine leaves a workload being evicted alone).
	// The same object as at submission but for its status: it read before.
	_ = s.engine.UpsertWorkload(admittedWorkload(w, s.clock(w.admittedAt)))
}

// podsReady carries out a pods-ready timer: the job's Workload gets
// PodsReady=True, unless the timer belongs to an earlier admission.
func (s *sim) podsReady(t finishTimer) error {
	w, ok := s.workloads[t.key]
	if !ok || w.state != StateAdmitted || w.gen != t.gen {
		return nil
	}
	w.podsReady = true
	if err := s.engine.UpsertWorkload(admittedWorkload(w, s.clock(w.admittedAt))); err != nil {
		return fmt.Errorf("at %s marking the pods of %s ready: %w", formatDuration(s.now), w.name, err)
	}
	return nil
}

// backOff records a PodsReady timeout of a job just evicted, as the manager
// writes it: status.requeueState's count one higher and requeueAt the end of
// the back-off the engine chose (never moved earlier), and Evicted=True with
// reason PodsReadyTimeout, which orders the job in its queue by this time when
// the Configuration's requeuingStrategy says Eviction.
func (s *sim) backOff(w *workloadRecord, requeueAt time.Time) error {
	rs := &kueue.RequeueState{Count: ptr.To(int32(1))}
	if w.requeue != nil {
		rs.Count = ptr.To(ptr.Deref(w.requeue.Count, 0) + 1)
		if w.requeue.RequeueAt != nil && w.requeue.RequeueAt.After(requeueAt) {
			requeueAt = w.requeue.RequeueAt.Time
		}
	}
	rs.RequeueAt = &metav1.Time{Time: requeueAt}
	w.requeue, w.timedOut, w.timedOutAt = rs, true, s.now
	if err := s.engine.UpsertWorkload(pendingWorkload(w, s.clock)); err != nil {
		return fmt.Errorf("at %s backing %s off: %w", formatDuration(s.now), w.name, err)
	}
	return nil
}

// pendingWorkload is the Workload of a job not admitted, as the API server
// would hold it: its spec, the execution time of its earlier admissions, the
// back-off of its PodsReady timeouts and the last one's Evicted condition.
func pendingWorkload(w *workloadRecord, clock func(time.Duration) time.Time) *kueue.Workload {
	wl := w.obj.DeepCopy()
	wl.Status = kueue.WorkloadStatus{AccumulatedPastExecutionTimeSeconds: w.obj.Status.AccumulatedPastExecutionTimeSeconds}
	if w.requeue != nil {
		wl.Status.RequeueState = w.requeue.DeepCopy()
	}
	if w.timedOut {
		meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
			Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPodsReadyTimeout,
			Message: "Exceeded the PodsReady timeout " + w.name, LastTransitionTime: metav1.NewTime(clock(w.timedOutAt)),
		})
	}
	return wl
}
