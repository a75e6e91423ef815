package quota

import (
	"fmt"
	"reflect"

	"quokka.dev/quokka/engine/resources"
)

// Verify recomputes, from the charges and quotas alone, every queue's usage and
// every acyclic cohort's subtree quota and usage, and reports the first cell where
// the incrementally maintained state differs, or a Cohort tree whose nominal
// quotas total more than MaxTreeQuota. It exists for property tests and
// debugging; it walks the whole world.
func (c *Cache) Verify() error {
	if err := c.verifyTreeQuota(); err != nil {
		return err
	}
	for _, name := range c.tree.QueueNames() {
		q, _ := c.ClusterQueue(name)
		want := resources.Amounts{}
		for key := range c.byCQ[name] {
			want.Add(c.charges[key].usage)
		}
		dropZeros(want)
		if got := q.usageAmounts(); !reflect.DeepEqual(want, got) {
			return fmt.Errorf("ClusterQueue %s: usage %v, recomputed %v", name, got, want)
		}
	}
	for _, name := range c.tree.CohortNames() {
		tc, _ := c.tree.Cohort(name)
		if tc.HasCycle() {
			continue
		}
		sub, use := expected(tc)
		if got := tc.Value.subtreeAmounts(); !reflect.DeepEqual(sub, got) {
			return fmt.Errorf("Cohort %s: subtreeQuota %v, recomputed %v", name, got, sub)
		}
		if got := tc.Value.usageAmounts(); !reflect.DeepEqual(use, got) {
			return fmt.Errorf("Cohort %s: usage %v, recomputed %v", name, got, use)
		}
		if h := expectedHeight(tc); h != tc.Value.height {
			return fmt.Errorf("Cohort %s: height %d, recomputed %d", name, tc.Value.height, h)
		}
	}
	return nil
}

// expectedHeight computes a cohort's height without reading any cohort's
// stored height.
func expectedHeight(tc *treeCohort) int {
	h := min(tc.NumChildren(), 1)
	tc.EachChildCohort(func(ch *treeCohort) {
		h = max(h, expectedHeight(ch)+1)
	})
	return h
}

// expected computes a cohort's subtree quota and usage without reading any
// cohort's stored aggregates.
func expected(tc *treeCohort) (resources.Amounts, resources.Amounts) {
	sub, use := resources.Amounts{}, resources.Amounts{}
	n := &tc.Value.node
	for fr, c := range n.cells.all() {
		if c.defined {
			sub[fr] += c.quota.Nominal
		}
	}
	// addChild adds a child's contribution, the child being given by its
	// quotas (read from the node, the only stored state used) and the
	// recomputed subtree quota and usage.
	addChild := func(quotas *node, csub, cuse resources.Amounts) {
		cellOf := func(fr resources.FlavorResource) *cell {
			q, defined := quotas.quotaOf(fr)
			return &cell{quota: q, defined: defined, subtree: csub[fr], usage: cuse[fr]}
		}
		for fr := range csub {
			sub[fr] += cellOf(fr).lent()
		}
		for fr := range cuse {
			use[fr] += cellOf(fr).usageInParent()
		}
	}
	tc.EachChild(func(ch *treeCohort) {
		s, u := expected(ch)
		addChild(&ch.Value.node, s, u)
	}, func(q *treeQueue) {
		s := resources.Amounts{}
		for fr, c := range q.Value.cells.all() {
			if c.defined {
				s[fr] = c.quota.Nominal
			}
		}
		addChild(&q.Value.node, s, q.Value.usageAmounts())
	})
	dropZeros(sub)
	dropZeros(use)
	return sub, use
}

func dropZeros(a resources.Amounts) {
	for k, v := range a {
		if v == 0 {
			delete(a, k)
		}
	}
}
