package hierarchy

import (
	"sort"
)

// Tree holds Cohorts and ClusterQueues (called queues here) and the edges between
// them. Q is the payload of a queue, C the payload of a cohort. The zero Tree is
// not usable; call New.
type Tree[Q, C any] struct {
	cohorts   map[string]*Cohort[Q, C]
	queues    map[string]*Queue[Q, C]
	newCohort func(node *Cohort[Q, C]) C
}

// New returns an empty tree. newCohort builds the payload of every cohort when it
// first appears, explicitly or implicitly, and may keep the node it is given; it
// may be nil when the zero C will do.
func New[Q, C any](newCohort func(node *Cohort[Q, C]) C) *Tree[Q, C] {
	return &Tree[Q, C]{
		cohorts:   map[string]*Cohort[Q, C]{},
		queues:    map[string]*Queue[Q, C]{},
		newCohort: newCohort,
	}
}

// Queue is a ClusterQueue: a leaf of the tree.
type Queue[Q, C any] struct {
	// Value is the caller's payload.
	Value  Q
	name   string
	cohort *Cohort[Q, C]
}

// Name is the ClusterQueue's name.
func (q *Queue[Q, C]) Name() string { return q.name }

// Cohort is the queue's cohort, or nil when it has none.
func (q *Queue[Q, C]) Cohort() *Cohort[Q, C] { return q.cohort }

// Cohort is an inner node: a Cohort object, or one that is only referenced.
type Cohort[Q, C any] struct {
	// Value is the caller's payload.
	Value    C
	name     string
	explicit bool
	parent   *Cohort[Q, C]
	children map[string]*Cohort[Q, C]
	queues   map[string]*Queue[Q, C]
}

// Name is the Cohort's name.
func (c *Cohort[Q, C]) Name() string { return c.name }

// Explicit reports whether a Cohort object exists for this node; an implicit
// cohort exists only because a queue or a child cohort names it.
func (c *Cohort[Q, C]) Explicit() bool { return c.explicit }

// Parent is the parent cohort, or nil for a root. Following Parent from a node
// whose chain has a cycle never ends: check HasCycle first.
func (c *Cohort[Q, C]) Parent() *Cohort[Q, C] { return c.parent }

// ChildCohorts returns the child cohorts sorted by name.
func (c *Cohort[Q, C]) ChildCohorts() []*Cohort[Q, C] {
	out := make([]*Cohort[Q, C], 0, len(c.children))
	for _, ch := range c.children {
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Queues returns the queues directly in this cohort, sorted by name.
func (c *Cohort[Q, C]) Queues() []*Queue[Q, C] {
	out := make([]*Queue[Q, C], 0, len(c.queues))
	for _, q := range c.queues {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// NumChildren is the number of child cohorts and queues, without sorting.
func (c *Cohort[Q, C]) NumChildren() int { return len(c.children) + len(c.queues) }

// EachChild calls cohortFn for every child cohort and queueFn for every queue of c,
// in no particular order; for sums, where order does not matter.
func (c *Cohort[Q, C]) EachChild(cohortFn func(*Cohort[Q, C]), queueFn func(*Queue[Q, C])) {
	for _, ch := range c.children {
		cohortFn(ch)
	}
	for _, q := range c.queues {
		queueFn(q)
	}
}

// EachChildCohort calls fn for every child cohort of c, in no particular order.
func (c *Cohort[Q, C]) EachChildCohort(fn func(*Cohort[Q, C])) {
	for _, ch := range c.children {
		fn(ch)
	}
}
