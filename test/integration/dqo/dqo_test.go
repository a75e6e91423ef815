//go:build integration

package dqo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueuealpha "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// 000: "team-a has a nominal quota of 10 CPUs and team-b has 20 CPUs. If the
// effective capacity is 48 CPUs, team-a gets 16 and team-b gets 32." and "10 units
// split equally over three ClusterQueues gives 4, 3 and 3", on a two-level subtree
// (root Cohort → child Cohort with resourceGroups → ClusterQueues) fed by two
// providers, one with a multiplier, whose status is written by hand.
func TestProportionalDistributionOnTwoLevelSubtree(t *testing.T) {
	t.Parallel()
	createProvider(t, "prop-main", map[string]corev1.ResourceList{
		"cpu-f": list(cpu, "40"),
		"gpu-f": list(gpu, "10"),
	}, "cpu-f", "gpu-f")
	createProvider(t, "prop-half", map[string]corev1.ResourceList{"cpu-f": list(cpu, "16")}, "cpu-f")

	createCohort(t, "prop-root", "")
	child := createCohort(t, "prop-child", "prop-root", rg(res(gpu), fq("gpu-f", "2")))
	a := createClusterQueue(t, "prop-a", "prop-child",
		rg(res(cpu), fq("cpu-f", "10"), fq("spot", "5")),
		rg(res(gpu), fq("gpu-f", "2")))
	b := createClusterQueue(t, "prop-b", "prop-child",
		rg(res(cpu), fq("cpu-f", "20")),
		rg(res(gpu), fq("gpu-f", "2")))
	createOrchestrator(t, "prop", "prop-root", provided{name: "prop-main"}, provided{name: "prop-half", multiplier: "0.5"})

	// 000: "Kueue rounds down to whole units ... It gives the units that are left
	// over to the participants with the largest remainders. Ties go to the smaller
	// UID." The three gpu participants have equal remainders.
	gpuShare := map[types.UID]string{child.UID: "3", a.UID: "3", b.UID: "3"}
	gpuShare[slices.Min([]types.UID{child.UID, a.UID, b.UID})] = "4"

	eventually(t, "orchestrator status", func() error {
		d := getDQO(t, "prop")
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed); err != nil {
			return err
		}
		if err := condition(d, kueuealpha.Distributed, metav1.ConditionTrue, kueuealpha.ReasonQuotasDistributed); err != nil {
			return err
		}
		// 40 × 1 + 16 × 0.5 = 48.
		if err := wantCapacity(d, "cpu-f", cpu, "48"); err != nil {
			return err
		}
		return wantCapacity(d, "gpu-f", gpu, "10")
	})
	eventually(t, "effective quotas", func() error {
		for _, c := range []struct {
			eq       *kueue.EffectiveQuotas
			who      string
			flavor   string
			resource corev1.ResourceName
			want     string
		}{
			{getCQ(t, "prop-a").Status.EffectiveQuotas, "prop-a", "cpu-f", cpu, "16"},
			{getCQ(t, "prop-b").Status.EffectiveQuotas, "prop-b", "cpu-f", cpu, "32"},
			// 000: "A flavor that DQO does not orchestrate keeps its quota from spec.resourceGroups."
			{getCQ(t, "prop-a").Status.EffectiveQuotas, "prop-a", "spot", cpu, "5"},
			{getCQ(t, "prop-a").Status.EffectiveQuotas, "prop-a", "gpu-f", gpu, gpuShare[a.UID]},
			{getCQ(t, "prop-b").Status.EffectiveQuotas, "prop-b", "gpu-f", gpu, gpuShare[b.UID]},
			// "The split is flat: Cohorts and ClusterQueues at every level of the
			// subtree share one pool."
			{getCohort(t, "prop-child").Status.EffectiveQuotas, "prop-child", "gpu-f", gpu, gpuShare[child.UID]},
		} {
			if err := wantNominal(c.eq, "prop", c.flavor, c.resource, c.want); err != nil {
				return fmt.Errorf("%s: %w", c.who, err)
			}
		}
		// 000: "A Cohort with no spec.resourceGroups gets an empty list of effective quotas."
		root := getCohort(t, "prop-root").Status.EffectiveQuotas
		if root == nil || len(root.ResourceGroups) != 0 || root.OrchestratorRef.Name != "prop" {
			return fmt.Errorf("root Cohort effectiveQuotas = %+v, want an empty list written by prop", root)
		}
		return nil
	})

	// The numbers follow the provider: 64 + 8 = 72 CPUs give 24 and 48.
	publish(t, "prop-main", map[string]corev1.ResourceList{"cpu-f": list(cpu, "64"), "gpu-f": list(gpu, "10")})
	eventually(t, "effective quotas after the provider grew", func() error {
		if err := wantNominal(getCQ(t, "prop-a").Status.EffectiveQuotas, "prop", "cpu-f", cpu, "24"); err != nil {
			return fmt.Errorf("prop-a: %w", err)
		}
		if err := wantNominal(getCQ(t, "prop-b").Status.EffectiveQuotas, "prop", "cpu-f", cpu, "48"); err != nil {
			return fmt.Errorf("prop-b: %w", err)
		}
		return wantCapacity(getDQO(t, "prop"), "cpu-f", cpu, "72")
	})
	// The controller never touches a spec.
	if got := getCQ(t, "prop-a").Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota; got.String() != "10" {
		t.Errorf("prop-a spec nominalQuota = %s, want the unchanged 10", got.String())
	}
}

// 001: "DQO clears this field if any referenced provider is missing or does not have
// CapacitySynchronized=True." and 000: "Effective quotas stay on every object that
// the orchestrator no longer writes ... when Distributed becomes False for any
// reason, such as a discovery failure".
func TestProviderSourceUnavailableClearsCapacityAndKeepsQuotas(t *testing.T) {
	t.Parallel()
	createProvider(t, "down-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "30")}, "cpu-f")
	createCohort(t, "down-root", "")
	createClusterQueue(t, "down-a", "down-root", rg(res(cpu), fq("cpu-f", "1")))
	createClusterQueue(t, "down-b", "down-root", rg(res(cpu), fq("cpu-f", "2")))
	createOrchestrator(t, "down", "down-root", provided{name: "down-p"})

	eventually(t, "first distribution", func() error {
		if err := condition(getDQO(t, "down"), kueuealpha.Distributed, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "down-a").Status.EffectiveQuotas, "down", "cpu-f", cpu, "10")
	})
	before := getCQ(t, "down-a")

	updateProviderStatus(t, "down-p", func(cp *kueuealpha.CapacityProvider) {
		meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{
			Type: kueuealpha.CapacitySynchronized, Status: metav1.ConditionFalse,
			Reason: kueuealpha.CapacityProviderReasonSourceUnavailable, Message: "inventory API unreachable",
			ObservedGeneration: cp.Generation,
		})
	})
	eventually(t, "orchestrator after the provider became unavailable", func() error {
		d := getDQO(t, "down")
		if d.Status.EffectiveCapacity != nil {
			return fmt.Errorf("status.effectiveCapacity = %+v, want it cleared", d.Status.EffectiveCapacity)
		}
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionFalse, kueuealpha.ReasonProviderNotReady); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(d.Status.Conditions, kueuealpha.EffectiveCapacityComputed); !strings.Contains(c.Message, "SourceUnavailable") {
			return fmt.Errorf("EffectiveCapacityComputed message %q does not say why the provider is not ready", c.Message)
		}
		return condition(d, kueuealpha.Distributed, metav1.ConditionFalse, kueuealpha.ReasonEffectiveCapacityNotComputed)
	})
	consistently(t, "effective quotas while the provider is unavailable", func() error {
		cq := getCQ(t, "down-a")
		if cq.ResourceVersion != before.ResourceVersion {
			return fmt.Errorf("ClusterQueue down-a was written (resourceVersion %s → %s): %+v", before.ResourceVersion, cq.ResourceVersion, cq.Status.EffectiveQuotas)
		}
		return wantNominal(cq.Status.EffectiveQuotas, "down", "cpu-f", cpu, "10")
	})

	// When the provider recovers with new capacity, distribution resumes.
	publish(t, "down-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "60")})
	eventually(t, "distribution after the provider recovered", func() error {
		if err := condition(getDQO(t, "down"), kueuealpha.Distributed, metav1.ConditionTrue, kueuealpha.ReasonQuotasDistributed); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "down-b").Status.EffectiveQuotas, "down", "cpu-f", cpu, "40")
	})
}

// 000: "Kueue uses the capacity only when CapacitySynchronized is True and the
// condition's observedGeneration equals the object's metadata.generation. Otherwise
// Kueue treats the provider as not ready."
func TestProviderSpecChangeWithoutMatchingObservedGenerationIsNotReady(t *testing.T) {
	t.Parallel()
	createProvider(t, "gen-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "8")}, "cpu-f")
	createOrchestrator(t, "gen", "", provided{name: "gen-p"})
	eventually(t, "capacity computed", func() error {
		d := getDQO(t, "gen")
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed); err != nil {
			return err
		}
		return wantCapacity(d, "cpu-f", cpu, "8")
	})

	// Edit the spec: the generation moves to 2, the condition still observes 1.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cp := &kueuealpha.CapacityProvider{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: "gen-p"}, cp); err != nil {
			return err
		}
		cp.Spec.OrchestratedFlavors = append(cp.Spec.OrchestratedFlavors, kueuealpha.OrchestratedFlavor{Name: "gpu-f"})
		return env.Client.Update(context.Background(), cp)
	})
	if err != nil {
		t.Fatalf("editing spec.orchestratedFlavors: %v", err)
	}
	eventually(t, "provider not ready after the spec change", func() error {
		d := getDQO(t, "gen")
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionFalse, kueuealpha.ReasonProviderNotReady); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(d.Status.Conditions, kueuealpha.EffectiveCapacityComputed); !strings.Contains(c.Message, "observedGeneration") {
			return fmt.Errorf("message %q does not name the stale observedGeneration", c.Message)
		}
		if d.Status.EffectiveCapacity != nil {
			return fmt.Errorf("status.effectiveCapacity = %+v, want it cleared", d.Status.EffectiveCapacity)
		}
		if c := meta.FindStatusCondition(d.Status.Conditions, kueuealpha.Distributed); c != nil {
			return fmt.Errorf("discovery-only orchestrator has %+v", c)
		}
		return nil
	})

	// The provider controller catches up; the new flavor, reported with no
	// resources, counts with zero capacity (001: "An empty resources map means zero
	// capacity for all resources of the flavor").
	publish(t, "gen-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "8")})
	eventually(t, "capacity computed after the provider caught up", func() error {
		d := getDQO(t, "gen")
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed); err != nil {
			return err
		}
		if d.Status.EffectiveCapacity == nil || !slices.ContainsFunc(d.Status.EffectiveCapacity.Flavors, func(f kueuealpha.FlavorCapacity) bool {
			return f.Name == "gpu-f" && len(f.Resources) == 0
		}) {
			return fmt.Errorf("status.effectiveCapacity = %+v, want flavor gpu-f with no resources", d.Status.EffectiveCapacity)
		}
		return wantCapacity(d, "cpu-f", cpu, "8")
	})
}

// 000: "If two orchestrators manage overlapping subtrees, the one with the higher
// root wins." and "The winner keeps precedence even when it is not distributing,
// for example because its discovery fails. Then no orchestrator updates the
// subtree." The loser is the older one, so height, not age, decides.
func TestOverlappingSubtreesHigherRootWins(t *testing.T) {
	t.Parallel()
	createProvider(t, "ovl-p-low", map[string]corev1.ResourceList{"cpu-f": list(cpu, "30")}, "cpu-f")
	createProvider(t, "ovl-p-high", map[string]corev1.ResourceList{"cpu-f": list(cpu, "80")}, "cpu-f")
	createCohort(t, "ovl-root", "")
	createCohort(t, "ovl-child", "ovl-root")
	createClusterQueue(t, "ovl-a", "ovl-child", rg(res(cpu), fq("cpu-f", "10")))
	createClusterQueue(t, "ovl-b", "ovl-child", rg(res(cpu), fq("cpu-f", "20")))
	createClusterQueue(t, "ovl-c", "ovl-root", rg(res(cpu), fq("cpu-f", "10")))

	createOrchestrator(t, "ovl-low", "ovl-child", provided{name: "ovl-p-low"})
	eventually(t, "the lower orchestrator distributes while alone", func() error {
		return wantNominal(getCQ(t, "ovl-a").Status.EffectiveQuotas, "ovl-low", "cpu-f", cpu, "10")
	})

	createOrchestrator(t, "ovl-high", "ovl-root", provided{name: "ovl-p-high"})
	eventually(t, "the higher root takes over", func() error {
		low := getDQO(t, "ovl-low")
		if err := condition(low, kueuealpha.Distributed, metav1.ConditionFalse, kueuealpha.ReasonConflictingDynamicQuotaOrchestrator); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(low.Status.Conditions, kueuealpha.Distributed); !strings.Contains(c.Message, `"ovl-high"`) {
			return fmt.Errorf("the loser's message %q does not name the winner", c.Message)
		}
		// The loser's own discovery is unaffected.
		if err := condition(low, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed); err != nil {
			return err
		}
		if err := condition(getDQO(t, "ovl-high"), kueuealpha.Distributed, metav1.ConditionTrue, kueuealpha.ReasonQuotasDistributed); err != nil {
			return err
		}
		// 80 CPUs over 10, 20 and 10.
		for name, want := range map[string]string{"ovl-a": "20", "ovl-b": "40", "ovl-c": "20"} {
			if err := wantNominal(getCQ(t, name).Status.EffectiveQuotas, "ovl-high", "cpu-f", cpu, want); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})

	// The winner's discovery fails: it keeps precedence, and nobody writes.
	updateProviderStatus(t, "ovl-p-high", func(cp *kueuealpha.CapacityProvider) {
		meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{
			Type: kueuealpha.CapacitySynchronized, Status: metav1.ConditionFalse,
			Reason: kueuealpha.CapacityProviderReasonSourceUnavailable, Message: "down", ObservedGeneration: cp.Generation,
		})
	})
	eventually(t, "the winner stops distributing", func() error {
		return condition(getDQO(t, "ovl-high"), kueuealpha.Distributed, metav1.ConditionFalse, kueuealpha.ReasonEffectiveCapacityNotComputed)
	})
	consistently(t, "nobody writes the subtree while the winner cannot distribute", func() error {
		if err := condition(getDQO(t, "ovl-low"), kueuealpha.Distributed, metav1.ConditionFalse, kueuealpha.ReasonConflictingDynamicQuotaOrchestrator); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "ovl-a").Status.EffectiveQuotas, "ovl-high", "cpu-f", cpu, "20")
	})
}

// 000: "If they have the same root, the one with the earlier creationTimestamp
// wins." The older one's name sorts last, so neither name order nor creation order
// of the test's calls could make it pass by accident.
func TestSameRootEarlierCreationTimestampWins(t *testing.T) {
	t.Parallel()
	createProvider(t, "age-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "12")}, "cpu-f")
	createCohort(t, "age-root", "")
	createClusterQueue(t, "age-a", "age-root", rg(res(cpu), fq("cpu-f", "1")))

	older := createOrchestrator(t, "age-z-older", "age-root", provided{name: "age-p"})
	// creationTimestamp has a resolution of one second: wait for the next second
	// so that the two timestamps differ.
	time.Sleep(time.Until(older.CreationTimestamp.Add(1100 * time.Millisecond)))
	newer := createOrchestrator(t, "age-a-newer", "age-root", provided{name: "age-p"})
	if !older.CreationTimestamp.Before(&newer.CreationTimestamp) {
		t.Fatalf("creationTimestamps %s and %s are not ordered", older.CreationTimestamp, newer.CreationTimestamp)
	}

	eventually(t, "the older orchestrator wins", func() error {
		n := getDQO(t, "age-a-newer")
		if err := condition(n, kueuealpha.Distributed, metav1.ConditionFalse, kueuealpha.ReasonConflictingDynamicQuotaOrchestrator); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(n.Status.Conditions, kueuealpha.Distributed); !strings.Contains(c.Message, `"age-z-older"`) {
			return fmt.Errorf("the loser's message %q does not name the winner", c.Message)
		}
		if err := condition(getDQO(t, "age-z-older"), kueuealpha.Distributed, metav1.ConditionTrue, kueuealpha.ReasonQuotasDistributed); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "age-a").Status.EffectiveQuotas, "age-z-older", "cpu-f", cpu, "12")
	})
}

// 000: "Discovery only: leave out capacityDistribution. Kueue computes
// status.effectiveCapacity but does not change any quota." and "In discovery-only
// mode, the condition is not set." Removing capacityDistribution from a
// distributing orchestrator removes its Distributed condition and leaves the
// quotas it wrote (000, "Caveats").
func TestDiscoveryOnlyWritesNoQuotasAndSetsNoDistributedCondition(t *testing.T) {
	t.Parallel()
	createProvider(t, "disc-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "20")}, "cpu-f")
	createCohort(t, "disc-root", "")
	createClusterQueue(t, "disc-a", "disc-root", rg(res(cpu), fq("cpu-f", "10")))
	createOrchestrator(t, "disc-only", "", provided{name: "disc-p", multiplier: "0.95"})

	eventually(t, "discovery-only status", func() error {
		d := getDQO(t, "disc-only")
		if err := condition(d, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed); err != nil {
			return err
		}
		return wantCapacity(d, "cpu-f", cpu, "19")
	})
	consistently(t, "discovery-only orchestrator", func() error {
		if c := meta.FindStatusCondition(getDQO(t, "disc-only").Status.Conditions, kueuealpha.Distributed); c != nil {
			return fmt.Errorf("has %+v", c)
		}
		if eq := getCQ(t, "disc-a").Status.EffectiveQuotas; eq != nil {
			return fmt.Errorf("ClusterQueue disc-a got effective quotas %+v", eq)
		}
		if eq := getCohort(t, "disc-root").Status.EffectiveQuotas; eq != nil {
			return fmt.Errorf("cohort disc-root got effective quotas %+v", eq)
		}
		return nil
	})

	// A distributing orchestrator switched to discovery-only.
	createCohort(t, "disc-root2", "")
	createClusterQueue(t, "disc-b", "disc-root2", rg(res(cpu), fq("cpu-f", "10")))
	d := createOrchestrator(t, "disc-switch", "disc-root2", provided{name: "disc-p"})
	eventually(t, "distribution before the switch", func() error {
		if err := condition(getDQO(t, "disc-switch"), kueuealpha.Distributed, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "disc-b").Status.EffectiveQuotas, "disc-switch", "cpu-f", cpu, "20")
	})
	base := d.DeepCopy()
	d.Spec.CapacityDistribution = nil
	if err := env.Client.Patch(context.Background(), d, client.MergeFrom(base)); err != nil {
		t.Fatalf("removing capacityDistribution: %v", err)
	}
	eventually(t, "Distributed removed after the switch", func() error {
		got := getDQO(t, "disc-switch")
		if c := meta.FindStatusCondition(got.Status.Conditions, kueuealpha.Distributed); c != nil {
			return fmt.Errorf("still has %+v", c)
		}
		// The remaining condition observes the new generation.
		return condition(got, kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed)
	})
	consistently(t, "quotas stay after the switch", func() error {
		return wantNominal(getCQ(t, "disc-b").Status.EffectiveQuotas, "disc-switch", "cpu-f", cpu, "20")
	})
}

// 000: "Effective quotas stay on every object that the orchestrator no longer
// writes. This happens when you delete the DynamicQuotaOrchestrator ... change
// subtreeRootQuotaRef, or move a ClusterQueue or Cohort out of the subtree."
func TestEffectiveQuotasStayWhereTheOrchestratorNoLongerWrites(t *testing.T) {
	t.Parallel()
	createProvider(t, "keep-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "40")}, "cpu-f")
	createCohort(t, "keep-root", "")
	createClusterQueue(t, "keep-a", "keep-root", rg(res(cpu), fq("cpu-f", "10")))
	createClusterQueue(t, "keep-b", "keep-root", rg(res(cpu), fq("cpu-f", "30")))
	d := createOrchestrator(t, "keep", "keep-root", provided{name: "keep-p"})
	eventually(t, "first distribution", func() error {
		if err := wantNominal(getCQ(t, "keep-a").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "10"); err != nil {
			return err
		}
		return wantNominal(getCQ(t, "keep-b").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "30")
	})

	// Move keep-a out: keep-b gets the whole capacity, keep-a keeps its last value.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cq := getCQ(t, "keep-a")
		cq.Spec.CohortName = "keep-elsewhere"
		return env.Client.Update(context.Background(), cq)
	})
	if err != nil {
		t.Fatalf("moving keep-a out of the subtree: %v", err)
	}
	eventually(t, "redistribution without keep-a", func() error {
		return wantNominal(getCQ(t, "keep-b").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "40")
	})
	consistently(t, "keep-a keeps its last effective quotas", func() error {
		return wantNominal(getCQ(t, "keep-a").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "10")
	})

	// Point the orchestrator at another root: the new subtree gets the capacity,
	// the old one keeps what it had.
	createCohort(t, "keep-other", "")
	createClusterQueue(t, "keep-c", "keep-other", rg(res(cpu), fq("cpu-f", "1")))
	base := d.DeepCopy()
	d.Spec.CapacityDistribution.SubtreeRootQuotaRef.Name = "keep-other"
	if err := env.Client.Patch(context.Background(), d, client.MergeFrom(base)); err != nil {
		t.Fatalf("changing subtreeRootQuotaRef: %v", err)
	}
	eventually(t, "distribution to the new root", func() error {
		return wantNominal(getCQ(t, "keep-c").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "40")
	})
	consistently(t, "the old subtree keeps its quotas", func() error {
		return wantNominal(getCQ(t, "keep-b").Status.EffectiveQuotas, "keep", "cpu-f", cpu, "40")
	})

	if err := env.Client.Delete(context.Background(), d); err != nil {
		t.Fatalf("deleting the orchestrator: %v", err)
	}
	consistently(t, "quotas stay after the orchestrator is deleted", func() error {
		for name, want := range map[string]string{"keep-a": "10", "keep-b": "40", "keep-c": "40"} {
			if err := wantNominal(getCQ(t, name).Status.EffectiveQuotas, "keep", "cpu-f", cpu, want); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})
}

// STYLE: "Reconcile is idempotent and level-triggered: read, compare, write only
// what differs." After the controller has converged, a reconcile triggered by an
// unrelated object writes nothing: no resourceVersion of the subtree or of the
// orchestrator moves.
func TestNoWriteWhenNothingChanged(t *testing.T) {
	t.Parallel()
	createProvider(t, "idle-p", map[string]corev1.ResourceList{"cpu-f": list(cpu, "9")}, "cpu-f")
	createCohort(t, "idle-root", "")
	createCohort(t, "idle-child", "idle-root", rg(res(cpu), fq("cpu-f", "1")))
	createClusterQueue(t, "idle-a", "idle-child", rg(res(cpu), fq("cpu-f", "1")))
	createClusterQueue(t, "idle-b", "idle-root", rg(res(cpu), fq("cpu-f", "1")))
	createOrchestrator(t, "idle", "idle-root", provided{name: "idle-p"})
	eventually(t, "distribution", func() error {
		if err := condition(getDQO(t, "idle"), kueuealpha.Distributed, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		for _, name := range []string{"idle-a", "idle-b"} {
			if err := wantNominal(getCQ(t, name).Status.EffectiveQuotas, "idle", "cpu-f", cpu, "3"); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return wantNominal(getCohort(t, "idle-child").Status.EffectiveQuotas, "idle", "cpu-f", cpu, "3")
	})

	versions := func() map[string]string {
		return map[string]string{
			"DynamicQuotaOrchestrator idle": getDQO(t, "idle").ResourceVersion,
			"ClusterQueue idle-a":           getCQ(t, "idle-a").ResourceVersion,
			"ClusterQueue idle-b":           getCQ(t, "idle-b").ResourceVersion,
			"Cohort idle-root":              getCohort(t, "idle-root").ResourceVersion,
			"Cohort idle-child":             getCohort(t, "idle-child").ResourceVersion,
		}
	}
	// Let the reconciles caused by the controller's own writes run out first.
	time.Sleep(settle)
	want := versions()

	// An unrelated orchestrator and provider enqueue the single key; the probe's
	// status proves that a full plan ran after the versions were recorded.
	createProvider(t, "idle-other", map[string]corev1.ResourceList{"cpu-f": list(cpu, "1")}, "cpu-f")
	createOrchestrator(t, "idle-probe", "", provided{name: "idle-other"})
	eventually(t, "the probe is reconciled", func() error {
		return condition(getDQO(t, "idle-probe"), kueuealpha.EffectiveCapacityComputed, metav1.ConditionTrue, kueuealpha.ReasonComputed)
	})
	consistently(t, "no write after a no-op reconcile", func() error {
		got := versions()
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("%s was written: resourceVersion %s → %s", k, v, got[k])
			}
		}
		return nil
	})
}
