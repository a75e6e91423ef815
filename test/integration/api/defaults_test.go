//go:build integration

package api

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueuealpha "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Issue 2: "defaults are applied (multiplier 1, queueingStrategy BestEffortFIFO, and
// the other Kueue defaults you declare)".
func TestKueueDefaultsAreApplied(t *testing.T) {
	ctx := context.Background()

	c := mustObject(t, cq("defaults", gpuGroup))
	if err := env.Client.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	got := &kueue.ClusterQueue{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "defaults"}, got); err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	if s.QueueingStrategy != kueue.BestEffortFIFO {
		t.Errorf("queueingStrategy = %q, want BestEffortFIFO", s.QueueingStrategy)
	}
	if s.StopPolicy == nil || *s.StopPolicy != kueue.None {
		t.Errorf("stopPolicy = %v, want None", s.StopPolicy)
	}
	if s.FlavorFungibility == nil || s.FlavorFungibility.WhenCanBorrow != kueue.MayStopSearch || s.FlavorFungibility.WhenCanPreempt != kueue.TryNextFlavor {
		t.Errorf("flavorFungibility = %+v, want whenCanBorrow MayStopSearch and whenCanPreempt TryNextFlavor", s.FlavorFungibility)
	}
	if s.Preemption == nil || s.Preemption.ReclaimWithinCohort != kueue.PreemptionPolicyNever || s.Preemption.WithinClusterQueue != kueue.PreemptionPolicyNever ||
		s.Preemption.BorrowWithinCohort == nil || s.Preemption.BorrowWithinCohort.Policy != kueue.BorrowWithinCohortPolicyNever {
		t.Errorf("preemption = %+v, want Never everywhere", s.Preemption)
	}

	d := mustObject(t, dqo("defaults", "capacityDiscovery:\n  providers:\n  - name: p\n"))
	if err := env.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	gotDQO := &kueuealpha.DynamicQuotaOrchestrator{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "defaults"}, gotDQO); err != nil {
		t.Fatal(err)
	}
	m := gotDQO.Spec.CapacityDiscovery.Providers[0].EffectiveCapacityMultiplier
	if m == nil || m.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("effectiveCapacityMultiplier = %v, want 1", m)
	}

	w := mustObject(t, `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: defaults
  namespace: default
spec:
  queueName: q
  podSets:
  - template:
      spec:
        containers:
        - name: c
          image: busybox
`)
	if err := env.Client.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	gotWL := &kueue.Workload{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "defaults"}, gotWL); err != nil {
		t.Fatal(err)
	}
	ps := gotWL.Spec.PodSets[0]
	if ps.Name != kueue.DefaultPodSetName || ps.Count != 1 {
		t.Errorf("pod set = %s × %d, want main × 1", ps.Name, ps.Count)
	}
	if gotWL.Spec.Active == nil || !*gotWL.Spec.Active {
		t.Errorf("active = %v, want true", gotWL.Spec.Active)
	}

	f := mustObject(t, cq("weight-default", "fairSharing: {}\n"+gpuGroup))
	if err := env.Client.Create(ctx, f); err != nil {
		t.Fatal(err)
	}
	gotF := &kueue.ClusterQueue{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "weight-default"}, gotF); err != nil {
		t.Fatal(err)
	}
	if gotF.Spec.FairSharing == nil || gotF.Spec.FairSharing.Weight == nil || gotF.Spec.FairSharing.Weight.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("fairSharing.weight = %+v, want 1", gotF.Spec.FairSharing)
	}
}
