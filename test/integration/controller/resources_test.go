//go:build integration

package controller

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's "Resource Transformations" integration suite through the manager
// (test/integration/singlecluster/scheduler/resourcetransformations, v0.19.2,
// "should transform resources with MultiplyBy" and "should handle multiple
// PodSets with transformations"): with the Configuration's resources block,
// the admission written on the Workload charges, per pod set, what the
// transformations count: gpucores and gpumem times the gpus, mig slices as
// accelerator memory and credits. An excluded prefix needs no quota.
func TestKueueResourceTransformationsThroughTheManager(t *testing.T) {
	ns := "transformations"
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}),
		makeCQ(ns).selector("team", ns).flavor("default",
			quota("example.com/accelerator-memory", "100Gi", "", ""), quota("example.com/credits", "1000", "", ""),
			quota("nvidia.com/gpu", "50", "", ""), quota("nvidia.com/total-gpucores", "1000", "", ""),
			quota("nvidia.com/total-gpumem", "102400", "", "")).obj(),
		makeLQ(ns, "test-lq", ns))
	multi := makeWL(ns, "multi-podset-wl", "test-lq", "nvidia.com/mig-1g.5gb", "2")
	multi.Spec.PodSets[0].Name = "ps01"
	ps02 := *makeWL(ns, "", "", "nvidia.com/gpu", "1", "nvidia.com/gpucores", "10").Spec.PodSets[0].DeepCopy()
	ps02.Name, ps02.Count = "ps02", 2
	multi.Spec.PodSets = append(multi.Spec.PodSets, ps02)
	create(t, makeWL(ns, "multiply-wl", "test-lq", "nvidia.com/gpu", "2", "nvidia.com/gpucores", "20", "nvidia.com/gpumem", "1024",
		"networking.example.com/vpc1", "1"), multi)
	startManager(t, func(c *configapi.Configuration) {
		c.Resources = &configapi.Resources{
			ExcludeResourcePrefixes: []string{"networking.example.com/"},
			Transformations: []configapi.ResourceTransformation{
				{Input: "nvidia.com/mig-1g.5gb", Strategy: ptr.To(configapi.Replace), Outputs: corev1.ResourceList{
					"example.com/accelerator-memory": resource.MustParse("5Ki"), "example.com/credits": resource.MustParse("10")}},
				{Input: "nvidia.com/gpucores", Strategy: ptr.To(configapi.Replace), MultiplyBy: "nvidia.com/gpu",
					Outputs: corev1.ResourceList{"nvidia.com/total-gpucores": resource.MustParse("1")}},
				{Input: "nvidia.com/gpumem", Strategy: ptr.To(configapi.Replace), MultiplyBy: "nvidia.com/gpu",
					Outputs: corev1.ResourceList{"nvidia.com/total-gpumem": resource.MustParse("1")}},
			},
		}
	})
	waitAdmitted(t, ns, "multiply-wl", "multi-podset-wl")
	want := map[string][]corev1.ResourceList{
		"multiply-wl": {{"nvidia.com/gpu": resource.MustParse("2"), "nvidia.com/total-gpucores": resource.MustParse("40"),
			"nvidia.com/total-gpumem": resource.MustParse("2048")}},
		"multi-podset-wl": {
			{"example.com/accelerator-memory": resource.MustParse("10240"), "example.com/credits": resource.MustParse("20")},
			{"nvidia.com/gpu": resource.MustParse("2"), "nvidia.com/total-gpucores": resource.MustParse("20")},
		},
	}
	eventually(t, 20*time.Second, func() string {
		for name, usage := range want {
			adm := getWL(t, ns, name).Status.Admission
			if adm == nil || len(adm.PodSetAssignments) != len(usage) {
				return fmt.Sprintf("%s: admission %+v", name, adm)
			}
			for i, u := range usage {
				got := adm.PodSetAssignments[i].ResourceUsage
				if len(got) != len(u) {
					return fmt.Sprintf("%s pod set %d: usage %v, want %v", name, i, got, u)
				}
				for r, q := range u {
					if g, ok := got[r]; !ok || g.Cmp(q) != 0 {
						return fmt.Sprintf("%s pod set %d: usage %v, want %v", name, i, got, u)
					}
				}
			}
		}
		return ""
	})
	// A workload that does not fit says, in status.resourceRequests beside
	// its pending reason, what it counts as (Kueue's PropagateResourceRequests);
	// an admitted one has none (its admission's resourceUsage says it).
	create(t, makeWL(ns, "too-big", "test-lq", "nvidia.com/gpu", "10", "nvidia.com/gpucores", "100"))
	eventually(t, 20*time.Second, func() string {
		w := getWL(t, ns, "too-big")
		c := cond(w, kueue.WorkloadQuotaReserved)
		if c == nil || c.Status != "False" || len(w.Status.ResourceRequests) != 1 {
			return fmt.Sprintf("too-big: QuotaReserved %+v, resourceRequests %+v", c, w.Status.ResourceRequests)
		}
		got := w.Status.ResourceRequests[0].Resources
		if q := got["nvidia.com/total-gpucores"]; q.Cmp(resource.MustParse("1000")) != 0 || len(got) != 2 {
			return fmt.Sprintf("too-big: resourceRequests %v, want 10 gpus and 1000 total-gpucores", got)
		}
		return ""
	})
	if rr := getWL(t, ns, "multiply-wl").Status.ResourceRequests; len(rr) != 0 {
		t.Errorf("admitted multiply-wl has resourceRequests %v", rr)
	}

	var cq kueue.ClusterQueue
	eventually(t, 20*time.Second, func() string {
		if err := env.Client.Get(t.Context(), keyOf("", ns), &cq); err != nil {
			return err.Error()
		}
		for _, f := range cq.Status.FlavorsReservation {
			for _, r := range f.Resources {
				if r.Name == "nvidia.com/total-gpucores" && r.Total.Cmp(resource.MustParse("60")) == 0 {
					return ""
				}
			}
		}
		return fmt.Sprintf("ClusterQueue reservation %+v, want 60 total-gpucores", cq.Status.FlavorsReservation)
	})
}
