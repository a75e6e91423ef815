package hierarchy

// HasCycle reports whether following parents from c ever revisits a cohort, that
// is whether c is in a cycle or below one. It takes O(depth) steps and allocates
// nothing (Floyd's tortoise and hare), because the scheduler asks it for every
// queue it considers.
func (c *Cohort[Q, C]) HasCycle() bool {
	slow, fast := c, c
	for fast != nil && fast.parent != nil {
		slow = slow.parent
		fast = fast.parent.parent
		if slow == fast {
			return true
		}
	}
	return false
}

// Root returns the root of c's tree, or false when the chain of parents has a
// cycle and therefore no root.
func (c *Cohort[Q, C]) Root() (*Cohort[Q, C], bool) {
	if c.HasCycle() {
		return nil, false
	}
	for c.parent != nil {
		c = c.parent
	}
	return c, true
}

// Ancestors calls fn for c and each of its ancestors, nearest first, stopping
// when fn returns false. It visits each cohort at most once, so a cycle ends the
// walk instead of looping.
func (c *Cohort[Q, C]) Ancestors(fn func(*Cohort[Q, C]) bool) {
	// Depth is small in practice; a short slice beats a map for the seen-set.
	var seen [16]*Cohort[Q, C]
	visited := seen[:0]
	for n := c; n != nil; n = n.parent {
		for _, v := range visited {
			if v == n {
				return
			}
		}
		visited = append(visited, n)
		if !fn(n) {
			return
		}
	}
}

// HasCycle reports whether the queue's cohort chain has a cycle.
func (q *Queue[Q, C]) HasCycle() bool {
	return q.cohort != nil && q.cohort.HasCycle()
}
