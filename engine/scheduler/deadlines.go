package scheduler

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Deadlines: a workload's maximum execution time (maxexec.go), its pods'
// readiness (podsready.go) and a pending workload's back-off end at a time,
// not at an event. Each cycle decides what is due at its time, and
// NextDeadline tells the driver when the next one falls.

// overdue appends the decisions due at the cycle's time, in queue order:
// a Deactivate or Evict for each admitted workload whose pods were not ready
// in time, then a Deactivate for each past its maximum execution time, as
// Kueue's workload controller checks them. Workloads seen already (evicted
// for another reason this cycle) are skipped.
func (s *Scheduler) overdue(out []Decision, seen map[types.NamespacedName]bool) []Decision {
	if len(s.timed) == 0 && len(s.notReady) == 0 {
		return out
	}
	var due []*record
	for _, m := range []map[types.NamespacedName]*record{s.notReady, s.timed} {
		for key, r := range m {
			if seen[key] || slices.Contains(due, r) {
				continue
			}
			at, _, ok := s.readyDeadline(r)
			if !ok || at.After(s.now) {
				at, ok = r.executionDeadline()
			}
			if ok && !at.After(s.now) {
				due = append(due, r)
			}
		}
	}
	slices.SortFunc(due, compareQueueOrder)
	for _, r := range due {
		seen[r.info.Key] = true
		if at, cause, ok := s.readyDeadline(r); ok && !at.After(s.now) {
			out = append(out, s.timedOut(r, cause))
			continue
		}
		out = append(out, Deactivate{Workload: r.info.Key, ClusterQueue: r.admission.ClusterQueue,
			Reason:  DeactivateReasonMaximumExecutionTimeExceeded,
			Message: "exceeding the maximum execution time"})
	}
	return out
}

// NextDeadline is the earliest time after after at which an admitted
// workload's maximum execution time or pods' readiness times out, or a
// pending workload's back-off ends: the driver must run a cycle then, since
// nothing else may. False when there is none.
func (s *Scheduler) NextDeadline(after time.Time) (time.Time, bool) {
	var next time.Time
	found := false
	consider := func(at time.Time, ok bool) {
		if ok && at.After(after) && (!found || at.Before(next)) {
			next, found = at, true
		}
	}
	for _, r := range s.timed {
		consider(r.executionDeadline())
	}
	for _, r := range s.notReady {
		at, _, ok := s.readyDeadline(r)
		consider(at, ok)
	}
	for _, r := range s.backoff {
		consider(r.info.RequeueAt, true)
	}
	return next, found
}
