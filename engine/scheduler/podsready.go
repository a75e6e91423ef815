package scheduler

import (
	"fmt"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's waitForPodsReady, as its workload controller runs it: an admitted
// workload whose PodsReady condition is not True is evicted (reason
// PodsReadyTimeout) once Timeout has passed since its Admitted condition, or,
// when its pods were ready and one failed (PodsReady False, WaitForRecovery),
// once RecoveryTimeout has passed since that; the eviction sets a back-off
// (status.requeueState) before which the workload is not admitted again, and
// past backoffLimitCount such evictions the workload is deactivated instead.
// The notReady index holds the candidates (kept by attachAdmitted and detach),
// backoff the pending workloads whose back-off a cycle has not yet seen end.
// blockAdmission is in blockadmission.go.

// readyDeadline is when r times out waiting for its pods, and the PodsReady
// reason it waits in (Kueue's underlying cause); false when it does not wait.
func (s *Scheduler) readyDeadline(r *record) (time.Time, string, bool) {
	w := s.opts.WaitForPodsReady
	if w == nil || r.info.PodsReady.Ready || !r.info.Active || r.info.Evicted {
		// Kueue leaves a workload already being evicted alone.
		return time.Time{}, "", false
	}
	switch reason := r.info.PodsReady.Reason; reason {
	case "", kueue.WorkloadWaitForStart, kueue.WorkloadPodsReady:
		// No condition yet, or waiting for the start ("PodsReady" is an
		// older reason for the same): counted from the admission.
		start := r.info.AdmittedAt
		if r.state == StateAssumed {
			start = r.admittedAt
		}
		if start.IsZero() {
			return time.Time{}, "", false
		}
		return start.Add(w.Timeout), kueue.WorkloadWaitForStart, true
	case kueue.WorkloadWaitForRecovery:
		if w.RecoveryTimeout <= 0 {
			return time.Time{}, "", false
		}
		return r.info.PodsReady.Since.Add(w.RecoveryTimeout), reason, true
	}
	return time.Time{}, "", false
}

// timedOut is the decision for r, whose pods were not ready in time: an
// eviction with its back-off, or, past backoffLimitCount, a deactivation.
func (s *Scheduler) timedOut(r *record, cause string) Decision {
	w := s.opts.WaitForPodsReady
	if w.BackoffLimitCount != nil && r.info.RequeueCount+1 > *w.BackoffLimitCount {
		return Deactivate{Workload: r.info.Key, ClusterQueue: r.admission.ClusterQueue,
			Reason: DeactivateReasonRequeuingLimitExceeded, Message: "exceeding the maximum number of re-queuing retries"}
	}
	return Evict{Workload: r.info.Key, ClusterQueue: r.admission.ClusterQueue, Reason: EvictReasonPodsReadyTimeout,
		Message:         fmt.Sprintf("Exceeded the PodsReady timeout %s", r.info.Key),
		UnderlyingCause: cause, RequeueAt: s.now.Add(requeueBackoff(w, r.info.RequeueCount+1))}
}

// requeueBackoff is the back-off before the n-th requeue: BackoffBase ×
// 2^(n-1), at most BackoffMax. Kueue adds a jitter of 0.01%; the engine,
// being deterministic, does not.
func requeueBackoff(w *WaitForPodsReady, n int32) time.Duration {
	d := w.BackoffBase
	for i := int32(1); i < n; i++ {
		d *= 2
		if w.BackoffMax > 0 && d >= w.BackoffMax {
			return w.BackoffMax
		}
	}
	if w.BackoffMax > 0 && d > w.BackoffMax {
		return w.BackoffMax
	}
	return d
}

// endBackoffs wakes the queues of the pending workloads whose back-off ended
// by the cycle's time: the cycle walks them, and filter lets them through.
func (s *Scheduler) endBackoffs() {
	for key, r := range s.backoff {
		if r.info.RequeueAt.After(s.now) {
			continue
		}
		delete(s.backoff, key)
		if lq, ok := s.localQueues[r.lq]; ok {
			s.wake(lq.cq)
		}
	}
}
