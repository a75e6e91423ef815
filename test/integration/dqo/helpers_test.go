//go:build integration

package dqo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueuealpha "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Polling bounds. The timeout is generous because the race detector and other
// engineers' tests share two cores; nothing here measures speed.
const (
	pollInterval = 100 * time.Millisecond
	pollTimeout  = 60 * time.Second
	// settle is how long a "nothing happens" check watches. It is longer than
	// many reconciles of the single-key controller, so a write that was going to
	// happen would have happened.
	settle = 3 * time.Second
)

const (
	cpu = corev1.ResourceCPU
	gpu = corev1.ResourceName("nvidia.com/gpu")
)

// eventually polls check until it returns nil, and fails the test with its last
// error after pollTimeout.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %s: %v", what, pollTimeout, err)
		}
		time.Sleep(pollInterval)
	}
}

// consistently checks for the whole settle period that check keeps returning nil.
func consistently(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for time.Now().Before(deadline) {
		if err := check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(pollInterval)
	}
}

// --- quota builders -------------------------------------------------------------

// fq is one flavor of a resource group, quotas in the order of coveredResources.
func fq(flavor string, nominal ...string) kueue.FlavorQuotas {
	f := kueue.FlavorQuotas{Name: kueue.ResourceFlavorReference(flavor)}
	for _, n := range nominal {
		f.Resources = append(f.Resources, kueue.ResourceQuota{NominalQuota: resource.MustParse(n)})
	}
	return f
}

// rg is a resource group covering resources with the given flavors.
func rg(resources []corev1.ResourceName, flavors ...kueue.FlavorQuotas) kueue.ResourceGroup {
	out := kueue.ResourceGroup{CoveredResources: resources}
	for _, f := range flavors {
		for i := range f.Resources {
			f.Resources[i].Name = resources[i]
		}
		out.Flavors = append(out.Flavors, f)
	}
	return out
}

func res(r ...corev1.ResourceName) []corev1.ResourceName { return r }

func createCohort(t *testing.T, name, parent string, groups ...kueue.ResourceGroup) *kueue.Cohort {
	t.Helper()
	co := &kueue.Cohort{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       kueue.CohortSpec{ParentName: kueue.CohortReference(parent), ResourceGroups: groups},
	}
	create(t, co)
	return co
}

func createClusterQueue(t *testing.T, name, cohort string, groups ...kueue.ResourceGroup) *kueue.ClusterQueue {
	t.Helper()
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       kueue.ClusterQueueSpec{CohortName: kueue.CohortReference(cohort), ResourceGroups: groups},
	}
	create(t, cq)
	return cq
}

// --- DQO builders ---------------------------------------------------------------

// provider creates a CapacityProvider for the flavors and, like a provider
// controller, publishes capacity with CapacitySynchronized=True for its generation.
func createProvider(t *testing.T, name string, capacity map[string]corev1.ResourceList, flavors ...string) {
	t.Helper()
	cp := &kueuealpha.CapacityProvider{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       kueuealpha.CapacityProviderSpec{ControllerName: "example.com/by-hand"},
	}
	for _, f := range flavors {
		cp.Spec.OrchestratedFlavors = append(cp.Spec.OrchestratedFlavors, kueuealpha.OrchestratedFlavor{Name: kueuealpha.ResourceFlavorReference(f)})
	}
	create(t, cp)
	publish(t, name, capacity)
}

// publish writes the provider's status by hand through the status subresource:
// the given capacity, CapacitySynchronized=True observing the current generation.
func publish(t *testing.T, name string, capacity map[string]corev1.ResourceList) {
	t.Helper()
	updateProviderStatus(t, name, func(cp *kueuealpha.CapacityProvider) {
		cp.Status.Capacity = &kueuealpha.Capacity{}
		for _, f := range sortedKeys(capacity) {
			cp.Status.Capacity.Flavors = append(cp.Status.Capacity.Flavors, kueuealpha.FlavorCapacity{Name: kueuealpha.ResourceFlavorReference(f), Resources: capacity[f]})
		}
		meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{
			Type: kueuealpha.CapacitySynchronized, Status: metav1.ConditionTrue,
			Reason: kueuealpha.CapacityProviderReasonSynchronized, Message: "written by the test",
			ObservedGeneration: cp.Generation,
		})
	})
}

func updateProviderStatus(t *testing.T, name string, mutate func(*kueuealpha.CapacityProvider)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cp := &kueuealpha.CapacityProvider{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, cp); err != nil {
			return err
		}
		mutate(cp)
		return env.Client.Status().Update(context.Background(), cp)
	})
	if err != nil {
		t.Fatalf("writing status of CapacityProvider %q: %v", name, err)
	}
}

// provided is one entry of spec.capacityDiscovery.providers.
type provided struct {
	name       string
	multiplier string // "" keeps the default, 1
}

// createOrchestrator creates a DQO; rootCohort "" makes it discovery-only.
func createOrchestrator(t *testing.T, name, rootCohort string, providers ...provided) *kueuealpha.DynamicQuotaOrchestrator {
	t.Helper()
	d := &kueuealpha.DynamicQuotaOrchestrator{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, p := range providers {
		e := kueuealpha.ProviderContribution{Name: p.name}
		if p.multiplier != "" {
			m := resource.MustParse(p.multiplier)
			e.EffectiveCapacityMultiplier = &m
		}
		d.Spec.CapacityDiscovery.Providers = append(d.Spec.CapacityDiscovery.Providers, e)
	}
	if rootCohort != "" {
		d.Spec.CapacityDistribution = &kueuealpha.CapacityDistribution{
			SubtreeRootQuotaRef: kueuealpha.SubtreeRootQuotaRef{Kind: kueuealpha.CohortKind, Name: rootCohort},
		}
	}
	create(t, d)
	return d
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %T %q: %v", obj, obj.GetName(), err)
	}
	t.Cleanup(func() { _ = client.IgnoreNotFound(env.Client.Delete(context.Background(), obj)) })
}

// --- readers --------------------------------------------------------------------

func getDQO(t *testing.T, name string) *kueuealpha.DynamicQuotaOrchestrator {
	t.Helper()
	d := &kueuealpha.DynamicQuotaOrchestrator{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, d); err != nil {
		t.Fatalf("reading DynamicQuotaOrchestrator %q: %v", name, err)
	}
	return d
}

func getCQ(t *testing.T, name string) *kueue.ClusterQueue {
	t.Helper()
	cq := &kueue.ClusterQueue{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, cq); err != nil {
		t.Fatalf("reading ClusterQueue %q: %v", name, err)
	}
	return cq
}

func getCohort(t *testing.T, name string) *kueue.Cohort {
	t.Helper()
	co := &kueue.Cohort{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, co); err != nil {
		t.Fatalf("reading Cohort %q: %v", name, err)
	}
	return co
}

// condition checks that the DQO has the condition with that status and reason,
// observing the DQO's current generation; reason "" accepts any.
func condition(d *kueuealpha.DynamicQuotaOrchestrator, typ string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(d.Status.Conditions, typ)
	switch {
	case c == nil:
		return fmt.Errorf("DynamicQuotaOrchestrator %q has no %s condition (conditions %v)", d.Name, typ, d.Status.Conditions)
	case c.Status != status || (reason != "" && c.Reason != reason):
		return fmt.Errorf("DynamicQuotaOrchestrator %q: %s=%s reason %s (%s), want %s reason %s", d.Name, typ, c.Status, c.Reason, c.Message, status, reason)
	case c.ObservedGeneration != d.Generation:
		return fmt.Errorf("DynamicQuotaOrchestrator %q: %s observedGeneration %d, want the generation %d", d.Name, typ, c.ObservedGeneration, d.Generation)
	}
	return nil
}

// nominal returns the effective nominal quota of flavor/resource, or an error
// naming what is missing.
func nominal(eq *kueue.EffectiveQuotas, flavor string, r corev1.ResourceName) (resource.Quantity, error) {
	if eq == nil {
		return resource.Quantity{}, fmt.Errorf("no status.effectiveQuotas")
	}
	for _, g := range eq.ResourceGroups {
		for _, f := range g.Flavors {
			if string(f.Name) != flavor {
				continue
			}
			for _, q := range f.Resources {
				if q.Name == r {
					return q.NominalQuota, nil
				}
			}
		}
	}
	return resource.Quantity{}, fmt.Errorf("status.effectiveQuotas has no %s/%s", flavor, r)
}

// wantNominal checks the effective nominal quota and who wrote it.
func wantNominal(eq *kueue.EffectiveQuotas, orchestrator, flavor string, r corev1.ResourceName, want string) error {
	got, err := nominal(eq, flavor, r)
	if err != nil {
		return err
	}
	if got.Cmp(resource.MustParse(want)) != 0 {
		return fmt.Errorf("effective %s/%s = %s, want %s", flavor, r, got.String(), want)
	}
	if ref := eq.OrchestratorRef; ref.APIGroup != "kueue.x-k8s.io" || ref.Kind != "DynamicQuotaOrchestrator" || ref.Name != orchestrator {
		return fmt.Errorf("orchestratorRef = %+v, want DynamicQuotaOrchestrator %q", ref, orchestrator)
	}
	if eq.LastUpdateTime == nil {
		return fmt.Errorf("lastUpdateTime is not set")
	}
	return nil
}

// capacityOf returns status.effectiveCapacity of flavor/resource.
func capacityOf(d *kueuealpha.DynamicQuotaOrchestrator, flavor string, r corev1.ResourceName) (resource.Quantity, error) {
	if d.Status.EffectiveCapacity == nil {
		return resource.Quantity{}, fmt.Errorf("DynamicQuotaOrchestrator %q has no status.effectiveCapacity", d.Name)
	}
	for _, f := range d.Status.EffectiveCapacity.Flavors {
		if string(f.Name) == flavor {
			q, ok := f.Resources[r]
			if !ok {
				return resource.Quantity{}, fmt.Errorf("effectiveCapacity flavor %q has no %s", flavor, r)
			}
			return q, nil
		}
	}
	return resource.Quantity{}, fmt.Errorf("effectiveCapacity has no flavor %q", flavor)
}

func wantCapacity(d *kueuealpha.DynamicQuotaOrchestrator, flavor string, r corev1.ResourceName, want string) error {
	got, err := capacityOf(d, flavor, r)
	if err != nil {
		return err
	}
	if got.Cmp(resource.MustParse(want)) != 0 {
		return fmt.Errorf("effectiveCapacity %s/%s = %s, want %s", flavor, r, got.String(), want)
	}
	return nil
}

func list(r corev1.ResourceName, q string) corev1.ResourceList {
	return corev1.ResourceList{r: resource.MustParse(q)}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
