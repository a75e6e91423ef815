package scheduler

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// transformationsSuite is the resources block of Kueue's "Resource
// Transformations" integration suite
// (test/integration/singlecluster/scheduler/resourcetransformations, v0.19.2).
func transformationsSuite() *workload.ResourceRules {
	return &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
		"nvidia.com/mig-1g.5gb": {Replace: true, Outputs: corev1.ResourceList{
			"example.com/accelerator-memory": resource.MustParse("5Ki"), "example.com/credits": resource.MustParse("10")}},
		"nvidia.com/gpucores": {Replace: true, MultiplyBy: "nvidia.com/gpu",
			Outputs: corev1.ResourceList{"nvidia.com/total-gpucores": resource.MustParse("1")}},
		"nvidia.com/gpumem": {Replace: true, MultiplyBy: "nvidia.com/gpu",
			Outputs: corev1.ResourceList{"nvidia.com/total-gpumem": resource.MustParse("1")}},
	}}
}

// Kueue: "Resource Transformations", "should transform resources with
// MultiplyBy" and "should handle multiple PodSets with transformations": the
// admission's resource usage per pod set is what the transformations count
// (gpucores and gpumem times the gpus, mig slices as accelerator memory and
// credits), and only that is charged. Spec 000: "DQO does not apply resource
// transformations or DRA mappings. The scheduler still applies them as
// usual."
func TestKueueResourceTransformationsChargeTheOutputs(t *testing.T) {
	cq := MakeClusterQueue("test-cq").Quota("default", "example.com/accelerator-memory", "100Gi").
		Quota("default", "example.com/credits", "1000").Quota("default", "nvidia.com/gpu", "50").
		Quota("default", "nvidia.com/total-gpucores", "1000").Quota("default", "nvidia.com/total-gpumem", "102400").Obj()
	cases := []struct {
		name string
		wl   *kueue.Workload
		want []resources.Requests
	}{
		{name: "should transform resources with MultiplyBy",
			wl: MakeWorkload("ns", "multiply-wl").Queue("test-lq").
				Request("nvidia.com/gpu", "2").Request("nvidia.com/gpucores", "20").Request("nvidia.com/gpumem", "1024").Obj(),
			want: []resources.Requests{{"nvidia.com/gpu": 2, "nvidia.com/total-gpucores": 40, "nvidia.com/total-gpumem": 2048}}},
		{name: "should handle multiple PodSets with transformations",
			wl: MakeWorkload("ns", "multi-podset-wl").Queue("test-lq").
				PodSet("ps01", 1).Request("nvidia.com/mig-1g.5gb", "2").
				PodSet("ps02", 2).Request("nvidia.com/gpu", "1").Request("nvidia.com/gpucores", "10").Obj(),
			want: []resources.Requests{
				{"example.com/accelerator-memory": 10240, "example.com/credits": 20},
				{"nvidia.com/gpu": 2, "nvidia.com/total-gpucores": 20},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{Resources: transformationsSuite()}, MakeFlavor("default").Obj(), cq.DeepCopy(),
				MakeLocalQueue("ns", "test-lq", "test-cq").Obj(), tc.wl)
			as := admits(s.Cycle(now))
			if len(as) != 1 {
				t.Fatalf("admitted %v, want the workload", as)
			}
			var got []resources.Requests
			for _, ps := range as[0].PodSets {
				got = append(got, ps.Usage)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("usage per pod set %v, want %v", got, tc.want)
			}
		})
	}
}

// Kueue: "Resource Transformation: Retain CPU → cpu_credits (Share Quotas
// Across Flavors)": cpu is retained and also counted as cpu_credits (1:1),
// so 18 cpu of on-demand and spot fit only 8 credits' worth: two workloads
// of 3 cpu are admitted and the third waits, until one finishes ("should
// admit the pending workload after one running workload finishes") or,
// lowered to a low priority, is preempted by it ("should admit the pending
// workload after preempting a lower-priority workload").
func TestKueueResourceTransformationRetainCPUAsCredits(t *testing.T) {
	for _, end := range []string{"finishes", "preempted"} {
		t.Run(end, func(t *testing.T) {
			rules := &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"cpu": {Outputs: corev1.ResourceList{"cpu_credits": resource.MustParse("1")}}}}
			high := func(name string, created time.Duration) *WorkloadWrapper {
				return MakeWorkload("ns", name).Queue("team-queue").Priority(1000).Request("cpu", "3").Created(created)
			}
			s := world(t, Options{Resources: rules}, MakeFlavor("on-demand").Obj(), MakeFlavor("spot").Obj(), MakeFlavor("credits").Obj(),
				MakeClusterQueue("team-cluster-queue").Quota("on-demand", "cpu", "9").Quota("spot", "cpu", "9").
					Quota("credits", "cpu_credits", "8").
					Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
				MakeLocalQueue("ns", "team-queue", "team-cluster-queue").Obj(),
				high("wl-1", 0).Obj(), high("wl-2", time.Second).Obj())
			ds := s.Cycle(now)
			if got := admittedNames(ds); !reflect.DeepEqual(got, []string{"wl-1", "wl-2"}) {
				t.Fatalf("admitted %v, want wl-1 and wl-2", got)
			}
			for _, a := range admits(ds) {
				if u := a.PodSets[0].Usage; u["cpu"] != 3000 || u["cpu_credits"] != 3 {
					t.Fatalf("%s charged %v, want 3 cpu (retained) and 3 cpu_credits", a.Workload.Name, u)
				}
			}
			for _, a := range admits(ds) {
				apply(t, s, admittedAs(high(a.Workload.Name, 0), a))
			}
			apply(t, s, high("wl", 2*time.Second).Obj())
			mustStillPending(t, s, s.Cycle(now.Add(time.Second)), "wl", ReasonInsufficientQuota)
			switch end {
			case "finishes":
				s.FinishWorkload(key("ns", "wl-1"))
			case "preempted":
				apply(t, s, admittedAs(high("wl-1", 0).Priority(100), admits(ds)[0]))
				ps := preempts(s.Cycle(now.Add(2 * time.Second)))
				if len(ps) != 1 || len(ps[0].Victims) != 1 || ps[0].Victims[0].Workload.Name != "wl-1" {
					t.Fatalf("preemptions %+v, want wl to preempt wl-1", ps)
				}
				s.EvictWorkload(key("ns", "wl-1"))
			}
			if got := admittedNames(s.Cycle(now.Add(3 * time.Second))); !reflect.DeepEqual(got, []string{"wl"}) {
				t.Fatalf("admitted %v, want wl", got)
			}
		})
	}
}

// resources.excludeResourcePrefixes: a request of an excluded resource needs
// no quota, where without the rule it is a resource no flavor covers.
func TestExcludedResourcePrefixNeedsNoQuota(t *testing.T) {
	objs := []any{MakeFlavor("default").Obj(), MakeClusterQueue("cq").Quota("default", "cpu", "4").Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj(),
		MakeWorkload("ns", "w").Queue("lq").Request("cpu", "1").Request("networking.example.com/vpc1", "1").Obj()}
	if got := admittedNames(world(t, Options{}, objs...).Cycle(now)); len(got) != 0 {
		t.Fatalf("admitted %v without the rule, want the uncovered request to keep it out", got)
	}
	rules := &workload.ResourceRules{ExcludePrefixes: []string{"networking.example.com/"}}
	if got := admittedNames(world(t, Options{Resources: rules}, objs...).Cycle(now)); !reflect.DeepEqual(got, []string{"w"}) {
		t.Fatalf("admitted %v with the prefix excluded, want w", got)
	}
}

// admittedAs is w as the manager writes its admission a: every pod set's
// flavors and resource usage (the transformed requests, which the engine
// reads back as they are written).
func admittedAs(w *WorkloadWrapper, a Admit) *kueue.Workload {
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(a.ClusterQueue)}
	for _, ps := range a.PodSets {
		psa := kueue.PodSetAssignment{Name: kueue.PodSetReference(ps.Name), Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{},
			ResourceUsage: corev1.ResourceList{}}
		for r, f := range ps.Flavors {
			psa.Flavors[r] = kueue.ResourceFlavorReference(f)
		}
		for r, v := range ps.Usage {
			psa.ResourceUsage[r] = resources.ToQuantity(r, v)
		}
		c := ps.Count
		psa.Count = &c
		adm.PodSetAssignments = append(adm.PodSetAssignments, psa)
	}
	out := w.Clone().Obj()
	out.Status.Admission = adm
	return out
}

// Kueue: SchedulerWithExcludeResourcePrefixes
// (test/integration/singlecluster/scheduler/excluderesources, v0.19.2), its
// four cases: with networking.example.com/ and storage.example.com/
// excluded, a request of either is not charged (the admission's usage has
// no such key); cpu still needs quota; a prefix matches exactly
// (networking.other.com/vpc is charged, against its quota).
func TestKueueSchedulerWithExcludeResourcePrefixes(t *testing.T) {
	rules := &workload.ResourceRules{ExcludePrefixes: []string{"networking.example.com/", "storage.example.com/"}}
	suite := func(wls ...*kueue.Workload) *Scheduler {
		objs := []any{MakeFlavor("default").Obj(),
			MakeClusterQueue("test-cq").Quota("default", "cpu", "10").Quota("default", "memory", "10Gi").
				Quota("default", "networking.other.com/vpc", "1000").Obj(),
			MakeLocalQueue("ns", "test-lq", "test-cq").Obj()}
		for _, w := range wls {
			objs = append(objs, w)
		}
		return world(t, Options{Resources: rules}, objs...)
	}
	usageOf := func(t *testing.T, ds []Decision, name string) resources.Requests {
		t.Helper()
		for _, a := range admits(ds) {
			if a.Workload.Name == name {
				return a.PodSets[0].Usage
			}
		}
		t.Fatalf("%s not admitted: %v", name, ds)
		return nil
	}
	t.Run("should admit workload ignoring excluded resource", func(t *testing.T) {
		s := suite(MakeWorkload("ns", "test-wl").Queue("test-lq").Request("cpu", "1").Request("networking.example.com/vpc", "100").Obj())
		u := usageOf(t, s.Cycle(now), "test-wl")
		if _, ok := u["networking.example.com/vpc"]; ok || u["cpu"] != 1000 {
			t.Fatalf("usage %v, want cpu and no networking.example.com/vpc", u)
		}
	})
	t.Run("should ignore multiple excluded resource prefixes", func(t *testing.T) {
		s := suite(MakeWorkload("ns", "multi-exclude-wl").Queue("test-lq").Request("cpu", "2").
			Request("networking.example.com/vpc", "10").Request("storage.example.com/disk", "50").Obj())
		u := usageOf(t, s.Cycle(now), "multi-exclude-wl")
		if len(u) != 1 || u["cpu"] != 2000 {
			t.Fatalf("usage %v, want cpu alone", u)
		}
	})
	t.Run("should enforce quota for non-excluded resources", func(t *testing.T) {
		s := suite(MakeWorkload("ns", "quota-wl-1").Queue("test-lq").Request("cpu", "8").Request("networking.example.com/vpc", "1000").Obj())
		usageOf(t, s.Cycle(now), "quota-wl-1")
		apply(t, s, MakeWorkload("ns", "quota-wl-2").Queue("test-lq").Request("cpu", "5").Request("networking.example.com/vpc", "1").
			Created(time.Second).Obj())
		mustStillPending(t, s, s.Cycle(now.Add(time.Second)), "quota-wl-2", ReasonInsufficientQuota)
	})
	t.Run("should use exact prefix matching", func(t *testing.T) {
		s := suite(MakeWorkload("ns", "prefix-test-wl").Queue("test-lq").Request("cpu", "1").Request("networking.other.com/vpc", "100").Obj())
		u := usageOf(t, s.Cycle(now), "prefix-test-wl")
		if u["networking.other.com/vpc"] != 100 || u["cpu"] != 1000 {
			t.Fatalf("usage %v, want networking.other.com/vpc charged beside cpu", u)
		}
	})
}

// Kueue: test/e2e/sequential/baseline/quota_check_strategy_test.go
// (v0.19.2), "QuotaCheckStrategy", as facts through cycles: with
// quotaCheckStrategy IgnoreUndeclared, a ClusterQueue covering only cpu
// admits a workload that also requests memory, charging cpu alone ("should
// not report metrics for resource usage for undeclared resources": its
// usage has no memory), and a higher-priority one of the same shape preempts
// it ("Preemption is enabled"); with the default BlockUndeclared the
// undeclared memory keeps the workload out (ResourceNotCovered).
func TestKueueQuotaCheckStrategy(t *testing.T) {
	objs := func(wls ...*kueue.Workload) []any {
		out := []any{MakeFlavor("test-flavor").Obj(),
			MakeClusterQueue("test-cq").Quota("test-flavor", "cpu", "100").
				Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
			MakeLocalQueue("ns", "test-lq", "test-cq").Obj()}
		for _, w := range wls {
			out = append(out, w)
		}
		return out
	}
	job := func(name string, cpu string, prio int32, created time.Duration) *WorkloadWrapper {
		return MakeWorkload("ns", name).Queue("test-lq").Request("cpu", cpu).Request("memory", "1Gi").Priority(prio).Created(created)
	}
	ignore := Options{Resources: &workload.ResourceRules{IgnoreUndeclared: true}}

	t.Run("BlockUndeclared (the default)", func(t *testing.T) {
		s := world(t, Options{}, objs(job("ignoreundeclared-job", "1", 0, 0).Obj())...)
		mustPending(t, s.Cycle(now), "ignoreundeclared-job", ReasonResourceNotCovered)
	})
	t.Run("should not report metrics for resource usage for undeclared resources", func(t *testing.T) {
		s := world(t, ignore, objs(job("ignoreundeclared-job", "1", 0, 0).Obj())...)
		if got := admittedNames(s.Cycle(now)); !reflect.DeepEqual(got, []string{"ignoreundeclared-job"}) {
			t.Fatalf("admitted %v, want the job", got)
		}
		if cpu, mem := usage(t, s, "test-cq", "test-flavor", "cpu"), usage(t, s, "test-cq", "test-flavor", "memory"); cpu != 1000 || mem != 0 {
			t.Fatalf("usage cpu %d, memory %d; want 1 cpu and no memory", cpu, mem)
		}
	})
	t.Run("Preemption is enabled", func(t *testing.T) {
		s := world(t, ignore, objs(job("low-job", "100", 10, 0).Obj())...)
		if got := admittedNames(s.Cycle(now)); !reflect.DeepEqual(got, []string{"low-job"}) {
			t.Fatalf("admitted %v, want low-job", got)
		}
		apply(t, s, job("high-job", "100", 100, time.Second).Obj())
		ps := preempts(s.Cycle(now.Add(time.Second)))
		if len(ps) != 1 || len(ps[0].Victims) != 1 || ps[0].Victims[0].Workload.Name != "low-job" {
			t.Fatalf("preemptions %+v, want high-job to preempt low-job", ps)
		}
		s.EvictWorkload(key("ns", "low-job"))
		if got := admittedNames(s.Cycle(now.Add(2 * time.Second))); !reflect.DeepEqual(got, []string{"high-job"}) {
			t.Fatalf("admitted %v, want high-job", got)
		}
	})
}
