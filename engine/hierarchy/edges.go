package hierarchy

import "sort"

// Queue returns the named queue.
func (t *Tree[Q, C]) Queue(name string) (*Queue[Q, C], bool) {
	q, ok := t.queues[name]
	return q, ok
}

// Cohort returns the named cohort, explicit or implicit.
func (t *Tree[Q, C]) Cohort(name string) (*Cohort[Q, C], bool) {
	c, ok := t.cohorts[name]
	return c, ok
}

// QueueNames returns the names of all queues, sorted.
func (t *Tree[Q, C]) QueueNames() []string { return sortedKeys(t.queues) }

// CohortNames returns the names of all cohorts, explicit and implicit, sorted.
func (t *Tree[Q, C]) CohortNames() []string { return sortedKeys(t.cohorts) }

// SetQueue creates the queue or moves it to cohortName ("" for none) and returns
// it. A cohort that does not exist yet is created implicitly; a previous cohort
// that nothing references any more is removed.
func (t *Tree[Q, C]) SetQueue(name, cohortName string) *Queue[Q, C] {
	q, ok := t.queues[name]
	if !ok {
		q = &Queue[Q, C]{name: name}
		t.queues[name] = q
	}
	if q.cohort != nil && q.cohort.name == cohortName {
		return q
	}
	old := q.cohort
	q.cohort = nil
	if old != nil {
		delete(old.queues, name)
		t.collect(old)
	}
	if cohortName != "" {
		c := t.ensureCohort(cohortName)
		c.queues[name] = q
		q.cohort = c
	}
	return q
}

// DeleteQueue removes the queue, and its cohort if that was implicit and is now
// unreferenced.
func (t *Tree[Q, C]) DeleteQueue(name string) {
	q, ok := t.queues[name]
	if !ok {
		return
	}
	delete(t.queues, name)
	if q.cohort != nil {
		delete(q.cohort.queues, name)
		t.collect(q.cohort)
		q.cohort = nil
	}
}

// SetCohort records a Cohort object with the given parent ("" for a root) and
// returns it. Setting a parent that closes a cycle is allowed: HasCycle reports it.
func (t *Tree[Q, C]) SetCohort(name, parentName string) *Cohort[Q, C] {
	c := t.ensureCohort(name)
	c.explicit = true
	t.setParent(c, parentName)
	return c
}

// DeleteCohort removes the Cohort object. If queues or child cohorts still name
// it, it stays as an implicit cohort without a parent.
func (t *Tree[Q, C]) DeleteCohort(name string) {
	c, ok := t.cohorts[name]
	if !ok {
		return
	}
	c.explicit = false
	t.setParent(c, "")
	t.collect(c)
}

func (t *Tree[Q, C]) setParent(c *Cohort[Q, C], parentName string) {
	if c.parent != nil && c.parent.name == parentName {
		return
	}
	old := c.parent
	c.parent = nil
	if old != nil {
		delete(old.children, c.name)
		t.collect(old)
	}
	if parentName != "" {
		p := t.ensureCohort(parentName)
		p.children[c.name] = c
		c.parent = p
	}
}

func (t *Tree[Q, C]) ensureCohort(name string) *Cohort[Q, C] {
	if c, ok := t.cohorts[name]; ok {
		return c
	}
	c := &Cohort[Q, C]{
		name:     name,
		children: map[string]*Cohort[Q, C]{},
		queues:   map[string]*Queue[Q, C]{},
	}
	if t.newCohort != nil {
		c.Value = t.newCohort(c)
	}
	t.cohorts[name] = c
	return c
}

// collect removes an implicit cohort that nothing references any more. An
// implicit cohort never has a parent, so removal does not cascade.
func (t *Tree[Q, C]) collect(c *Cohort[Q, C]) {
	if c.explicit || len(c.children) > 0 || len(c.queues) > 0 {
		return
	}
	if t.cohorts[c.name] == c {
		delete(t.cohorts, c.name)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
