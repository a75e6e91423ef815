package flavorassigner

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// benchCache is a generated week's shape: queues of two flavors and three
// resources under ten Cohorts under one root, all of it in use.
func benchCache(b *testing.B) (*quota.Cache, *quota.ClusterQueue) {
	const gpu = corev1.ResourceName("nvidia.com/gpu")
	c := quota.New(quota.Options{})
	for _, f := range []string{"a100", "h100"} {
		c.UpsertResourceFlavor(MakeFlavor(f).Obj())
	}
	if err := c.UpsertCohort(MakeCohort("root").Obj()); err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		co := MakeCohort(fmt.Sprintf("org-%d", i)).Obj()
		co.Spec.ParentName = "root"
		if err := c.UpsertCohort(co); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		w := MakeClusterQueue(fmt.Sprintf("team-%03d", i)).Cohort(fmt.Sprintf("org-%d", i%10))
		for _, f := range []string{"h100", "a100"} {
			w.Quota(f, corev1.ResourceCPU, "96").Quota(f, corev1.ResourceMemory, "960Gi").Quota(f, gpu, "8")
		}
		if err := c.UpsertClusterQueue(w.Obj()); err != nil {
			b.Fatal(err)
		}
		for _, f := range []string{"h100", "a100"} {
			c.Charge(types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("wl-%d-%s", i, f)}, w.Name, resources.Amounts{
				{Flavor: f, Resource: corev1.ResourceCPU}: 96000, {Flavor: f, Resource: corev1.ResourceMemory}: 960 << 30,
				{Flavor: f, Resource: gpu}: 8})
		}
	}
	q, _ := c.ClusterQueue("team-007")
	return c, q
}

func BenchmarkAssign(b *testing.B) {
	c, q := benchCache(b)
	wl, err := workload.FromAPI(MakeWorkload("ns", "wl").Request(corev1.ResourceCPU, "12").
		Request(corev1.ResourceMemory, "120Gi").Request("nvidia.com/gpu", "1").Obj())
	if err != nil {
		b.Fatal(err)
	}
	for _, quiet := range []bool{false, true} {
		b.Run(fmt.Sprintf("unfit/quiet=%v", quiet), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Assign(c, q, wl.PodSets, Options{Quiet: quiet}).Fits {
					b.Fatal("fits")
				}
			}
		})
	}
}
