package elasticquota

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// ReasonWaitForPodsRunning: the unit fits, but its queue waits for pods running
// (koord-queue/wait-for-pods-running: "true") and one of its admitted units has
// replicas whose pods do not run yet; none of those sorts after this unit and
// can be reclaimed for it.
const ReasonWaitForPodsRunning = "WaitForPodsRunning"

// SetRunning records how many replicas of an admitted unit have running pods
// (Koord-Queue's status.admissions[].running, which its job extension keeps up
// to date). A unit whose replicas do not all run is "assumed": in a queue that
// waits for pods running it holds back every new admission, and it is the only
// kind of unit queue-level preemption reclaims. running is clamped to the
// replicas the unit holds.
func (s *Scheduler) SetRunning(key types.NamespacedName, running int64) error {
	a, ok := s.admitted[key]
	if !ok {
		return fmt.Errorf("queueUnit %s is not admitted", key)
	}
	a.running = min(max(running, 0), a.replicas)
	return nil
}

// Assumed reports whether an admitted unit is assumed: it holds quota and not
// all of its replicas run (schedulingqueuev2: "assumed queueUnits are queue
// units that have reserved the quota but not run yet").
func (s *Scheduler) Assumed(key types.NamespacedName) bool {
	a, ok := s.admitted[key]
	return ok && a.assumed()
}

// assumed is utils.IsQueueUnitReservedNotRun: admitted, and fewer replicas
// running than admitted. A unit leaves the set when all its replicas run or
// when it holds no replica any more (Update: "delete qu from assumed ... all
// running" and "... not reserved").
func (a *admittedUnit) assumed() bool { return a.replicas > 0 && a.running < a.replicas }

// collectAssumed gives every queue of this cycle that waits for pods running
// its assumed units, in queue order.
func (s *Scheduler) collectAssumed(queues map[string]*queueCursor) {
	waiting := false
	for _, c := range queues {
		waiting = waiting || c.cfg.waitPodsRunning
	}
	if !waiting {
		return
	}
	for _, a := range s.admitted {
		if c := queues[a.quota]; c != nil && c.cfg.waitPodsRunning && a.assumed() {
			c.assumed = append(c.assumed, a)
		}
	}
	for _, c := range queues {
		sort.Slice(c.assumed, func(i, j int) bool { return dequeuedBefore(c.assumed[i].unit, c.assumed[j].unit) })
	}
}

// reclaimable is how many replicas of an admitted unit a preemption may take
// at now (utils.GetResourcesCanReclaim): none while the unit is within the
// reclaim protection after its admission, none already marked, and never one
// whose pod runs — only replicas − running.
func (s *Scheduler) reclaimable(a *admittedUnit) int64 {
	if s.protect > 0 && s.now.Sub(a.at) < s.protect {
		return 0
	}
	if a.reclaiming > 0 {
		return 0
	}
	return max(a.replicas-a.running, 0)
}

// beforeReserving is Koord-Queue's PriorityQueue.Reserve for a unit that fits
// in a queue that waits for pods running while the queue has assumed units:
// "no more queueunit can be scheduled in this queue", except that the assumed
// units sorting after the unit are reclaimed for it, every one of them with
// something to reclaim (this path needs wait-for-pods-running only, not
// enable-queueunit-preemption). The unit then waits for its victims; with none,
// it waits for the pods of the assumed units to run.
func (s *Scheduler) beforeReserving(c *queueCursor, u *QueueUnit, out []Decision) []Decision {
	key := u.Key()
	quota := c.cfg.name
	if r := s.rounds[quota]; r != nil {
		return append(out, r.pendingFor(u, quota, ""))
	}
	var victims []victim
	for _, a := range c.assumed {
		if !dequeuedBefore(u, a.unit) {
			continue
		}
		if n := s.reclaimable(a); n > 0 {
			victims = append(victims, victim{a: a, replicas: n})
		}
	}
	if len(victims) > 0 {
		why := fmt.Sprintf("it sorts after %s in queue %s, which waits for pods running (%s) and admits nothing new while its pods do not run",
			key, quota, WaitForPodsRunningAnnotation)
		return s.startRound(c, u, victims, why, "", out)
	}
	names := make([]string, 0, len(c.assumed))
	for _, a := range c.assumed {
		names = append(names, a.unit.Key().String())
	}
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonWaitForPodsRunning,
		Message: fmt.Sprintf("no more queueUnit allowed to schedule in this queue: queue %s (%s) waits for the pods of %s to run",
			quota, WaitForPodsRunningAnnotation, strings.Join(names, ", "))})
}
