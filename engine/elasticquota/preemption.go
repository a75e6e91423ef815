package elasticquota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/resources"
)

// ReasonPreempting: the unit marked victims in its queue and waits until the
// driver has reclaimed them (ReclaimDone); it is tried first again then.
const ReasonPreempting = "Preempting"

// Event reasons a driver records for queue-level preemption: a Warning
// EventPreempted on each victim when the Preempt decision marks it, a Normal
// EventReclaimed once its replicas are given back (ReclaimDone). Koord-Queue
// itself records neither; it writes reclaimState and the status message
// "Waiting job extension to reclaim resources." only.
const (
	EventPreempted = "Preempted"
	EventReclaimed = "Reclaimed"
)

// Preempt: Replicas replicas of the admitted unit Unit, none of them running,
// are to be reclaimed for Preemptor (Koord-Queue sets
// status.admissions[].reclaimState.replicas). The unit keeps its quota until the
// driver has reclaimed them and calls ReclaimDone; Request is what that will
// give back.
type Preempt struct {
	Unit      types.NamespacedName
	Preemptor types.NamespacedName
	Quota     string
	Replicas  int64
	Request   resources.Requests
	Message   string
}

func (p Preempt) UnitKey() types.NamespacedName { return p.Unit }
func (Preempt) isDecision()                     {}

// Reclaimed is what ReclaimDone did, for the driver's Reclaimed event.
type Reclaimed struct {
	Unit, Preemptor types.NamespacedName
	Quota           string
	// Replicas were given back; Left are still held.
	Replicas, Left int64
	// Requeued: nothing is left, the unit is pending again with its whole
	// request (and the driver suspends its job).
	Requeued bool
	Message  string
}

// SetReclaimProtectTime sets how long after its admission a unit is not
// reclaimed (Koord-Queue's KoordQueueConfiguration.defaultReclaimProtectTime,
// read by utils.GetResourcesCanReclaim; 0, the default, protects nothing).
func (s *Scheduler) SetReclaimProtectTime(d time.Duration) { s.protect = max(d, 0) }

// round is one preemption round in flight in a queue: the victims one
// preemptor marked and the driver has not reclaimed yet. A queue runs one round
// at a time (Koord-Queue's preemptFlag: "only one preempt go routine will be
// running at one time").
type round struct {
	preemptor types.NamespacedName
	victims   map[types.NamespacedName]bool
}

type victim struct {
	a        *admittedUnit
	replicas int64
}

func (r *round) victimNames() string {
	names := make([]string, 0, len(r.victims))
	for k := range r.victims {
		names = append(names, k.String())
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// pendingFor is the decision for a unit of a queue whose round is in flight:
// its preemptor waits for the victims (cause is the usage check's message when
// it does not fit); any other unit waits too, since the victims are assumed
// units of a queue that waits for pods running.
func (r *round) pendingFor(u *QueueUnit, quota, cause string) Pending {
	wait := fmt.Sprintf("preemption: waiting for queueUnit preempted, victims: [%s]", r.victimNames())
	if u.Key() == r.preemptor {
		if cause != "" {
			wait = cause + "; " + wait
		}
		return Pending{Unit: u.Key(), Quota: quota, Reason: ReasonPreempting, Message: wait}
	}
	msg := fmt.Sprintf("queue %s is preempting, not allowed to preempt again: %s reclaims [%s]", quota, r.preemptor, r.victimNames())
	if cause != "" {
		return Pending{Unit: u.Key(), Quota: quota, Reason: ReasonFailedScheduling, Message: cause + "; preempt failed: " + msg}
	}
	return Pending{Unit: u.Key(), Quota: quota, Reason: ReasonWaitForPodsRunning, Message: msg}
}

// preemptFor is Koord-Queue's PriorityQueue.Preempt and dryRunPreemption for a
// unit that does not fit (cause) in a queue with both annotations: the
// queue's assumed units that sort after it are taken lowest first, each with
// the replicas it may give back (never a running one, never one within the
// reclaim protection), until what they give back covers the unit's whole
// request. Quokka marks them only when giving them back would make the unit
// fit; Koord-Queue marks whatever it found.
func (s *Scheduler) preemptFor(c *queueCursor, u *QueueUnit, cause error, out []Decision) []Decision {
	key := u.Key()
	quota := c.cfg.name
	failed := func(why string) []Decision {
		return append(out, Pending{Unit: key, Quota: quota, Reason: ReasonFailedScheduling,
			Message: cause.Error() + "; preempt failed: " + why})
	}
	if r := s.rounds[quota]; r != nil {
		return append(out, r.pendingFor(u, quota, cause.Error()))
	}
	released := resources.Requests{}
	var victims []victim
	for i := len(c.assumed) - 1; i >= 0 && dequeuedBefore(u, c.assumed[i].unit) && !covers(released, u.Request); i-- {
		a := c.assumed[i]
		n := s.reclaimable(a)
		if n == 0 {
			continue
		}
		victims = append(victims, victim{a: a, replicas: n})
		released.Add(times(a.unit.perReplica(), n))
	}
	if len(victims) == 0 {
		return failed("no victims found")
	}
	rest := resources.Requests{}
	for r, v := range u.Request {
		rest[r] = resources.Sub(v, released[r])
	}
	if err := s.cache.CheckUsage(key.String(), quota, rest, s.rate); err != nil {
		return failed(fmt.Sprintf("reclaiming what %s may give back would not make it fit either", victimList(victims)))
	}
	why := fmt.Sprintf("%s, which sorts before it, does not fit quota %s", key, quota)
	return s.startRound(c, u, victims, why, cause.Error(), out)
}

func victimList(vs []victim) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.a.unit.Key().String()
	}
	return "[" + strings.Join(names, ",") + "]"
}

// startRound marks the victims, returns a Preempt for each and the
// preemptor's Pending.
func (s *Scheduler) startRound(c *queueCursor, u *QueueUnit, victims []victim, why, cause string, out []Decision) []Decision {
	key := u.Key()
	quota := c.cfg.name
	r := &round{preemptor: key, victims: map[types.NamespacedName]bool{}}
	for _, v := range victims {
		vk := v.a.unit.Key()
		v.a.reclaiming = v.replicas
		r.victims[vk] = true
		out = append(out, Preempt{Unit: vk, Preemptor: key, Quota: quota, Replicas: v.replicas,
			Request: times(v.a.unit.perReplica(), v.replicas),
			Message: fmt.Sprintf("preempted by %s: %d of its %d replicas, whose pods do not run, are reclaimed because %s. Waiting job extension to reclaim resources.",
				key, v.replicas, v.a.replicas, why)})
	}
	s.rounds[quota] = r
	return append(out, r.pendingFor(u, quota, cause))
}

// ReclaimDone tells the scheduler that the driver has reclaimed what a Preempt
// marked on key (Koord-Queue's job extension deletes the victim's unbound pods
// and lowers status.admissions[].replicas, resource_report_controller
// reconcileReclaim) and that left replicas are still held. The difference is
// released from the quota chain at once, so the preemptor is admitted by a
// later cycle. With nothing left, the unit is pending again with its whole
// request and its old place in its queue (Koord-Queue keeps such a unit in its
// queue, as it is no longer satisfied). With replicas left, it runs on with
// those. When the round's last victim is reclaimed, the queue may preempt
// again.
func (s *Scheduler) ReclaimDone(key types.NamespacedName, left int64) (Reclaimed, error) {
	a, ok := s.admitted[key]
	if !ok || a.reclaiming == 0 {
		return Reclaimed{}, fmt.Errorf("queueUnit %s has no replicas marked for reclaim", key)
	}
	left = min(max(left, 0), a.replicas)
	out := Reclaimed{Unit: key, Quota: a.quota, Replicas: a.replicas - left, Left: left}
	if r := s.rounds[a.quota]; r != nil {
		out.Preemptor = r.preemptor
	}
	s.endVictim(key)
	uid := reservationUID(key)
	switch {
	case left == 0:
		s.cache.Unreserve(uid)
		delete(s.admitted, key)
		s.pending[key] = a.unit
		out.Requeued = true
		out.Message = fmt.Sprintf("%d replicas reclaimed for %s; none left, the unit is enqueued again", out.Replicas, out.Preemptor)
		return out, nil
	case left < a.replicas:
		charge := times(a.unit.perReplica(), left)
		s.cache.Unreserve(uid)
		if _, ok := s.quotas[a.quota]; ok {
			if err := s.cache.Reserve(uid, a.quota, charge); err != nil {
				return out, fmt.Errorf("reclaiming queueUnit %s: %w", key, err)
			}
		}
		a.charged, a.replicas, a.running = charge, left, min(a.running, left)
	}
	out.Message = fmt.Sprintf("%d replicas reclaimed for %s; %d left", out.Replicas, out.Preemptor, left)
	return out, nil
}

// endVictim takes an admitted unit out of its round, if it is a victim: it
// was reclaimed, or it finished or was deleted first.
func (s *Scheduler) endVictim(key types.NamespacedName) {
	a, ok := s.admitted[key]
	if !ok || a.reclaiming == 0 {
		return
	}
	a.reclaiming = 0
	if r := s.rounds[a.quota]; r != nil {
		delete(r.victims, key)
		if len(r.victims) == 0 {
			delete(s.rounds, a.quota)
		}
	}
}

// Reclaiming lists the victims marked and not yet reclaimed, sorted, for a
// driver that rebuilds its view.
func (s *Scheduler) Reclaiming() []types.NamespacedName {
	var out []types.NamespacedName
	for k, a := range s.admitted {
		if a.reclaiming > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// covers is IsResLargeThan(released, request): released is at least the
// request for every resource the request names.
func covers(released, request resources.Requests) bool {
	for r, v := range request {
		if released[r] < v {
			return false
		}
	}
	return true
}

// times is n replicas of per.
func times(per resources.Requests, n int64) resources.Requests {
	out := make(resources.Requests, len(per))
	for r, v := range per {
		out[r] = resources.Mul(v, n)
	}
	return out
}
