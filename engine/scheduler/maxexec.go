package scheduler

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// A workload with spec.maximumExecutionTimeSeconds may stay admitted that
// long in all, counting status.accumulatedPastExecutionTimeSeconds (its earlier
// admissions). Kueue's workload controller checks it on a timer; here the
// check runs in each cycle, at the cycle's now, over the workloads holding
// quota that have a maximum (the timed index, kept by attachAdmitted and
// detach), and NextDeadline tells the driver when to run the next cycle for
// it, since nothing else may wake the engine then.

// executionDeadline is when r's maximum execution time runs out: its
// admission's start (the Admitted condition's time; the cycle's time for an
// admission not written yet) plus what is left of its maximum. False when it
// has none, is inactive already, or its deactivation is decided.
func (r *record) executionDeadline() (time.Time, bool) {
	if r.info.MaxExecution <= 0 || !r.info.Active || r.info.DeactivationTarget {
		return time.Time{}, false
	}
	start := r.info.AdmittedAt
	if r.state == StateAssumed {
		start = r.admittedAt
	}
	if start.IsZero() {
		// Quota reserved but not admitted (Kueue counts admitted time only).
		return time.Time{}, false
	}
	return start.Add(r.info.MaxExecution - r.info.PastExecution), true
}

// overdue appends a Deactivate decision for every workload whose maximum
// execution time has run out at the cycle's now, in queue order, skipping
// those seen already (evicted for another reason this cycle). The message is
// Kueue's DeactivationTarget message.
func (s *Scheduler) overdue(out []Decision, seen map[types.NamespacedName]bool) []Decision {
	if len(s.timed) == 0 {
		return out
	}
	for _, r := range sortedRecords(s.timed) {
		at, ok := r.executionDeadline()
		if !ok || at.After(s.now) || seen[r.info.Key] {
			continue
		}
		seen[r.info.Key] = true
		out = append(out, Deactivate{Workload: r.info.Key, ClusterQueue: r.admission.ClusterQueue,
			Reason:  DeactivateReasonMaximumExecutionTimeExceeded,
			Message: "exceeding the maximum execution time"})
	}
	return out
}

// NextDeadline is the earliest time after after at which an admitted
// workload's maximum execution time runs out: the driver must run a cycle
// then. False when no workload has such a deadline.
func (s *Scheduler) NextDeadline(after time.Time) (time.Time, bool) {
	var next time.Time
	found := false
	for _, r := range s.timed {
		at, ok := r.executionDeadline()
		if !ok || !at.After(after) {
			continue
		}
		if !found || at.Before(next) {
			next, found = at, true
		}
	}
	return next, found
}
