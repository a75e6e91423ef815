package workload_test

import (
	"math"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// ps is a pod set's expected totals: count × per-pod requests, canonical,
// and the resources counted at zero.
type ps struct {
	name  string
	total map[corev1.ResourceName]int64
	zero  []corev1.ResourceName
}

func replace(outputs ...string) workload.Transformation {
	return workload.Transformation{Replace: true, Outputs: outputList(outputs...)}
}

func retain(outputs ...string) workload.Transformation {
	return workload.Transformation{Outputs: outputList(outputs...)}
}

func outputList(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func multiplied(t workload.Transformation, by corev1.ResourceName) workload.Transformation {
	t.MultiplyBy = by
	return t
}

// Kueue: pkg/workload/workload_test.go, TestNewInfo, its filterResources and
// transform* cases (v0.19.2): what a pod set's requests count as under
// resources.excludeResourcePrefixes and resources.transformations. Kueue
// keeps a resource computed at zero in the requests; the engine lists it
// with the resources named at zero (PodSet.Zero), which the flavor
// assigner treats alike.
func TestKueueNewInfoResourceRules(t *testing.T) {
	gpuMemAllowance := func() *workload.ResourceRules {
		return &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
			"nvidia.com/gpumem": multiplied(replace("quota.example.com/gpu-memory-overage", "1"), "nvidia.com/gpu"),
			"nvidia.com/gpu":    retain("quota.example.com/gpu-memory-overage", "-1024"),
		}}
	}
	cases := []struct {
		name  string
		wl    *kueue.Workload
		rules *workload.ResourceRules
		want  []ps
	}{
		{name: "filterResources",
			wl:    MakeWorkload("ns", "w").Request("cpu", "10m").Request("memory", "512Ki").Request("networking.example.com/vpc1", "1").Obj(),
			rules: &workload.ResourceRules{ExcludePrefixes: []string{"dummyPrefix", "networking.example.com/"}},
			want:  []ps{{name: "main", total: map[corev1.ResourceName]int64{"cpu": 10, "memory": 512 * 1024}}}},
		{name: "transformResources",
			wl: MakeWorkload("ns", "w").
				PodSet("a", 1).Request("nvidia.com/mig-1g.5gb", "2").Request("nvidia.com/mig-2g.10gb", "1").Request("cpu", "1").
				PodSet("b", 2).Request("nvidia.com/gpu", "1").Request("cpu", "2").
				PodSet("c", 1).Request("nvidia.com/vgpu", "2").Request("nvidia.com/vgpucores", "20").Request("nvidia.com/vgpumem", "1024").
				PodSet("d", 2).Request("nvidia.com/vgpu", "2").Request("nvidia.com/vgpucores", "30").Request("nvidia.com/vgpumem", "2048").
				Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"nvidia.com/mig-1g.5gb":  replace("example.com/accelerator-memory", "5Ki", "example.com/credits", "10"),
				"nvidia.com/mig-2g.10gb": replace("example.com/accelerator-memory", "10Ki", "example.com/credits", "15"),
				"nvidia.com/gpu":         retain("example.com/accelerator-memory", "40Ki", "example.com/credits", "100"),
				"nvidia.com/vgpucores":   multiplied(replace("nvidia.com/total-vgpucores", "1"), "nvidia.com/vgpu"),
				"nvidia.com/vgpumem":     multiplied(replace("nvidia.com/total-vgpumem", "1"), "nvidia.com/vgpu"),
			}},
			want: []ps{
				{name: "a", total: map[corev1.ResourceName]int64{"cpu": 1000, "example.com/accelerator-memory": 20 * 1024, "example.com/credits": 35}},
				{name: "b", total: map[corev1.ResourceName]int64{"cpu": 4000, "example.com/accelerator-memory": 80 * 1024, "example.com/credits": 200, "nvidia.com/gpu": 2}},
				{name: "c", total: map[corev1.ResourceName]int64{"nvidia.com/vgpu": 2, "nvidia.com/total-vgpucores": 40, "nvidia.com/total-vgpumem": 2048}},
				{name: "d", total: map[corev1.ResourceName]int64{"nvidia.com/vgpu": 4, "nvidia.com/total-vgpucores": 120, "nvidia.com/total-vgpumem": 8192}},
			}},
		{name: "transformAllowanceAboveIt",
			wl:    MakeWorkload("ns", "w").PodSet("a", 1).Request("nvidia.com/gpumem", "2048").Request("nvidia.com/gpu", "2").Obj(),
			rules: gpuMemAllowance(),
			want:  []ps{{name: "a", total: map[corev1.ResourceName]int64{"quota.example.com/gpu-memory-overage": 2048, "nvidia.com/gpu": 2}}}},
		{name: "transformAllowanceExactlyAtIt",
			wl:    MakeWorkload("ns", "w").PodSet("a", 1).Request("nvidia.com/gpumem", "1024").Request("nvidia.com/gpu", "2").Obj(),
			rules: gpuMemAllowance(),
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"nvidia.com/gpu": 2},
				zero: []corev1.ResourceName{"quota.example.com/gpu-memory-overage"}}}},
		{name: "transformAllowanceUnderIt",
			wl:    MakeWorkload("ns", "w").PodSet("a", 1).Request("nvidia.com/gpumem", "512").Request("nvidia.com/gpu", "2").Obj(),
			rules: gpuMemAllowance(),
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"nvidia.com/gpu": 2},
				zero: []corev1.ResourceName{"quota.example.com/gpu-memory-overage"}}}},
		{name: "transformAllowanceDoesNotReachADirectRequest",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpu", "8").Request("example.com/credit", "3").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/credit": replace("example.com/gpu", "-1")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpu": 8}}}},
		{name: "transformOutputSharingANameWithARequestIsAdded",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpu", "1").Request("example.com/credit", "1").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/credit": replace("example.com/gpu", "1")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpu": 2}}}},
		{name: "transformOutputSharingANameWithItsRetainedInputIsAdded",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpu", "1").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/gpu": retain("example.com/gpu", "5")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpu": 6}}}},
		{name: "transformRetainWithMultiplyBy",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpumem", "1024").Request("example.com/gpu", "2").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/gpumem": multiplied(retain("example.com/gpumem-quota", "1"), "example.com/gpu")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpumem": 1024, "example.com/gpumem-quota": 2048, "example.com/gpu": 2}}}},
		{name: "transformRetainWithMultiplyByUnderOne",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpumem", "1024").Request("cpu", "500m").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/gpumem": multiplied(retain("example.com/gpumem-quota", "1"), "cpu")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpumem": 1024, "example.com/gpumem-quota": 512, "cpu": 500}}}},
		{name: "transformOutputSharingANameWithItsRetainedInputIsAddedToTheAmountRequested",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/gpu", "1").Request("example.com/node", "2").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/gpu": multiplied(retain("example.com/gpu", "1"), "example.com/node")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpu": 3, "example.com/node": 2}}}},
		{name: "transformProductPastTheRangeIsNotFlooredAway",
			wl: MakeWorkload("ns", "w").PodSet("a", 1).Request("example.com/credit", "10000000000").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"example.com/credit": replace("example.com/gpu", "10000000000")}},
			want: []ps{{name: "a", total: map[corev1.ResourceName]int64{"example.com/gpu": math.MaxInt64}}}},
		{name: "transformMilliValues",
			wl: MakeWorkload("ns", "w").Request("cpu", "100m").Request("memory", "100M").Obj(),
			rules: &workload.ResourceRules{Transformations: map[corev1.ResourceName]workload.Transformation{
				"cpu":    replace("example.com/cpu-credits", "3000"),
				"memory": replace("example.com/memory-credits", "3m"),
			}},
			want: []ps{{name: "main", total: map[corev1.ResourceName]int64{"example.com/cpu-credits": 300, "example.com/memory-credits": 300 * 1000}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := workload.FromAPIWith(tc.wl, tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			if len(info.PodSets) != len(tc.want) {
				t.Fatalf("%d pod sets, want %d", len(info.PodSets), len(tc.want))
			}
			for i, w := range tc.want {
				got := info.PodSets[i]
				want := resources.Requests{}
				for k, v := range w.total {
					want[k] = v
				}
				if got.Name != w.name || !reflect.DeepEqual(got.Total, want) || !reflect.DeepEqual(got.Zero, w.zero) {
					t.Errorf("pod set %d: %s %v zero %v, want %s %v zero %v", i, got.Name, got.Total, got.Zero, w.name, want, w.zero)
				}
			}
		})
	}
}

// Without rules (the Configuration has no resources block) requests count as
// they are, and a nil *ResourceRules is what FromAPI uses.
func TestNoResourceRulesCountsRequestsAsTheyAre(t *testing.T) {
	wl := MakeWorkload("ns", "w").Request("cpu", "1").Request("networking.example.com/vpc1", "1").Obj()
	a, err := workload.FromAPI(wl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := workload.FromAPIWith(wl, &workload.ResourceRules{})
	if err != nil {
		t.Fatal(err)
	}
	want := resources.Requests{"cpu": 1000, "networking.example.com/vpc1": 1}
	if !reflect.DeepEqual(a.PodSets[0].Total, want) || !reflect.DeepEqual(b.PodSets[0].Total, want) {
		t.Fatalf("totals %v and %v, want %v", a.PodSets[0].Total, b.PodSets[0].Total, want)
	}
}
