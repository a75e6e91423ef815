package scheduler

// Ready preemptors: a preemptor whose victims have all let go of their quota
// is admitted before the walks of its tree (admitReady), in Kueue's fresh
// nomination when that borrows no more than the assignment it preempted for
// (readyAssignment); the heads of the cycle are then nominated as Kueue
// nominates them, against the snapshot without those admissions
// (nominatedFit, readyNomination).

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

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
	for i, rd := range rs {
		res := s.readyAssignment(rd.q, rd.r, rs[i+1:])
		if res.Fits {
			if s.admissionBlocked() {
				return append(out, s.waitForReady(rd.q, rd.r))
			}
			out = append(out, s.admit(rd.q, rd.r, &res))
			s.readyAdmits = append(s.readyAdmits, rd.r.info.Key)
		}
	}
	return out
}

// ready is a preemptor whose victims are gone, in its ClusterQueue.
type ready struct {
	q *quota.ClusterQueue
	r *record
}

// readyAssignment is the assignment a ready preemptor is admitted in. Kueue
// nominates it afresh once its victims are gone, its flavor scan starting from
// the first flavor again (a cycle that issues preemptions forgets the
// workload's LastAssignment), so it may take a flavor that its victims'
// leaving freed in another resource group, or that did not fit without
// borrowing when it preempted (decisions run dec-127, fair seed 57, scenario
// 1, event 17: preempting for memory, w14 took cpu flavor f1 because f2 would
// have borrowed beside its victim; once the victim had gone, Kueue admitted it
// in f2; and dec-60, TestReadyPreemptorTakesTheFlavorItsVictimsFreed). The
// engine takes the fresh assignment, whatever its flavors and pod counts, when
// it fits and borrows, per resource and in levels of its Cohort tree, no more
// than the assignment it preempted for would now. Otherwise it keeps that
// assignment (deliberate difference 2): a fresh assignment that borrows more
// may be reclaimed, its preemptor reclaim again, and so on without end, as a
// fresh count did under fair sharing (dec-45,
// TestPartialPreemptorsSettleUnderFairSharing). Nor does it take the fresh
// assignment when that would leave no room for a later ready preemptor of the
// tree in the assignment that one preempted for (rest): the room its victims
// freed is no longer reserved for it, and it would preempt again.
func (s *Scheduler) readyAssignment(q *quota.ClusterQueue, r *record, rest []ready) flavorassigner.Result {
	fresh := flavorassigner.Assign(s.cache, q, r.info.PodSets, s.assignOptions(q, r))
	a := s.readyFor[r.info.Key]
	if a == nil || !s.fitsNow(q, a.Usage) {
		return fresh
	}
	if fresh.Fits && borrowsNoMore(q, fresh.Usage, fresh.BorrowLevel, a.Usage, a.BorrowLevel) &&
		(maps.Equal(fresh.Usage, a.Usage) || s.leavesRoomFor(q, fresh.Usage, rest)) {
		return fresh
	}
	// Borrowing is told afresh: the assignment's was told while its
	// victims still held their quota.
	return flavorassigner.Result{Fits: true, PodSets: a.PodSets, Usage: a.Usage, Borrowing: borrows(q, a.Usage), BorrowLevel: a.BorrowLevel}
}

// readyProbe charges a ready preemptor's fresh assignment while
// leavesRoomFor checks the others.
var readyProbe = types.NamespacedName{Name: "ready-preemptor-probe"}

// leavesRoomFor tells whether charging usage in q leaves every ready
// preemptor of rest whose assignment fits now still fitting in it.
func (s *Scheduler) leavesRoomFor(q *quota.ClusterQueue, usage resources.Amounts, rest []ready) bool {
	var fit []ready
	for _, o := range rest {
		if a := s.readyFor[o.r.info.Key]; a != nil && s.fitsNow(o.q, a.Usage) {
			fit = append(fit, o)
		}
	}
	if len(fit) == 0 {
		return true
	}
	s.cache.Charge(readyProbe, q.Name(), usage)
	defer s.cache.Release(readyProbe)
	for _, o := range fit {
		if !s.fitsNow(o.q, s.readyFor[o.r.info.Key].Usage) {
			return false
		}
	}
	return true
}

// borrowsNoMore tells whether charging usage would take q above its nominal
// quota by no more, per resource (summed over its flavors), than charging than
// would, and no further up its Cohort tree: what it borrows, hence what other
// queues may reclaim and its fair-sharing share, is no larger. A fresh
// assignment that borrows as much in another flavor passes (decisions run
// dec-90, scenario 6, event 13: 2 GiB borrowed in m1 where it preempted for
// 2 GiB borrowed in m2).
func borrowsNoMore(q *quota.ClusterQueue, usage resources.Amounts, level int, than resources.Amounts, thanLevel int) bool {
	if level > thanLevel {
		return false
	}
	over := map[corev1.ResourceName]int64{}
	add := func(amounts resources.Amounts, sign int64) {
		for fr, v := range amounts {
			nq, _ := q.Quota(fr)
			over[fr.Resource] += sign * max(0, q.Usage(fr)+v-nq.Nominal)
		}
	}
	add(usage, 1)
	add(than, -1)
	for _, o := range over {
		if o > 0 {
			return false
		}
	}
	return true
}

// borrows tells whether charging usage would take q above its nominal quota
// in some cell, as the flavor assigner tells an assignment's Borrowing.
func borrows(q *quota.ClusterQueue, usage resources.Amounts) bool {
	for fr, v := range usage {
		if nq, _ := q.Quota(fr); q.Usage(fr)+v > nq.Nominal {
			return true
		}
	}
	return false
}

// readyAdmitted tells whether a ready preemptor of q was admitted at the
// start of this cycle: it was q's head in Kueue's cycle, so q's next workload
// is a head of a later one (see run.took).
func (s *Scheduler) readyAdmitted(q *quota.ClusterQueue) bool {
	return slices.ContainsFunc(s.readyAdmits, func(k types.NamespacedName) bool {
		cq, _, ok := s.cache.Charged(k)
		return ok && cq == q.Name()
	})
}

// nominatedFit tells whether a head that does not fit would have fit as
// Kueue nominates it: against the snapshot its cycle began with, before the
// cycle's admissions, which here include the ready preemptors admitted
// before the walks (admitReady; in Kueue they are heads of the same cycle),
// and without holds. Such a head holds nothing in this cycle (see
// settleUnfit); one that fit only in a ready preemptor's room is skipped
// (see notAdmitted).
func (s *Scheduler) nominatedFit(q *quota.ClusterQueue, res *flavorassigner.Result) bool {
	if res.Fits {
		return true
	}
	if len(s.readyAdmits) == 0 || res.Preemption == nil || !s.mayHold(q) {
		return false
	}
	fits := false
	s.withoutReadyAdmits(func() { fits = s.fitsNow(q, res.Preemption.Usage) })
	return fits
}

// withoutReadyAdmits runs f with the holds and the ready preemptors admitted
// before the walks (admitReady) set aside: the snapshot Kueue's cycle
// nominates its heads against.
func (s *Scheduler) withoutReadyAdmits(f func()) {
	s.withoutHolds(func() {
		var gone []heldCharge
		for _, k := range s.readyAdmits {
			gone = s.releaseCharge(k, gone)
		}
		f()
		s.chargeBack(gone)
	})
}

// readyNomination is r's assignment as Kueue nominates it when ready
// preemptors of its tree were admitted before the walks (admitReady; in
// Kueue they are heads of the same cycle): without them and without holds.
// It tells whether that differs from res, which fits with them counted: the
// head is then ordered by its nomination and, when its nomination no longer
// fits at its turn, put aside until the cycle's other heads are done (see
// scheduleTree). Only a queue's first workload of the cycle is a head Kueue
// nominates with them.
func (s *Scheduler) readyNomination(rn *run, r *record, res *flavorassigner.Result) (flavorassigner.Result, bool) {
	if len(s.readyAdmits) == 0 || rn.took || !res.Fits {
		return flavorassigner.Result{}, false
	}
	var nom flavorassigner.Result
	s.withoutReadyAdmits(func() { nom = flavorassigner.Assign(s.cache, rn.q, r.info.PodSets, s.assignOptions(rn.q, r)) })
	return nom, nom.Fits && !maps.Equal(nom.Usage, res.Usage)
}
