package scheduler

import (
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// lostForGood spares the evaluation of a herd's stale heads, but each queue
// of the herd was still walked up to its head when the cycle began: a flavor
// assignment or two per queue, for some thirty queues per cycle, to admit one
// workload. Most of those walks can wait, and then never happen.
//
// In a quiet cycle, a queue that lostForGood could drop (woken only by freed
// quota, none of its workloads able to preempt: hopelessThroughout) is not
// walked at its place. If lostForGood holds already (a ready preemptor took
// the room that woke it), the queue goes back to sleep there and then.
// Otherwise a placeholder goes into the heap, keyed by a
// bound no head of the queue can beat: its first pending workload, and
// "fits without borrowing" unless every flavor would take the queue above
// nominal quota for every one of its workloads. When the placeholder reaches
// the top:
//
//   - if nothing was admitted since the walks, the state is the one its
//     place in the walk saw: the queue is walked now, as it would have been;
//   - otherwise, if lostForGood holds now, it holds when the head the walk
//     would have found reached the top (only admissions happen in between,
//     and they only use up quota): the queue goes back to sleep unwalked;
//   - otherwise the queue is walked as at its place, with the admissions
//     made since released for the walk (atWalkEnd), and its head goes into
//     the heap to be evaluated again like any stale head.
//
// Walking a queue changes nothing that another queue's walk reads: its
// decisions are Pending (dropped in a quiet cycle), and what it remembers
// concerns its own workloads. A preemption does change the state, so before
// one is made (settleDeferred) every placeholder left is walked as at its
// place, and every queue put back to sleep is walked too, and brought back
// when the walk's head would not yet have reached the top.

// deferral is the state of one tree's deferred walks while scheduleTree runs.
type deferral struct {
	h *headHeap
	// waiting counts the placeholders in the heap.
	waiting int
	// dropped lists the runs put back to sleep unwalked, each with the
	// number of pops seen before, and pops the keys of the heads popped
	// since the first drop.
	dropped []droppedRun
	pops    []head
	// admitted lists the tree's admissions since the walks, which atWalkEnd
	// releases.
	admitted []heldCharge
}

type droppedRun struct {
	rn    *run
	since int
}

// active tells whether anything deferred is left to settle.
func (d *deferral) active() bool {
	return d != nil && (d.waiting > 0 || len(d.dropped) > 0)
}

// beginDeferral starts a tree's deferral state, when its cycle may defer.
func (s *Scheduler) beginDeferral(h *headHeap) {
	s.dfr = nil
	if !s.quiet || s.opts.DisableIncrementalCycle || s.strategies != nil {
		return
	}
	d := &s.dfrBuf
	*d = deferral{h: h, dropped: d.dropped[:0], pops: d.pops[:0], admitted: d.admitted[:0]}
	s.dfr = d
}

// placeholder defers rn's walk when it may, and returns the placeholder to
// push; nil when the queue must be walked now, or was put back to sleep
// (rn.slept): lostForGood holds already, as when a ready preemptor took the
// room that woke it.
func (s *Scheduler) placeholder(rn *run) *head {
	if s.dfr == nil || rn.byLQ != nil {
		return nil
	}
	q := rn.q
	if _, ok := s.sleep.freed[q.Name()]; !ok {
		return nil
	}
	var first *record
	for _, e := range rn.list.sorted {
		if e.valid() {
			first = e.r
			break
		}
	}
	if first == nil || !s.hopelessThroughout(q, rn.list) {
		return nil
	}
	if s.lostForGood(rn) {
		rn.slept = true
		return nil
	}
	borrows := s.hopelessMemo[q.Name()].borrows
	s.dfr.waiting++
	s.deferrals++
	hd := s.heads.get()
	lvl := 0
	if borrows {
		lvl = 1 // any head that borrows does so at least from its own Cohort
	}
	*hd = head{run: rn, r: first, res: flavorassigner.Result{Borrowing: borrows, BorrowLevel: lvl}, placeholder: true}
	return hd
}

// notePop records the key of a head taken from the top of the heap, for
// settleDeferred to tell which heads of dropped queues would have been
// taken already.
func (d *deferral) notePop(hd *head) {
	if d != nil && len(d.dropped) > 0 {
		d.pops = append(d.pops, *hd)
	}
}

// noteAdmit records an admission made after the walks, for atWalkEnd.
func (d *deferral) noteAdmit(r *record) {
	if d.active() {
		d.admitted = append(d.admitted, heldCharge{key: r.info.Key, cq: r.admission.ClusterQueue, usage: r.admission.Usage})
	}
}

// popPlaceholder settles a placeholder that reached the top of the heap at
// tree version ver (the number of admissions since the walks), as the
// comment at the top of this file explains.
func (s *Scheduler) popPlaceholder(hd *head, ver uint64, out []Decision) []Decision {
	d, rn := s.dfr, hd.run
	d.waiting--
	d.notePop(hd)
	if ver == 0 {
		return s.pushNext(rn, d.h, ver, out)
	}
	if s.lostForGood(rn) {
		rn.slept = true
		d.dropped = append(d.dropped, droppedRun{rn: rn, since: len(d.pops)})
		return out
	}
	s.atWalkEnd(func() { out = s.pushNext(rn, d.h, staleVer, out) })
	s.rewalks++
	return out
}

// atWalkEnd runs f with the tree's admissions since the walks released, so
// that f sees the state every queue's walk saw. The epoch moves on both
// sides, so that nothing remembered in that state is used outside it.
func (s *Scheduler) atWalkEnd(f func()) {
	adm := s.dfr.admitted
	if len(adm) == 0 {
		f()
		return
	}
	s.epoch++
	for i := len(adm) - 1; i >= 0; i-- {
		s.cache.Release(adm[i].key)
	}
	f()
	for _, a := range adm {
		s.cache.Charge(a.key, a.cq, a.usage)
	}
	s.epoch++
}

// settleDeferred runs before a preemption changes the state: every queue
// whose placeholder is still in the heap is walked, as at its place, and
// every queue put back to sleep unwalked is walked too and brought back when
// its head would still be in the heap, not yet taken from the top. Heads
// taken so far were evaluated with admissions only since the walks, under
// which a dropped queue stays lost; after the preemption that is no longer
// known. Decisions of these walks are Pending only, which a quiet cycle
// drops.
func (s *Scheduler) settleDeferred() {
	d := s.dfr
	if !d.active() {
		return
	}
	var scratch []Decision
	var waiting []*run
	for _, hd := range d.h.items {
		if hd.placeholder {
			waiting = append(waiting, hd.run)
		}
	}
	d.h.removePlaceholders()
	s.atWalkEnd(func() {
		for _, rn := range waiting {
			scratch = s.pushNext(rn, d.h, staleVer, scratch)
		}
		for _, dr := range d.dropped {
			tmp := &headHeap{}
			scratch = s.pushNext(dr.rn, tmp, staleVer, scratch)
			if tmp.Len() == 0 || d.takenSince(tmp.items[0], dr.since) {
				continue
			}
			dr.rn.slept = false
			if root, ok := s.cache.TreeRoot(dr.rn.q); ok {
				delete(s.sleep.byRoot[root], dr.rn.q.Name())
			}
			d.h.push(tmp.items[0])
			s.revivals++
		}
	})
	d.waiting, d.dropped, d.pops, d.admitted = 0, d.dropped[:0], d.pops[:0], d.admitted[:0]
}

// takenSince tells whether hd would have been taken from the top of the heap
// by now: some head popped after pop number since ranks after it.
func (d *deferral) takenSince(hd *head, since int) bool {
	for i := since; i < len(d.pops); i++ {
		if headLess(hd, &d.pops[i]) {
			return true
		}
	}
	return false
}

// removePlaceholders drops the placeholders from the heap and restores its
// order.
func (h *headHeap) removePlaceholders() {
	items := h.items
	h.items = h.items[:0]
	for _, hd := range items {
		if !hd.placeholder {
			h.push(hd)
		}
	}
	clear(items[len(h.items):])
}

// borrowsEverywhere tells whether ps, the only pod set of a workload whose
// resources group g of q covers, would take q above nominal quota in every
// flavor of the group: then, admitted, it borrows whichever flavor it gets.
func borrowsEverywhere(q *quota.ClusterQueue, g int, ps *workload.PodSet) bool {
	for _, f := range q.Groups[g].Flavors {
		over := false
		for res, v := range ps.Total {
			fr := resources.FlavorResource{Flavor: f, Resource: res}
			if v > 0 && q.Usage(fr)+v > q.Nominal(fr) {
				over = true
				break
			}
		}
		if !over {
			return false
		}
	}
	return true
}
