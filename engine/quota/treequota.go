package quota

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// MaxTreeQuota is the most nominal quota, per flavor and resource, that the
// ClusterQueues and Cohorts of one Cohort tree may hold in total: the same
// bound as one quantity (resources.MaxAmount, half of the largest int64).
//
// The cache adds quotas up in plain int64 (subtree quotas, kept current by
// adding differences, propagate.go), and its readers add and subtract what
// it derives from them. Every such value (a subtree quota, a guaranteed
// share, what is lent, Available, the potential available) is at most the
// total of its tree's nominal quotas, and every borrowing or lending limit
// is at most MaxAmount; so with the total held to MaxAmount, the sum of two
// of them, which is the most any of that arithmetic adds without saturating
// (resources.Add), stays below the largest int64. A bound at MaxAmount rather
// than below it keeps every single quota that ToCanonical accepts usable in
// a Cohort. A tree whose quotas would total more is refused, object by
// object, before anything changes (UpsertClusterQueue, UpsertCohort);
// deleting an object only shrinks or splits trees.
//
// A tree here is everything linked by cohortName and parentName, a cycle of
// parents included: deleting a Cohort of the cycle makes it one tree without
// an upsert that could be refused.
//
// Usage is not bounded here: it is what admitted workloads are charged.
const MaxTreeQuota = resources.MaxAmount

// ErrTreeQuota is wrapped by the error of an upsert refused because its
// Cohort tree's nominal quotas would total more than MaxTreeQuota (the error
// itself is a *field.Error naming the field, as for a quantity that cannot be
// converted). Unlike such a quantity, the object may fit later, when other
// objects of its tree shrink or leave: a caller that keeps it may offer it
// again then.
var ErrTreeQuota = errors.New("a Cohort tree's nominal quotas would total more than quota.MaxTreeQuota")

// treeQuotaError is a *field.Error that also wraps ErrTreeQuota.
type treeQuotaError struct{ invalid *field.Error }

func (e treeQuotaError) Error() string   { return e.invalid.Error() }
func (e treeQuotaError) Unwrap() []error { return []error{e.invalid, ErrTreeQuota} }

// quotaTotals sums nominal quotas over the nodes linked to a Cohort, as the
// tree will be after an upsert: the object being upserted is left out (its
// new quotas are the caller's to add) and so are its edges in the tree.
type quotaTotals struct {
	seen map[*treeCohort]bool
	// skipQueue is the ClusterQueue being upserted, "" for none.
	skipQueue string
	// skipCohort is the Cohort being upserted, nil for none: its own quotas
	// and its edge to its parent are left out; its children are not.
	skipCohort *treeCohort
	// frs are the cells summed; nil sums every cell.
	frs []resources.FlavorResource
}

func newQuotaTotals() *quotaTotals {
	return &quotaTotals{seen: map[*treeCohort]bool{}}
}

// addLinked adds to sums the nominal quotas of every node linked to start
// that w has not counted yet (none when start is nil or counted).
func (w *quotaTotals) addLinked(sums resources.Amounts, start *treeCohort) {
	if start == nil || w.seen[start] {
		return
	}
	w.seen[start] = true
	stack := []*treeCohort{start}
	push := func(tc *treeCohort) {
		if tc != nil && tc != w.skipCohort && !w.seen[tc] {
			w.seen[tc] = true
			stack = append(stack, tc)
		}
	}
	for len(stack) > 0 {
		tc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if tc != w.skipCohort {
			w.addNode(sums, &tc.Value.node)
			push(tc.Parent())
		}
		tc.EachChild(push, func(q *treeQueue) {
			if q.Name() != w.skipQueue {
				w.addNode(sums, &q.Value.node)
			}
		})
	}
}

func (w *quotaTotals) addNode(sums resources.Amounts, n *node) {
	if w.frs == nil {
		for fr, cl := range n.cells.all() {
			if cl.defined && cl.quota.Nominal != 0 {
				sums[fr] = resources.Add(sums[fr], cl.quota.Nominal)
			}
		}
		return
	}
	for _, fr := range w.frs {
		if cl := n.cell(fr); cl != nil && cl.defined {
			sums[fr] = resources.Add(sums[fr], cl.quota.Nominal)
		}
	}
}

// grown lists the cells of qs whose nominal quota is above old's (every
// nonzero one when old is nil): the only cells in which an upsert that moves
// nothing can take a tree's total up.
func grown(qs map[resources.FlavorResource]Quota, old *node) []resources.FlavorResource {
	var out []resources.FlavorResource
	for fr, q := range qs {
		if q.Nominal == 0 {
			continue
		}
		if old != nil {
			if oq, _ := old.quotaOf(fr); oq.Nominal >= q.Nominal {
				continue
			}
		}
		out = append(out, fr)
	}
	return out
}

// checkQueueTreeQuota refuses a ClusterQueue whose nominal quotas would take
// its Cohort tree above MaxTreeQuota in some cell, naming the first such
// quota's field. Only the cells it adds to are summed, and only over the tree
// it joins: the rest of that tree was within the bound (a part of a tree that
// was), and any tree it leaves shrinks.
func (c *Cache) checkQueueTreeQuota(obj *kueue.ClusterQueue, nq *ClusterQueue) error {
	cohortName := string(obj.Spec.CohortName)
	tc, ok := c.tree.Cohort(cohortName)
	if cohortName == "" || !ok {
		// Alone, or alone with a Cohort that appears with it: each quota is
		// within MaxAmount.
		return nil
	}
	var old *node
	if tq, ok := c.tree.Queue(obj.Name); ok && tq.Value.CohortName() == cohortName {
		old = &tq.Value.node
	}
	frs := grown(nq.Cells, old)
	if len(frs) == 0 {
		return nil
	}
	w := newQuotaTotals()
	w.skipQueue, w.frs = obj.Name, frs
	sums := resources.Amounts{}
	w.addLinked(sums, tc)
	path, groups := resourceGroupsOf(c.opts.DynamicQuotaOrchestration, obj.Spec.ResourceGroups, obj.Status.EffectiveQuotas)
	return firstQuotaOver(path, groups, func(fr resources.FlavorResource) bool {
		return resources.Add(sums[fr], nq.Cells[fr].Nominal) > MaxTreeQuota
	}, fmt.Sprintf("the tree of Cohort %q", cohortName))
}

// checkCohortTreeQuota refuses a Cohort whose nominal quotas, or whose move
// to another parent, would take its tree above MaxTreeQuota in some cell. The
// error names the first such quota of the Cohort when its own side of the
// tree (itself and what is below it) is over already, and spec.parentName
// when the two trees its parent joins are over only together.
func (c *Cache) checkCohortTreeQuota(obj *kueue.Cohort, qs Quotas) error {
	parentName := string(obj.Spec.ParentName)
	tc, exists := c.tree.Cohort(obj.Name)
	oldParent := ""
	if exists && tc.Parent() != nil {
		oldParent = tc.Parent().Name()
	}
	moved := parentName != oldParent
	w := newQuotaTotals()
	if !moved {
		var old *node
		if exists {
			old = &tc.Value.node
		}
		if w.frs = grown(qs.Cells, old); len(w.frs) == 0 {
			return nil
		}
	}
	own, other := resources.Amounts{}, resources.Amounts{}
	if exists {
		w.skipCohort = tc
		w.addLinked(own, tc)
	}
	if p, ok := c.tree.Cohort(parentName); ok && parentName != "" {
		w.addLinked(other, p)
	}
	for fr, q := range qs.Cells {
		own[fr] = resources.Add(own[fr], q.Nominal)
	}
	total := func(fr resources.FlavorResource) int64 { return resources.Add(own[fr], other[fr]) }
	path, groups := resourceGroupsOf(c.opts.DynamicQuotaOrchestration, obj.Spec.ResourceGroups, obj.Status.EffectiveQuotas)
	tree := fmt.Sprintf("the tree of Cohort %q", obj.Name)
	over := func(fr resources.FlavorResource) bool { return total(fr) > MaxTreeQuota }
	if moved {
		over = func(fr resources.FlavorResource) bool { return own[fr] > MaxTreeQuota }
	}
	if err := firstQuotaOver(path, groups, over, tree); err != nil || !moved {
		return err
	}
	var cells []resources.FlavorResource
	for fr := range own {
		cells = append(cells, fr)
	}
	for fr := range other {
		if _, ok := own[fr]; !ok {
			cells = append(cells, fr)
		}
	}
	slices.SortFunc(cells, func(a, b resources.FlavorResource) int {
		return cmp.Or(cmp.Compare(a.Flavor, b.Flavor), cmp.Compare(a.Resource, b.Resource))
	})
	for _, fr := range cells {
		if total(fr) > MaxTreeQuota {
			return treeQuotaError{field.Invalid(field.NewPath("spec", "parentName"), parentName,
				fmt.Sprintf("joining it, %s", overMessage(fr, tree)))}
		}
	}
	return nil
}

// firstQuotaOver returns an error naming the nominalQuota field of the first
// quota in groups (in their order) whose cell is over, nil when none is.
func firstQuotaOver(path *field.Path, groups []kueue.ResourceGroup, over func(resources.FlavorResource) bool, tree string) error {
	for gi, g := range groups {
		for fi, f := range g.Flavors {
			for ri, r := range f.Resources {
				fr := resources.FlavorResource{Flavor: string(f.Name), Resource: r.Name}
				if over(fr) {
					p := path.Index(gi).Child("flavors").Index(fi).Child("resources").Index(ri).Child("nominalQuota")
					return treeQuotaError{field.Invalid(p, r.NominalQuota.String(), fmt.Sprintf("with it, %s", overMessage(fr, tree)))}
				}
			}
		}
	}
	return nil
}

func overMessage(fr resources.FlavorResource, tree string) string {
	bound := resources.ToQuantity(fr.Resource, MaxTreeQuota)
	return fmt.Sprintf("the nominal quotas of %s in flavor %s in %s would total more than %s (%d canonical units), the most one Cohort tree may hold",
		fr.Resource, fr.Flavor, tree, bound.String(), MaxTreeQuota)
}

// verifyTreeQuota reports a tree whose nominal quotas total more than
// MaxTreeQuota in some cell.
func (c *Cache) verifyTreeQuota() error {
	w := newQuotaTotals()
	for _, name := range c.tree.CohortNames() {
		tc, _ := c.tree.Cohort(name)
		if w.seen[tc] {
			continue
		}
		sums := resources.Amounts{}
		w.addLinked(sums, tc)
		for _, fr := range slices.SortedFunc(maps.Keys(sums), func(a, b resources.FlavorResource) int {
			return cmp.Or(cmp.Compare(a.Flavor, b.Flavor), cmp.Compare(a.Resource, b.Resource))
		}) {
			if sums[fr] > MaxTreeQuota {
				return fmt.Errorf("the tree of Cohort %s: nominal quotas of %v total %d, more than %d", name, fr, sums[fr], MaxTreeQuota)
			}
		}
	}
	return nil
}
