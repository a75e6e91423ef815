package dqo

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// maxProviders is the most CapacityProviders one orchestrator lists (000: "lists 1 to
// 8 CapacityProviders"). The API validates it; discovery checks again because the
// simulator reads manifests that never went through an API server.
const maxProviders = 8

// DiscoveryResult is the outcome of discovery for one DynamicQuotaOrchestrator.
type DiscoveryResult struct {
	// Condition is the EffectiveCapacityComputed condition: True with reason Computed,
	// or False with reason Misconfigured, ProviderNotReady or AggregationFailed.
	Condition metav1.Condition

	// EffectiveCapacity is the value to store in status.effectiveCapacity. It is nil
	// when Condition is False: the field is then cleared.
	EffectiveCapacity *v1alpha1.EffectiveCapacity

	// Capacity is the same capacity in canonical units, the input of Distribute. It
	// is nil when Condition is False.
	Capacity *Capacity
}

// Computed reports whether discovery succeeded.
func (r DiscoveryResult) Computed() bool { return r.Condition.Status == metav1.ConditionTrue }

// Discover adds up the capacity of the providers that dqo lists (000, "Discovery").
//
// providers maps CapacityProvider names to objects; it may hold more providers than
// dqo lists, and a listed provider that is absent (or nil) does not exist. Neither
// dqo nor the providers are modified.
//
// The checks come in this order, and the first that fails decides the reason:
//  1. Misconfigured: the provider list is empty or longer than 8, lists a provider
//     twice or with a negative multiplier, or names a provider that does not exist.
//  2. ProviderNotReady: a provider has no CapacitySynchronized condition, has it
//     with a status other than True, or has it with an observedGeneration other than
//     metadata.generation (the provider has not caught up with its latest spec).
//  3. AggregationFailed: more than 128 distinct orchestrated flavors, a negative
//     reported quantity, or a total that does not fit into int64 canonical units.
//
// Every message names every offending provider, so one look at the condition tells
// an administrator all that is wrong, not only the first problem.
func Discover(dqo *v1alpha1.DynamicQuotaOrchestrator, providers map[string]*v1alpha1.CapacityProvider) DiscoveryResult {
	gen := dqo.Generation
	fail := func(reason, message string) DiscoveryResult {
		return DiscoveryResult{Condition: condition(v1alpha1.EffectiveCapacityComputed, metav1.ConditionFalse, reason, message, gen)}
	}
	entries := dqo.Spec.CapacityDiscovery.Providers
	if len(entries) == 0 {
		return fail(v1alpha1.ReasonMisconfigured, "spec.capacityDiscovery.providers is empty; list 1 to 8 CapacityProviders")
	}
	if len(entries) > maxProviders {
		return fail(v1alpha1.ReasonMisconfigured, fmt.Sprintf("spec.capacityDiscovery.providers lists %d CapacityProviders; at most %d are allowed", len(entries), maxProviders))
	}

	var misconfigured, notReady []string
	listed := make(map[string]int, len(entries))
	for i, e := range entries {
		field := fmt.Sprintf("spec.capacityDiscovery.providers[%d]", i)
		if j, dup := listed[e.Name]; dup {
			misconfigured = append(misconfigured, fmt.Sprintf("%s: CapacityProvider %q is already listed at index %d", field, e.Name, j))
			continue
		}
		listed[e.Name] = i
		if m := e.EffectiveCapacityMultiplier; m != nil && m.Sign() < 0 {
			misconfigured = append(misconfigured, fmt.Sprintf("%s.effectiveCapacityMultiplier: %s must be 0 or more", field, m.String()))
		}
		cp := providers[e.Name]
		if cp == nil {
			misconfigured = append(misconfigured, fmt.Sprintf("CapacityProvider %q (%s) does not exist", e.Name, field))
			continue
		}
		if why := notReadyReason(cp); why != "" {
			notReady = append(notReady, fmt.Sprintf("CapacityProvider %q %s", e.Name, why))
		}
	}
	if len(misconfigured) > 0 {
		return fail(v1alpha1.ReasonMisconfigured, strings.Join(misconfigured, "; "))
	}
	if len(notReady) > 0 {
		return fail(v1alpha1.ReasonProviderNotReady, strings.Join(notReady, "; "))
	}

	c, err := aggregate(entries, providers)
	if err != nil {
		return fail(v1alpha1.ReasonAggregationFailed, err.Error())
	}
	return DiscoveryResult{
		Condition:         condition(v1alpha1.EffectiveCapacityComputed, metav1.ConditionTrue, v1alpha1.ReasonComputed, computedMessage(c, entries), gen),
		EffectiveCapacity: c.Status(),
		Capacity:          c,
	}
}

// notReadyReason says why a provider's capacity cannot be used, or "" when it can.
// 000: "Kueue uses the capacity only when CapacitySynchronized is True and the
// condition's observedGeneration equals the object's metadata.generation."
func notReadyReason(cp *v1alpha1.CapacityProvider) string {
	c := meta.FindStatusCondition(cp.Status.Conditions, v1alpha1.CapacitySynchronized)
	switch {
	case c == nil:
		return "has no CapacitySynchronized condition"
	case c.Status != metav1.ConditionTrue:
		why := fmt.Sprintf("has CapacitySynchronized=%s", c.Status)
		if c.Reason != "" {
			why += fmt.Sprintf(" with reason %s", c.Reason)
		}
		if c.Message != "" {
			why += fmt.Sprintf(" (%s)", c.Message)
		}
		return why
	case c.ObservedGeneration != cp.Generation:
		return fmt.Sprintf("has a stale CapacitySynchronized condition: observedGeneration %d, metadata.generation %d", c.ObservedGeneration, cp.Generation)
	}
	return ""
}

// aggregate multiplies and adds the capacity of ready providers. It assumes every
// entry names an existing provider (Discover checked).
func aggregate(entries []v1alpha1.ProviderContribution, providers map[string]*v1alpha1.CapacityProvider) (*Capacity, error) {
	// Count distinct orchestrated flavors first: the limit is on what the providers
	// orchestrate, whether or not they report anything for it.
	distinct := make(map[string]struct{})
	for _, e := range entries {
		for _, of := range providers[e.Name].Spec.OrchestratedFlavors {
			distinct[string(of.Name)] = struct{}{}
		}
	}
	if len(distinct) > v1alpha1.MaxEffectiveCapacityFlavors {
		return nil, fmt.Errorf("the CapacityProviders orchestrate %d distinct flavors in spec.orchestratedFlavors; status.effectiveCapacity holds at most %d", len(distinct), v1alpha1.MaxEffectiveCapacityFlavors)
	}

	c := newCapacity(len(distinct))
	for _, e := range entries {
		cp := providers[e.Name]
		m := multiplierOf(e.EffectiveCapacityMultiplier)
		orchestrated := make(map[string]bool, len(cp.Spec.OrchestratedFlavors))
		for _, of := range cp.Spec.OrchestratedFlavors {
			f := string(of.Name)
			orchestrated[f] = true
			// An orchestrated flavor that the status omits counts with an empty map:
			// every resource of it is zero, but the flavor is orchestrated.
			if c.flavors[f] == nil {
				c.flavors[f] = resources.Requests{}
			}
		}
		if cp.Status.Capacity == nil {
			continue
		}
		counted := make(map[string]bool, len(cp.Status.Capacity.Flavors))
		for i, fc := range cp.Status.Capacity.Flavors {
			f := string(fc.Name)
			// 000: "Kueue ignores flavors in the status that are not in this list."
			// A flavor listed twice in the status (the API forbids it) counts once.
			if !orchestrated[f] || counted[f] {
				continue
			}
			counted[f] = true
			names := make([]corev1.ResourceName, 0, len(fc.Resources))
			for r := range fc.Resources {
				names = append(names, r)
			}
			sort.Slice(names, func(a, b int) bool { return names[a] < names[b] })
			for _, r := range names {
				q := fc.Resources[r]
				v, err := scaleCapacity(r, q, m)
				if err != nil {
					return nil, fmt.Errorf("CapacityProvider %q status.capacity.flavors[%d] (flavor %q) resources[%s]: %s × effectiveCapacityMultiplier %s %v", e.Name, i, f, r, q.String(), m.String(), err)
				}
				sum := resources.Add(c.flavors[f][r], v)
				if sum >= resources.Unlimited {
					return nil, fmt.Errorf("capacity of flavor %q resource %s overflows int64 canonical units when CapacityProvider %q is added", f, r, e.Name)
				}
				c.flavors[f][r] = sum
			}
		}
	}
	return c, nil
}

// computedMessage names what was aggregated, with each provider's multiplier, so that
// a reader can check the numbers by hand.
func computedMessage(c *Capacity, entries []v1alpha1.ProviderContribution) string {
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		m := multiplierOf(e.EffectiveCapacityMultiplier)
		parts = append(parts, fmt.Sprintf("%q ×%s", e.Name, m.String()))
	}
	return fmt.Sprintf("effective capacity of %d flavors from CapacityProviders %s", len(c.flavors), strings.Join(parts, ", "))
}
