package quota

import (
	"fmt"
	"reflect"

	"quokka.dev/quokka/engine/resources"
)

// Verify recomputes, from the charges and quotas alone, every queue's usage and
// every acyclic cohort's subtree quota and usage, and reports the first cell where
// the incrementally maintained state differs. It exists for property tests and
// debugging; it walks the whole world.
func (c *Cache) Verify() error {
	for _, name := range c.tree.QueueNames() {
		q, _ := c.ClusterQueue(name)
		want := resources.Amounts{}
		for key := range c.byCQ[name] {
			want.Add(c.charges[key].usage)
		}
		dropZeros(want)
		if !reflect.DeepEqual(want, q.usage) {
			return fmt.Errorf("ClusterQueue %s: usage %v, recomputed %v", name, q.usage, want)
		}
	}
	for _, name := range c.tree.CohortNames() {
		tc, _ := c.tree.Cohort(name)
		if tc.HasCycle() {
			continue
		}
		sub, use := expected(tc)
		if !reflect.DeepEqual(sub, tc.Value.subtree) {
			return fmt.Errorf("Cohort %s: subtreeQuota %v, recomputed %v", name, tc.Value.subtree, sub)
		}
		if !reflect.DeepEqual(use, tc.Value.usage) {
			return fmt.Errorf("Cohort %s: usage %v, recomputed %v", name, tc.Value.usage, use)
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
	for fr, q := range n.quotas {
		sub[fr] += q.Nominal
	}
	addChild := func(quotas map[resources.FlavorResource]Quota, csub, cuse resources.Amounts) {
		tmp := node{quotas: quotas, subtree: csub, usage: cuse}
		for fr := range csub {
			sub[fr] += tmp.lent(fr)
		}
		for fr := range cuse {
			use[fr] += tmp.usageInParent(fr)
		}
	}
	tc.EachChild(func(ch *treeCohort) {
		s, u := expected(ch)
		addChild(ch.Value.quotas, s, u)
	}, func(q *treeQueue) {
		s := resources.Amounts{}
		for fr, qq := range q.Value.quotas {
			s[fr] = qq.Nominal
		}
		addChild(q.Value.quotas, s, q.Value.usage)
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
