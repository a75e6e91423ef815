package workload_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// admittedAs sets status.admission in cq "foo", flavor f1, with Kueue's
// resourceUsage and count for the pod set main.
func admittedAs(w *WorkloadWrapper, cpu, mem string, count int32) *WorkloadWrapper {
	w.Status.Admission = &kueue.Admission{ClusterQueue: "foo", PodSetAssignments: []kueue.PodSetAssignment{{
		Name:    kueue.DefaultPodSetName,
		Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f1", corev1.ResourceMemory: "f1"},
		ResourceUsage: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(mem),
		},
		Count: ptr.To(count),
	}}}
	return w
}

// Kueue: pkg/workload/workload_test.go (v0.17.0), TestNewInfo, its five
// reclaimable cases: a pending workload asks for its pods less the
// reclaimable ones; an admitted one is charged its admission scaled down to
// the pods still needed, and with the ReclaimablePods gate off, all of them.
func TestKueueNewInfoReclaimablePods(t *testing.T) {
	pending := func() *WorkloadWrapper {
		return MakeWorkload("ns", "wl").PodSet(string(kueue.DefaultPodSetName), 5).
			Request(corev1.ResourceCPU, "10m").Request(corev1.ResourceMemory, "512Ki")
	}
	admitted := func() *WorkloadWrapper {
		return MakeWorkload("ns", "wl").PodSet(string(kueue.DefaultPodSetName), 5).
			Request(corev1.ResourceCPU, "10m").Request(corev1.ResourceMemory, "10Ki")
	}
	cases := []struct {
		name    string
		wl      *kueue.Workload
		gateOff bool
		// count and requests are the pod set's (pending) or its
		// admission's (admitted).
		count    int32
		requests resources.Requests
	}{
		{
			name:     "pending with reclaim; reclaimablePods on",
			wl:       pending().Reclaimable("main", 2).Obj(),
			count:    3,
			requests: resources.Requests{corev1.ResourceCPU: 3 * 10, corev1.ResourceMemory: 3 * 512 * 1024},
		},
		{
			name:     "pending with reclaim; reclaimablePods off",
			wl:       pending().Reclaimable("main", 2).Obj(),
			gateOff:  true,
			count:    5,
			requests: resources.Requests{corev1.ResourceCPU: 5 * 10, corev1.ResourceMemory: 5 * 512 * 1024},
		},
		{
			name:     "admitted with reclaim; reclaimablePods on",
			wl:       admittedAs(admitted(), "30m", "30Ki", 3).Reclaimable("main", 2).Obj(),
			count:    3,
			requests: resources.Requests{corev1.ResourceCPU: 3 * 10, corev1.ResourceMemory: 3 * 10 * 1024},
		},
		{
			name:     "admitted with reclaim; reclaimablePods off",
			wl:       admittedAs(admitted(), "50m", "50Ki", 5).Reclaimable("main", 2).Obj(),
			gateOff:  true,
			count:    5,
			requests: resources.Requests{corev1.ResourceCPU: 5 * 10, corev1.ResourceMemory: 5 * 10 * 1024},
		},
		{
			name:     "admitted with reclaim and increased reclaim",
			wl:       admittedAs(admitted(), "30m", "30Ki", 3).Reclaimable("main", 3).Obj(),
			count:    2,
			requests: resources.Requests{corev1.ResourceCPU: 2 * 10, corev1.ResourceMemory: 2 * 10 * 1024},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wl := tc.wl
			if tc.gateOff {
				wl = workload.IgnoringReclaimablePods(wl)
			}
			info, err := workload.FromAPI(wl)
			if err != nil {
				t.Fatal(err)
			}
			count, requests := info.PodSets[0].Count, info.PodSets[0].Total
			if info.Admission != nil {
				count, requests = info.Admission.PodSets[0].Count, info.Admission.PodSets[0].Usage
			}
			if count != tc.count || !reflect.DeepEqual(requests, tc.requests) {
				t.Errorf("count %d, requests %v; want %d, %v", count, requests, tc.count, tc.requests)
			}
			if tc.gateOff && len(tc.wl.Status.ReclaimablePods) == 0 {
				t.Error("IgnoringReclaimablePods changed the workload it was given")
			}
		})
	}
}

// A partial admission keeps its count while the pods still needed are at
// least as many (Kueue: "otherwise ... the podSet was partially admitted and
// the count should be preserved"); a charge that does not divide evenly is
// divided per pod first, as Kueue's Divide and Mul do; a reclaimable count
// above the pod set's is held to it.
func TestReclaimablePodsScaleAdmissions(t *testing.T) {
	cases := []struct {
		name     string
		wl       *kueue.Workload
		count    int32
		requests resources.Requests
	}{
		{
			name:     "partially admitted with 3 of 5, 1 reclaimable",
			wl:       admittedAs(MakeWorkload("ns", "wl").PodSet("main", 5).Request(corev1.ResourceCPU, "10m"), "30m", "30Ki", 3).Reclaimable("main", 1).Obj(),
			count:    3,
			requests: resources.Requests{corev1.ResourceCPU: 30, corev1.ResourceMemory: 30 * 1024},
		},
		{
			name:     "uneven charge",
			wl:       admittedAs(MakeWorkload("ns", "wl").PodSet("main", 3).Request(corev1.ResourceCPU, "1"), "10m", "10", 3).Reclaimable("main", 1).Obj(),
			count:    2,
			requests: resources.Requests{corev1.ResourceCPU: 6, corev1.ResourceMemory: 6},
		},
		{
			name:     "all reclaimable, and more",
			wl:       admittedAs(MakeWorkload("ns", "wl").PodSet("main", 3).Request(corev1.ResourceCPU, "1"), "3", "3Ki", 3).Reclaimable("main", 7).Obj(),
			count:    0,
			requests: resources.Requests{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := workload.FromAPI(tc.wl)
			if err != nil {
				t.Fatal(err)
			}
			a := info.Admission.PodSets[0]
			if a.Count != tc.count || !reflect.DeepEqual(a.Usage, tc.requests) {
				t.Errorf("count %d, usage %v; want %d, %v", a.Count, a.Usage, tc.count, tc.requests)
			}
			if len(info.Admission.Usage) != len(tc.requests) {
				t.Errorf("charge %v, want one cell per resource of %v", info.Admission.Usage, tc.requests)
			}
		})
	}
}
