package scheduler

import (
	"fmt"
	"strings"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// run walks one ClusterQueue's ordered pending list during a cycle.
type run struct {
	q      *quota.ClusterQueue
	list   *pendingList
	pos    int
	strict bool
}

// head is a queue's current candidate with the assignment it got when last
// evaluated, at tree version ver.
type head struct {
	run *run
	r   *record
	res flavorassigner.Result
	ver uint64
}

// scheduleTree admits, one at a time, the best head among the tree's queues,
// until no queue has a candidate left. Heads are kept in a heap ordered by
// Kueue's rules (non-borrowing first, then priority, creation, UID). The tree's
// version counts admissions; a head evaluated at an older version is evaluated
// again when it reaches the top. Usage only grows within a cycle, so a head can
// only turn from non-borrowing to borrowing or to not fitting (or pick a later
// flavor); re-inserting it when its key got worse keeps the heap's top exact.
func (s *Scheduler) scheduleTree(t *tree, out []Decision) []Decision {
	var ver uint64
	h := &headHeap{}
	for _, q := range t.queues {
		rn := &run{q: q, list: s.lists[q.Name()], strict: q.Strategy == kueue.StrictFIFO}
		out = s.pushNext(rn, h, ver, out)
	}
	for h.Len() > 0 {
		hd := h.pop()
		if hd.ver != ver {
			res := flavorassigner.Assign(s.cache, hd.run.q, hd.r.info.PodSets, flavorassigner.Options{})
			hd.ver = ver
			if !res.Fits {
				out = s.notAdmitted(hd.run, hd.r, &res, h, ver, out)
				continue
			}
			worse := res.Borrowing && !hd.res.Borrowing
			hd.res = res
			if worse {
				h.push(hd)
				continue
			}
		}
		out = append(out, s.admit(hd.run.q, hd.r, &hd.res))
		ver++
		out = s.pushNext(hd.run, h, ver, out)
	}
	return out
}

// pushNext advances a queue to its next candidate that fits now and pushes it;
// candidates that do not fit are settled as pending on the way.
func (s *Scheduler) pushNext(rn *run, h *headHeap, ver uint64, out []Decision) []Decision {
	for rn.pos < len(rn.list.sorted) {
		e := rn.list.sorted[rn.pos]
		rn.pos++
		if !e.valid() {
			continue
		}
		if d, filtered := s.filter(rn.q, e.r); filtered {
			out = append(out, d)
			continue
		}
		res := flavorassigner.Assign(s.cache, rn.q, e.r.info.PodSets, flavorassigner.Options{})
		if res.Fits {
			h.push(&head{run: rn, r: e.r, res: res, ver: ver})
			return out
		}
		out = append(out, Pending{Workload: e.r.info.Key, ClusterQueue: rn.q.Name(), Reason: res.Reason, Message: res.Message})
		if rn.strict {
			return s.blockRest(rn, e.r, out)
		}
	}
	return out
}

// notAdmitted settles a head that stopped fitting and moves its queue on.
func (s *Scheduler) notAdmitted(rn *run, r *record, res *flavorassigner.Result, h *headHeap, ver uint64, out []Decision) []Decision {
	out = append(out, Pending{Workload: r.info.Key, ClusterQueue: rn.q.Name(), Reason: res.Reason, Message: res.Message})
	if rn.strict {
		return s.blockRest(rn, r, out)
	}
	return s.pushNext(rn, h, ver, out)
}

// blockRest settles everything behind a StrictFIFO head that does not fit.
func (s *Scheduler) blockRest(rn *run, blocker *record, out []Decision) []Decision {
	msg := fmt.Sprintf("ClusterQueue %s uses StrictFIFO and the older workload %s, which does not fit, is ahead", rn.q.Name(), blocker.info.Key)
	for ; rn.pos < len(rn.list.sorted); rn.pos++ {
		e := rn.list.sorted[rn.pos]
		if !e.valid() {
			continue
		}
		if d, filtered := s.filter(rn.q, e.r); filtered {
			out = append(out, d)
			continue
		}
		out = append(out, Pending{Workload: e.r.info.Key, ClusterQueue: rn.q.Name(), Reason: ReasonBlockedByStrictFIFOHead, Message: msg})
	}
	return out
}

// headHeap is a binary min-heap of heads, written out so that pushes do not box
// values into interfaces as container/heap would.
type headHeap struct{ items []*head }

func (h *headHeap) Len() int { return len(h.items) }

func (h *headHeap) push(x *head) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !headLess(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *headHeap) pop() *head {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items[last] = nil
	h.items = h.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.items) && headLess(h.items[l], h.items[m]) {
			m = l
		}
		if r < len(h.items) && headLess(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// headLess orders heads of different queues of one tree as Kueue does: a
// workload that fits without borrowing first, then higher priority, older
// creation, UID, and finally namespace/name and queue name for a total order.
func headLess(a, b *head) bool {
	if a.res.Borrowing != b.res.Borrowing {
		return !a.res.Borrowing
	}
	if c := compareQueueOrder(a.r, b.r); c != 0 {
		return c < 0
	}
	return strings.Compare(a.run.q.Name(), b.run.q.Name()) < 0
}
