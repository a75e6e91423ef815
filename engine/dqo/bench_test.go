package dqo

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// benchSubtree is a subtree of 1,000 ClusterQueues under 10 Cohorts under one root,
// each ClusterQueue listing 16 flavors × 4 resources = 64 orchestrated pairs in one
// resource group.
func benchSubtree() ([]*v1beta2.ClusterQueue, []*v1beta2.Cohort, *Capacity) {
	res := []corev1.ResourceName{"cpu", "memory", gpu, "pods"}
	capacity := newCapacity(16)
	var flavors []string
	for f := 0; f < 16; f++ {
		name := fmt.Sprintf("flavor-%02d", f)
		flavors = append(flavors, name)
		capacity.flavors[name] = map[corev1.ResourceName]int64{"cpu": 1_000_003, "memory": 1 << 44, gpu: 8191, "pods": 110_000}
	}
	cohorts := []*v1beta2.Cohort{makeCohort("org").Obj()}
	for c := 0; c < 10; c++ {
		cohorts = append(cohorts, makeCohort(fmt.Sprintf("team-%d", c)).Parent("org").Obj())
	}
	cqs := make([]*v1beta2.ClusterQueue, 0, 1000)
	for q := 0; q < 1000; q++ {
		var fqs []v1beta2.FlavorQuotas
		for _, f := range flavors {
			var rqs []v1beta2.ResourceQuota
			for i, r := range res {
				rqs = append(rqs, quota(r, fmt.Sprint(1+(q*7+i)%13)))
			}
			fqs = append(fqs, flavor(f, rqs...))
		}
		cqs = append(cqs, makeCQ(fmt.Sprintf("cq-%04d", q)).Cohort(fmt.Sprintf("team-%d", q%10)).Group(fqs...).Obj())
	}
	return cqs, cohorts, capacity
}

// Distribute alone, over a prebuilt tree: what a reconcile pays per orchestrator.
func BenchmarkDistribute1000Queues64Pairs(b *testing.B) {
	cqs, cohorts, capacity := benchSubtree()
	d := makeDQO("prod").Provider("nodes", "").Root(v1alpha1.CohortKind, "org").Obj()
	tree := NewTree(cqs, cohorts)
	res := ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{d}, tree)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := Distribute(d, capacity, tree, res, t0)
		if len(r.Updates) != 1011 {
			b.Fatalf("updates = %d", len(r.Updates))
		}
	}
}

// NewTree, ResolveConflicts and Distribute together: a reconcile from scratch.
func BenchmarkTreeAndDistribute1000Queues64Pairs(b *testing.B) {
	cqs, cohorts, capacity := benchSubtree()
	d := makeDQO("prod").Provider("nodes", "").Root(v1alpha1.CohortKind, "org").Obj()
	dqos := []*v1alpha1.DynamicQuotaOrchestrator{d}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tree := NewTree(cqs, cohorts)
		Distribute(d, capacity, tree, ResolveConflicts(dqos, tree), t0)
	}
}

// The splitter on one pair of 1,000 participants.
func BenchmarkSplit1000(b *testing.B) {
	claims := claimsOf(make([]int64, 1000)...)
	for i := range claims {
		claims[i].weight = int64(1 + i%13)
	}
	out := make([]int64, len(claims))
	var s splitter
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.split(1_000_003, claims, out)
	}
}
