package scheduler

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/workload"
)

// Cycle runs one scheduling cycle at time now and returns, in a deterministic
// order: evictions that stop policies and deactivation ask for; then pending
// decisions for workloads that reach no ClusterQueue; then, ClusterQueue tree by
// tree, admissions and pending decisions in the order they were made (the
// explanations a probe gave a sleeping queue's new workloads come before the
// trees when their tree is not walked, after its decisions when it is; see
// arrivals.go). Within a tree, admissions, preemptions and evictions come in the order of its heads,
// and each ClusterQueue's Pending decisions in its walk's order; a run of one
// queue's equal workloads that settles as the first of them did may be settled
// ahead of other queues' heads that change nothing (repeat.go).
//
// Admissions are assumed at once (their usage is charged), so later decisions in
// the same cycle see them and the next cycle does not admit them again; call
// Forget when the API write fails. Every pending workload that was looked at and
// not admitted gets a Pending decision; drivers dedupe by reason. Workloads of
// sleeping queues are not looked at (see sleep.go), and quiet cycles return no
// Pending decision at all (Options.QuietCycles).
//
// A workload that does not fit may preempt (per its ClusterQueue's policies and
// fair sharing): a Preempt decision names the victims and is followed by the
// preemptor's Pending; the preemptor is admitted by the first cycle after the
// driver has confirmed the evictions with EvictWorkload, before any other
// workload of its tree can take the room they made.
//
// now stamps admissions (preemption takes the most recently admitted first)
// and drives admission fair sharing's usage decay.
func (s *Scheduler) Cycle(now time.Time) []Decision {
	s.now = now
	s.cycle++
	s.inCycle = true
	s.runs.reset()
	s.heads.reset()
	s.heldOnce = false
	s.cycleCharges = s.cycleCharges[:0]
	clear(s.skips)
	defer func() { s.inCycle = false }()
	if s.admittedInCycle {
		// What the last cycle admitted may be preempted from now on.
		s.candVer++
		s.admittedInCycle = false
	}
	s.quiet = s.opts.QuietCycles && !s.explainNext
	s.explainNext = false
	// Most of a loaded cycle's decisions are Pending ones, about as many
	// as the last cycle's: room for them up front spares the copies of a
	// growing list.
	out := make([]Decision, 0, s.lastDecisions)
	out = s.evictions(out)
	out = s.unroutable(out)
	before := s.cache.Version()
	s.settlePreemptions()
	s.settleOrphans()
	s.endBackoffs()
	s.unblock()
	s.beginCycle(before)
	s.afsSample(now)
	trees := s.treesToSchedule(&out)
	s.lastWalkStruct, s.walkStruct = s.walkStruct, s.structChanges
	s.orderTreesForBlock(trees)
	for _, t := range trees {
		if s.stopCycle {
			break // blockAdmission (see blockadmission.go)
		}
		ver, late, walked := s.cache.Version(), s.lateWakes, len(out)
		out = s.scheduleTree(t, out)
		out = s.probedAfterWalk(t, ver, late, out, walked)
	}
	// A tree the cycle stopped before keeps its arrivals unexplained, as a
	// walk of every queue does.
	clear(s.sleep.probed)
	s.sleep.probed = s.sleep.probed[:0]
	// The snapshot counts the cycle's holds: a queue evaluated while they
	// were charged must be woken when the next cycle starts without them.
	s.snapshotTreeFree()
	s.releaseHolds()
	s.releaseReservations()
	// A ready preemptor that did not fit now competes like any other.
	clear(s.ready)
	clear(s.readyFor)
	s.epoch++ // the world changes between cycles
	clear(s.failedPreemption)
	clear(s.unfitOnceEvicted)
	s.lastDecisions = len(out)
	if s.quiet {
		out = withoutPending(out)
	}
	return out
}

// withoutPending drops the Pending decisions of a quiet cycle, keeping the
// order of the others.
func withoutPending(ds []Decision) []Decision {
	n := 0
	for _, d := range ds {
		if _, ok := d.(Pending); !ok {
			ds[n] = d
			n++
		}
	}
	clear(ds[n:])
	return ds[:n]
}

// evictions asks to evict admitted workloads of HoldAndDrain queues and admitted
// workloads that were deactivated, and to deactivate those past their maximum
// execution time. They keep their quota until EvictWorkload.
func (s *Scheduler) evictions(out []Decision) []Decision {
	seen := map[types.NamespacedName]bool{}
	emit := func(r *record, reason, msg string) {
		if seen[r.info.Key] {
			return
		}
		seen[r.info.Key] = true
		out = append(out, Evict{Workload: r.info.Key, ClusterQueue: r.admission.ClusterQueue, Reason: reason, Message: msg})
	}
	s.refreshStanding()
	for _, name := range s.standing.drainingCQs {
		if len(s.admittedByCQ[name]) == 0 {
			continue
		}
		for _, r := range sortedRecords(s.admittedByCQ[name]) {
			emit(r, EvictReasonClusterQueueStopped, fmt.Sprintf("ClusterQueue %s has stopPolicy HoldAndDrain", name))
		}
	}
	for _, key := range s.standing.drainingLQs {
		if len(s.admittedByLQ[key]) == 0 {
			continue
		}
		for _, r := range sortedRecords(s.admittedByLQ[key]) {
			emit(r, EvictReasonLocalQueueStopped, fmt.Sprintf("LocalQueue %s has stopPolicy HoldAndDrain", key))
		}
	}
	for _, r := range sortedRecords(s.deactivated) {
		emit(r, EvictReasonDeactivated, "the workload has spec.active=false")
	}
	return s.overdue(out, seen)
}

// unroutable returns pending decisions for workloads whose LocalQueue does not
// exist, or whose LocalQueue points to a missing ClusterQueue.
func (s *Scheduler) unroutable(out []Decision) []Decision {
	for _, key := range s.unroutableKeys() {
		lq, ok := s.localQueues[key]
		if ok {
			if _, exists := s.cache.ClusterQueue(lq.cq); exists {
				continue
			}
		}
		for _, r := range sortedRecords(s.pendingByLQ[key]) {
			if !ok {
				out = append(out, Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, Reason: ReasonLocalQueueNotFound,
					Message: fmt.Sprintf("LocalQueue %s does not exist; create it or fix spec.queueName", key)})
			} else {
				out = append(out, Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: lq.cq, Reason: ReasonClusterQueueNotFound,
					Message: fmt.Sprintf("ClusterQueue %s, named by LocalQueue %s, does not exist", lq.cq, key)})
			}
		}
	}
	return out
}

// tree is a set of ClusterQueues that share quota: those under one root cohort,
// or a single queue without a cohort.
type tree struct {
	key    string
	queues []*quota.ClusterQueue
}

// treesToSchedule prepares every queue's list, settles the queues that cannot
// admit (inactive or stopped) and groups the others by tree.
func (s *Scheduler) treesToSchedule(out *[]Decision) []*tree {
	byKey := map[treeKey]*tree{}
	var trees []*tree
	walk := s.queuesToWalk()
	// The queues that cannot admit are settled after the probed decisions
	// that stand as they are (probedUnwalked), which need the trees.
	var settled []Decision
	for _, name := range walk {
		q, ok := s.cache.ClusterQueue(name)
		if !ok {
			continue
		}
		l, ok := s.lists[name]
		if !ok {
			continue
		}
		l.prepare()
		if len(l.sorted) == 0 {
			continue
		}
		if st := s.cache.Status(q); !st.Active {
			reason := ReasonClusterQueueInactive
			if st.Reason == kueue.ClusterQueueActiveReasonStopped {
				reason = ReasonStopped
			}
			for _, e := range l.sorted {
				if !e.valid() {
					continue
				}
				if d, ok := s.filter(q, e.r); ok {
					settled = append(settled, d)
				} else {
					settled = append(settled, e.r.pendingDecision(Pending{Workload: e.r.pendingKey(), LocalQueue: e.r.lq.Name, ClusterQueue: name, Reason: reason, Message: st.Message}))
				}
			}
			continue
		}
		k := s.treeKeyOf(q)
		t, ok := byKey[k]
		if !ok {
			t = &tree{key: k.String()}
			byKey[k] = t
			trees = append(trees, t)
		}
		t.queues = append(t.queues, q)
	}
	sort.Slice(trees, func(i, j int) bool { return trees[i].key < trees[j].key })
	*out = s.probedUnwalked(trees, *out)
	*out = append(*out, settled...)
	return trees
}

// treeKeyOf is the key of q's tree.
func (s *Scheduler) treeKeyOf(q *quota.ClusterQueue) treeKey {
	if c := q.CohortName(); c != "" {
		co, _ := s.cache.Cohort(c)
		return treeKey{cohort: true, name: rootName(co)}
	}
	return treeKey{name: q.Name()}
}

// treeKey tells a tree by its root Cohort, or its queue when it has none.
type treeKey struct {
	cohort bool
	name   string
}

// String is the tree's key: "cohort/" or "queue/" and the name.
func (k treeKey) String() string {
	if k.cohort {
		return "cohort/" + k.name
	}
	return "queue/" + k.name
}

func rootName(c *quota.Cohort) string {
	if root, ok := c.RootName(); ok {
		return root
	}
	return c.Name()
}

// filter returns a pending decision for a workload that must not be considered
// for admission in q whatever the quota: inactive, its LocalQueue stopped, or its
// namespace not selected.
func (s *Scheduler) filter(q *quota.ClusterQueue, r *record) (Decision, bool) {
	if !r.info.Active {
		return Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonInactive,
			Message: "the workload has spec.active=false; set it to true to queue it"}, true
	}
	if r.info.RequeueAt.After(s.now) {
		return Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonBackoff,
			Message: "evicted for a PodsReady timeout, the workload waits for its back-off to end at " +
				r.info.RequeueAt.UTC().Format(time.RFC3339)}, true
	}
	if r.info.Invalid != "" {
		return Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonInvalid, Message: r.info.Invalid}, true
	}
	if lq := s.localQueues[r.lq]; lq != nil && lq.stopped() {
		return Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonStopped,
			Message: fmt.Sprintf("LocalQueue %s is stopped (stopPolicy %s)", r.lq, lq.stop)}, true
	}
	if !s.namespaceSelected(q, r.info.Key.Namespace) {
		return Pending{Workload: r.info.Key, LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonNamespaceNotSelected,
			Message: fmt.Sprintf("the namespaceSelector of ClusterQueue %s does not select namespace %s", q.Name(), r.info.Key.Namespace)}, true
	}
	return nil, false
}

func (s *Scheduler) namespaceSelected(q *quota.ClusterQueue, ns string) bool {
	if q.NamespaceSelector == nil {
		return false
	}
	return q.NamespaceSelector.Matches(s.namespaces[ns])
}

// admit charges the assignment and returns the decision.
func (s *Scheduler) admit(q *quota.ClusterQueue, r *record, res *flavorassigner.Result) Decision {
	s.detach(r)
	r.memo = nil
	r.admission = &workload.Admission{ClusterQueue: q.Name(), PodSets: res.PodSets, Usage: res.Usage}
	r.borrowing = res.Borrowing
	r.admittedAt = s.now
	r.admittedCycle = s.cycle
	s.cache.Charge(r.info.Key, q.Name(), res.Usage)
	s.noteCycleCharge(r.info.Key, q.Name())
	s.admittedInCycle = true
	s.noteTreeAdmission(q)
	s.epoch++
	s.touch(q)
	s.attachAdmitted(r, StateAssumed)
	s.dropPreemption(r.info.Key)
	s.afsSettle(q, r)
	return Admit{Workload: r.info.Key, ClusterQueue: q.Name(), PodSets: clonePodSets(res.PodSets), Borrowing: res.Borrowing}
}

// clonePodSets gives the driver its own copy, so that nothing it does to a
// decision can change the cache.
func clonePodSets(in []decision.PodSetAssignment) []decision.PodSetAssignment {
	out := make([]decision.PodSetAssignment, len(in))
	for i, p := range in {
		out[i] = p
		out[i].Usage = p.Usage.Clone()
		out[i].Flavors = make(map[corev1.ResourceName]string, len(p.Flavors))
		for k, v := range p.Flavors {
			out[i].Flavors[k] = v
		}
	}
	return out
}
