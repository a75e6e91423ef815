package quota

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/resources"
)

// Charge records that workload key uses usage in ClusterQueue cq, replacing any
// previous charge of the same workload. A charge to a queue that does not exist
// is kept and applied when the queue is created. A charge that would take the
// cache's total of a cell past MaxChargedUsage is cut to what is left (only
// admissions written by hand can; see chargebound.go), and stays cut until it
// is charged again.
func (c *Cache) Charge(key types.NamespacedName, cq string, usage resources.Amounts) {
	if ch, ok := c.charges[key]; ok && ch.cq == cq && sameAmounts(ch.charged(), usage) {
		// The driver confirming an admission the engine assumed charges the
		// same usage again: the content, and so Version, stays as it was.
		if ch.asked == nil {
			c.charges[key] = charge{cq: cq, usage: usage}
		}
		return
	}
	c.Release(key)
	c.version++
	ch := c.bound(cq, usage)
	usage = ch.usage
	c.charges[key] = ch
	set, ok := c.byCQ[cq]
	if !ok {
		set = map[types.NamespacedName]struct{}{}
		c.byCQ[cq] = set
	}
	set[key] = struct{}{}
	if q, ok := c.ClusterQueue(cq); ok {
		for fr, v := range usage {
			addUsage(q, fr, v)
		}
		c.noteBorrowingIn(q, usage)
	}
}

// Release removes the workload's charge, if any.
func (c *Cache) Release(key types.NamespacedName) {
	ch, ok := c.charges[key]
	if !ok {
		return
	}
	c.version++
	delete(c.charges, key)
	c.dropPlan(key)
	c.unbound(ch)
	if set := c.byCQ[ch.cq]; set != nil {
		delete(set, key)
		if len(set) == 0 {
			delete(c.byCQ, ch.cq)
		}
	}
	if q, ok := c.ClusterQueue(ch.cq); ok {
		for fr, v := range ch.usage {
			removeUsage(q, fr, v)
		}
		c.noteBorrowingIn(q, ch.usage)
	}
}

// Lift takes the cells of a workload's charge that are in cells out of its
// queue's usage, as Release would, but keeps the charge on record for Restore
// to put back; it tells whether there was a charge. A preemption search whose
// preemptor needs room in those cells alone reads no other (see package
// preemption's sim), and takes out and puts back every candidate of its tree
// one by one: with Release and Charge, a third of a loaded simulation went
// into updating the other cells, the record of charges and its index by
// queue. Between Lift and Restore the workload must be neither charged nor
// released, and Charged and ChargedTo still count it. Nil cells lift all of
// the charge's cells, along its lift plan (liftplan.go; package scheduler's
// releasingHolds sets its holds aside around each question with LiftWhole,
// which keeps the plan in a handle).
func (c *Cache) Lift(key types.NamespacedName, cells map[resources.FlavorResource]bool) bool {
	if cells == nil {
		return c.LiftWhole(key, nil)
	}
	return c.counted(c.shift(key, cells, removeUsage))
}

// Restore puts back what Lift took out, given the same cells.
func (c *Cache) Restore(key types.NamespacedName, cells map[resources.FlavorResource]bool) {
	if cells == nil {
		c.RestoreWhole(key, nil)
		return
	}
	c.uncount()
	c.shift(key, cells, addUsage)
}

// LiftWhole is Lift(key, nil) with the charge's plan kept in h (nil: none
// kept).
func (c *Cache) LiftWhole(key types.NamespacedName, h *LiftHandle) bool {
	return c.counted(c.shiftWhole(key, h, c.lift))
}

// RestoreWhole is Restore(key, nil) with the handle LiftWhole was given.
func (c *Cache) RestoreWhole(key types.NamespacedName, h *LiftHandle) {
	c.uncount()
	c.shiftWhole(key, h, c.restore)
}

// counted counts a charge lifted, when lifted, for the borrower index (see
// EachBorrowerInTree), and returns lifted.
func (c *Cache) counted(lifted bool) bool {
	if lifted {
		c.lifted++
	}
	return lifted
}

// uncount counts a lifted charge restored.
func (c *Cache) uncount() {
	if c.lifted > 0 {
		c.lifted--
	}
}

// shiftWhole lifts or restores a whole charge along its lift plan, the one h
// keeps when it is still the cache's (h may be nil).
func (c *Cache) shiftWhole(key types.NamespacedName, h *LiftHandle, move func(*liftPlan)) bool {
	var p *liftPlan
	if h != nil && h.p != nil && !h.p.gone {
		p = h.p
	} else {
		var ok bool
		if p, ok = c.plans[key]; !ok {
			ch, charged := c.charges[key]
			if !charged {
				return false
			}
			q, exists := c.ClusterQueue(ch.cq)
			if !exists {
				c.version++
				return true
			}
			p = c.planFor(key, ch, q)
		}
		if h != nil {
			h.p = p
		}
	}
	c.version++
	move(p)
	return true
}

// shift lifts or restores the cells of a charge that are in cells.
func (c *Cache) shift(key types.NamespacedName, cells map[resources.FlavorResource]bool, move func(*ClusterQueue, resources.FlavorResource, int64)) bool {
	ch, ok := c.charges[key]
	if !ok {
		return false
	}
	c.version++
	q, ok := c.ClusterQueue(ch.cq)
	if !ok {
		return true
	}
	for fr := range cells {
		if v, ok := ch.usage[fr]; ok {
			move(q, fr, v)
			c.noteBorrowingAt(q, fr)
		}
	}
	return true
}

// Charged returns the queue and usage charged for a workload.
func (c *Cache) Charged(key types.NamespacedName) (string, resources.Amounts, bool) {
	ch, ok := c.charges[key]
	return ch.cq, ch.usage, ok
}

// ChargedTo returns the number of workloads charged to the queue.
func (c *Cache) ChargedTo(cq string) int { return len(c.byCQ[cq]) }

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
