package scheduler

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// inflight is one preemption the driver is carrying out: the preemptor waits
// pending until none of its victims holds quota any more, and meanwhile does
// not preempt again for the same need.
type inflight struct {
	cq      string
	usage   resources.Amounts
	victims []types.NamespacedName
}

// phantomKey is the cache key of a waiting preemptor's reservation during a
// cycle; real workloads always have a namespace.
func phantomKey(k types.NamespacedName) types.NamespacedName {
	return types.NamespacedName{Name: "waiting-preemptor/" + k.Namespace + "/" + k.Name}
}

// settlePreemptions drops finished preemptions (the preemptor is no longer
// pending, or every victim let go of its quota) and charges, for the cycle,
// the assignment of each preemptor still waiting. The charge keeps other
// workloads from taking the room the preemptor is making, as Kueue does by
// counting preempting workloads' usage in the cycle.
//
// A preemptor whose victims are all gone loses its charge but is listed in
// ready, so that the cycle admits it before anything else can take the room.
func (s *Scheduler) settlePreemptions() {
	for _, key := range sortedLQKeys(s.preempting) {
		in := s.preempting[key]
		r, ok := s.workloads[key]
		live := in.victims[:0]
		for _, v := range in.victims {
			if vr, ok := s.workloads[v]; ok && vr.holdsQuota() {
				live = append(live, v)
			} else {
				delete(s.victimOf, v)
				s.victimsVer++
			}
		}
		in.victims = live
		if ok && r.state == StatePending && len(live) == 0 {
			s.ready[in.cq] = append(s.ready[in.cq], key)
		}
		if !ok || r.state != StatePending || len(live) == 0 {
			s.dropPreemption(key)
			continue
		}
		s.chargePhantom(key, in)
	}
}

func (s *Scheduler) chargePhantom(key types.NamespacedName, in *inflight) {
	pk := phantomKey(key)
	s.cache.Charge(pk, in.cq, in.usage)
	s.phantoms = append(s.phantoms, pk)
	s.epoch++
	if q, ok := s.cache.ClusterQueue(in.cq); ok {
		s.touch(q)
	}
}

// releasePhantoms undoes the cycle's reservations, so that views and dry runs
// between cycles see only real workloads.
func (s *Scheduler) releasePhantoms() {
	for _, pk := range s.phantoms {
		s.cache.Release(pk)
	}
	s.phantoms = s.phantoms[:0]
}

func (s *Scheduler) dropPreemption(key types.NamespacedName) {
	in, ok := s.preempting[key]
	if !ok {
		return
	}
	// Victims that are not evicted after all are candidates again.
	s.wake(in.cq)
	for _, v := range in.victims {
		if s.victimOf[v] == key {
			delete(s.victimOf, v)
			s.victimsVer++
		}
		if vr, ok := s.workloads[v]; ok && vr.holdsQuota() {
			s.wake(vr.admission.ClusterQueue)
		}
	}
	delete(s.preempting, key)
}

// admitReady admits, before the tree's queues are walked, each ready
// preemptor that fits now. Without this the room its victims left would be
// free for one cycle with nobody holding it: when a queue-mate ordered before
// the preemptor fits by borrowing, the preemptor is not its queue's candidate,
// a borrowing workload of another queue (often the victim itself, pending
// again) is ordered first and takes the room, the preemptor no longer fits and
// reclaims again, from the queue that took the room the cycle before: two
// victims evicted and readmitted in turn, forever. The victims were chosen
// with every in-flight reservation charged, so all ready preemptors of a tree
// fit together unless the world changed (quota, a LocalQueue, a stop); one
// that does not fit goes through its queue as any pending workload does.
// Among themselves they go in queue order, then by ClusterQueue name.
func (s *Scheduler) admitReady(t *tree, out []Decision) []Decision {
	type ready struct {
		q *quota.ClusterQueue
		r *record
	}
	var rs []ready
	for _, q := range t.queues {
		for _, key := range s.ready[q.Name()] {
			r, ok := s.workloads[key]
			if !ok || r.state != StatePending {
				continue
			}
			if lq := s.localQueues[r.lq]; lq == nil || lq.cq != q.Name() {
				continue // moved to another queue since it preempted
			}
			if _, filtered := s.filter(q, r); filtered {
				continue
			}
			rs = append(rs, ready{q, r})
		}
	}
	slices.SortFunc(rs, func(a, b ready) int {
		if c := compareQueueOrder(a.r, b.r); c != 0 {
			return c
		}
		return strings.Compare(a.q.Name(), b.q.Name())
	})
	for _, rd := range rs {
		res := flavorassigner.Assign(s.cache, rd.q, rd.r.info.PodSets, s.assignOptions(rd.q))
		if res.Fits {
			out = append(out, s.admit(rd.q, rd.r, &res))
		}
	}
	return out
}

// waiting returns the decision for a preemptor whose victims still hold quota.
func (s *Scheduler) waiting(q *quota.ClusterQueue, r *record) (Decision, bool) {
	in, ok := s.preempting[r.info.Key]
	if !ok {
		return nil, false
	}
	return Pending{Workload: r.info.Key, ClusterQueue: q.Name(), Reason: ReasonWaitingForPreemption,
		Message: fmt.Sprintf("waiting for %d preempted workloads to be evicted", len(in.victims))}, true
}

// canPreempt tells whether q's policies, or the rules of the PreemptionConfig
// it references, allow any preemption: a queue whose policies are all Never
// may still preempt through a rule.
func (s *Scheduler) canPreempt(q *quota.ClusterQueue) bool {
	p := q.Preemption
	return p.WithinClusterQueue != kueue.PreemptionPolicyNever || p.ReclaimWithinCohort != kueue.PreemptionPolicyNever ||
		(p.BorrowWithinCohort != nil && p.BorrowWithinCohort.Policy == kueue.BorrowWithinCohortPolicyLowerPriority) ||
		s.rulesOf(q).MaySelect()
}

func (s *Scheduler) assignOptions(q *quota.ClusterQueue) flavorassigner.Options {
	return flavorassigner.Options{CanPreempt: s.canPreempt(q)}
}

// tryPreempt looks for victims that would make room for r and, when it finds
// them, returns the Preempt decision followed by r's Pending. Victims of other
// preemptions still in flight count as gone while searching (they are), and
// their preemptors' reservations stay charged, so two preemptors never count
// on the same room. scope tells, when there was no preemption, what the
// answer depends on, and own, for scopeOwn, what the queue's sleeper must wait
// for (see scopeOf).
func (s *Scheduler) tryPreempt(q *quota.ClusterQueue, r *record, res *flavorassigner.Result, out []Decision) (_ []Decision, preempted bool, scope searchScope, own *need) {
	if res.Preemption == nil || !s.canPreempt(q) {
		return out, false, scopeNone, nil
	}
	// The outcome depends on the tree's usage, the assignment and the
	// preemptor's priority (and, for LowerOrNewerEqualPriority, its creation
	// time): a search that failed for an equal workload at the same epoch would
	// fail again. Not so when PreemptionConfig rules read the preemptor's
	// labels or LocalQueue: then an equal workload may find victims.
	memo := failedSearch{epoch: s.epoch, priority: r.priority, usage: res.Preemption.Usage}
	remember := q.Preemption.WithinClusterQueue != kueue.PreemptionPolicyLowerOrNewerEqualPriority && !s.rulesOf(q).ReadsPreemptor()
	if f, ok := s.failedPreemption[q.Name()]; ok && remember && f.same(memo) {
		return out, false, f.scope, f.own
	}
	targets, scope, own := s.findVictims(q, r, res.Preemption)
	if scope == scopeNone {
		return out, false, scopeNone, own
	}
	if len(targets) == 0 {
		if remember {
			memo.scope, memo.own = scope, own
			s.failedPreemption[q.Name()] = memo
		}
		return out, false, scope, own
	}
	// Deferred walks must see the state as it was before the preemption.
	s.settleDeferred()
	d := Preempt{Preemptor: r.info.Key, PreemptorClusterQueue: q.Name()}
	in := &inflight{cq: q.Name(), usage: res.Preemption.Usage.Clone()}
	for _, t := range targets {
		d.Victims = append(d.Victims, Victim{Workload: t.Key, ClusterQueue: t.ClusterQueue, Reason: t.Reason,
			Message: preemptionMessage(r, q.Name(), t.Reason)})
		in.victims = append(in.victims, t.Key)
		s.victimOf[t.Key] = r.info.Key
	}
	s.victimsVer++
	s.preempting[r.info.Key] = in
	s.preemptions++
	s.chargePhantom(r.info.Key, in)
	out = append(out, d)
	w, _ := s.waiting(q, r)
	return append(out, w), true, scope, nil
}

// failedSearch is a preemption search that found no victims.
type failedSearch struct {
	epoch    uint64
	priority int32
	usage    resources.Amounts
	// scope and own are what the search depended on (see scopeOf).
	scope searchScope
	own   *need
}

func (f failedSearch) same(o failedSearch) bool {
	if f.epoch != o.epoch || f.priority != o.priority || len(f.usage) != len(o.usage) {
		return false
	}
	for fr, v := range f.usage {
		if o.usage[fr] != v {
			return false
		}
	}
	return true
}

// findVictims runs the preemption search for r without changing anything.
// Victims of preemptions in flight count as gone (they are leaving) and are no
// candidates.
// The search does not run when scopeOf finds it hopeless (scopeNone).
func (s *Scheduler) findVictims(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) (targets []preemption.Target, scope searchScope, own *need) {
	s.withVictimsGone(func() {
		if scope, own = s.scopeOf(q, r, a); scope == scopeNone {
			return
		}
		rules := s.rulesOf(q)
		p := &preemption.Preemptor{Key: r.info.Key, UID: r.info.UID, Priority: r.priority, Created: r.info.Created, Assignment: a,
			Labels: r.info.Labels, LocalQueue: r.lq}
		targets = preemption.Find(s.cache, q, p, source{s}, preemption.Options{FairSharing: s.strategies, Rules: rules})
	})
	return targets, scope, own
}

// withVictimsGone runs f with the victims of preemptions in flight released
// from the cache, as a search sees the world: they are leaving.
func (s *Scheduler) withVictimsGone(f func()) {
	if len(s.victimOf) == 0 {
		f()
		return
	}
	type held struct {
		key   types.NamespacedName
		cq    string
		usage resources.Amounts
	}
	var gone []held
	for _, v := range sortedLQKeys(s.victimOf) {
		if cq, usage, ok := s.cache.Charged(v); ok {
			gone = append(gone, held{v, cq, usage})
			s.cache.Release(v)
		}
	}
	f()
	for i := len(gone) - 1; i >= 0; i-- {
		s.cache.Charge(gone[i].key, gone[i].cq, gone[i].usage)
	}
}

// preemptionMessage is the Preempted condition's message, in Kueue's words,
// naming the preemptor.
func preemptionMessage(r *record, cq, reason string) string {
	why := map[string]string{
		PreemptionInClusterQueue:                "prioritization in the ClusterQueue",
		PreemptionInCohortReclamation:           "reclamation within the cohort",
		PreemptionInCohortReclaimWhileBorrowing: "reclamation within the cohort while borrowing",
		PreemptionInCohortFairSharing:           "Fair Sharing within the cohort",
	}[reason]
	return fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: UNKNOWN) due to %s; preemptor %s in ClusterQueue %s",
		r.info.UID, why, r.info.Key, cq)
}

// source lists a queue's admitted workloads that are not already being evicted
// for another preemptor.
type source struct{ s *Scheduler }

func (src source) Admitted(cq string) []*preemption.Candidate {
	m := src.s.admittedByCQ[cq]
	out := make([]*preemption.Candidate, 0, len(m))
	for key, r := range m {
		if _, busy := src.s.victimOf[key]; busy {
			continue
		}
		if src.s.inCycle && r.admittedCycle == src.s.cycle {
			continue // admitted by this very cycle: preempting it would undo a decision just made
		}
		if r.cand == nil {
			r.cand = &preemption.Candidate{Key: key, UID: r.info.UID, ClusterQueue: cq, Priority: r.priority,
				Created: r.info.Created, AdmittedAt: r.admittedAt, Usage: r.admission.Usage,
				Labels: r.info.Labels, LocalQueue: r.lq}
		}
		out = append(out, r.cand)
	}
	// Map order does not leak into decisions: package preemption sorts the
	// candidates by a total order.
	return out
}
