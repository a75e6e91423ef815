package scheduler

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Ports of Kueue's cache tables (pkg/cache/scheduler): what the cache reports
// of ClusterQueues, LocalQueues and Cohorts as objects come and go. Quokka
// answers through the scheduler's views (ClusterQueueSnapshot,
// LocalQueueSnapshot, WorkloadState) and, for a queue's policies read from
// its spec, through the quota cache's ClusterQueue.
//
// Quokka has no admission checks, so a workload holding quota is both
// reserving and admitted (the controllers publish one number for both);
// Kueue's facts about workloads that reserve quota without being admitted
// are not ported, and its reserved figures are asserted.

const kcGPU corev1.ResourceName = "example.com/gpu"

// kcAssignment builds a podSetAssignment as Kueue's MakePodSetAssignment:
// per resource, the flavor and the usage admitted.
type kcAssignment struct{ kueue.PodSetAssignment }

func kcAssign(podSet string) *kcAssignment {
	return &kcAssignment{kueue.PodSetAssignment{Name: kueue.PodSetReference(podSet),
		Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{}, ResourceUsage: corev1.ResourceList{}}}
}

func (a *kcAssignment) res(r corev1.ResourceName, flavor, usage string) *kcAssignment {
	a.Flavors[r] = kueue.ResourceFlavorReference(flavor)
	a.ResourceUsage[r] = resource.MustParse(usage)
	return a
}

func (a *kcAssignment) count(n int32) *kcAssignment {
	a.Count = &n
	return a
}

// kcReserve sets status.admission in cq with the assignments and the
// QuotaReserved condition (Kueue's ReserveQuotaAt).
func kcReserve(w *WorkloadWrapper, cq string, as ...*kcAssignment) *WorkloadWrapper {
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
	for _, a := range as {
		adm.PodSetAssignments = append(adm.PodSetAssignments, a.PodSetAssignment)
	}
	w.Status.Admission = adm
	return w.QuotaReservedAt(0)
}

// kcCell is one line of a usage report: a flavor's resource, its total and
// the part borrowed, as quantities ("" for zero).
type kcCell struct {
	flavor          string
	res             corev1.ResourceName
	total, borrowed string
}

func kcAmount(r corev1.ResourceName, q string) int64 {
	if q == "" {
		return 0
	}
	return resources.MustCanonical(r, q)
}

func kcCells(cs []kcCell) []UsageView {
	out := []UsageView{}
	for _, c := range cs {
		out = append(out, UsageView{Flavor: c.flavor, Resource: c.res, Total: kcAmount(c.res, c.total), Borrowed: kcAmount(c.res, c.borrowed)})
	}
	return out
}

func kcSnapshot(t *testing.T, s *Scheduler, cq string) ClusterQueueView {
	t.Helper()
	v, ok := s.ClusterQueueSnapshot(cq)
	if !ok {
		t.Fatalf("no ClusterQueue %s", cq)
	}
	return v
}

// kcHolding returns the workloads among keys that hold quota in cq, by key.
func kcHolding(s *Scheduler, cq string, keys []types.NamespacedName) []string {
	out := []string{}
	for _, k := range keys {
		if v, ok := s.WorkloadState(k); ok && v.State == StateAdmitted && v.ClusterQueue == cq {
			out = append(out, k.String())
		}
	}
	slices.Sort(out)
	return out
}

// kcQueue is what Kueue's TestCacheClusterQueueOperations expects of a
// ClusterQueue, less its internals (AllocatableResourceGeneration,
// ResourceGroups). Zero values stand for Kueue's defaults: preemption Never
// and Never, flavor fungibility MayStopSearch and TryNextFlavor, weight 1.
type kcQueue struct {
	active        bool
	nsEverything  bool // namespaceSelector: labels.Everything, else labels.Nothing
	whenCanBorrow kueue.FlavorFungibilityPolicy
	preemption    kueue.ClusterQueuePreemption
	weight        int64
	usage         map[resources.FlavorResource]int64
	workloads     []string
}

func kcCheckQueues(t *testing.T, s *Scheduler, want map[string]kcQueue, keys []types.NamespacedName) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	if got := s.ClusterQueueNames(); len(got) != 0 || len(names) != 0 {
		if !slices.Equal(got, names) {
			t.Fatalf("ClusterQueues %v, want %v", got, names)
		}
	}
	for name, w := range want {
		v := kcSnapshot(t, s, name)
		q, _ := s.Cache().ClusterQueue(name)
		if v.Active != w.active {
			t.Errorf("%s: active %v (%s), want %v", name, v.Active, v.ActiveReason, w.active)
		}
		if every := q.NamespaceSelector != nil && q.NamespaceSelector.Empty(); every != w.nsEverything {
			t.Errorf("%s: namespaceSelector %v, want everything %v", name, q.NamespaceSelector, w.nsEverything)
		}
		wantBorrow := w.whenCanBorrow
		if wantBorrow == "" {
			wantBorrow = kueue.MayStopSearch
		}
		if q.WhenCanBorrow != wantBorrow || q.WhenCanPreempt != kueue.TryNextFlavor {
			t.Errorf("%s: flavorFungibility %s/%s, want %s/%s", name, q.WhenCanBorrow, q.WhenCanPreempt, wantBorrow, kueue.TryNextFlavor)
		}
		wantPreemption := w.preemption
		if wantPreemption.ReclaimWithinCohort == "" {
			wantPreemption.ReclaimWithinCohort = kueue.PreemptionPolicyNever
		}
		if wantPreemption.WithinClusterQueue == "" {
			wantPreemption.WithinClusterQueue = kueue.PreemptionPolicyNever
		}
		if !reflect.DeepEqual(q.Preemption, wantPreemption) {
			t.Errorf("%s: preemption %+v, want %+v", name, q.Preemption, wantPreemption)
		}
		wantWeight := w.weight
		if wantWeight == 0 {
			wantWeight = 1000
		}
		if q.FairWeight() != wantWeight {
			t.Errorf("%s: fair weight %d, want %d", name, q.FairWeight(), wantWeight)
		}
		gotUsage := map[resources.FlavorResource]int64{}
		for _, u := range v.Usage {
			if u.Total != 0 {
				gotUsage[resources.FlavorResource{Flavor: u.Flavor, Resource: u.Resource}] = u.Total
			}
		}
		if len(gotUsage) != 0 || len(w.usage) != 0 {
			if !reflect.DeepEqual(gotUsage, w.usage) {
				t.Errorf("%s: usage %v, want %v", name, gotUsage, w.usage)
			}
		}
		wantWls := append([]string{}, w.workloads...)
		slices.Sort(wantWls)
		if got := kcHolding(s, name, keys); !slices.Equal(got, wantWls) || v.AdmittedWorkloads != len(wantWls) {
			t.Errorf("%s: workloads %v (%d), want %v", name, got, v.AdmittedWorkloads, wantWls)
		}
	}
}

// kcCheckCohorts compares each Cohort's ClusterQueues.
func kcCheckCohorts(t *testing.T, s *Scheduler, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	for _, name := range s.CohortNames() {
		co, _ := s.Cache().Cohort(name)
		got[name] = []string{}
		for _, q := range co.ChildQueues() {
			got[name] = append(got[name], q.Name())
		}
	}
	norm := map[string][]string{}
	for name, qs := range want {
		norm[name] = append([]string{}, qs...)
		slices.Sort(norm[name])
	}
	if !reflect.DeepEqual(got, norm) {
		t.Errorf("Cohorts %v, want %v", got, norm)
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestCacheClusterQueueOperations:
// the ClusterQueues and Cohorts the cache holds as queues, flavors and
// Cohorts are added, updated and deleted, each queue's policies with
// defaults, whether it is active, and the usage of the workloads it holds.
// The cases with admission checks are not ported.
func TestKueueCacheClusterQueueOperations(t *testing.T) {
	initial := func() []*kueue.ClusterQueue {
		return []*kueue.ClusterQueue{
			MakeClusterQueue("a").Quota("default", corev1.ResourceCPU, "10", Borrowing("10")).Cohort("one").NoNamespaceSelector().Obj(),
			MakeClusterQueue("b").Quota("default", corev1.ResourceCPU, "15").Cohort("one").NoNamespaceSelector().Obj(),
			MakeClusterQueue("c").Cohort("two").NoNamespaceSelector().Obj(),
			MakeClusterQueue("d").NoNamespaceSelector().Obj(),
			MakeClusterQueue("e").Quota("nonexistent-flavor", corev1.ResourceCPU, "15").Cohort("two").NoNamespaceSelector().Obj(),
			MakeClusterQueue("f").Cohort("two").NoNamespaceSelector().WhenCanBorrow(kueue.TryNextFlavor).Obj(),
		}
	}
	defaultFlavor := MakeFlavor("default").NodeLabel("cpuType", "default").Obj()
	setup := func(t *testing.T, s *Scheduler) {
		apply(t, s, defaultFlavor)
		for _, cq := range initial() {
			apply(t, s, cq)
		}
	}
	// The queues of setup; e is inactive for its missing flavor.
	initialWant := func() map[string]kcQueue {
		return map[string]kcQueue{
			"a": {active: true}, "b": {active: true}, "c": {active: true}, "d": {active: true},
			"e": {active: false}, "f": {active: true, whenCanBorrow: kueue.TryNextFlavor},
		}
	}
	initialCohorts := map[string][]string{"one": {"a", "b"}, "two": {"c", "e", "f"}}
	cpu := func(flavor string) resources.FlavorResource {
		return resources.FlavorResource{Flavor: flavor, Resource: corev1.ResourceCPU}
	}
	lower := kueue.PreemptionPolicyLowerPriority
	cases := []struct {
		name        string
		operation   func(t *testing.T, s *Scheduler)
		keys        []types.NamespacedName
		wantQueues  map[string]kcQueue
		wantCohorts map[string][]string
	}{
		{name: "add", operation: setup, wantQueues: initialWant(), wantCohorts: initialCohorts},
		{name: "add ClusterQueue with preemption policies",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeClusterQueue("foo").Preemption(lower, lower).Obj())
			},
			wantQueues: map[string]kcQueue{"foo": {active: true, nsEverything: true,
				preemption: kueue.ClusterQueuePreemption{ReclaimWithinCohort: lower, WithinClusterQueue: lower}}}},
		{name: "add ClusterQueue with fair sharing weight",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeClusterQueue("foo").FairWeight("2").Obj())
			},
			wantQueues: map[string]kcQueue{"foo": {active: true, nsEverything: true, weight: 2000}}},
		{name: "add flavors after queue capacities",
			operation: func(t *testing.T, s *Scheduler) {
				for _, cq := range initial() {
					apply(t, s, cq)
				}
				apply(t, s, defaultFlavor)
			},
			wantQueues: initialWant(), wantCohorts: initialCohorts},
		{name: "update",
			operation: func(t *testing.T, s *Scheduler) {
				setup(t, s)
				apply(t, s, MakeClusterQueue("a").Quota("default", corev1.ResourceCPU, "5", Borrowing("5")).Cohort("two").NoNamespaceSelector().Obj())
				// b loses its only resource group and selects every namespace.
				apply(t, s, MakeClusterQueue("b").Cohort("one").Obj())
				apply(t, s, MakeClusterQueue("e").Quota("default", corev1.ResourceCPU, "5", Borrowing("5"), Lending("4")).Cohort("two").NoNamespaceSelector().Obj())
				apply(t, s, MakeFlavor("default").NodeLabel("cpuType", "default").NodeLabel("region", "central").Obj())
			},
			wantQueues: map[string]kcQueue{
				"a": {active: true}, "b": {active: true, nsEverything: true}, "c": {active: true}, "d": {active: true},
				"e": {active: true}, "f": {active: true, whenCanBorrow: kueue.TryNextFlavor},
			},
			wantCohorts: map[string][]string{"one": {"b"}, "two": {"a", "c", "e", "f"}}},
		{name: "shouldn't delete usage resources on update ClusterQueue",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, defaultFlavor)
				apply(t, s, MakeClusterQueue("a").Quota("default", corev1.ResourceCPU, "10", Borrowing("10")).Cohort("one").NoNamespaceSelector().Obj())
				apply(t, s, kcReserve(MakeWorkload("", "one").Request(corev1.ResourceCPU, "5"), "a",
					kcAssign("main").res(corev1.ResourceCPU, "default", "5000m")).AdmittedAt(0).Obj())
				// The flavor stays in the queue's only resource group,
				// with no resources.
				cq := MakeClusterQueue("a").Cohort("one").NoNamespaceSelector().Obj()
				cq.Spec.ResourceGroups = []kueue.ResourceGroup{{Flavors: []kueue.FlavorQuotas{{Name: "default"}}}}
				apply(t, s, cq)
			},
			keys: []types.NamespacedName{key("", "one")},
			wantQueues: map[string]kcQueue{"a": {active: true, usage: map[resources.FlavorResource]int64{cpu("default"): 5000},
				workloads: []string{"/one"}}},
			wantCohorts: map[string][]string{"one": {"a"}}},
		{name: "implicit Cohorts created and deleted",
			// one goes as its members move to another Cohort or none; two
			// as its members are deleted.
			operation: func(t *testing.T, s *Scheduler) {
				setup(t, s)
				apply(t, s, MakeClusterQueue("a").NoNamespaceSelector().Cohort("three").Obj())
				apply(t, s, MakeClusterQueue("b").NoNamespaceSelector().Obj())
				apply(t, s, MakeClusterQueue("c").NoNamespaceSelector().Cohort("three").Obj())
				for _, name := range []string{"d", "e", "f"} {
					s.DeleteClusterQueue(name)
				}
			},
			wantQueues:  map[string]kcQueue{"a": {active: true}, "b": {active: true}, "c": {active: true}},
			wantCohorts: map[string][]string{"three": {"a", "c"}}},
		{name: "delete",
			operation: func(t *testing.T, s *Scheduler) {
				setup(t, s)
				s.DeleteClusterQueue("a")
				s.DeleteClusterQueue("d")
			},
			wantQueues: map[string]kcQueue{"b": {active: true}, "c": {active: true}, "e": {active: false},
				"f": {active: true, whenCanBorrow: kueue.TryNextFlavor}},
			wantCohorts: map[string][]string{"one": {"b"}, "two": {"c", "e", "f"}}},
		{name: "add resource flavors",
			operation: func(t *testing.T, s *Scheduler) {
				setup(t, s)
				apply(t, s, MakeFlavor("nonexistent-flavor").Obj())
			},
			wantQueues: func() map[string]kcQueue {
				w := initialWant()
				w["e"] = kcQueue{active: true}
				return w
			}(),
			wantCohorts: initialCohorts},
		{name: "Add ClusterQueue with multiple resource groups",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeClusterQueue("foo").
					Quota("foo", corev1.ResourceCPU, "0").Quota("foo", corev1.ResourceMemory, "0").
					Quota("bar", corev1.ResourceCPU, "0").Quota("bar", corev1.ResourceMemory, "0").
					Quota("theta", kcGPU, "0").Quota("gamma", kcGPU, "0").Obj())
			},
			wantQueues: map[string]kcQueue{"foo": {active: false, nsEverything: true}}},
		{name: "add cluster queue after finished workloads",
			// The LocalQueue and workloads exist before the flavor and the
			// queue: the queue holds the two workloads with quota and not
			// the finished one. (Kueue's AdmittedUsage, the admitted one's
			// alone, needs admission checks to differ from the usage.)
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeLocalQueue("ns", "lq1", "cq1").Obj())
				apply(t, s, MakeWorkload("ns", "pending").PodSet("main", 1).Obj())
				apply(t, s, kcReserve(MakeWorkload("ns", "reserving").PodSet("main", 1), "cq1",
					kcAssign("main").res(corev1.ResourceCPU, "f1", "1")).Obj())
				apply(t, s, kcReserve(MakeWorkload("ns", "admitted").PodSet("main", 1), "cq1",
					kcAssign("main").res(corev1.ResourceCPU, "f1", "1")).AdmittedAt(0).Obj())
				apply(t, s, kcReserve(MakeWorkload("ns", "finished").PodSet("main", 1), "cq1",
					kcAssign("main").res(corev1.ResourceCPU, "f1", "1")).AdmittedAt(0).Finished().Obj())
				apply(t, s, MakeFlavor("f1").Obj())
				apply(t, s, MakeClusterQueue("cq1").Quota("f1", corev1.ResourceCPU, "10").Obj())
			},
			keys: []types.NamespacedName{key("ns", "pending"), key("ns", "reserving"), key("ns", "admitted"), key("ns", "finished")},
			wantQueues: map[string]kcQueue{"cq1": {active: true, nsEverything: true,
				usage: map[resources.FlavorResource]int64{cpu("f1"): 2000}, workloads: []string{"ns/reserving", "ns/admitted"}}}},
		{name: "add CQ with multiple resource groups and flavors",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeClusterQueue("foo").
					Quota("on-demand", corev1.ResourceCPU, "10", Lending("8")).Quota("on-demand", corev1.ResourceMemory, "10Gi", Lending("8Gi")).
					Quota("spot", corev1.ResourceCPU, "20", Lending("20")).Quota("spot", corev1.ResourceMemory, "20Gi", Lending("20Gi")).
					Quota("license", "license", "8", Lending("4")).Obj())
			},
			wantQueues: map[string]kcQueue{"foo": {active: false, nsEverything: true}}},
		{name: "create cohort",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeCohort("cohort").Obj())
			},
			wantCohorts: map[string][]string{"cohort": nil}},
		{name: "create and delete cohort",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeCohort("cohort").Obj())
				s.DeleteCohort("cohort")
			}},
		{name: "cohort remains after deletion when child exists",
			operation: func(t *testing.T, s *Scheduler) {
				apply(t, s, MakeCohort("cohort").Obj())
				apply(t, s, MakeClusterQueue("cq").Cohort("cohort").Obj())
				s.DeleteCohort("cohort")
			},
			wantQueues:  map[string]kcQueue{"cq": {active: true, nsEverything: true}},
			wantCohorts: map[string][]string{"cohort": {"cq"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			tc.operation(t, s)
			kcCheckQueues(t, s, tc.wantQueues, tc.keys)
			kcCheckCohorts(t, s, tc.wantCohorts)
		})
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestCacheWorkloadOperations:
// which workloads each ClusterQueue holds, and their usage, as workloads are
// added, updated, finished and deleted. ClusterQueues one and two have
// on-demand and spot flavors of cpu; workloads a and b hold quota in one
// (a's driver 10m on-demand, its workers 15m spot; b has no pod set
// assignments), c in two, before the queues exist.
//
// Where Kueue's cache refuses a workload of a ClusterQueue it does not hold
// (an error, and no record of the workload), Quokka keeps the charge under
// that queue's name until the queue appears: the ClusterQueues that exist
// are compared, not Kueue's error or its workload-to-queue index.
func TestKueueCacheWorkloadOperations(t *testing.T) {
	withPodSets := func(name string) *WorkloadWrapper {
		return MakeWorkload("", name).PodSet("driver", 1).Request(corev1.ResourceCPU, "10m").Request(corev1.ResourceMemory, "512Ki").
			PodSet("workers", 3).Request(corev1.ResourceCPU, "5m")
	}
	bare := func(name string) *WorkloadWrapper { return MakeWorkload("", name).PodSet("main", 1) }
	driver := func() *kcAssignment { return kcAssign("driver").res(corev1.ResourceCPU, "on-demand", "10m") }
	workers := func() *kcAssignment { return kcAssign("workers").res(corev1.ResourceCPU, "spot", "15m") }
	wlA := func(cq string) *kueue.Workload { return kcReserve(withPodSets("a"), cq, driver(), workers()).Obj() }
	queue := func(name string) *kueue.ClusterQueue {
		return MakeClusterQueue(name).Quota("on-demand", corev1.ResourceCPU, "0").Quota("spot", corev1.ResourceCPU, "0").NoNamespaceSelector().Obj()
	}
	keys := []types.NamespacedName{key("", "a"), key("", "b"), key("", "c"), key("", "d"), key("", "pending")}
	type result struct {
		workloads []string
		usage     resources.Amounts
	}
	aUsage := resources.Amounts{
		{Flavor: "on-demand", Resource: corev1.ResourceCPU}: 10,
		{Flavor: "spot", Resource: corev1.ResourceCPU}:      15,
	}
	initial := map[string]result{"one": {[]string{"/a", "/b"}, aUsage}, "two": {[]string{"/c"}, nil}}
	cases := []struct {
		name      string
		operation func(t *testing.T, s *Scheduler)
		want      map[string]result
	}{
		{"add", func(t *testing.T, s *Scheduler) {
			apply(t, s, wlA("one"))
			apply(t, s, kcReserve(bare("d"), "two").Obj())
			apply(t, s, bare("pending").Obj())
		}, map[string]result{"one": {[]string{"/a", "/b"}, aUsage}, "two": {[]string{"/c", "/d"}, nil}}},
		{"add error clusterQueue doesn't exist", func(t *testing.T, s *Scheduler) {
			apply(t, s, kcReserve(bare("d"), "three").Obj())
		}, initial},
		{"add already exists", func(t *testing.T, s *Scheduler) {
			apply(t, s, kcReserve(bare("b"), "one").Obj())
		}, initial},
		{"AddOrUpdateWorkload; finished workload removed", func(t *testing.T, s *Scheduler) {
			apply(t, s, kcReserve(bare("b"), "one").Finished().Obj())
		}, map[string]result{"one": {[]string{"/a"}, aUsage}, "two": {[]string{"/c"}, nil}}},
		{"AddOrUpdateWorkload; quota assigned -> quota unassigned", func(t *testing.T, s *Scheduler) {
			apply(t, s, bare("b").Obj())
		}, map[string]result{"one": {[]string{"/a"}, aUsage}, "two": {[]string{"/c"}, nil}}},
		{"AddOrUpdateWorkload; quota not assigned -> quota still not assigned", func(t *testing.T, s *Scheduler) {
			apply(t, s, bare("d").Obj())
		}, initial},
		{"update cluster queue for a workload", func(t *testing.T, s *Scheduler) {
			apply(t, s, wlA("two"))
		}, map[string]result{"one": {[]string{"/b"}, nil}, "two": {[]string{"/a", "/c"}, aUsage}}},
		{"update error new ClusterQueue not found", func(t *testing.T, s *Scheduler) {
			apply(t, s, kcReserve(bare("d"), "three").Obj())
		}, initial},
		{"update workload which doesn't exist.", func(t *testing.T, s *Scheduler) {
			apply(t, s, kcReserve(bare("d"), "two").Obj())
		}, map[string]result{"one": {[]string{"/a", "/b"}, aUsage}, "two": {[]string{"/c", "/d"}, nil}}},
		{"delete", func(t *testing.T, s *Scheduler) {
			s.DeleteWorkload(key("", "a"))
		}, map[string]result{"one": {[]string{"/b"}, nil}, "two": {[]string{"/c"}, nil}}},
		{"delete workload with cancelled admission", func(t *testing.T, s *Scheduler) {
			s.DeleteWorkload(key("", "a"))
		}, map[string]result{"one": {[]string{"/b"}, nil}, "two": {[]string{"/c"}, nil}}},
		{"delete non-existing workload with cancelled admission", func(t *testing.T, s *Scheduler) {
			s.DeleteWorkload(key("", "d"))
		}, initial},
		{"delete error clusterQueue doesn't exist", func(t *testing.T, s *Scheduler) {
			apply(t, s, queue("three"))
			apply(t, s, kcReserve(bare("d"), "three").Obj())
			s.DeleteClusterQueue("three")
			s.DeleteWorkload(key("", "d"))
		}, initial},
		{"delete workload which doesn't exist", func(t *testing.T, s *Scheduler) {
			s.DeleteWorkload(key("", "d"))
		}, initial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			apply(t, s, wlA("one"))
			apply(t, s, kcReserve(bare("b"), "one").Obj())
			apply(t, s, kcReserve(withPodSets("c"), "two").Obj())
			apply(t, s, queue("one"))
			apply(t, s, queue("two"))
			tc.operation(t, s)
			got := map[string]result{}
			for _, name := range s.ClusterQueueNames() {
				v := kcSnapshot(t, s, name)
				r := result{workloads: kcHolding(s, name, keys)}
				for _, u := range v.Usage {
					if u.Total != 0 {
						if r.usage == nil {
							r.usage = resources.Amounts{}
						}
						r.usage[resources.FlavorResource{Flavor: u.Flavor, Resource: u.Resource}] = u.Total
					}
				}
				if v.AdmittedWorkloads != len(r.workloads) {
					t.Errorf("%s: %d workloads holding quota, want %v", name, v.AdmittedWorkloads, r.workloads)
				}
				got[name] = r
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ClusterQueues %v, want %v", got, tc.want)
			}
		})
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestClusterQueueUsage: the usage
// a ClusterQueue reports per flavor and resource, in the order of its spec,
// with the part borrowed, and the number of workloads holding quota. Kueue
// reports nothing borrowed by a queue without a Cohort. Its admitted figures
// are asserted where they equal the reserved ones (the first case); the
// others count workload two, which reserved quota without being admitted.
func TestKueueClusterQueueUsage(t *testing.T) {
	cqWith := func(cohort string) *kueue.ClusterQueue {
		return MakeClusterQueue("foo").
			Quota("default", corev1.ResourceCPU, "10", Borrowing("10")).
			Quota("model_a", kcGPU, "5", Borrowing("5")).Quota("model_b", kcGPU, "5").
			Quota("interconnect_a", "example.com/vf-0", "5", Borrowing("5")).
			Quota("interconnect_a", "example.com/vf-1", "5", Borrowing("5")).
			Quota("interconnect_a", "example.com/vf-2", "5", Borrowing("5")).
			Cohort(cohort).Obj()
	}
	one := kcReserve(MakeWorkload("", "one").Request(corev1.ResourceCPU, "8").Request(kcGPU, "5"), "foo",
		kcAssign("main").res(corev1.ResourceCPU, "default", "8000m").res(kcGPU, "model_a", "5")).
		Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue}).Obj()
	two := kcReserve(MakeWorkload("", "two").Request(corev1.ResourceCPU, "5").Request(kcGPU, "6"), "foo",
		kcAssign("main").res(corev1.ResourceCPU, "default", "5000m").res(kcGPU, "model_b", "6")).Obj()
	partial := func(name string) *WorkloadWrapper {
		return kcReserve(MakeWorkload("", name).PodSet("main", 5).Request(corev1.ResourceCPU, "2"), "foo",
			kcAssign("main").res(corev1.ResourceCPU, "default", "4000m").count(2))
	}
	vfs := []kcCell{{"interconnect_a", "example.com/vf-0", "", ""}, {"interconnect_a", "example.com/vf-1", "", ""}, {"interconnect_a", "example.com/vf-2", "", ""}}
	cells := func(cs ...kcCell) []kcCell { return append(cs, vfs...) }
	cases := []struct {
		name          string
		cq            *kueue.ClusterQueue
		workloads     []*kueue.Workload
		wantReserved  []kcCell
		wantReserving int
	}{
		{"clusterQueue without cohort; single, admitted no borrowing", cqWith(""), []*kueue.Workload{one},
			cells(kcCell{"default", corev1.ResourceCPU, "8", ""}, kcCell{"model_a", kcGPU, "5", ""}, kcCell{"model_b", kcGPU, "", ""}), 1},
		{"clusterQueue with cohort; multiple borrowing", cqWith("one"), []*kueue.Workload{one, two},
			cells(kcCell{"default", corev1.ResourceCPU, "13", "3"}, kcCell{"model_a", kcGPU, "5", ""}, kcCell{"model_b", kcGPU, "6", "1"}), 2},
		{"clusterQueue without cohort; multiple borrowing", cqWith(""), []*kueue.Workload{one, two},
			cells(kcCell{"default", corev1.ResourceCPU, "13", ""}, kcCell{"model_a", kcGPU, "5", ""}, kcCell{"model_b", kcGPU, "6", ""}), 2},
		{"clusterQueue with cohort; partial admission", cqWith("one"),
			[]*kueue.Workload{partial("partial-one").AdmittedAt(0).Obj(), partial("partial-two").Obj()},
			cells(kcCell{"default", corev1.ResourceCPU, "8", ""}, kcCell{"model_a", kcGPU, "", ""}, kcCell{"model_b", kcGPU, "", ""}), 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, tc.cq)
			for _, w := range tc.workloads {
				apply(t, s, w)
			}
			v := kcSnapshot(t, s, "foo")
			if want := kcCells(tc.wantReserved); !reflect.DeepEqual(v.Usage, want) {
				t.Errorf("reserved resources\n got %+v\nwant %+v", v.Usage, want)
			}
			if v.AdmittedWorkloads != tc.wantReserving {
				t.Errorf("%d reserving workloads, want %d", v.AdmittedWorkloads, tc.wantReserving)
			}
		})
	}
}

// Kueue reports borrowed 0 only for a queue without a Cohort: Cache.getUsage
// checks HasParent, which holds for a queue whose Cohort is in a cycle. Such
// a queue reports its usage above nominal as borrowed, as with a Cohort.
func TestClusterQueueUsageBorrowedInCohortCycle(t *testing.T) {
	s := world(t, Options{},
		MakeCohort("a").Parent("b").Obj(), MakeCohort("b").Parent("a").Obj(),
		MakeClusterQueue("foo").Cohort("a").Quota("default", corev1.ResourceCPU, "10").Obj())
	apply(t, s, kcReserve(MakeWorkload("", "one").Request(corev1.ResourceCPU, "13"), "foo",
		kcAssign("main").res(corev1.ResourceCPU, "default", "13")).Obj())
	v := kcSnapshot(t, s, "foo")
	if v.ActiveReason != kueue.ClusterQueueActiveReasonCohortCycle {
		t.Fatalf("the world: foo active reason %q, want a Cohort cycle", v.ActiveReason)
	}
	if want := kcCells([]kcCell{{"default", corev1.ResourceCPU, "13", "3"}}); !reflect.DeepEqual(v.Usage, want) {
		t.Errorf("reserved resources\n got %+v\nwant %+v", v.Usage, want)
	}
}

// Kueue: pkg/cache/scheduler/cache_test.go, TestLocalQueueUsage: the quota a
// LocalQueue's workloads hold, per flavor and resource of its ClusterQueue
// (zero where none is held); a pending workload holds none.
func TestKueueLocalQueueUsage(t *testing.T) {
	cq := MakeClusterQueue("foo").
		Quota("default", corev1.ResourceCPU, "10", Borrowing("10")).
		Quota("model-a", kcGPU, "5").Quota("model-b", kcGPU, "5").
		Quota("interconnect-a", "example.com/vf-0", "5", Borrowing("5")).
		Quota("interconnect-a", "example.com/vf-1", "5", Borrowing("5")).
		Quota("interconnect-a", "example.com/vf-2", "5", Borrowing("5")).Obj()
	lq := MakeLocalQueue("ns1", "test", "foo").Obj()
	inTest := func(name string) *WorkloadWrapper { return MakeWorkload("ns1", name).Queue("test") }
	vfs := []kcCell{{"interconnect-a", "example.com/vf-0", "", ""}, {"interconnect-a", "example.com/vf-1", "", ""}, {"interconnect-a", "example.com/vf-2", "", ""}}
	cells := func(cs ...kcCell) []kcCell { return append(cs, vfs...) }
	cases := []struct {
		name      string
		cq        *kueue.ClusterQueue
		workloads []*kueue.Workload
		wantUsage []kcCell
	}{
		{"clusterQueue is missing", nil, []*kueue.Workload{inTest("one").Request(corev1.ResourceCPU, "5").Obj()}, nil},
		{"workloads is nothing", cq, nil,
			cells(kcCell{"default", corev1.ResourceCPU, "0", ""}, kcCell{"model-a", kcGPU, "0", ""}, kcCell{"model-b", kcGPU, "0", ""})},
		{"all workloads are admitted", cq, []*kueue.Workload{
			kcReserve(inTest("one").Request(corev1.ResourceCPU, "5").Request(kcGPU, "5"), "foo",
				kcAssign("main").res(corev1.ResourceCPU, "default", "5000m").res(kcGPU, "model-a", "5")).Obj(),
			kcReserve(inTest("two").Request(corev1.ResourceCPU, "3").Request(kcGPU, "3"), "foo",
				kcAssign("main").res(corev1.ResourceCPU, "default", "3000m").res(kcGPU, "model-b", "3")).Obj(),
		}, cells(kcCell{"default", corev1.ResourceCPU, "8", ""}, kcCell{"model-a", kcGPU, "5", ""}, kcCell{"model-b", kcGPU, "3", ""})},
		{"some workloads are inadmissible", cq, []*kueue.Workload{
			kcReserve(inTest("one").Request(corev1.ResourceCPU, "5").Request(kcGPU, "5"), "foo",
				kcAssign("main").res(corev1.ResourceCPU, "default", "5000m").res(kcGPU, "model-a", "5")).Obj(),
			inTest("two").Request(corev1.ResourceCPU, "100000").Request(kcGPU, "3").Obj(),
		}, cells(kcCell{"default", corev1.ResourceCPU, "5", ""}, kcCell{"model-a", kcGPU, "5", ""}, kcCell{"model-b", kcGPU, "0", ""})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			if tc.cq != nil {
				apply(t, s, tc.cq)
			}
			apply(t, s, lq)
			for _, w := range tc.workloads {
				apply(t, s, w)
			}
			v, ok := s.LocalQueueSnapshot("ns1", "test")
			if !ok {
				t.Fatal("no LocalQueue ns1/test")
			}
			want := resources.Amounts{}
			for _, u := range kcCells(tc.wantUsage) {
				if u.Total != 0 {
					want[resources.FlavorResource{Flavor: u.Flavor, Resource: u.Resource}] = u.Total
				}
			}
			if !reflect.DeepEqual(v.Usage, want) {
				t.Errorf("usage %v, want %v", v.Usage, want)
			}
		})
	}
}

// Kueue: pkg/cache/scheduler/clusterqueue_test.go,
// TestClusterQueueUpdateWithFlavors: a ClusterQueue of flavor x86 turns
// active when the flavor appears and inactive (FlavorNotFound, Kueue's
// pending) when it goes, while one being deleted stays Terminating either
// way. Each case starts from the state Kueue's sets and checks it first.
func TestKueueClusterQueueUpdateWithFlavors(t *testing.T) {
	const (
		active      = kueue.ClusterQueueActiveReasonReady
		pending     = kueue.ClusterQueueActiveReasonFlavorNotFound
		terminating = kueue.ClusterQueueActiveReasonTerminating
	)
	cases := []struct {
		name        string
		terminating bool
		flavorAfter bool // whether x86 exists after the update
		curStatus   string
		wantStatus  string
	}{
		{"Pending clusterQueue updated existent flavors", false, true, pending, active},
		{"Active clusterQueue updated with not found flavors", false, false, active, pending},
		{"Terminating clusterQueue updated with existent flavors", true, true, terminating, terminating},
		{"Terminating clusterQueue updated with not found flavors", true, false, terminating, terminating},
	}
	check := func(t *testing.T, s *Scheduler, when, want string) {
		t.Helper()
		v := kcSnapshot(t, s, "cq")
		if v.ActiveReason != want || v.Active != (want == active) || v.Terminating != (want == terminating) {
			t.Errorf("%s: active %v, reason %s, terminating %v; want %s", when, v.Active, v.ActiveReason, v.Terminating, want)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cq := MakeClusterQueue("cq").Quota("x86", corev1.ResourceCPU, "5").Obj()
			if tc.terminating {
				cq.DeletionTimestamp = &metav1.Time{Time: now}
			}
			s := New(Options{})
			// The flavor exists before exactly when it does not after.
			if !tc.flavorAfter {
				apply(t, s, MakeFlavor("x86").Obj())
			}
			apply(t, s, cq)
			check(t, s, "before", tc.curStatus)
			if tc.flavorAfter {
				apply(t, s, MakeFlavor("x86").Obj())
			} else {
				s.DeleteResourceFlavor("x86")
			}
			check(t, s, "after", tc.wantStatus)
		})
	}
}

// Kueue: pkg/cache/scheduler/clusterqueue_test.go, TestClusterQueueUpdate:
// updating a ClusterQueue with the same resource groups keeps Kueue's
// AllocatableResourceGeneration, with changed ones moves it; the generation
// tells the scheduler whether a flavor assignment it remembers still holds.
// Quokka's counterpart is the quota cache's Version, by which the scheduler
// reuses remembered flavor assignments; and the queue's quotas are the new
// ones.
func TestKueueClusterQueueUpdate(t *testing.T) {
	base := func(onDemand string) *kueue.ClusterQueue {
		return MakeClusterQueue("eng-alpha").Strategy(kueue.StrictFIFO).
			Preemption("", kueue.PreemptionPolicyLowerPriority).WhenCanPreempt(kueue.MayStopSearch).
			Quota("on-demand", corev1.ResourceCPU, onDemand, Borrowing("50")).
			Quota("spot", corev1.ResourceCPU, "100", Borrowing("0")).Obj()
	}
	cases := []struct {
		name        string
		newcq       *kueue.ClusterQueue
		wantChanged bool
		wantQuotas  []QuotaView
	}{
		{"RGs not change", base("50"), false, []QuotaView{
			{Flavor: "on-demand", Resource: corev1.ResourceCPU, Nominal: 50000, BorrowingLimit: 50000, LendingLimit: resources.Unlimited},
			{Flavor: "spot", Resource: corev1.ResourceCPU, Nominal: 100000, BorrowingLimit: 0, LendingLimit: resources.Unlimited}}},
		{"RGs changed", base("100"), true, []QuotaView{
			{Flavor: "on-demand", Resource: corev1.ResourceCPU, Nominal: 100000, BorrowingLimit: 50000, LendingLimit: resources.Unlimited},
			{Flavor: "spot", Resource: corev1.ResourceCPU, Nominal: 100000, BorrowingLimit: 0, LendingLimit: resources.Unlimited}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("on-demand").Obj(), MakeFlavor("spot").Obj(), base("50"))
			before := s.Cache().Version()
			apply(t, s, tc.newcq)
			if changed := s.Cache().Version() != before; changed != tc.wantChanged {
				t.Errorf("cache version changed %v, want %v", changed, tc.wantChanged)
			}
			if v := kcSnapshot(t, s, "eng-alpha"); !reflect.DeepEqual(v.Quotas, tc.wantQuotas) {
				t.Errorf("quotas\n got %+v\nwant %+v", v.Quotas, tc.wantQuotas)
			}
		})
	}
}
