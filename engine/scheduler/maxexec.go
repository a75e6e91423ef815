package scheduler

import (
	"time"
)

// A workload with spec.maximumExecutionTimeSeconds may stay admitted that
// long in all, counting status.accumulatedPastExecutionTimeSeconds (its earlier
// admissions). Kueue's workload controller checks it on a timer; here the
// check runs in each cycle, at the cycle's now, over the workloads holding
// quota that have a maximum (the timed index, kept by attachAdmitted and
// detach; see deadlines.go), and NextDeadline tells the driver when to run
// the next cycle for it, since nothing else may wake the engine then.

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
