package scheduler

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// A workload whose flavor assignment needs preemption, but whose search finds
// no victims, waits. If its ClusterQueue cannot always reclaim what it lends
// (reclaimWithinCohort is not Any), a borrower from another queue admitted in
// the meantime could keep that quota for as long as it runs. So, as Kueue
// does (reserveCapacityForUnreclaimablePreempt), the workload holds what it
// is waiting for, for the rest of the cycle: min(request, nominal - usage)
// of each cell, or, when the assignment borrows, up to the queue's borrowing
// limit. No workload is assigned a flavor with the holds counted (Kueue
// nominates against the snapshot the cycle began with): the other queues'
// heads are then checked against them, and skipped if they no longer fit
// (see assign). Its own queue ignores the hold altogether (in Kueue the
// queue's next workload is looked at in a later cycle, when it is gone).
//
// How long it holds follows Kueue's queues. A StrictFIFO head is tried again
// in every cycle, so it holds in every cycle while it waits. A
// BestEffortFIFO workload that failed is parked until quota is released in
// its Cohort tree (or the structure changes), so it holds once after each
// such release: in the next cycle a borrower may take the quota.

// holdMark identifies the release epoch a workload last held in.
type holdMark struct {
	release, structVer uint64
	valid              bool
}

// mayHold tells whether q's waiting workloads hold quota: q cannot always
// reclaim (Kueue's CanAlwaysReclaim is reclaimWithinCohort: Any).
func (s *Scheduler) mayHold(q *quota.ClusterQueue) bool {
	return q.Preemption.ReclaimWithinCohort != kueue.PreemptionPolicyAny
}

// hold charges r's hold for the rest of the cycle, when due; it tells
// whether it charged anything.
func (s *Scheduler) hold(rn *run, r *record, a *flavorassigner.Assignment) bool {
	q := rn.q
	mark := s.holdEpoch(q)
	if !rn.strict && r.heldAt == mark {
		return false
	}
	r.heldAt = mark
	amounts := reserve(q, a)
	if len(amounts) == 0 {
		return false
	}
	// A queue's holds are one charge, their sum (two: its later holds,
	// see run.took, apart): workloads are assigned with all of them
	// released (withoutHolds), and one charge is released and charged
	// again in constant time, where a deep queue's thousand holds made
	// every assignment cost a thousand.
	later := rn.took || s.laterInQueue(rn, r)
	key := holdKey(q.Name(), later)
	if i := slices.IndexFunc(s.holds, func(h heldCharge) bool { return h.cq == q.Name() && h.later == later }); i >= 0 {
		s.cache.Release(key)
		sum := s.holds[i].usage
		for fr, v := range amounts {
			sum[fr] = resources.Add(sum[fr], v)
		}
		s.cache.Charge(key, q.Name(), sum)
		s.holds[i].holder = nil // no longer one head's hold
	} else {
		s.cache.Charge(key, q.Name(), amounts)
		hc := heldCharge{key: key, cq: q.Name(), usage: amounts, later: later}
		if rn.strict {
			held := *a
			s.strictHolds++
			hc.holder = &holder{q: q, r: r, a: &held, seq: s.strictHolds}
		}
		s.holds = append(s.holds, hc)
	}
	s.epoch++
	s.holdMoves++
	s.touch(q)
	s.heldOnce = s.heldOnce || !rn.strict
	s.walk.oneShotHeld = s.walk.oneShotHeld || !rn.strict
	return true
}

// WantsCycle tells whether the last cycle leaves decisions to a cycle right
// after it, though nothing else changes: a BestEffortFIFO workload held quota
// in it, which it does once after each release in its tree, and workloads of
// other queues that this kept out may fit in the next cycle, where it holds
// nothing. Kueue requeues a workload skipped for another's reservation at once
// ("Workload no longer fits after processing another workload") while the
// holder stays parked, so its next cycle admits them. Drivers run another
// cycle when this is true; a StrictFIFO head holds in every cycle, so its
// holds ask for none.
func (s *Scheduler) WantsCycle() bool { return s.heldOnce }

// viewEpoch is the epoch as workloads are assigned and search for victims:
// it moves with every usage change but holds, which nominations do not see
// (see assign); a queue's answers remembered for the first workload of a
// shape (shapes.go, failedPreemption) stay good for the next one while only
// holds move. In a deep queue whose waiting workloads hold quota, each of
// them holds in turn; with the plain epoch, the next one asked the
// preemption oracle again for the same answer.
func (s *Scheduler) viewEpoch() uint64 {
	return s.epoch - s.holdMoves
}

// reserve is what a waiting assignment holds (Kueue's
// quotaResourcesToReserve): per cell, when it borrows, the request capped by
// what the borrowing limit still allows; otherwise the request capped by the
// queue's unused nominal quota. Zero cells are left out.
func reserve(q *quota.ClusterQueue, a *flavorassigner.Assignment) resources.Amounts {
	out := resources.Amounts{}
	for fr, v := range a.Usage {
		qq, _ := q.Quota(fr)
		var r int64
		switch {
		case a.BorrowLevel > 0 && qq.BorrowingLimit == resources.Unlimited:
			r = v
		case a.BorrowLevel > 0:
			r = min(v, resources.Add(qq.Nominal, qq.BorrowingLimit)-q.Usage(fr))
		default:
			r = max(0, min(v, qq.Nominal-q.Usage(fr)))
		}
		if r > 0 {
			out[fr] = r
		}
	}
	return out
}

// holdKey is the cache key of the holds of ClusterQueue cq's workloads, its
// later holds (see run.took) apart; real workloads always have a namespace.
func holdKey(cq string, later bool) types.NamespacedName {
	if later {
		return types.NamespacedName{Name: "later-hold/" + cq}
	}
	return types.NamespacedName{Name: "hold/" + cq}
}

// releaseHolds undoes the cycle's holds.
func (s *Scheduler) releaseHolds() {
	for _, h := range s.holds {
		s.cache.Release(h.key)
	}
	clear(s.holds) // drop the holders' records
	s.holds = s.holds[:0]
	for _, h := range s.deferredFits {
		s.cache.Release(h.key)
	}
	s.deferredFits = s.deferredFits[:0]
}

// A workload that does not fit, but would once the victims of preemptions in
// flight are gone, preempts nothing: it waits for that room, and reserves it
// for the rest of the cycle, against its own queue too (Kueue's DeferredFit:
// the workload is tried again first in each cycle, and its usage is counted
// in the cycle). Without the reservation, a workload behind it, or its
// victims back in their queue, would take the room as it frees.

// deferFit reserves a's usage for r when a fits once the evictions in flight
// complete, and tells whether it did.
func (s *Scheduler) deferFit(q *quota.ClusterQueue, r *record, a *flavorassigner.Assignment) bool {
	if len(s.victimOf) == 0 {
		return false
	}
	for _, u := range s.unfitOnceEvicted[q.Name()] {
		if u.epoch == s.epoch && u.victimsVer == s.victimsVer && sameAmounts(u.usage, a.Usage) {
			return false
		}
	}
	fits := false
	s.withVictimsGone(func() { fits = s.fitsNow(q, a.Usage) })
	if !fits {
		s.rememberUnfitOnceEvicted(q.Name(), a.Usage)
		return false
	}
	key := deferKey(r.info.Key)
	s.cache.Charge(key, q.Name(), a.Usage)
	s.deferredFits = append(s.deferredFits, heldCharge{key: key, cq: q.Name(), usage: a.Usage})
	s.epoch++
	s.touch(q)
	return true
}

// unfitOnceEvicted is an assignment that did not fit even with the victims
// in flight gone, at one epoch and set of victims: an equal assignment of a
// workload behind it in the queue would not either, and need not release
// and recharge every victim to find that out again.
type unfitOnceEvicted struct {
	epoch, victimsVer uint64
	usage             resources.Amounts
}

func (s *Scheduler) rememberUnfitOnceEvicted(cq string, usage resources.Amounts) {
	u := unfitOnceEvicted{epoch: s.epoch, victimsVer: s.victimsVer, usage: usage}
	s.unfitOnceEvicted[cq] = rememberMiss(s.unfitOnceEvicted[cq], u, func(old unfitOnceEvicted) bool {
		return old.epoch == u.epoch && old.victimsVer == u.victimsVer
	})
}

func deferKey(k types.NamespacedName) types.NamespacedName {
	return types.NamespacedName{Name: "deferred-fit/" + k.Namespace + "/" + k.Name}
}

// withoutUnseenHolds runs f with the holds a workload of q does not see
// released: q's own (a queue's workloads do not see what its waiting
// workloads hold) and, when first (q has not taken its turn in the cycle,
// see run.took), the later holds.
func (s *Scheduler) withoutUnseenHolds(q *quota.ClusterQueue, first bool, f func()) {
	s.releasingHolds(func(h heldCharge) bool { return h.unseenBy(q, first) }, f)
}

// unseenBy tells whether a workload of q does not see hold h (see
// withoutUnseenHolds).
func (h heldCharge) unseenBy(q *quota.ClusterQueue, first bool) bool {
	return h.cq == q.Name() || first && h.later
}

// withoutHolds runs f with every hold released: the state Kueue nominates
// its heads against, the snapshot taken when the cycle began, where its
// holds are not (they are added to the snapshot as its loop reaches each
// holder).
func (s *Scheduler) withoutHolds(f func()) {
	s.releasingHolds(func(heldCharge) bool { return true }, f)
}

// releasingHolds runs f with the holds that match released.
//
// They are lifted out of their queues' usage and put back (quota.Cache.Lift),
// not released and charged again: a week's backlog asks this around every
// pending workload's assignment, with hundreds of queues holding, and the
// record of charges, its index by queue and the lookups by name that Release
// and Charge update made two fifths of a loaded simulation. f must neither
// hold nor release a hold (holds are made between questions, never inside
// one); a question inside another sees the outer one's holds already gone.
func (s *Scheduler) releasingHolds(match func(heldCharge) bool, f func()) {
	if s.holdsLifted {
		f()
		return
	}
	lifted := s.liftedHolds[:0]
	for i := range s.holds {
		h := &s.holds[i]
		if match(*h) && s.cache.LiftWhole(h.key, &h.lift) {
			lifted = append(lifted, i)
		}
	}
	if len(lifted) == 0 {
		f()
		return
	}
	s.holdsLifted = true
	f()
	s.holdsLifted = false
	for i := len(lifted) - 1; i >= 0; i-- {
		h := &s.holds[lifted[i]]
		s.cache.RestoreWhole(h.key, &h.lift)
	}
	s.liftedHolds = lifted[:0]
}

// holdEpoch is the release epoch of q's tree: it moves whenever quota is
// released in the tree (a workload that held quota finished, was evicted or
// deleted) or the structure changes.
func (s *Scheduler) holdEpoch(q *quota.ClusterQueue) holdMark {
	ec := &s.epochs
	if ec.releaseVer != s.releaseVer || ec.structVer != s.structVer || ec.byCQ == nil {
		// A release or a change of structure (which may move q to
		// another tree) since the last answers: start afresh.
		if ec.byCQ == nil {
			ec.byCQ = map[*quota.ClusterQueue]holdMark{}
		}
		clear(ec.byCQ)
		ec.releaseVer, ec.structVer = s.releaseVer, s.structVer
		ec.lastQ = nil
	} else if ec.lastQ == q {
		return ec.last
	} else if m, ok := ec.byCQ[q]; ok {
		ec.lastQ, ec.last = q, m
		return m
	}
	var release uint64
	if rc := s.releases[s.treeOf(q.Name())]; rc != nil {
		release = rc.now
	}
	m := holdMark{release: release, structVer: s.structChanges, valid: true}
	ec.byCQ[q] = m
	ec.lastQ, ec.last = q, m
	return m
}

// epochCache keeps holdEpoch's answers while no release and no change of
// structure happens: walks ask for a queue's epoch for each of its
// workloads, and each answer took three lookups by name. The last answer
// is kept apart too: a walk asks about one queue many times in a row, and
// the map's lookups took about 5% of BenchmarkKueueBaselineTick's cycle.
type epochCache struct {
	releaseVer, structVer uint64
	byCQ                  map[*quota.ClusterQueue]holdMark
	lastQ                 *quota.ClusterQueue
	last                  holdMark
}

// noteRelease records that a workload of ClusterQueue cq released its quota,
// or another of the events after which Kueue requeues the inadmissible
// workloads of cq's tree (see park.go); "" is no queue.
func (s *Scheduler) noteRelease(cq string) {
	if cq == "" {
		return
	}
	if s.releases == nil {
		s.releases = map[treeKey]*releaseCount{}
	}
	k := s.treeOf(cq)
	rc := s.releases[k]
	if rc == nil {
		rc = &releaseCount{}
		s.releases[k] = rc
	}
	s.releaseVer++
	if rc.cycle != s.cycle {
		rc.prevCycle, rc.prevAdmits = rc.cycle, rc.admits
		rc.atWalk, rc.cycle, rc.admits = rc.now, s.cycle, s.treeAdmitCount(k)
	}
	rc.now++
}

// treeOf is the key of cq's tree: its root Cohort, or the queue itself.
func (s *Scheduler) treeOf(cq string) treeKey {
	if root := s.rootOf(cq); root != "" {
		return treeKey{cohort: true, name: root}
	}
	return treeKey{name: cq}
}

// A StrictFIFO head that waits for preemption it cannot make is its queue's
// head in every Kueue cycle, and holds in each at its place in the cycle's
// order. The engine's walk may reach another queue's workload after that
// head held, where Kueue's cycle that reaches it orders the two afresh: one
// that comes first is admitted before the holder holds. That is so of a
// queue's later workloads, which Kueue reaches in later cycles, one head per
// queue per cycle (the fair-sharing decisions runs dec-91 and dec-94,
// docs/kueue-decisions.md), and of a head the walk reached only after the
// hold, past workloads Kueue had parked, which are no heads of its cycle
// (dec-96, s48-5 event 16). A head that was among the cycle's heads when the
// holder held was ordered against it then: it sees the hold.

// holder is the StrictFIFO head behind a hold, with the assignment it waits
// to preempt for; seq numbers the StrictFIFO heads' holds in the order they
// were made.
type holder struct {
	q   *quota.ClusterQueue
	r   *record
	a   *flavorassigner.Assignment
	seq uint64
}

// holdView tells which holds of StrictFIFO heads a workload is ordered
// against (see fitsBeforeHolders), rather than seeing them as they stand.
type holdView struct {
	// later: it is a head of a later Kueue cycle (see laterCycle), ordered
	// against every one of them.
	later bool
	// since: it became a head of this cycle after the holds numbered up
	// to since were made; it is ordered against those. 0 is none.
	since uint64
}

func (v holdView) orders() bool { return v.later || v.since > 0 }

// freshView is the view of r, evaluated in rn's walk as it becomes a head:
// every StrictFIFO hold made so far was made before. After a workload of
// its queue was skipped in the cycle, none: Kueue's next cycles have that
// one as the queue's head again (see run.skippedOne), not r.
func (s *Scheduler) freshView(rn *run, r *record) holdView {
	if rn.skippedOne {
		return holdView{}
	}
	return holdView{later: s.laterCycle(rn, r), since: s.strictHolds}
}

// laterCycle tells whether r, evaluated in rn's walk, is a head of a later
// Kueue cycle: its queue took its turn in this one, or r comes after the
// queue's head of this cycle (see laterInQueue), and no workload of its
// queue was skipped before it in this cycle (see run.skippedOne).
func (s *Scheduler) laterCycle(rn *run, r *record) bool {
	return !rn.skippedOne && (rn.took || s.laterInQueue(rn, r))
}

// fitsBeforeHolders tells whether res, r's assignment in q, fits with the
// holds r sees (see assign): those of the StrictFIFO heads of q's tree that
// view orders r against and that come after r in Kueue's order lifted,
// besides the ones it never sees.
func (s *Scheduler) fitsBeforeHolders(q *quota.ClusterQueue, r *record, res *flavorassigner.Result, first bool, view holdView) bool {
	var passed []*holder
	for _, h := range s.holds {
		hd := h.holder
		if hd == nil || !view.later && hd.seq > view.since || h.unseenBy(q, first) || s.treeOf(h.cq) != s.treeOf(q.Name()) {
			continue
		}
		if s.comesBefore(q, r, res, hd) {
			passed = append(passed, hd)
		}
	}
	if len(passed) == 0 {
		return false
	}
	fits := false
	s.releasingHolds(func(h heldCharge) bool {
		return h.unseenBy(q, first) || h.holder != nil && slices.Contains(passed, h.holder)
	}, func() { fits = s.fitsNow(q, res.Usage) })
	return fits
}

// comesBefore tells whether r, with assignment res in q, comes before the
// holder's head when both are heads of one Kueue cycle: by the order of
// heads (headLess), or under fair sharing by the tournament at the nodes
// where their paths part, with the shares as the cycle begins, before any
// hold.
func (s *Scheduler) comesBefore(q *quota.ClusterQueue, r *record, res *flavorassigner.Result, h *holder) bool {
	mine := &head{run: &run{q: q}, r: r, res: *res}
	theirs := &head{run: &run{q: h.q}, r: h.r, res: flavorassigner.Result{Preemption: h.a}}
	if s.strategies == nil {
		return headLess(mine, theirs)
	}
	first := -1
	s.withoutHolds(func() { first = s.fairPick([]*head{mine, theirs}) })
	return first == 0
}
