package scheduler

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// Flavor assignment is a pure function of the quota cache's content, the
// ClusterQueue and the workload's pod sets. Between two cycles most of that
// does not change: a workload that arrives or finishes elsewhere leaves the
// pending workloads that did not fit exactly where they were, yet every cycle
// used to assign flavors to all of them again (and build their Pending
// messages again). The scheduler therefore remembers, per pending workload,
// the last assignment that did not fit, together with the cache version it was
// computed at; while the cache still has that version the same result, with
// the same reason and message strings, is returned without running the
// assigner. Decisions are unchanged by construction: only a call that would
// return the identical result is skipped.
//
// Results that fit are not remembered: the workload is admitted (and the
// cache changes) or its head is evaluated again after an admission anyway. A
// fit leaves the memo of the last failure in place, whose version is past and
// never comes back; skipUnfit and lostForGood read only its parts that depend
// on the structure (the flavor preemption would target).

// assignMemo is the last assignment of a pending workload that did not fit,
// and what it was computed from.
type assignMemo struct {
	ver  uint64
	q    *quota.ClusterQueue
	info *workload.Info
	res  flavorassigner.Result
	// structVer is Scheduler.structVer when computed: skipUnfit trusts the
	// parts of res that depend only on quotas and flavors while it holds.
	structVer uint64
	// explained is false for a quiet cycle's result, which has no reason or
	// message: it decides the same, but does not explain.
	explained bool
	// candVer is Scheduler.candVer when computed: a result that consulted the
	// preemption oracle depends on it.
	candVer uint64
}

// incremental carries what Cycle needs to recognise that the cache it starts
// with holds the same content as the one the previous cycle ended with.
// Waiting preemptors' reservations are released at the end of every cycle and
// charged again at the start of the next one, which moves the cache's version
// although, when the same reservations come back, nothing changed; the alias
// maps the version after the recharge back to the version the previous cycle
// ended at.
type incremental struct {
	// endVer is the effective version at the end of the last cycle, before its
	// reservations were released, and afterVer the cache version after; released
	// lists those reservations.
	endVer, afterVer uint64
	released         []heldCharge
	ended            bool
	// aliasFrom holds the same content as aliasTo, when aliased.
	aliasFrom, aliasTo uint64
	aliased            bool
}

type heldCharge struct {
	key   types.NamespacedName
	cq    string
	usage resources.Amounts
	// later marks the holds of workloads whose queue had already taken
	// its turn in the cycle (see run.took).
	later bool
	// holder is the StrictFIFO head that holds it, which holds again in
	// every Kueue cycle at its place in that cycle's order (see
	// fitsBeforeHolders); nil for other holds.
	holder *holder
	// lift keeps the charge's lift plan for releasingHolds.
	lift quota.LiftHandle
}

// stateVersion is the cache version under which an assignment is remembered.
func (s *Scheduler) stateVersion() uint64 {
	v := s.cache.Version()
	if s.inc.aliased && v == s.inc.aliasFrom {
		return s.inc.aliasTo
	}
	return v
}

// assign is flavorassigner.Assign for a pending workload of q, reusing the
// workload's remembered result when nothing it depends on changed, and
// searching fewer pods for a workload that may be admitted partially (see
// nominate).
//
// While workloads hold quota in the cycle (hold.go) it decides as Kueue's
// cycle does. Kueue nominates every head, flavors and preemption targets,
// against the snapshot the cycle began with, where no hold is; holds are
// added as its loop reaches each holder, and a head whose nominated
// assignment then no longer fits is skipped ("Workload no longer fits after
// processing another workload"): it preempts nothing, holds nothing, and is
// requeued at the head of its queue, to be nominated again next cycle. So
// the assignment is made with every hold released, and skipped tells that
// it fits there but not with the other queues' holds counted. It does not
// then look for a flavor that would fit with the holds, or for victims:
// under a StrictFIFO queue's hold, which comes back every cycle, Kueue
// skips such a head every cycle (seed 5, scenario 0 of
// docs/kueue-decisions.md).
//
// first tells that r's queue has not taken its turn in this cycle yet (see
// run.took): r is then a head Kueue nominates in this cycle, and the holds
// of workloads that are heads of Kueue's later cycles (later holds) cannot
// keep it out. view tells which holds of StrictFIFO heads r is ordered
// against as Kueue's cycle that reaches it would order it (see holdView).
func (s *Scheduler) assign(q *quota.ClusterQueue, r *record, first bool, view holdView) (res flavorassigner.Result, skipped bool) {
	if len(s.holds) == 0 {
		return s.nominate(q, r), false
	}
	s.withoutHolds(func() { res = s.nominate(q, r) })
	if !res.Fits {
		return res, false
	}
	fits := true
	s.withoutUnseenHolds(q, first, func() { fits = s.fitsNow(q, res.Usage) })
	if !fits && view.orders() {
		fits = s.fitsBeforeHolders(q, r, &res, first, view)
	}
	return res, !fits
}

// assignAsIs is assign with the cache as it stands.
func (s *Scheduler) assignAsIs(q *quota.ClusterQueue, r *record) flavorassigner.Result {
	opts := s.assignOptions(q, r)
	if s.opts.DisableIncrementalCycle {
		return flavorassigner.Assign(s.cache, q, r.info.PodSets, opts)
	}
	ver := s.stateVersion()
	if m := r.memo; m != nil && m.ver == ver && m.q == q && m.info == r.info && (m.explained || s.quiet) &&
		(!m.res.Oracled || m.candVer == s.candVer) {
		return m.res
	}
	shape := s.shareableShape(q, r)
	if shape != "" {
		// The shape cache lives for one walk of one cycle, quiet or not.
		if res, ok := s.shapesFor(q).unfit[prioShape{priority: r.priority, shape: shape}]; ok {
			s.setMemo(r, assignMemo{ver: ver, q: q, info: r.info, res: *res, structVer: s.structVer, explained: !s.quiet, candVer: s.candVer})
			return *res
		}
	}
	opts.Quiet = s.quiet
	if m := r.memo; m != nil && m.q == q && m.info == r.info && !s.quiet {
		// It did not fit last time and most likely still does not. On failure
		// Assign returns its explaining pass's result, which records more but
		// decides the same as the fast pass; so run only that pass. Should it
		// fit after all, its result is the fast pass's too, with outcomes.
		opts.Explain = true
	}
	res := flavorassigner.Assign(s.cache, q, r.info.PodSets, opts)
	if res.Fits {
		// The memo of its last failure stays: its version is past, so it is
		// never returned again, but skipUnfit and lostForGood read the
		// parts of it that depend on the structure only.
		return res
	}
	s.setMemo(r, assignMemo{ver: ver, q: q, info: r.info, res: res, structVer: s.structVer, explained: !s.quiet, candVer: s.candVer})
	if shape != "" {
		shared := res
		s.shapesFor(q).unfit[prioShape{priority: r.priority, shape: shape}] = &shared
	}
	return res
}

// setMemo records r's last failed assignment in place: a pending workload is
// assigned again in most cycles of a loaded cluster, and a fresh memo each
// time was half of what a cycle allocated under Kueue's baseline load (and the
// garbage collector's work with it). Readers copy what they need from the memo
// and keep no pointer to it past the next assignment.
func (s *Scheduler) setMemo(r *record, m assignMemo) {
	if r.memo == nil {
		r.memo = &assignMemo{}
	}
	*r.memo = m
}

// beginCycle runs right after settlePreemptions, which started at cache
// version before: when nothing touched the cache since the previous cycle
// ended except recharging exactly the reservations that cycle released, the
// content is the one that cycle ended with, and so is the effective version.
func (s *Scheduler) beginCycle(before uint64) {
	s.inc.aliased = false
	if !s.inc.ended || before != s.inc.afterVer || len(s.phantoms) != len(s.inc.released) {
		return
	}
	cur := s.cache.Version()
	if cur != before+uint64(len(s.phantoms)) {
		return // something other than the recharges changed the cache
	}
	for i, pk := range s.phantoms {
		h := s.inc.released[i]
		cq, usage, ok := s.cache.Charged(pk)
		if !ok || pk != h.key || cq != h.cq || !sameAmounts(usage, h.usage) {
			return
		}
	}
	s.inc.aliased, s.inc.aliasFrom, s.inc.aliasTo = true, cur, s.inc.endVer
}

// releaseReservations is releasePhantoms, remembering what the cache looked
// like before and after for the next cycle's beginCycle.
func (s *Scheduler) releaseReservations() {
	s.inc.endVer = s.stateVersion()
	s.inc.released = s.inc.released[:0]
	for _, pk := range s.phantoms {
		cq, usage, _ := s.cache.Charged(pk)
		s.inc.released = append(s.inc.released, heldCharge{key: pk, cq: cq, usage: usage})
	}
	s.releasePhantoms()
	s.inc.afterVer = s.cache.Version()
	s.inc.ended = true
}

func sameAmounts(a, b resources.Amounts) bool {
	if len(a) != len(b) {
		return false
	}
	for fr, v := range a {
		if w, ok := b[fr]; !ok || w != v {
			return false
		}
	}
	return true
}
