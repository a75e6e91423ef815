package quota

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// The cache keeps subtree quotas as plain int64 sums (propagate.go), so a
// Cohort tree whose nominal quotas total more than fits would wrap around to
// a negative quota. Each quota is at most resources.MaxAmount; the tests below
// check that the upsert that would take a tree's total above MaxTreeQuota is
// refused with an error naming the field, and leaves the cache as it was.

var cpuDefault = resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}

// milli is a cpu quantity of v millicores.
func milli(v int64) string { return fmt.Sprintf("%dm", v) }

// largestQuota is the largest cpu quota a quantity may have.
var largestQuota = milli(resources.MaxAmount)

// overflowDump renders everything the cache shows of its queues and Cohorts
// (Version, edges, quotas, subtree quotas, usage, heights, Available), so that
// two dumps are equal when a refused upsert changed nothing.
func overflowDump(c *Cache) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %d\n", c.Version())
	for _, name := range c.ClusterQueueNames() {
		q, _ := c.ClusterQueue(name)
		fmt.Fprintf(&b, "queue %s in %q: quotas %v subtree %v usage %v", name, q.CohortName(), q.Cells, q.subtreeAmounts(), q.usageAmounts())
		for _, fr := range slices.SortedFunc(maps.Keys(q.Cells), func(a, b resources.FlavorResource) int {
			return strings.Compare(a.String(), b.String())
		}) {
			fmt.Fprintf(&b, " available(%v) %+v potential %d", fr, c.Available(q, fr), c.PotentialAvailable(q, fr))
		}
		b.WriteString("\n")
	}
	for _, name := range c.CohortNames() {
		co, _ := c.Cohort(name)
		fmt.Fprintf(&b, "cohort %s explicit %v parent %q: quotas %v subtree %v usage %v height %d\n",
			name, co.Explicit(), co.ParentName(), co.Cells, co.subtreeAmounts(), co.usageAmounts(), co.height)
	}
	return b.String()
}

// expectRefused checks that err is an error naming field and that the cache
// shows what before does.
func expectRefused(t *testing.T, c *Cache, what string, err error, field, before string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), field) || !errors.Is(err, ErrTreeQuota) {
		t.Fatalf("%s: error %v, want one naming %s and wrapping ErrTreeQuota", what, err, field)
	}
	if after := overflowDump(c); after != before {
		t.Fatalf("%s: refused, but the cache changed:\nbefore:\n%s\nafter:\n%s", what, before, after)
	}
	if err := c.Verify(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// mustAccept fails the test on an upsert's error and on a cache that does not
// verify after it.
func mustAccept(t *testing.T, c *Cache, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s refused: %v", what, err)
	}
	if err := c.Verify(); err != nil {
		t.Fatalf("after %s: %v", what, err)
	}
}

func cpuQueue(name, cohort, nominal string, opts ...QuotaOption) *ClusterQueueWrapper {
	return MakeClusterQueue(name).Cohort(cohort).Quota("default", corev1.ResourceCPU, nominal, opts...)
}

// Three ClusterQueues of one Cohort, each with the largest quota, would total
// 3×MaxAmount, beyond int64: the first is accepted and the next ones are
// refused, the Cohort keeping its subtree quota and each queue its Available.
// Queues of half the bound fit twice and the third is refused by a millicore;
// an update that raises a quota, and a move into the Cohort, are held to the
// bound alike.
func TestTreeQuotaRefusesQueues(t *testing.T) {
	const field = "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
	t.Run("three queues of the largest quota", func(t *testing.T) {
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("default").Obj())
		mustAccept(t, c, "cq1", c.UpsertClusterQueue(cpuQueue("cq1", "all", largestQuota).Obj()))
		before := overflowDump(c)
		for _, name := range []string{"cq2", "cq3"} {
			err := c.UpsertClusterQueue(cpuQueue(name, "all", largestQuota).Obj())
			expectRefused(t, c, name, err, field, before)
			if !strings.Contains(err.Error(), `ClusterQueue "`+name+`"`) || !strings.Contains(err.Error(), `Cohort "all"`) {
				t.Errorf("%s: error %v should name the ClusterQueue and its Cohort", name, err)
			}
		}
		co, _ := c.Cohort("all")
		if got := co.SubtreeQuotaOf(cpuDefault); got != resources.MaxAmount {
			t.Errorf("subtree quota of all = %d, want %d", got, resources.MaxAmount)
		}
		if got := c.Available(mustCQ(t, c, "cq1"), cpuDefault).Available; got != resources.MaxAmount {
			t.Errorf("Available of cq1 = %d, want %d", got, resources.MaxAmount)
		}
	})
	t.Run("the third queue crosses the bound", func(t *testing.T) {
		half := resources.MaxAmount / 2 // the two halves total MaxAmount-1
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("default").Obj())
		mustAccept(t, c, "cq1", c.UpsertClusterQueue(cpuQueue("cq1", "all", milli(half)).Obj()))
		mustAccept(t, c, "cq2", c.UpsertClusterQueue(cpuQueue("cq2", "all", milli(half), Lending("1m")).Obj()))
		mustAccept(t, c, "elsewhere", c.UpsertClusterQueue(cpuQueue("elsewhere", "other", "2m").Obj()))
		before := overflowDump(c)
		expectRefused(t, c, "cq3 with 2m", c.UpsertClusterQueue(cpuQueue("cq3", "all", "2m").Obj()), field, before)
		expectRefused(t, c, "cq2 raised by 2m", c.UpsertClusterQueue(cpuQueue("cq2", "all", milli(half+2)).Obj()), field, before)
		expectRefused(t, c, "elsewhere moved in", c.UpsertClusterQueue(cpuQueue("elsewhere", "all", "2m").Obj()), field, before)
		// The second flavor's quota is the one named.
		err := c.UpsertClusterQueue(MakeClusterQueue("cq3").Cohort("all").Quota("spare", corev1.ResourceCPU, "1").Quota("default", corev1.ResourceCPU, "2m").Obj())
		expectRefused(t, c, "cq3 with two flavors", err, "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota", before)
		// Lowering a quota is always accepted; one millicore fits exactly.
		mustAccept(t, c, "cq2 lowered", c.UpsertClusterQueue(cpuQueue("cq2", "all", milli(half-5), Lending("1m")).Obj()))
		mustAccept(t, c, "cq3 with 6m", c.UpsertClusterQueue(cpuQueue("cq3", "all", "6m").Obj()))
		// cq2 lends 1m and keeps the rest: Cohort all holds cq1's half,
		// 1m and cq3's 6m, and cq2 can use the whole tree, MaxAmount.
		co, _ := c.Cohort("all")
		if got := co.SubtreeQuotaOf(cpuDefault); got != half+7 {
			t.Errorf("subtree quota of all = %d, want %d", got, half+7)
		}
		for name, want := range map[string]int64{"cq1": half + 7, "cq2": resources.MaxAmount, "cq3": half + 7} {
			if got := c.Available(mustCQ(t, c, name), cpuDefault).Available; got != want {
				t.Errorf("Available of %s = %d, want %d", name, got, want)
			}
		}
	})
}

// A Cohort's own quota counts in its tree as a queue's does, and so does a
// tree it joins as a child: a parent that would merge two trees beyond the
// bound is refused naming spec.parentName, and a Cohort whose own side is
// beyond it already names its quota. A cycle of parents is one tree.
func TestTreeQuotaRefusesCohorts(t *testing.T) {
	const quotaField = "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
	world := func(t *testing.T) *Cache {
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("default").Obj())
		mustAccept(t, c, "left", c.UpsertCohort(MakeCohort("left").Quota("default", corev1.ResourceCPU, "0").Obj()))
		mustAccept(t, c, "ql", c.UpsertClusterQueue(cpuQueue("ql", "left", largestQuota).Obj()))
		mustAccept(t, c, "top", c.UpsertCohort(MakeCohort("top").Quota("default", corev1.ResourceCPU, largestQuota).Obj()))
		mustAccept(t, c, "qt", c.UpsertClusterQueue(cpuQueue("qt", "top", "0").Obj()))
		return c
	}
	t.Run("a Cohort's own quota", func(t *testing.T) {
		c := world(t)
		before := overflowDump(c)
		expectRefused(t, c, "a queue under top", c.UpsertClusterQueue(cpuQueue("qt", "top", "1m").Obj()), quotaField, before)
		expectRefused(t, c, "left's own quota", c.UpsertCohort(MakeCohort("left").Quota("default", corev1.ResourceCPU, "1m").Obj()), quotaField, before)
	})
	t.Run("a parent that merges two trees", func(t *testing.T) {
		c := world(t)
		before := overflowDump(c)
		err := c.UpsertCohort(MakeCohort("left").Parent("top").Quota("default", corev1.ResourceCPU, "0").Obj())
		expectRefused(t, c, "left under top", err, "spec.parentName", before)
		err = c.UpsertCohort(MakeCohort("top").Parent("left").Quota("default", corev1.ResourceCPU, largestQuota).Obj())
		expectRefused(t, c, "top under left", err, "spec.parentName", before)
		// A new Cohort object under top, of which left would be the
		// parent, is refused too.
		err = c.UpsertCohort(MakeCohort("bridge").Parent("top").Obj())
		mustAccept(t, c, "bridge under top", err)
		before = overflowDump(c)
		err = c.UpsertCohort(MakeCohort("left").Parent("bridge").Obj())
		expectRefused(t, c, "left under bridge", err, "spec.parentName", before)
		// With its own side over already, the quota is named.
		err = c.UpsertCohort(MakeCohort("left").Parent("top").Quota("default", corev1.ResourceCPU, "1m").Obj())
		expectRefused(t, c, "left under top with 1m", err, quotaField, before)
		// Emptied, left may join.
		c.DeleteClusterQueue("ql")
		mustAccept(t, c, "left under top, empty", c.UpsertCohort(MakeCohort("left").Parent("top").Obj()))
		if co, _ := c.Cohort("top"); co.SubtreeQuotaOf(cpuDefault) != resources.MaxAmount {
			t.Errorf("subtree quota of top = %d, want %d", co.SubtreeQuotaOf(cpuDefault), resources.MaxAmount)
		}
	})
	t.Run("a cycle of parents is one tree", func(t *testing.T) {
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("default").Obj())
		mustAccept(t, c, "a", c.UpsertCohort(MakeCohort("a").Parent("b").Obj()))
		mustAccept(t, c, "b", c.UpsertCohort(MakeCohort("b").Parent("a").Obj()))
		mustAccept(t, c, "qa", c.UpsertClusterQueue(cpuQueue("qa", "a", largestQuota).Obj()))
		before := overflowDump(c)
		expectRefused(t, c, "qb", c.UpsertClusterQueue(cpuQueue("qb", "b", "1m").Obj()), quotaField, before)
		expectRefused(t, c, "b's quota", c.UpsertCohort(MakeCohort("b").Parent("a").Quota("default", corev1.ResourceCPU, "1m").Obj()), quotaField, before)
		// Breaking the cycle keeps one tree within the bound.
		mustAccept(t, c, "b as a root", c.UpsertCohort(MakeCohort("b").Obj()))
		if co, _ := c.Cohort("b"); co.SubtreeQuotaOf(cpuDefault) != resources.MaxAmount {
			t.Errorf("subtree quota of b = %d, want %d", co.SubtreeQuotaOf(cpuDefault), resources.MaxAmount)
		}
	})
}

// overflowModel is the objects a cache was given and accepted, from which the
// test works out on its own, in big integers, whether an upsert would take a
// tree beyond MaxTreeQuota.
type overflowModel struct {
	queues  map[string]modelObject
	cohorts map[string]modelObject
}

type modelObject struct {
	link    string // cohortName or parentName
	nominal map[string]int64
}

func (m overflowModel) clone() overflowModel {
	out := overflowModel{queues: map[string]modelObject{}, cohorts: map[string]modelObject{}}
	for k, v := range m.queues {
		out.queues[k] = v
	}
	for k, v := range m.cohorts {
		out.cohorts[k] = v
	}
	return out
}

// over tells whether some tree's nominal quotas of some flavor total more
// than MaxTreeQuota.
func (m overflowModel) over() bool {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		return x
	}
	union := func(a, b string) { parent[find(a)] = find(b) }
	for name, q := range m.queues {
		if q.link != "" {
			union("q/"+name, "c/"+q.link)
		}
	}
	for name, co := range m.cohorts {
		if co.link != "" {
			union("c/"+name, "c/"+co.link)
		}
	}
	sums := map[string]*big.Int{}
	add := func(node string, nominal map[string]int64) {
		for f, v := range nominal {
			k := find(node) + " " + f
			if sums[k] == nil {
				sums[k] = new(big.Int)
			}
			sums[k].Add(sums[k], big.NewInt(v))
		}
	}
	for name, q := range m.queues {
		add("q/"+name, q.nominal)
	}
	for name, co := range m.cohorts {
		add("c/"+name, co.nominal)
	}
	for _, s := range sums {
		if s.Cmp(big.NewInt(MaxTreeQuota)) > 0 {
			return true
		}
	}
	return false
}

// Random upserts and deletions of queues and Cohorts, with cpu quotas of two
// flavors drawn from small values and values near MaxAmount, and borrowing
// and lending limits of either kind. An upsert is refused exactly when the
// model says a tree would go beyond the bound, and then changes nothing; after
// every accepted one the cache verifies, and with no usage no subtree quota,
// Available or potential available is negative or beyond the bound, as a
// wrapped sum would be.
func TestPropertyTreeQuotaNeverWraps(t *testing.T) {
	flavors := []string{"f0", "f1"}
	queues := []string{"q0", "q1", "q2", "q3", "q4"}
	cohorts := []string{"c0", "c1", "c2", "c3"}
	bound := resources.MaxAmount
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			amount := func() int64 {
				if rng.IntN(2) == 0 {
					return rng.Int64N(10)
				}
				return []int64{bound, bound - 1, bound / 2, bound/2 + 1, bound / 3, bound/4 - 3}[rng.IntN(6)]
			}
			type cpuQuota struct {
				nominal int64
				opts    []QuotaOption
			}
			quotas := func() map[string]cpuQuota {
				out := map[string]cpuQuota{}
				for _, f := range flavors {
					if rng.IntN(4) == 0 {
						continue
					}
					q := cpuQuota{nominal: amount()}
					if rng.IntN(3) == 0 {
						q.opts = append(q.opts, Borrowing(milli(amount())))
					}
					if rng.IntN(3) == 0 {
						q.opts = append(q.opts, Lending(milli(amount())))
					}
					out[f] = q
				}
				return out
			}
			// build adds the quotas to an object in flavor order and
			// returns their nominal values.
			build := func(qs map[string]cpuQuota, add func(f, nominal string, opts ...QuotaOption)) map[string]int64 {
				nominal := map[string]int64{}
				for _, f := range flavors {
					if q, ok := qs[f]; ok {
						add(f, milli(q.nominal), q.opts...)
						nominal[f] = q.nominal
					}
				}
				return nominal
			}
			pick := func(names []string) string {
				if rng.IntN(len(names)+1) == 0 {
					return ""
				}
				return names[rng.IntN(len(names))]
			}
			c := New(Options{})
			for _, f := range flavors {
				c.UpsertResourceFlavor(MakeFlavor(f).Obj())
			}
			model := overflowModel{queues: map[string]modelObject{}, cohorts: map[string]modelObject{}}
			for step := range 300 {
				next := model.clone()
				before := overflowDump(c)
				var err error
				var what string
				switch x := rng.IntN(10); {
				case x < 5:
					name, cohort := queues[rng.IntN(len(queues))], pick(cohorts)
					w := MakeClusterQueue(name).Cohort(cohort)
					nominal := build(quotas(), func(f, v string, opts ...QuotaOption) { w.Quota(f, corev1.ResourceCPU, v, opts...) })
					next.queues[name] = modelObject{link: cohort, nominal: nominal}
					what = fmt.Sprintf("queue %s in %q with %v", name, cohort, nominal)
					err = c.UpsertClusterQueue(w.Obj())
				case x < 8:
					name, parent := cohorts[rng.IntN(len(cohorts))], pick(cohorts)
					w := MakeCohort(name).Parent(parent)
					nominal := build(quotas(), func(f, v string, opts ...QuotaOption) { w.Quota(f, corev1.ResourceCPU, v, opts...) })
					next.cohorts[name] = modelObject{link: parent, nominal: nominal}
					what = fmt.Sprintf("cohort %s under %q with %v", name, parent, nominal)
					err = c.UpsertCohort(w.Obj())
				case x < 9:
					name := queues[rng.IntN(len(queues))]
					delete(next.queues, name)
					what = "delete queue " + name
					c.DeleteClusterQueue(name)
				default:
					name := cohorts[rng.IntN(len(cohorts))]
					delete(next.cohorts, name)
					what = "delete cohort " + name
					c.DeleteCohort(name)
				}
				what = fmt.Sprintf("step %d, %s", step, what)
				if next.over() {
					expectRefused(t, c, what, err, "spec.", before)
					continue
				}
				mustAccept(t, c, what, err)
				model = next
				for _, name := range c.CohortNames() {
					co, _ := c.Cohort(name)
					for fr, v := range co.subtreeAmounts() {
						if v < 0 || v > bound {
							t.Fatalf("%s: subtree quota of Cohort %s in %v is %d", what, name, fr, v)
						}
					}
				}
				for _, name := range c.ClusterQueueNames() {
					q := mustCQ(t, c, name)
					for _, f := range flavors {
						fr := resources.FlavorResource{Flavor: f, Resource: corev1.ResourceCPU}
						a, p := c.Available(q, fr).Available, c.PotentialAvailable(q, fr)
						if a < 0 || a > bound || p < 0 || p > bound {
							t.Fatalf("%s: queue %s in %v: Available %d, potential %d", what, name, fr, a, p)
						}
					}
				}
			}
		})
	}
}

// Every resource's quantities are held to resources.MaxAmount, not only
// cpu's. A quantity parsed from text that large is refused already, but one
// built in the process (resource.NewQuantity, as a computed effective quota
// may be) holds an int64 that ToCanonical took as it was: an amount above
// MaxAmount, two of which wrap around, or Unlimited itself.
func TestLargestQuantityHoldsForEveryResource(t *testing.T) {
	const field = "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
	queue := func(res corev1.ResourceName, v int64) *kueue.ClusterQueue {
		obj := MakeClusterQueue("q").Quota("default", res, "0").Obj()
		obj.Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota = *resource.NewQuantity(v, resource.BinarySI)
		return obj
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceMemory, "nvidia.com/gpu"} {
		for _, v := range []int64{resources.MaxAmount + 1, 7 << 60, math.MaxInt64} {
			c := New(Options{})
			err := c.UpsertClusterQueue(queue(res, v))
			if err == nil || !strings.Contains(err.Error(), field) {
				t.Errorf("%s %d: error %v, want one naming %s", res, v, err, field)
			}
			if _, ok := c.ClusterQueue("q"); ok {
				t.Errorf("%s %d: the cache holds the ClusterQueue", res, v)
			}
		}
		c := New(Options{})
		if err := c.UpsertClusterQueue(queue(res, resources.MaxAmount)); err != nil {
			t.Errorf("%s %d refused: %v", res, resources.MaxAmount, err)
		}
	}
}
