package quota

import (
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/resources"
)

// A hold is lifted out of its queue's usage and restored around every
// question a cycle asks (package scheduler's releasingHolds): hundreds of
// times per cycle under a week's backlog, with hundreds of queues holding.
// Finding the hold's cells by name at every level of its Cohort chain, each
// time, was a sixth of such a simulation. A liftPlan keeps what Lift and
// Restore of a whole charge move: the queue, and per cell the queue's cell
// and its Cohorts' cells, root last. It is dropped whenever the charge or the
// tree's structure changes, so that its pointers are those a lookup would
// find; moving usage along it takes the same steps as removeUsage and addUsage
// (takeOut, putIn).
type liftPlan struct {
	q     *ClusterQueue
	steps []liftStep
	// gone marks a plan the cache dropped, which a LiftHandle may still
	// hold.
	gone bool
}

// A LiftHandle keeps a charge's lift plan for a caller that lifts the same
// charge whole around many questions (package scheduler's holds), so that
// LiftWhole and RestoreWhole find the plan without hashing the charge's key:
// that lookup was a twentieth of a week's simulation. The zero value is
// empty; a handle whose plan the cache dropped is filled again at the next
// lift.
type LiftHandle struct{ p *liftPlan }

// liftStep is one cell of a charge.
type liftStep struct {
	fr   resources.FlavorResource
	v    int64
	cell *cell
	// up holds the Cohorts above the queue, nearest first; none when the
	// queue has no Cohort or its chain has a cycle (usage does not pass up).
	up []liftLevel
}

// liftLevel is a Cohort's cell, found (or added) the first time usage passes
// to it, as removeUsage and addUsage add a Cohort's cell only then.
type liftLevel struct {
	cohort *Cohort
	cell   *cell
}

// planFor makes and keeps the lift plan of charge ch of key, in queue q.
func (c *Cache) planFor(key types.NamespacedName, ch charge, q *ClusterQueue) *liftPlan {
	p := &liftPlan{q: q, steps: make([]liftStep, 0, len(ch.usage))}
	tc := q.tq.Cohort()
	for fr, v := range ch.usage {
		st := liftStep{fr: fr, v: v, cell: q.cellFor(fr)}
		if tc != nil && !tc.HasCycle() {
			for t := tc; t != nil; t = t.Parent() {
				st.up = append(st.up, liftLevel{cohort: t.Value})
			}
		}
		p.steps = append(p.steps, st)
	}
	if c.plans == nil {
		c.plans = map[types.NamespacedName]*liftPlan{}
	}
	c.plans[key] = p
	return p
}

// forgetPlans drops every lift plan: the tree's structure changed, and with
// it the nodes and cells plans point to.
func (c *Cache) forgetPlans() {
	for _, p := range c.plans {
		p.gone = true
	}
	clear(c.plans)
}

// dropPlan drops the lift plan of key, if any: its charge changed.
func (c *Cache) dropPlan(key types.NamespacedName) {
	if p, ok := c.plans[key]; ok {
		p.gone = true
		delete(c.plans, key)
	}
}

// level returns the Cohort's cell of the step's resource, adding it as
// cellFor would.
func (l *liftLevel) level(fr resources.FlavorResource) *cell {
	if l.cell == nil {
		l.cell = l.cohort.cellFor(fr)
	}
	return l.cell
}

// lift takes the plan's charge out of usage, as removeUsage does cell by cell.
func (c *Cache) lift(p *liftPlan) { c.move(p, takeOut) }

// restore puts the plan's charge back, as addUsage does cell by cell.
func (c *Cache) restore(p *liftPlan) { c.move(p, putIn) }

// move is propagate along the plan's cells, for each cell of the charge.
func (c *Cache) move(p *liftPlan, step func(*cell, int64) int64) {
	for i := range p.steps {
		st := &p.steps[i]
		pass := step(st.cell, st.v)
		for j := 0; j < len(st.up) && pass > 0; j++ {
			pass = step(st.up[j].level(st.fr), pass)
		}
		c.noteBorrowingCell(p.q, st.fr, st.cell)
	}
}
