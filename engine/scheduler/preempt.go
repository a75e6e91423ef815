package scheduler

import (
	"fmt"
	"slices"

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
	// assignment is what it preempted for: once its victims are gone, it is
	// admitted with it, in the room its victims left and its reservation
	// kept. A fresh flavor search could choose otherwise (another flavor may
	// fit by borrowing now, or show new candidates under whenCanPreempt
	// MayStopSearch) and take the room another preemptor of the same cycle
	// made, so that preemptor would preempt again.
	assignment *flavorassigner.Assignment
	// covered is the part of usage its victims' release makes room for, as
	// of its reservation's last charge (see split).
	covered resources.Amounts
	// cycle is the cycle it preempted in.
	cycle uint64
}

// phantomKey is the cache key of a waiting preemptor's reservation during a
// cycle; real workloads always have a namespace.
func phantomKey(k types.NamespacedName) types.NamespacedName {
	return types.NamespacedName{Name: "waiting-preemptor/" + k.Namespace + "/" + k.Name}
}

// settlePreemptions drops finished preemptions (the preemptor is no longer
// pending, or every victim let go of its quota) and charges, for the cycle,
// the part of each waiting preemptor's assignment that its victims no longer
// hold (see split). The charge keeps other workloads from taking the room the
// preemptor is making, as Kueue does by counting preempting workloads' usage
// in the cycle.
//
// A preemptor whose victims are all gone loses its charge but is listed in
// ready, so that the cycle admits it before anything else can take the room.
func (s *Scheduler) settlePreemptions() {
	var prior []types.NamespacedName
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
				s.candVer++
			}
		}
		in.victims = live
		if ok && r.state == StatePending && len(live) == 0 {
			s.ready[in.cq] = append(s.ready[in.cq], key)
			s.readyFor[key] = in.assignment
		}
		if !ok || r.state != StatePending || len(live) == 0 || s.neverFits(in) {
			s.dropPreemption(key)
			continue
		}
		s.chargePhantom(key, in, prior)
		prior = append(prior, key)
	}
}

// neverFits tells whether a waiting preemptor's assignment asks, in some
// cell, for more than its queue could ever get: quotas shrank since it
// preempted. Kueue evaluates every head afresh each cycle; here the preemption
// is dropped, so that the preemptor is walked again and judged on the new
// quotas instead of holding its reservation for room that will never come.
func (s *Scheduler) neverFits(in *inflight) bool {
	q, ok := s.cache.ClusterQueue(in.cq)
	if !ok {
		return true
	}
	for fr, v := range in.usage {
		if v > s.cache.PotentialAvailable(q, fr) {
			return true
		}
	}
	return false
}

// split divides a waiting preemptor's assignment, cell by cell, into the
// part the release of its victims would make room for in its queue (covered:
// that quota is still the victims', and charging both would keep everyone else
// out of quota that is neither's) and the rest (held: room already made, or
// that the preemptor takes beyond what its victims free), which its
// reservation charges. The room is measured on the cache, victims released
// and charged back, so that lending limits and the tree are accounted for. A
// search counts the victims gone and the covered part charged: the state the
// preemption leads to.
//
// The preemptions in prior are taken as done first (their victims released,
// their covered parts charged): the room two preemptors' victims free may
// overlap (a Cohort can give a queue only so much), and measured for each
// alone it was promised to both, so that the second found no room once the
// victims were gone (TestPropertyConfirmedPreemptionsSettle).
func (s *Scheduler) split(in *inflight, prior []types.NamespacedName) (held, covered resources.Amounts) {
	held, covered = in.usage.Clone(), resources.Amounts{}
	q, ok := s.cache.ClusterQueue(in.cq)
	if !ok {
		return held, covered
	}
	var gone []heldCharge
	var charged []types.NamespacedName
	for _, k := range prior {
		p := s.preempting[k]
		if p == nil {
			continue
		}
		for _, v := range p.victims {
			gone = s.releaseCharge(v, gone)
		}
		if len(p.covered) > 0 {
			ck := coveredKey(k)
			s.cache.Charge(ck, p.cq, p.covered)
			charged = append(charged, ck)
		}
	}
	before := make(resources.Amounts, len(in.usage))
	for fr := range in.usage {
		before[fr] = s.cache.Available(q, fr).Available
	}
	for _, v := range in.victims {
		gone = s.releaseCharge(v, gone)
	}
	for fr, p := range in.usage {
		if freed := s.cache.Available(q, fr).Available - before[fr]; freed > 0 {
			c := min(p, freed)
			covered[fr] = c
			if held[fr] = p - c; held[fr] == 0 {
				delete(held, fr)
			}
		}
	}
	for i := len(charged) - 1; i >= 0; i-- {
		s.cache.Release(charged[i])
	}
	s.chargeBack(gone)
	return held, covered
}

// otherPreemptions lists the preemptions in flight but key's, in order: a
// new preemptor's reservation is split with them done (see split).
func (s *Scheduler) otherPreemptions(key types.NamespacedName) []types.NamespacedName {
	keys := sortedLQKeys(s.preempting)
	return slices.DeleteFunc(keys, func(k types.NamespacedName) bool { return k == key })
}

// coveredKey charges, during a search, the part of a waiting preemptor's
// assignment its victims still hold.
func coveredKey(k types.NamespacedName) types.NamespacedName {
	return types.NamespacedName{Name: "covered-preemptor/" + k.Namespace + "/" + k.Name}
}

// chargePhantom charges a waiting preemptor's reservation: the part of its
// assignment its victims' release does not cover (see split), with the
// preemptions in prior taken as done.
func (s *Scheduler) chargePhantom(key types.NamespacedName, in *inflight, prior []types.NamespacedName) {
	pk := phantomKey(key)
	var held resources.Amounts
	held, in.covered = s.split(in, prior)
	s.cache.Charge(pk, in.cq, held)
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
	// The driver was told to evict the victims and cannot be told otherwise:
	// those still holding quota stay leaving (no candidates, their room
	// counted free in searches), with no preemptor to wait for it, until they
	// are gone (see settleOrphans).
	s.wake(in.cq)
	for _, v := range in.victims {
		if s.victimOf[v] == key {
			s.orphans = append(s.orphans, v)
		}
		if vr, ok := s.workloads[v]; ok && vr.holdsQuota() {
			s.wake(vr.admission.ClusterQueue)
		}
	}
	if r, ok := s.workloads[key]; ok && r.inflight == in {
		r.inflight = nil
	}
	delete(s.preempting, key)
}

// settleOrphans forgets the victims of dropped preemptions that have let go
// of their quota.
func (s *Scheduler) settleOrphans() {
	live := s.orphans[:0]
	for _, v := range s.orphans {
		if vr, ok := s.workloads[v]; ok && vr.holdsQuota() {
			live = append(live, v)
			continue
		}
		delete(s.victimOf, v)
		s.victimsVer++
		s.candVer++
	}
	s.orphans = live
}

// needsPreemptionAtCycleStart tells whether usage, which does not fit in q
// now, did not fit in the snapshot Kueue's cycle nominates against either:
// without the cycle's admissions, its new preemptors' reservations and its
// holds. It is false when the cycle has charged nothing in q's tree yet.
func (s *Scheduler) needsPreemptionAtCycleStart(q *quota.ClusterQueue, usage resources.Amounts) bool {
	tree := s.treeOf(q.Name())
	if !slices.ContainsFunc(s.cycleCharges, func(c cycleCharge) bool { return c.tree == tree }) {
		return false
	}
	fits := false
	s.withoutHolds(func() { s.atCycleStart(q, func() { fits = s.fitsNow(q, usage) }) })
	return !fits
}

// cycleCharge is a charge of the running cycle (see cycleCharges).
type cycleCharge struct {
	key  types.NamespacedName
	tree treeKey
}

// noteCycleCharge records a charge the running cycle made in cq's tree.
func (s *Scheduler) noteCycleCharge(key types.NamespacedName, cq string) {
	s.cycleCharges = append(s.cycleCharges, cycleCharge{key: key, tree: s.treeOf(cq)})
}

// atCycleStart runs f with the cycle's admissions and new preemptors'
// reservations in q's tree released (see cycleCharges).
func (s *Scheduler) atCycleStart(q *quota.ClusterQueue, f func()) {
	tree := s.treeOf(q.Name())
	var gone []heldCharge
	for _, c := range s.cycleCharges {
		if c.tree == tree {
			gone = s.releaseCharge(c.key, gone)
		}
	}
	f()
	s.chargeBack(gone)
}

// releaseCharge releases k's charge, if it has one, and appends it to gone
// for chargeBack.
func (s *Scheduler) releaseCharge(k types.NamespacedName, gone []heldCharge) []heldCharge {
	if cq, usage, ok := s.cache.Charged(k); ok {
		s.cache.Release(k)
		return append(gone, heldCharge{key: k, cq: cq, usage: usage})
	}
	return gone
}

// chargeBack charges again, last first, what releaseCharge released.
func (s *Scheduler) chargeBack(gone []heldCharge) {
	for i := len(gone) - 1; i >= 0; i-- {
		s.cache.Charge(gone[i].key, gone[i].cq, gone[i].usage)
	}
}

// fitsNow tells whether usage fits in q as the cache stands.
func (s *Scheduler) fitsNow(q *quota.ClusterQueue, usage resources.Amounts) bool {
	for fr, v := range usage {
		if v > s.cache.Available(q, fr).Available {
			return false
		}
	}
	return true
}

// waiting returns the decision for a preemptor whose victims still hold quota.
func (s *Scheduler) waiting(q *quota.ClusterQueue, r *record) (Decision, bool) {
	in := r.inflight
	if in == nil {
		return nil, false
	}
	return Pending{Workload: r.pendingKey(), LocalQueue: r.lq.Name, ClusterQueue: q.Name(), Reason: ReasonWaitingForPreemption,
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

// tryPreempt looks for victims that would make room for r and, when it finds
// them, returns the Preempt decision followed by r's Pending. Victims of other
// preemptions still in flight count as gone while searching (they are), and
// their preemptors' reservations stay charged, so two preemptors never count
// on the same room. scope tells, when there was no preemption, what the
// answer depends on, and own, for scopeOwn, what the queue's sleeper must wait
// for (see scopeOf).
func (s *Scheduler) tryPreempt(q *quota.ClusterQueue, r *record, res *flavorassigner.Result, first bool, out []Decision) (_ []Decision, preempted bool, scope searchScope, own *need) {
	if res.Preemption == nil || !s.canPreempt(q) {
		return out, false, scopeNone, nil
	}
	// The outcome depends on the tree's usage, the assignment and the
	// preemptor's priority (and, for LowerOrNewerEqualPriority, its creation
	// time): a search that failed for an equal workload at the same epoch would
	// fail again. Not so when PreemptionConfig rules read the preemptor's
	// labels or LocalQueue: then an equal workload may find victims.
	memo := failedSearch{epoch: s.viewEpoch(), priority: r.priority, usage: res.Preemption.Usage}
	remember := q.Preemption.WithinClusterQueue != kueue.PreemptionPolicyLowerOrNewerEqualPriority && !s.rulesOf(q).ReadsPreemptor()
	if remember {
		if f, ok := s.searchedInVain(q, memo); ok {
			return out, false, f.scope, f.own
		}
	}
	var targets []preemption.Target
	// Kueue's nomination chooses the targets against the snapshot the
	// cycle began with, without holds (see assign); fitsOnceEvicted counts
	// the other queues' holds, as its loop's check does.
	s.withoutHolds(func() { targets, scope, own = s.findVictims(q, r, res.Preemption) })
	if scope == scopeNone || len(targets) == 0 {
		if remember {
			memo.scope, memo.own = scope, own
			s.rememberFailed(q.Name(), memo)
		}
		return out, false, scope, own
	}
	if s.needsPreemptionAtCycleStart(q, res.Preemption.Usage) {
		// Nor does the snapshot have the cycle's admissions and new
		// reservations: Kueue chose this head's targets without them, and
		// its loop then checks that those make room beside what the
		// cycle's earlier heads took (fitsOnceEvicted below). Searching
		// with them counted finds a larger set that does make room, and
		// evicts it at once where Kueue skips the head (fair-sharing
		// decisions run, seed 3, scenario 10, event 14). A head that
		// would have fit then, and lost its room to an earlier admission,
		// keeps the victims found as the tree now stands
		// (TestNominatedFittingHeadPreemptsInItsCycle says why). Only a
		// search that found victims is made again so: the rest of a busy
		// cycle's searches keep their memo, and the second search costs a
		// release and a charge per admission of the tree's cycle.
		s.withoutHolds(func() { s.atCycleStart(q, func() { targets, scope, own = s.findVictims(q, r, res.Preemption) }) })
		if scope == scopeNone || len(targets) == 0 {
			return out, false, scope, own
		}
	}
	if s.opts.WaitOnOverlappingTargets && s.overlapsInFlight(targets) {
		// Kueue's "Workload has overlapping preemption targets with another
		// workload": it evicts nothing, and searches again next cycle.
		return out, false, scopeOverlap, nil
	}
	if !s.fitsOnceEvicted(q, res.Preemption, targets, first) {
		// The room these victims would leave is promised to preemptors of
		// this cycle: evicting them would be wasted. Next cycle it searches
		// again, in whatever state the tree is then.
		return out, false, scopeContended, nil
	}
	// Deferred walks must see the state as it was before the preemption,
	// and so must the sleeping queues it may wake.
	s.settleDeferred()
	late := s.lateWalks()
	d := Preempt{Preemptor: r.info.Key, PreemptorClusterQueue: q.Name()}
	in := &inflight{cq: q.Name(), usage: res.Preemption.Usage.Clone(), assignment: res.Preemption, cycle: s.cycle}
	for _, t := range targets {
		d.Victims = append(d.Victims, Victim{Workload: t.Key, ClusterQueue: t.ClusterQueue, Reason: t.Reason,
			Message: preemptionMessage(r, q.Name(), t.Reason)})
		in.victims = append(in.victims, t.Key)
		s.victimOf[t.Key] = r.info.Key
	}
	s.victimsVer++
	s.candVer++
	s.preempting[r.info.Key] = in
	r.inflight = in
	s.chargePhantom(r.info.Key, in, s.otherPreemptions(r.info.Key))
	s.noteCycleCharge(phantomKey(r.info.Key), q.Name())
	s.wakeLate(late)
	out = append(out, d)
	w, _ := s.waiting(q, r)
	return append(out, w), true, scope, nil
}

// fitsOnceEvicted tells whether the assignment fits once the targets and
// every victim in flight are gone, with every waiting preemptor's
// reservation charged (Kueue's check before it issues a cycle's
// preemptions): the targets of a search are chosen against the state the
// cycle began with (see withVictimsGone), and two preemptors of one cycle
// may each need the same unused quota besides their victims. As in assign,
// the holds r does not see are left out: its queue's own and, when first
// (a head of Kueue's cycle), the later holds, which Kueue makes only in
// its next cycles.
func (s *Scheduler) fitsOnceEvicted(q *quota.ClusterQueue, a *flavorassigner.Assignment, targets []preemption.Target, first bool) bool {
	ok := true
	s.withVictimsGone(func() {
		var gone []heldCharge
		for _, t := range targets {
			if _, busy := s.victimOf[t.Key]; !busy {
				gone = s.releaseCharge(t.Key, gone)
			}
		}
		for _, h := range s.holds {
			if h.unseenBy(q, first) {
				gone = s.releaseCharge(h.key, gone)
			}
		}
		ok = s.fitsNow(q, a.Usage)
		s.chargeBack(gone)
	})
	return ok
}

// failedSearch is a preemption search that found no victims.
type failedSearch struct {
	epoch    uint64
	priority int32
	usage    resources.Amounts
	// scope and own are what the search depended on (see scopeOf).
	scope searchScope
	own   *need
	// unsearched marks the scope of a parked workload, whose search did
	// not run (see parkedScope): it answers no search.
	unsearched bool
}

// maxRememberedPerQueue bounds the failed searches (and deferred-fit misses,
// see hold.go) remembered per queue and epoch: a queue's pending workloads
// come in a few sizes at a few priorities.
const maxRememberedPerQueue = 8

// searchedInVain finds the remembered search like memo that ran and found
// no victims in q (a parked workload's unsearched scope answers none).
func (s *Scheduler) searchedInVain(q *quota.ClusterQueue, memo failedSearch) (failedSearch, bool) {
	for _, f := range s.failedPreemption[q.Name()] {
		if !f.unsearched && f.same(memo) {
			return f, true
		}
	}
	return failedSearch{}, false
}

// rememberFailed records a search that found no victims (or was hopeless)
// for the queue, forgetting those of earlier epochs.
func (s *Scheduler) rememberFailed(cq string, f failedSearch) {
	s.failedPreemption[cq] = rememberMiss(s.failedPreemption[cq], f, func(old failedSearch) bool { return old.epoch == f.epoch })
}

// rememberMiss appends v to a queue's remembered misses, first dropping them all
// if they are no longer current (all entries share one state, so the first
// tells), and keeping at most maxRememberedPerQueue.
func rememberMiss[T any](list []T, v T, current func(T) bool) []T {
	if len(list) > 0 && !current(list[0]) {
		list = list[:0]
	}
	if len(list) < maxRememberedPerQueue {
		list = append(list, v)
	}
	return list
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
// candidates; under WaitOnOverlappingTargets they hold their quota and are
// candidates, first in order (tryPreempt then makes r wait if it picks one).
// The search does not run when scopeOf finds it hopeless (scopeNone).
func (s *Scheduler) findVictims(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) (targets []preemption.Target, scope searchScope, own *need) {
	search := func() {
		if scope, own = s.scopeOf(q, r, a); scope == scopeNone {
			return
		}
		p := s.preemptorOf(q, r, a)
		targets = preemption.Find(s.cache, q, &p, source{s}, preemption.Options{FairSharing: s.strategies, Rules: s.rulesOf(q)})
	}
	s.asSearchSees(search)
	return targets, scope, own
}

// asSearchSees runs f with the victims in flight as a preemption search sees
// them: gone, or under WaitOnOverlappingTargets still holding their quota
// and listed first among the candidates (the room they will free is nobody's
// yet, as in Kueue's snapshot, which does not count waiting preemptors).
func (s *Scheduler) asSearchSees(f func()) {
	if s.opts.WaitOnOverlappingTargets {
		s.withEvictingListed(f)
	} else {
		s.withVictimsGone(f)
	}
}

// withEvictingListed runs f with the victims in flight listed among the
// candidates (listEvicting), still holding their quota, as the preemption
// oracle and the searches under WaitOnOverlappingTargets see them. Without
// victims in flight there is nothing to list, and the candidate lists cached
// for the cycle serve both views.
func (s *Scheduler) withEvictingListed(f func()) {
	if len(s.victimOf) == 0 {
		f()
		return
	}
	s.listEvicting = true
	defer func() { s.listEvicting = false }()
	f()
}

// overlapsInFlight tells whether a search's targets include a workload
// already being evicted, for a waiting preemptor or for a dropped one.
func (s *Scheduler) overlapsInFlight(targets []preemption.Target) bool {
	for _, t := range targets {
		if _, busy := s.victimOf[t.Key]; busy {
			return true
		}
	}
	return false
}

// withVictimsGone runs f with the victims of preemptions in flight released
// from the cache, as a search sees the world: they are leaving, and their
// preemptors' assignments are charged whole (the reservations charge the
// part the victims no longer hold; see split), so that the search sees the
// state these preemptions lead to (as Kueue's overlap recomputation does).
func (s *Scheduler) withVictimsGone(f func()) {
	if len(s.victimOf) == 0 {
		f()
		return
	}
	var gone []heldCharge
	covered := s.chargeCovered(false)
	for _, v := range sortedLQKeys(s.victimOf) {
		gone = s.releaseCharge(v, gone)
	}
	f()
	s.chargeBack(gone)
	for _, ck := range covered {
		s.cache.Release(ck)
	}
}

// chargeCovered charges the covered part of every waiting preemptor's
// assignment (see split), or only of those that preempted in this cycle, and
// returns the keys to release.
func (s *Scheduler) chargeCovered(thisCycle bool) []types.NamespacedName {
	var covered []types.NamespacedName
	for _, key := range sortedLQKeys(s.preempting) {
		if in := s.preempting[key]; len(in.covered) > 0 && (!thisCycle || in.cycle == s.cycle) {
			ck := coveredKey(key)
			s.cache.Charge(ck, in.cq, in.covered)
			covered = append(covered, ck)
		}
	}
	return covered
}

// JobUIDLabel is the label Kueue's job integrations put on a Workload with
// the UID of the job that owns it; the Preempted message names it.
const JobUIDLabel = "kueue.x-k8s.io/job-uid"

// preemptionMessage is the Preempted condition's message, in Kueue's words,
// naming the preemptor and its job.
func preemptionMessage(r *record, cq, reason string) string {
	why := map[string]string{
		PreemptionInClusterQueue:                "prioritization in the ClusterQueue",
		PreemptionInCohortReclamation:           "reclamation within the cohort",
		PreemptionInCohortReclaimWhileBorrowing: "reclamation within the cohort while borrowing",
		PreemptionInCohortFairSharing:           "Fair Sharing within the cohort",
	}[reason]
	jobUID := r.info.Labels[JobUIDLabel]
	if jobUID == "" {
		jobUID = "UNKNOWN"
	}
	return fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; preemptor %s in ClusterQueue %s",
		r.info.UID, jobUID, why, r.info.Key, cq)
}

// source lists a queue's admitted workloads that are not already being evicted
// for another preemptor, or, while listEvicting, all of them.
type source struct{ s *Scheduler }

func (src source) Admitted(cq string) []*preemption.Candidate {
	s := src.s
	afsQueue := false
	if q, ok := s.cache.ClusterQueue(cq); ok {
		// Kueue leaves an inactive ClusterQueue (stopped, being deleted,
		// naming a missing flavor) out of its scheduling snapshot: its
		// admitted workloads are nobody's candidates, while their usage
		// stays in its Cohort's.
		if !s.cache.Status(q).Active {
			return nil
		}
		afsQueue = s.usesAFS(q)
	}
	// Within a cycle the list changes only when a victim is chosen or a
	// workload admitted before the cycle leaves or joins (attachAdmitted,
	// detach): the running cycle's admissions are no candidates. A search
	// asks for the list of every borrowing queue of its tree, and the
	// preemption oracle searches for each pending workload that needs room,
	// so on a deep backlog the lists were built again hundreds of times a
	// cycle. Under admission fair sharing a candidate carries its
	// LocalQueue's decayed usage, read afresh each time: no caching there.
	cacheable := s.inCycle && !afsQueue
	if cacheable {
		if l, ok := s.admittedCands[cq]; ok && l.cycle == s.cycle && l.victimsVer == s.victimsVer && l.evicting == s.listEvicting {
			return l.list
		}
	}
	out := src.admitted(cq, afsQueue)
	if cacheable {
		s.admittedCands[cq] = candidateList{cycle: s.cycle, victimsVer: s.victimsVer, evicting: s.listEvicting, list: out}
	}
	return out
}

// candidateList is a ClusterQueue's candidates at one cycle and set of
// victims in flight, with or without those victims (listEvicting).
type candidateList struct {
	cycle, victimsVer uint64
	evicting          bool
	list              []*preemption.Candidate
}

// admitted builds cq's candidate list.
func (src source) admitted(cq string, afsQueue bool) []*preemption.Candidate {
	m := src.s.admittedByCQ[cq]
	out := make([]*preemption.Candidate, 0, len(m))
	for key, r := range m {
		_, busy := src.s.victimOf[key]
		if busy && !src.s.listEvicting {
			continue
		}
		if src.s.inCycle && r.admittedCycle == src.s.cycle {
			continue // admitted by this very cycle: preempting it would undo a decision just made
		}
		if r.cand == nil {
			r.cand = &preemption.Candidate{Key: key, UID: r.info.UID, ClusterQueue: cq, Priority: r.priority, BasePriority: r.basePriority,
				Created: r.info.Created, AdmittedAt: r.admittedAt, Usage: r.admission.Usage,
				Labels: r.info.Labels, LocalQueue: r.lq}
		}
		r.cand.Evicting = busy
		r.cand.LQUsage = nil
		if afsQueue {
			u := src.s.afsKey(r.lq)
			r.cand.LQUsage = &u
		}
		out = append(out, r.cand)
	}
	// Map order does not leak into decisions: package preemption sorts the
	// candidates by a total order.
	return out
}
