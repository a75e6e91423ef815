package quota

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Ports of Kueue's snapshot tables. Kueue's scheduler works on a snapshot of
// its cache, taken every cycle, into which it adds and from which it removes
// workloads; Quokka's Cache is incremental and is itself what the scheduler
// reads, so adding a workload is Charge and removing one is Release. What
// carries over is what the snapshot holds that Quokka shows: every node's
// usage and subtree quota, each queue's quotas, resource groups, policies,
// weight, Cohort, charged workloads and whether it is active. Quantities are
// canonical, as Kueue's Amounts: cpu in millicores, memory in bytes.

// ksCharge is a workload holding quota: its name (namespace ""), its
// ClusterQueue and the usage its admission records.
type ksCharge struct {
	name  string
	cq    string
	usage resources.Amounts
}

func (w ksCharge) key() types.NamespacedName { return types.NamespacedName{Name: w.name} }

// ksSame tells whether got, which lists nonzero cells only, holds want's
// values, a cell want lists at 0 being absent from got.
func ksSame(got, want resources.Amounts) bool {
	for fr, v := range want {
		if got[fr] != v {
			return false
		}
	}
	for fr, v := range got {
		if want[fr] != v {
			return false
		}
	}
	return true
}

// ksNode is a queue's or Cohort's node, by name (the worlds below never give a
// queue and a Cohort one name).
func ksNode(t *testing.T, c *Cache, name string) *node {
	t.Helper()
	if q, ok := c.ClusterQueue(name); ok {
		return &q.node
	}
	if co, ok := c.Cohort(name); ok {
		return &co.node
	}
	t.Fatalf("no ClusterQueue or Cohort %s", name)
	return nil
}

// ksExpectNodes reports every node whose usage or subtree quota differs from
// want.
func ksExpectNodes(t *testing.T, c *Cache, wantUsage, wantSubtree map[string]resources.Amounts) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(wantUsage)) {
		if got := ksNode(t, c, name).usageAmounts(); !ksSame(got, wantUsage[name]) {
			t.Errorf("usage of %s = %v, want %v", name, got, wantUsage[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(wantSubtree)) {
		if got := ksNode(t, c, name).subtreeAmounts(); !ksSame(got, wantSubtree[name]) {
			t.Errorf("subtree quota of %s = %v, want %v", name, got, wantSubtree[name])
		}
	}
	if err := c.Verify(); err != nil {
		t.Error(err)
	}
}

// ksAddRemoveCase is a case of Kueue's add/remove tables: workloads removed
// from, then added to, the state where every workload holds its quota.
type ksAddRemoveCase struct {
	name        string
	remove, add []string
	wantUsage   map[string]resources.Amounts
}

// ksRunAddRemove builds the world afresh for each case (Kueue takes a fresh
// snapshot per case), charges every workload, releases and charges again as
// the case says, and compares every node's usage and subtree quota; the
// subtree quotas do not move with workloads.
func ksRunAddRemove(t *testing.T, world func(t *testing.T) *Cache, wls []ksCharge, wantSubtree map[string]resources.Amounts, cases []ksAddRemoveCase) {
	byName := map[string]ksCharge{}
	for _, w := range wls {
		byName[w.name] = w
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := world(t)
			for _, w := range wls {
				c.Charge(w.key(), w.cq, w.usage)
			}
			for _, n := range tc.remove {
				c.Release(byName[n].key())
			}
			for _, n := range tc.add {
				w := byName[n]
				c.Charge(w.key(), w.cq, w.usage)
			}
			ksExpectNodes(t, c, tc.wantUsage, wantSubtree)
		})
	}
}

// Kueue: pkg/cache/scheduler/snapshot_test.go, TestSnapshotAddRemoveWorkload.
// Two queues of an implicit Cohort, one with two flavors of memory; no
// lending limits, so a Cohort accounts for all of its queues' usage. The
// "no-op" case's want is Kueue's initial snapshot, every workload charged.
func TestKueueSnapshotAddRemoveWorkload(t *testing.T) {
	const gi = 1 << 30
	cpu := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
	alpha := resources.FlavorResource{Flavor: "alpha", Resource: corev1.ResourceMemory}
	beta := resources.FlavorResource{Flavor: "beta", Resource: corev1.ResourceMemory}
	world := func(t *testing.T) *Cache {
		c := New(Options{})
		for _, f := range []string{"default", "alpha", "beta"} {
			c.UpsertResourceFlavor(MakeFlavor(f).Obj())
		}
		for _, cq := range []*kueue.ClusterQueue{
			MakeClusterQueue("c1").Cohort("cohort").
				Quota("default", corev1.ResourceCPU, "6").
				Quota("alpha", corev1.ResourceMemory, "6Gi").
				Quota("beta", corev1.ResourceMemory, "6Gi").Obj(),
			MakeClusterQueue("c2").Cohort("cohort").Quota("default", corev1.ResourceCPU, "6").Obj(),
		} {
			if err := c.UpsertClusterQueue(cq); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	wls := []ksCharge{
		{"c1-cpu", "c1", resources.Amounts{cpu: 1_000}},
		{"c1-memory-alpha", "c1", resources.Amounts{alpha: gi}},
		{"c1-memory-beta", "c1", resources.Amounts{beta: gi}},
		{"c2-cpu-1", "c2", resources.Amounts{cpu: 1_000}},
		{"c2-cpu-2", "c2", resources.Amounts{cpu: 1_000}},
	}
	subtree := map[string]resources.Amounts{
		"c1":     {cpu: 6_000, alpha: 6 * gi, beta: 6 * gi},
		"c2":     {cpu: 6_000},
		"cohort": {cpu: 12_000, alpha: 6 * gi, beta: 6 * gi},
	}
	ksRunAddRemove(t, world, wls, subtree, []ksAddRemoveCase{
		{
			name:   "no-op remove add",
			remove: []string{"c1-cpu", "c2-cpu-1"},
			add:    []string{"c1-cpu", "c2-cpu-1"},
			wantUsage: map[string]resources.Amounts{
				"c1":     {cpu: 1_000, alpha: gi, beta: gi},
				"c2":     {cpu: 2_000},
				"cohort": {cpu: 3_000, alpha: gi, beta: gi},
			},
		},
		{
			name:   "remove all",
			remove: []string{"c1-cpu", "c1-memory-alpha", "c1-memory-beta", "c2-cpu-1", "c2-cpu-2"},
			wantUsage: map[string]resources.Amounts{
				"c1":     {cpu: 0, alpha: 0, beta: 0},
				"c2":     {cpu: 0},
				"cohort": {cpu: 0, alpha: 0, beta: 0},
			},
		},
		{
			name:   "remove c1-cpu",
			remove: []string{"c1-cpu"},
			wantUsage: map[string]resources.Amounts{
				"c1":     {cpu: 0, alpha: gi, beta: gi},
				"c2":     {cpu: 2_000},
				"cohort": {cpu: 2_000, alpha: gi, beta: gi},
			},
		},
		{
			name:   "remove c1-memory-alpha",
			remove: []string{"c1-memory-alpha"},
			wantUsage: map[string]resources.Amounts{
				"c1":     {cpu: 1_000, alpha: 0, beta: gi},
				"c2":     {cpu: 2_000},
				"cohort": {cpu: 3_000, alpha: 0, beta: gi},
			},
		},
	})
}

// Kueue: pkg/cache/scheduler/snapshot_test.go,
// TestSnapshotAddRemoveWorkloadWithLendingLimit. lend-a keeps 10-4 = 6 and
// lend-b 10-6 = 4 for themselves, so the Cohort's subtree quota is the 4+6
// they lend and its usage is only what they use above what they keep. The
// "remove all then add all" case's want is Kueue's initial snapshot, every
// workload charged.
func TestKueueSnapshotAddRemoveWorkloadWithLendingLimit(t *testing.T) {
	cpu := resources.FlavorResource{Flavor: "default", Resource: corev1.ResourceCPU}
	world := func(t *testing.T) *Cache {
		c := New(Options{})
		c.UpsertResourceFlavor(MakeFlavor("default").Obj())
		for _, cq := range []*kueue.ClusterQueue{
			MakeClusterQueue("lend-a").Cohort("lend").Quota("default", corev1.ResourceCPU, "10", Lending("4")).
				Preemption(kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerPriority).Obj(),
			MakeClusterQueue("lend-b").Cohort("lend").Quota("default", corev1.ResourceCPU, "10", Lending("6")).
				Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyNever).Obj(),
		} {
			if err := c.UpsertClusterQueue(cq); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	wls := []ksCharge{
		{"lend-a-1", "lend-a", resources.Amounts{cpu: 1_000}},
		{"lend-a-2", "lend-a", resources.Amounts{cpu: 9_000}},
		{"lend-a-3", "lend-a", resources.Amounts{cpu: 6_000}},
		{"lend-b-1", "lend-b", resources.Amounts{cpu: 4_000}},
	}
	subtree := map[string]resources.Amounts{
		"lend-a": {cpu: 10_000},
		"lend-b": {cpu: 10_000},
		"lend":   {cpu: 10_000},
	}
	usage := func(a, b, cohort int64) map[string]resources.Amounts {
		return map[string]resources.Amounts{"lend-a": {cpu: a}, "lend-b": {cpu: b}, "lend": {cpu: cohort}}
	}
	all := []string{"lend-a-1", "lend-a-2", "lend-a-3", "lend-b-1"}
	ksRunAddRemove(t, world, wls, subtree, []ksAddRemoveCase{
		// lend-a uses 16, 10 above the 6 it keeps; lend-b 4, all kept.
		{name: "remove all then add all", remove: all, add: all, wantUsage: usage(16_000, 4_000, 10_000)},
		{name: "remove all", remove: all, wantUsage: usage(0, 0, 0)},
		{name: "remove workload, but still using quota over GuaranteedQuota", remove: []string{"lend-a-2"},
			wantUsage: usage(7_000, 4_000, 1_000)},
		{name: "remove wokload, using same quota as GuaranteedQuota", remove: []string{"lend-a-1", "lend-a-2"},
			wantUsage: usage(6_000, 4_000, 0)},
		{name: "remove workload, using less quota than GuaranteedQuota", remove: []string{"lend-a-2", "lend-a-3"},
			wantUsage: usage(1_000, 4_000, 0)},
		{name: "remove all then add workload, using less quota than GuaranteedQuota", remove: all, add: []string{"lend-a-1"},
			wantUsage: usage(1_000, 0, 0)},
		{name: "remove all then add workload, using same quota as GuaranteedQuota", remove: all, add: []string{"lend-a-3"},
			wantUsage: usage(6_000, 0, 0)},
		{name: "remove all then add workload, using quota over GuaranteedQuota", remove: all, add: []string{"lend-a-2"},
			wantUsage: usage(9_000, 0, 3_000)},
	})
}

// ksQueue is what Kueue's snapshot holds of an active ClusterQueue and Quokka
// shows. Every queue of these cases selects every namespace, has Kueue's
// default flavor fungibility (MayStopSearch, TryNextFlavor) and a subtree
// quota equal to its nominal quotas; the checks below assert those too.
type ksQueue struct {
	cohort     string
	groups     []ResourceGroup
	quotas     map[resources.FlavorResource]Quota
	usage      resources.Amounts
	workloads  []string
	preemption kueue.ClusterQueuePreemption // zero: Never, Never
	weight     int64                        // thousandths; zero: DefaultWeight
}

// ksCohort is what Kueue's snapshot holds of a Cohort outside any cycle.
type ksCohort struct {
	quotas  map[resources.FlavorResource]Quota
	subtree resources.Amounts
	usage   resources.Amounts
	weight  int64 // thousandths
}

// ksQ is a quota without limits; ksQL one with a lending limit.
func ksQ(nominal int64) Quota {
	return Quota{Nominal: nominal, BorrowingLimit: resources.Unlimited, LendingLimit: resources.Unlimited}
}

func ksQL(nominal, lending int64) Quota {
	q := ksQ(nominal)
	q.LendingLimit = lending
	return q
}

// Kueue: pkg/cache/scheduler/snapshot_test.go, TestSnapshot, the cases
// without topology-aware scheduling. Kueue's snapshot leaves out the queues
// that are inactive and the Cohorts in a cycle; Quokka's cache keeps them, so
// those are asserted as inactive (Status) and in a cycle (InCycle), and the
// others must be exactly the case's. Workloads are charged as their
// admissions record (the scheduler charges only admitted ones, so Kueue's
// unadmitted "sigma" is not charged).
func TestKueueSnapshot(t *testing.T) {
	const gpu = corev1.ResourceName("example.com/gpu")
	fr := func(f string, r corev1.ResourceName) resources.FlavorResource {
		return resources.FlavorResource{Flavor: f, Resource: r}
	}
	demand, spot := fr("demand", corev1.ResourceCPU), fr("spot", corev1.ResourceCPU)
	gpuDefault, cpuDefault := fr("default", gpu), fr("default", corev1.ResourceCPU)
	arm, x86, mips := fr("arm", corev1.ResourceCPU), fr("x86", corev1.ResourceCPU), fr("mips", corev1.ResourceCPU)
	cpuGroup := func(flavors ...string) ResourceGroup {
		return ResourceGroup{Covered: []corev1.ResourceName{corev1.ResourceCPU}, Flavors: flavors}
	}
	cases := []struct {
		name        string
		cqs         []*kueue.ClusterQueue
		cohorts     []*kueue.Cohort
		flavors     []*kueue.ResourceFlavor
		charges     []ksCharge
		wantQueues  map[string]ksQueue
		wantCohorts map[string]ksCohort
		inactive    []string
		cycles      []string
	}{
		{name: "empty"},
		{
			name: "independent clusterQueues",
			cqs:  []*kueue.ClusterQueue{MakeClusterQueue("a").Obj(), MakeClusterQueue("b").Obj()},
			charges: []ksCharge{
				{"alpha", "a", resources.Amounts{}},
				{"beta", "b", resources.Amounts{}},
			},
			wantQueues: map[string]ksQueue{
				"a": {workloads: []string{"alpha"}},
				"b": {workloads: []string{"beta"}},
			},
		},
		{
			name:     "inactive clusterQueues",
			cqs:      []*kueue.ClusterQueue{MakeClusterQueue("flavor-nonexistent-cq").Quota("nonexistent-flavor", corev1.ResourceCPU, "100").Obj()},
			inactive: []string{"flavor-nonexistent-cq"},
		},
		{
			name: "resourceFlavors",
			flavors: []*kueue.ResourceFlavor{
				MakeFlavor("demand").NodeLabel("a", "b").NodeLabel("instance", "demand").Obj(),
				MakeFlavor("spot").NodeLabel("c", "d").NodeLabel("instance", "spot").Obj(),
				MakeFlavor("default").Obj(),
			},
		},
		{
			name: "cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("borrowing").
					Quota("demand", corev1.ResourceCPU, "100").Quota("spot", corev1.ResourceCPU, "200").Obj(),
				MakeClusterQueue("b").Cohort("borrowing").
					Quota("spot", corev1.ResourceCPU, "100").Quota("default", gpu, "50").Obj(),
				MakeClusterQueue("c").Quota("default", corev1.ResourceCPU, "100").Obj(),
			},
			flavors: []*kueue.ResourceFlavor{
				MakeFlavor("demand").NodeLabel("instance", "demand").Obj(),
				MakeFlavor("spot").NodeLabel("instance", "spot").Obj(),
				MakeFlavor("default").Obj(),
			},
			charges: []ksCharge{
				{"alpha", "a", resources.Amounts{demand: 10_000}},
				{"beta", "b", resources.Amounts{spot: 5_000, gpuDefault: 10}},
				{"gamma", "b", resources.Amounts{spot: 5_000, gpuDefault: 5}},
			},
			wantQueues: map[string]ksQueue{
				"a": {
					cohort: "borrowing",
					groups: []ResourceGroup{cpuGroup("demand", "spot")},
					quotas: map[resources.FlavorResource]Quota{demand: ksQ(100_000), spot: ksQ(200_000)},
					usage:  resources.Amounts{demand: 10_000}, workloads: []string{"alpha"},
				},
				"b": {
					cohort: "borrowing",
					groups: []ResourceGroup{cpuGroup("spot"), {Covered: []corev1.ResourceName{gpu}, Flavors: []string{"default"}}},
					quotas: map[resources.FlavorResource]Quota{spot: ksQ(100_000), gpuDefault: ksQ(50)},
					usage:  resources.Amounts{spot: 10_000, gpuDefault: 15}, workloads: []string{"beta", "gamma"},
				},
				"c": {
					groups: []ResourceGroup{cpuGroup("default")},
					quotas: map[resources.FlavorResource]Quota{cpuDefault: ksQ(100_000)},
				},
			},
			wantCohorts: map[string]ksCohort{
				// Kueue's snapshot of a Cohort without an object has
				// weight 0.
				"borrowing": {
					subtree: resources.Amounts{demand: 100_000, spot: 300_000, gpuDefault: 50},
					usage:   resources.Amounts{demand: 10_000, spot: 10_000, gpuDefault: 15},
				},
			},
		},
		{
			name: "clusterQueues with preemption",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("with-preemption").Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
			},
			wantQueues: map[string]ksQueue{
				"with-preemption": {preemption: kueue.ClusterQueuePreemption{
					ReclaimWithinCohort: kueue.PreemptionPolicyAny, WithinClusterQueue: kueue.PreemptionPolicyLowerPriority}},
			},
		},
		{
			name:       "clusterQueue with fair sharing weight",
			cqs:        []*kueue.ClusterQueue{MakeClusterQueue("with-preemption").FairWeight("3").Obj()},
			wantQueues: map[string]ksQueue{"with-preemption": {weight: 3_000}},
		},
		{
			name: "lendingLimit with 2 clusterQueues and 2 flavors(whenCanBorrow: MayStopSearch)",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("lending").
					Quota("arm", corev1.ResourceCPU, "10", Lending("5")).
					Quota("x86", corev1.ResourceCPU, "20", Lending("10")).
					WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.TryNextFlavor).Obj(),
				MakeClusterQueue("b").Cohort("lending").
					Quota("arm", corev1.ResourceCPU, "10", Lending("5")).
					Quota("x86", corev1.ResourceCPU, "20", Lending("10")).Obj(),
			},
			flavors: []*kueue.ResourceFlavor{
				MakeFlavor("arm").NodeLabel("arch", "arm").Obj(),
				MakeFlavor("x86").NodeLabel("arch", "x86").Obj(),
			},
			charges: []ksCharge{
				{"alpha", "a", resources.Amounts{arm: 10_000}},
				{"beta", "a", resources.Amounts{arm: 5_000}},
				{"gamma", "a", resources.Amounts{x86: 10_000}},
			},
			wantQueues: map[string]ksQueue{
				"a": {
					cohort: "lending", groups: []ResourceGroup{cpuGroup("arm", "x86")},
					quotas: map[resources.FlavorResource]Quota{arm: ksQL(10_000, 5_000), x86: ksQL(20_000, 10_000)},
					usage:  resources.Amounts{arm: 15_000, x86: 10_000}, workloads: []string{"alpha", "beta", "gamma"},
				},
				"b": {
					cohort: "lending", groups: []ResourceGroup{cpuGroup("arm", "x86")},
					quotas: map[resources.FlavorResource]Quota{arm: ksQL(10_000, 5_000), x86: ksQL(20_000, 10_000)},
				},
			},
			wantCohorts: map[string]ksCohort{
				// a uses 15 arm, 10 above the 5 it keeps, and 10 x86,
				// all kept. Weight 0: no Cohort object.
				"lending": {
					subtree: resources.Amounts{arm: 10_000, x86: 20_000},
					usage:   resources.Amounts{arm: 10_000},
				},
			},
		},
		{
			name: "cohort provides resources",
			flavors: []*kueue.ResourceFlavor{
				MakeFlavor("arm").Obj(), MakeFlavor("x86").Obj(), MakeFlavor("mips").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq").Cohort("cohort").
					Quota("arm", corev1.ResourceCPU, "7", Lending("3")).
					Quota("x86", corev1.ResourceCPU, "5").Obj(),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("cohort").Quota("arm", corev1.ResourceCPU, "10").
					Quota("x86", corev1.ResourceCPU, "20").Quota("mips", corev1.ResourceCPU, "42").Obj(),
			},
			wantQueues: map[string]ksQueue{
				"cq": {
					cohort: "cohort", groups: []ResourceGroup{cpuGroup("arm", "x86")},
					quotas: map[resources.FlavorResource]Quota{arm: ksQL(7_000, 3_000), x86: ksQ(5_000)},
				},
			},
			wantCohorts: map[string]ksCohort{
				"cohort": {
					quotas:  map[resources.FlavorResource]Quota{arm: ksQ(10_000), x86: ksQ(20_000), mips: ksQ(42_000)},
					subtree: resources.Amounts{arm: 13_000, x86: 25_000, mips: 42_000},
					weight:  DefaultWeight,
				},
			},
		},
		{
			name:    "cohorts with cycles and their cqs excluded from snapshot",
			flavors: []*kueue.ResourceFlavor{MakeFlavor("arm").Obj()},
			cohorts: []*kueue.Cohort{
				MakeCohort("autocycle").Parent("autocycle").Obj(),
				MakeCohort("cycle-a").Parent("cycle-b").Obj(),
				MakeCohort("cycle-b").Parent("cycle-a").Obj(),
				MakeCohort("nocycle").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("cq-autocycle").Cohort("autocycle").Quota("arm", corev1.ResourceCPU, "0").Obj(),
				MakeClusterQueue("cq-a").Cohort("cycle-a").Quota("arm", corev1.ResourceCPU, "0").Obj(),
				MakeClusterQueue("cq-b").Cohort("cycle-b").Quota("arm", corev1.ResourceCPU, "0").Obj(),
				MakeClusterQueue("cq-nocycle").Cohort("nocycle").Quota("arm", corev1.ResourceCPU, "0").Obj(),
			},
			wantQueues: map[string]ksQueue{
				"cq-nocycle": {
					cohort: "nocycle", groups: []ResourceGroup{cpuGroup("arm")},
					quotas: map[resources.FlavorResource]Quota{arm: ksQ(0)},
				},
			},
			wantCohorts: map[string]ksCohort{
				"nocycle": {subtree: resources.Amounts{arm: 0}, weight: DefaultWeight},
			},
			inactive: []string{"cq-autocycle", "cq-a", "cq-b"},
			cycles:   []string{"autocycle", "cycle-a", "cycle-b"},
		},
		{
			name:        "cohort snapshot has fair sharing weight",
			cohorts:     []*kueue.Cohort{MakeCohort("cohort").FairWeight("0.5").Obj()},
			wantCohorts: map[string]ksCohort{"cohort": {weight: 500}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{})
			for _, cq := range tc.cqs {
				if err := c.UpsertClusterQueue(cq); err != nil {
					t.Fatal(err)
				}
			}
			for _, co := range tc.cohorts {
				if err := c.UpsertCohort(co); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.flavors {
				c.UpsertResourceFlavor(f)
			}
			for _, w := range tc.charges {
				c.Charge(w.key(), w.cq, w.usage)
			}
			for _, f := range tc.flavors {
				if got, ok := c.Flavor(f.Name); !ok || !reflect.DeepEqual(got, f) {
					t.Errorf("ResourceFlavor %s = %v, want %v", f.Name, got, f)
				}
			}
			ksExpectQueues(t, c, tc.wantQueues, tc.inactive)
			ksExpectCohorts(t, c, tc.wantCohorts, tc.cycles)
			if err := c.Verify(); err != nil {
				t.Error(err)
			}
		})
	}
}

// ksExpectQueues checks that the active queues are exactly want's, each as
// want says, and the inactive ones exactly inactive.
func ksExpectQueues(t *testing.T, c *Cache, want map[string]ksQueue, inactive []string) {
	t.Helper()
	var gotActive, gotInactive []string
	for _, name := range c.ClusterQueueNames() {
		q, _ := c.ClusterQueue(name)
		if c.Status(q).Active {
			gotActive = append(gotActive, name)
		} else {
			gotInactive = append(gotInactive, name)
		}
	}
	if w := slices.Sorted(maps.Keys(want)); !slices.Equal(gotActive, w) {
		t.Errorf("active ClusterQueues %v, want %v", gotActive, w)
	}
	if w := slices.Sorted(slices.Values(inactive)); !slices.Equal(gotInactive, w) {
		t.Errorf("inactive ClusterQueues %v, want %v", gotInactive, w)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		wq, q := want[name], mustCQ(t, c, name)
		if got := q.CohortName(); got != wq.cohort {
			t.Errorf("%s: Cohort %q, want %q", name, got, wq.cohort)
		}
		if !slices.EqualFunc(q.Groups, wq.groups, func(a, b ResourceGroup) bool {
			return slices.Equal(a.Covered, b.Covered) && slices.Equal(a.Flavors, b.Flavors)
		}) {
			t.Errorf("%s: resource groups %v, want %v", name, q.Groups, wq.groups)
		}
		for i, g := range q.Groups {
			for _, r := range g.Covered {
				if q.GroupOf(r) != i {
					t.Errorf("%s: GroupOf(%s) = %d, want %d", name, r, q.GroupOf(r), i)
				}
			}
		}
		if !maps.Equal(q.Quotas.Cells, wq.quotas) {
			t.Errorf("%s: quotas %v, want %v", name, q.Quotas.Cells, wq.quotas)
		}
		subtree := resources.Amounts{}
		for fr, v := range wq.quotas {
			subtree[fr] = v.Nominal
		}
		if got := q.subtreeAmounts(); !ksSame(got, subtree) {
			t.Errorf("%s: subtree quota %v, want %v", name, got, subtree)
		}
		if got := q.UsageAll(); !ksSame(got, wq.usage) {
			t.Errorf("%s: usage %v, want %v", name, got, wq.usage)
		}
		if got := c.ChargedTo(name); got != len(wq.workloads) {
			t.Errorf("%s: %d workloads charged, want %d (%v)", name, got, len(wq.workloads), wq.workloads)
		}
		for _, w := range wq.workloads {
			if cq, _, ok := c.Charged(types.NamespacedName{Name: w}); !ok || cq != name {
				t.Errorf("%s: workload %s charged to %q (%v)", name, w, cq, ok)
			}
		}
		preemption := wq.preemption
		if preemption == (kueue.ClusterQueuePreemption{}) {
			preemption = kueue.ClusterQueuePreemption{
				ReclaimWithinCohort: kueue.PreemptionPolicyNever, WithinClusterQueue: kueue.PreemptionPolicyNever}
		}
		if !reflect.DeepEqual(q.Preemption, preemption) {
			t.Errorf("%s: preemption %+v, want %+v", name, q.Preemption, preemption)
		}
		weight := wq.weight
		if weight == 0 {
			weight = DefaultWeight
		}
		if q.FairWeight() != weight {
			t.Errorf("%s: fair weight %d, want %d", name, q.FairWeight(), weight)
		}
		if q.WhenCanBorrow != kueue.MayStopSearch || q.WhenCanPreempt != kueue.TryNextFlavor {
			t.Errorf("%s: flavor fungibility %s, %s; want MayStopSearch, TryNextFlavor", name, q.WhenCanBorrow, q.WhenCanPreempt)
		}
		if q.NamespaceSelector == nil || !q.NamespaceSelector.Empty() {
			t.Errorf("%s: namespace selector %v, want everything", name, q.NamespaceSelector)
		}
	}
}

// ksExpectCohorts checks that the Cohorts outside cycles are exactly want's,
// each as want says, and the ones in a cycle exactly cycles.
func ksExpectCohorts(t *testing.T, c *Cache, want map[string]ksCohort, cycles []string) {
	t.Helper()
	var gotTree, gotCycles []string
	for _, name := range c.CohortNames() {
		if co, _ := c.Cohort(name); co.InCycle() {
			gotCycles = append(gotCycles, name)
		} else {
			gotTree = append(gotTree, name)
		}
	}
	if w := slices.Sorted(maps.Keys(want)); !slices.Equal(gotTree, w) {
		t.Errorf("Cohorts %v, want %v", gotTree, w)
	}
	if w := slices.Sorted(slices.Values(cycles)); !slices.Equal(gotCycles, w) {
		t.Errorf("Cohorts in a cycle %v, want %v", gotCycles, w)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		wc := want[name]
		co, _ := c.Cohort(name)
		if !maps.Equal(co.Quotas.Cells, wc.quotas) {
			t.Errorf("Cohort %s: quotas %v, want %v", name, co.Quotas.Cells, wc.quotas)
		}
		if got := co.SubtreeQuota(); !ksSame(got, wc.subtree) {
			t.Errorf("Cohort %s: subtree quota %v, want %v", name, got, wc.subtree)
		}
		if got := co.Usage(); !ksSame(got, wc.usage) {
			t.Errorf("Cohort %s: usage %v, want %v", name, got, wc.usage)
		}
		if co.FairWeight() != wc.weight {
			t.Errorf("Cohort %s: fair weight %d, want %d", name, co.FairWeight(), wc.weight)
		}
	}
}

// A Cohort's fair weight is 0 while no Cohort object exists, as in Kueue: its
// newCohort leaves FairWeight at 0, only updateCohort (a Cohort object) sets it
// (default 1), and Manager.DeleteCohort replaces a deleted Cohort that is
// still referenced by a fresh implicit one (pkg/cache/scheduler/cohort.go,
// pkg/cache/hierarchy/manager.go). The implicit Cohort is a root, so the
// weight changes no share: fairsharing.Of never reads a root's weight.
func TestImplicitCohortWeight(t *testing.T) {
	c := New(Options{})
	c.UpsertResourceFlavor(MakeFlavor("red").Obj())
	weightOfCohort := func(step string, want int64) {
		t.Helper()
		co, ok := c.Cohort("c")
		if !ok {
			t.Fatalf("%s: no Cohort c", step)
		}
		if co.FairWeight() != want {
			t.Errorf("%s: fair weight %d, want %d", step, co.FairWeight(), want)
		}
	}
	if err := c.UpsertClusterQueue(MakeClusterQueue("cq").Cohort("c").Quota("red", "cpu", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	weightOfCohort("named by a ClusterQueue only", 0)
	if err := c.UpsertCohort(MakeCohort("c").Obj()); err != nil {
		t.Fatal(err)
	}
	weightOfCohort("Cohort object without fairSharing", DefaultWeight)
	if err := c.UpsertCohort(MakeCohort("c").FairWeight("2").Obj()); err != nil {
		t.Fatal(err)
	}
	weightOfCohort("Cohort object with weight 2", 2000)
	c.DeleteCohort("c")
	weightOfCohort("Cohort object deleted, still named by the ClusterQueue", 0)
}
