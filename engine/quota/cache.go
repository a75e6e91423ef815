package quota

import (
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/hierarchy"
	"quokka.dev/quokka/engine/resources"
)

// Options are the feature gates the cache needs, resolved once.
type Options struct {
	// DynamicQuotaOrchestration uses status.effectiveQuotas, when set, in place of
	// spec.resourceGroups.
	DynamicQuotaOrchestration bool
}

type tree = hierarchy.Tree[*ClusterQueue, *Cohort]
type treeCohort = hierarchy.Cohort[*ClusterQueue, *Cohort]
type treeQueue = hierarchy.Queue[*ClusterQueue, *Cohort]

// charge is the usage one admitted workload puts on one ClusterQueue.
type charge struct {
	cq string
	// usage is what the queue's and its Cohorts' cells hold of it: what was
	// charged, within MaxChargedUsage (see chargebound.go).
	usage resources.Amounts
	// asked is what was charged when usage had to be cut to fit; nil
	// otherwise.
	asked resources.Amounts
}

// Cache holds flavors, queues, cohorts and charged usage. It is not safe for
// concurrent use: the engine is single-threaded by design.
type Cache struct {
	opts    Options
	flavors map[string]*kueue.ResourceFlavor
	tree    *tree
	charges map[types.NamespacedName]charge
	// byCQ indexes charges by ClusterQueue name, also for queues that do not exist
	// (yet): their usage is applied when the queue appears.
	byCQ map[string]map[types.NamespacedName]struct{}
	// version counts changes; see Version.
	version uint64
	// borrowers holds the queues that use more than their nominal quota in
	// some cell (see borrowers.go).
	borrowers map[resources.FlavorResource]borrowerSet
	// lifted counts the charges lifted and not yet restored (Lift): while
	// any is, the borrower index keeps queues that stopped borrowing (see
	// EachBorrowerInTree).
	lifted int
	// queueIDs numbers ClusterQueue names for the borrower index, once per
	// name: a queue replaced by an update, or deleted and added again, keeps
	// its number.
	queueIDs map[string]int32
	// plans holds the lift plans of charges lifted whole (liftplan.go).
	plans map[types.NamespacedName]*liftPlan
	// charged sums every charge's usage per cell, for MaxChargedUsage.
	charged map[resources.FlavorResource]int64
}

// Version identifies the cache's content: every change (a flavor, queue or
// cohort upserted or deleted, a charge made or released) moves it to a number
// it never had before. A caller that remembers a result computed from the
// cache may reuse it while Version is unchanged, since nothing it read can
// differ; the scheduler does so for flavor assignments of pending workloads.
func (c *Cache) Version() uint64 { return c.version }

// New returns an empty cache.
func New(opts Options) *Cache {
	c := &Cache{
		opts:    opts,
		flavors: map[string]*kueue.ResourceFlavor{},
		charges: map[types.NamespacedName]charge{},
		byCQ:    map[string]map[types.NamespacedName]struct{}{},
		charged: map[resources.FlavorResource]int64{},
	}
	// A Cohort starts implicit, with weight 0, as in Kueue (newCohort): only
	// a Cohort object sets it (UpsertCohort, default 1000). An implicit
	// Cohort has no parent, so its weight is never weighed (fairsharing.Of
	// returns 0 for a root); it shows only where it is reported.
	c.tree = hierarchy.New[*ClusterQueue, *Cohort](func(tc *treeCohort) *Cohort {
		return &Cohort{node: newNode(tc.Name()), tc: tc}
	})
	return c
}

// UpsertResourceFlavor stores a copy of the flavor.
func (c *Cache) UpsertResourceFlavor(rf *kueue.ResourceFlavor) {
	c.version++
	c.forgetPlans()
	c.flavors[rf.Name] = rf.DeepCopy()
}

// DeleteResourceFlavor forgets the flavor; queues that use it become inactive.
func (c *Cache) DeleteResourceFlavor(name string) {
	c.version++
	c.forgetPlans()
	delete(c.flavors, name)
}

// Flavor returns the stored flavor. Callers must not modify it.
func (c *Cache) Flavor(name string) (*kueue.ResourceFlavor, bool) {
	f, ok := c.flavors[name]
	return f, ok
}

// ClusterQueue returns the named queue.
func (c *Cache) ClusterQueue(name string) (*ClusterQueue, bool) {
	q, ok := c.tree.Queue(name)
	if !ok {
		return nil, false
	}
	return q.Value, true
}

// Cohort returns the named cohort, explicit or implicit.
func (c *Cache) Cohort(name string) (*Cohort, bool) {
	co, ok := c.tree.Cohort(name)
	if !ok {
		return nil, false
	}
	return co.Value, true
}

// ClusterQueueNames returns all queue names, sorted.
func (c *Cache) ClusterQueueNames() []string { return c.tree.QueueNames() }

// CohortNames returns all cohort names, explicit and implicit, sorted.
func (c *Cache) CohortNames() []string { return c.tree.CohortNames() }

// UpsertClusterQueue adds or updates a queue. On a conversion error, or when
// its nominal quotas would take its Cohort tree's total above MaxTreeQuota,
// nothing changes and the error names the field.
func (c *Cache) UpsertClusterQueue(obj *kueue.ClusterQueue) error {
	nq, err := clusterQueueFromAPI(c.opts.DynamicQuotaOrchestration, obj)
	if err != nil {
		return wrapObject("ClusterQueue", obj.Name, err)
	}
	if err := c.checkQueueTreeQuota(obj, nq); err != nil {
		return wrapObject("ClusterQueue", obj.Name, err)
	}
	c.version++
	c.forgetPlans()
	nq.id = c.queueID(obj.Name)
	cohortName := string(obj.Spec.CohortName)
	tq, existed := c.tree.Queue(obj.Name)
	if existed && tq.Value.CohortName() == cohortName {
		// Same place in the tree: propagate only the change of this node's
		// contribution to its ancestors.
		old := tq.Value
		nq.tq = tq
		nq.takeUsage(&old.node)
		frs := unionQuotaKeys(&old.node, &nq.node)
		c.replaceAndPropagate(tq.Cohort(), &old.node, &nq.node, frs, func() { tq.Value = nq })
		c.noteBorrowing(nq)
		return nil
	}
	var oldCohort *treeCohort
	if existed {
		oldCohort = tq.Cohort()
		nq.takeUsage(&tq.Value.node)
	} else {
		for key := range c.byCQ[obj.Name] {
			for fr, v := range c.charges[key].usage {
				cl := nq.cellFor(fr)
				cl.usage = resources.Add(cl.usage, v)
			}
		}
	}
	tq = c.tree.SetQueue(obj.Name, cohortName)
	tq.Value = nq
	nq.tq = tq
	c.refreshTreeOf(oldCohort)
	c.refreshTreeOf(tq.Cohort())
	c.noteBorrowing(nq)
	return nil
}

// queueID returns the number of a ClusterQueue name, giving it the next one
// the first time.
func (c *Cache) queueID(name string) int32 {
	id, ok := c.queueIDs[name]
	if !ok {
		if c.queueIDs == nil {
			c.queueIDs = map[string]int32{}
		}
		id = int32(len(c.queueIDs))
		c.queueIDs[name] = id
	}
	return id
}

// DeleteClusterQueue removes the queue; charges to it are kept and apply again if
// a queue of that name comes back (workloads keep their admission).
func (c *Cache) DeleteClusterQueue(name string) {
	tq, ok := c.tree.Queue(name)
	if !ok {
		return
	}
	c.version++
	c.forgetPlans()
	c.forgetBorrower(tq.Value.id)
	parent := tq.Cohort()
	c.tree.DeleteQueue(name)
	if parent != nil {
		if _, still := c.tree.Cohort(parent.Name()); still {
			c.refreshTreeOf(parent)
		}
	}
}

// UpsertCohort adds or updates a Cohort object. On a conversion error, or
// when its nominal quotas or its parent would take its tree's total above
// MaxTreeQuota, nothing changes and the error names the field.
func (c *Cache) UpsertCohort(obj *kueue.Cohort) error {
	qs, err := cohortQuotasFromAPI(c.opts.DynamicQuotaOrchestration, obj)
	if err != nil {
		return wrapObject("Cohort", obj.Name, err)
	}
	if err := c.checkCohortTreeQuota(obj, qs); err != nil {
		return wrapObject("Cohort", obj.Name, err)
	}
	c.version++
	c.forgetPlans()
	var oldParent *treeCohort
	if tc, ok := c.tree.Cohort(obj.Name); ok {
		oldParent = tc.Parent()
	}
	tc := c.tree.SetCohort(obj.Name, string(obj.Spec.ParentName))
	co := tc.Value
	co.Quotas = qs
	co.setQuotas(qs.Cells)
	co.weight = weightOf(obj.Spec.FairSharing)
	if oldParent != nil {
		if _, still := c.tree.Cohort(oldParent.Name()); still {
			c.refreshTreeOf(oldParent)
		}
	}
	c.refreshTreeOf(tc)
	return nil
}

// DeleteCohort removes the Cohort object; it stays implicit while referenced.
func (c *Cache) DeleteCohort(name string) {
	tc, ok := c.tree.Cohort(name)
	if !ok {
		return
	}
	c.version++
	c.forgetPlans()
	oldParent := tc.Parent()
	c.tree.DeleteCohort(name)
	if _, still := c.tree.Cohort(name); still {
		tc.Value.Quotas = Quotas{}
		tc.Value.setQuotas(nil)
		tc.Value.weight = 0
		c.refreshTreeOf(tc)
	}
	if oldParent != nil {
		if _, still := c.tree.Cohort(oldParent.Name()); still {
			c.refreshTreeOf(oldParent)
		}
	}
}

// unionQuotaKeys returns the cells for which a or b defines quota.
func unionQuotaKeys(a, b *node) []resources.FlavorResource {
	out := make([]resources.FlavorResource, 0, a.cells.len()+b.cells.len())
	for k, c := range a.cells.all() {
		if c.defined {
			out = append(out, k)
		}
	}
	for k, c := range b.cells.all() {
		if _, ok := a.quotaOf(k); c.defined && !ok {
			out = append(out, k)
		}
	}
	return out
}

// takeUsage sets n's usage to old's: a ClusterQueue whose spec changed keeps
// what its admitted workloads use.
func (n *node) takeUsage(old *node) {
	for fr, c := range old.cells.all() {
		if c.usage != 0 {
			n.cellFor(fr).usage = c.usage
		}
	}
}
