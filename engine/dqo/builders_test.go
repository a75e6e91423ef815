package dqo

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// Fluent builders in the style of Kueue's test wrappers, so that a table case fits on
// a few lines. Every object gets the UID "uid-<name>" unless a test sets one.

var t0 = metav1.NewTime(time.Date(2026, 10, 1, 18, 0, 0, 0, time.UTC))

type quotaOpt func(*v1beta2.ResourceQuota)

func borrowing(q string) quotaOpt {
	return func(r *v1beta2.ResourceQuota) { v := resource.MustParse(q); r.BorrowingLimit = &v }
}

func lending(q string) quotaOpt {
	return func(r *v1beta2.ResourceQuota) { v := resource.MustParse(q); r.LendingLimit = &v }
}

// quota is one resource entry of a flavor: quota("cpu", "10", borrowing("5")).
func quota(name corev1.ResourceName, nominal string, opts ...quotaOpt) v1beta2.ResourceQuota {
	r := v1beta2.ResourceQuota{Name: name, NominalQuota: resource.MustParse(nominal)}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// flavor is one flavor of a resource group.
func flavor(name string, res ...v1beta2.ResourceQuota) v1beta2.FlavorQuotas {
	return v1beta2.FlavorQuotas{Name: v1beta2.ResourceFlavorReference(name), Resources: res}
}

// group builds a resource group whose covered resources are those of its first flavor.
func group(flavors ...v1beta2.FlavorQuotas) v1beta2.ResourceGroup {
	g := v1beta2.ResourceGroup{Flavors: flavors}
	for _, r := range flavors[0].Resources {
		g.CoveredResources = append(g.CoveredResources, r.Name)
	}
	return g
}

type cqWrapper struct{ v1beta2.ClusterQueue }

func makeCQ(name string) *cqWrapper {
	w := &cqWrapper{}
	w.Name, w.ObjectMeta.UID = name, types.UID("uid-"+name)
	return w
}

func (w *cqWrapper) UID(uid string) *cqWrapper { w.ObjectMeta.UID = types.UID(uid); return w }
func (w *cqWrapper) Cohort(c string) *cqWrapper {
	w.Spec.CohortName = v1beta2.CohortReference(c)
	return w
}
func (w *cqWrapper) Group(flavors ...v1beta2.FlavorQuotas) *cqWrapper {
	w.Spec.ResourceGroups = append(w.Spec.ResourceGroups, group(flavors...))
	return w
}

// Quota adds a resource group with one flavor and one resource.
func (w *cqWrapper) Quota(fl string, res corev1.ResourceName, nominal string, opts ...quotaOpt) *cqWrapper {
	return w.Group(flavor(fl, quota(res, nominal, opts...)))
}
func (w *cqWrapper) Effective(eq *v1beta2.EffectiveQuotas) *cqWrapper {
	w.Status.EffectiveQuotas = eq
	return w
}
func (w *cqWrapper) Obj() *v1beta2.ClusterQueue { return &w.ClusterQueue }

type cohortWrapper struct{ v1beta2.Cohort }

func makeCohort(name string) *cohortWrapper {
	w := &cohortWrapper{}
	w.Name, w.ObjectMeta.UID = name, types.UID("uid-"+name)
	return w
}

func (w *cohortWrapper) UID(uid string) *cohortWrapper { w.ObjectMeta.UID = types.UID(uid); return w }
func (w *cohortWrapper) Parent(p string) *cohortWrapper {
	w.Spec.ParentName = v1beta2.CohortReference(p)
	return w
}
func (w *cohortWrapper) Group(flavors ...v1beta2.FlavorQuotas) *cohortWrapper {
	w.Spec.ResourceGroups = append(w.Spec.ResourceGroups, group(flavors...))
	return w
}
func (w *cohortWrapper) Quota(fl string, res corev1.ResourceName, nominal string, opts ...quotaOpt) *cohortWrapper {
	return w.Group(flavor(fl, quota(res, nominal, opts...)))
}
func (w *cohortWrapper) Effective(eq *v1beta2.EffectiveQuotas) *cohortWrapper {
	w.Status.EffectiveQuotas = eq
	return w
}
func (w *cohortWrapper) Obj() *v1beta2.Cohort { return &w.Cohort }

type providerWrapper struct{ v1alpha1.CapacityProvider }

// makeProvider returns a provider at generation 1 with CapacitySynchronized=True
// observed at generation 1, orchestrating the given flavors.
func makeProvider(name string, orchestrated ...string) *providerWrapper {
	w := &providerWrapper{}
	w.Name, w.ObjectMeta.UID, w.ObjectMeta.Generation = name, types.UID("uid-"+name), 1
	w.Spec.ControllerName = "example.com/test"
	for _, f := range orchestrated {
		w.Spec.OrchestratedFlavors = append(w.Spec.OrchestratedFlavors, v1alpha1.OrchestratedFlavor{Name: v1alpha1.ResourceFlavorReference(f)})
	}
	return w.Synced(metav1.ConditionTrue, v1alpha1.CapacityProviderReasonSynchronized, 1)
}

// Report adds a status flavor with resources given as name, quantity pairs; no pairs
// give an empty (non-nil) map.
func (w *providerWrapper) Report(fl string, kv ...string) *providerWrapper {
	if w.Status.Capacity == nil {
		w.Status.Capacity = &v1alpha1.Capacity{}
	}
	list := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		list[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	w.Status.Capacity.Flavors = append(w.Status.Capacity.Flavors, v1alpha1.FlavorCapacity{Name: v1alpha1.ResourceFlavorReference(fl), Resources: list})
	return w
}

// Synced replaces the CapacitySynchronized condition.
func (w *providerWrapper) Synced(status metav1.ConditionStatus, reason string, observed int64) *providerWrapper {
	w.Status.Conditions = []metav1.Condition{{
		Type: v1alpha1.CapacitySynchronized, Status: status, Reason: reason,
		Message: "test", ObservedGeneration: observed, LastTransitionTime: t0,
	}}
	return w
}

func (w *providerWrapper) NoConditions() *providerWrapper { w.Status.Conditions = nil; return w }
func (w *providerWrapper) Generation(g int64) *providerWrapper {
	w.ObjectMeta.Generation = g
	return w
}
func (w *providerWrapper) Obj() *v1alpha1.CapacityProvider { return &w.CapacityProvider }

type dqoWrapper struct {
	v1alpha1.DynamicQuotaOrchestrator
}

func makeDQO(name string) *dqoWrapper {
	w := &dqoWrapper{}
	w.Name, w.ObjectMeta.UID, w.ObjectMeta.Generation, w.CreationTimestamp = name, types.UID("uid-"+name), 1, t0
	return w
}

// Provider lists a provider; an empty multiplier leaves the field unset (default 1).
func (w *dqoWrapper) Provider(name, multiplier string) *dqoWrapper {
	p := v1alpha1.ProviderContribution{Name: name}
	if multiplier != "" {
		m := resource.MustParse(multiplier)
		p.EffectiveCapacityMultiplier = &m
	}
	w.Spec.CapacityDiscovery.Providers = append(w.Spec.CapacityDiscovery.Providers, p)
	return w
}

func (w *dqoWrapper) Root(kind v1alpha1.QuotaNodeKind, name string) *dqoWrapper {
	w.Spec.CapacityDistribution = &v1alpha1.CapacityDistribution{SubtreeRootQuotaRef: v1alpha1.SubtreeRootQuotaRef{Kind: kind, Name: name}}
	return w
}
func (w *dqoWrapper) Created(t time.Time) *dqoWrapper {
	w.CreationTimestamp = metav1.NewTime(t)
	return w
}
func (w *dqoWrapper) UID(uid string) *dqoWrapper { w.ObjectMeta.UID = types.UID(uid); return w }
func (w *dqoWrapper) Generation(g int64) *dqoWrapper {
	w.ObjectMeta.Generation = g
	return w
}
func (w *dqoWrapper) Obj() *v1alpha1.DynamicQuotaOrchestrator { return &w.DynamicQuotaOrchestrator }

func providerMap(ps ...*v1alpha1.CapacityProvider) map[string]*v1alpha1.CapacityProvider {
	m := make(map[string]*v1alpha1.CapacityProvider, len(ps))
	for _, p := range ps {
		m[p.Name] = p
	}
	return m
}

// capacityOf builds a canonical capacity directly: flavor → resource → amount.
func capacityOf(m map[string]map[corev1.ResourceName]int64) *Capacity {
	c := newCapacity(len(m))
	for f, rs := range m {
		c.flavors[f] = map[corev1.ResourceName]int64{}
		for r, v := range rs {
			c.flavors[f][r] = v
		}
	}
	return c
}
