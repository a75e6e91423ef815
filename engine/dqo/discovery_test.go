package dqo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

// wantAmounts checks canonical amounts of a computed discovery.
func wantAmounts(t *testing.T, got DiscoveryResult, want map[string]map[corev1.ResourceName]int64) {
	t.Helper()
	if !got.Computed() {
		t.Fatalf("discovery not computed: %+v", got.Condition)
	}
	if flavors := got.Capacity.Flavors(); len(flavors) != len(want) {
		t.Fatalf("orchestrated flavors = %v, want %d flavors %v", flavors, len(want), want)
	}
	for f, rs := range want {
		if !got.Capacity.Orchestrates(f) {
			t.Errorf("flavor %q is not orchestrated", f)
		}
		if len(got.Capacity.flavors[f]) != len(rs) {
			t.Errorf("flavor %q has resources %v, want %v", f, got.Capacity.flavors[f], rs)
		}
		for r, v := range rs {
			if a := got.Capacity.Amount(f, r); a != v {
				t.Errorf("capacity of %s/%s = %d, want %d", f, r, a, v)
			}
		}
	}
}

// 000: "For each entry in spec.capacityDiscovery.providers, Kueue multiplies the
// capacity that the CapacityProvider reports by that entry's
// effectiveCapacityMultiplier." and "0.95 keeps 5% headroom. 0.5 gives half of a
// shared pool to this orchestrator. A value above 1 overbooks the quota".
// Multiplication is exact and rounds down to whole canonical units.
func TestDiscoveryMultipliesCapacityExactly(t *testing.T) {
	cases := []struct {
		name       string
		multiplier string
		report     []string
		want       map[corev1.ResourceName]int64
	}{
		{"0.95 keeps 5% headroom", "0.95", []string{"cpu", "100", "nvidia.com/gpu", "20"},
			map[corev1.ResourceName]int64{"cpu": 95000, gpu: 19}},
		{"0.95 rounds down to the millicore", "0.95", []string{"cpu", "1001m"},
			map[corev1.ResourceName]int64{"cpu": 950}}, // 950.95m
		{"0.95 rounds down to the whole GPU", "0.95", []string{"nvidia.com/gpu", "3"},
			map[corev1.ResourceName]int64{gpu: 2}}, // 2.85
		{"0.5 gives half of a shared pool", "0.5", []string{"cpu", "3", "nvidia.com/gpu", "7"},
			map[corev1.ResourceName]int64{"cpu": 1500, gpu: 3}}, // 3.5 GPUs
		{"1.5 overbooks", "1.5", []string{"nvidia.com/gpu", "3", "memory", "1Gi"},
			map[corev1.ResourceName]int64{gpu: 4, "memory": 1610612736}}, // 4.5 GPUs
		{"unset multiplier defaults to 1", "", []string{"cpu", "900", "memory", "3.6Ti"},
			map[corev1.ResourceName]int64{"cpu": 900000, "memory": 3958241859993}}, // 3.6Ti = 3958241859993.6 bytes
		{"0 is allowed and gives nothing", "0", []string{"nvidia.com/gpu", "64"},
			map[corev1.ResourceName]int64{gpu: 0}},
		// 0.29 × 100 is 28.999999999999996 in float64; exact arithmetic gives 29.
		{"no floating point error", "0.29", []string{"nvidia.com/gpu", "100"},
			map[corev1.ResourceName]int64{gpu: 29}},
		{"multiplier in SI form", "950m", []string{"nvidia.com/gpu", "100"},
			map[corev1.ResourceName]int64{gpu: 95}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := makeProvider("nodes", "h100").Report("h100", c.report...).Obj()
			d := makeDQO("prod").Provider("nodes", c.multiplier).Obj()
			got := Discover(d, providerMap(p))
			wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{"h100": c.want})
		})
	}
}

// 000: "Then it adds the results for each pair of ResourceFlavor and resource."
func TestDiscoveryAddsProvidersPerFlavorAndResource(t *testing.T) {
	a := makeProvider("a", "h100", "cpu-pool").Report("h100", "nvidia.com/gpu", "32").Report("cpu-pool", "cpu", "100").Obj()
	b := makeProvider("b", "h100").Report("h100", "nvidia.com/gpu", "16", "cpu", "8").Obj()
	d := makeDQO("prod").Provider("a", "0.5").Provider("b", "").Obj()
	got := Discover(d, providerMap(a, b))
	wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{
		"h100":     {gpu: 16 + 16, "cpu": 8000},
		"cpu-pool": {"cpu": 50000},
	})
	if got.Condition.Reason != v1alpha1.ReasonComputed || got.Condition.Type != v1alpha1.EffectiveCapacityComputed {
		t.Errorf("condition = %+v", got.Condition)
	}
	for _, s := range []string{`"a" ×500m`, `"b" ×1`, "2 flavors"} {
		if !strings.Contains(got.Condition.Message, s) {
			t.Errorf("message %q does not mention %s", got.Condition.Message, s)
		}
	}
}

// 001: "effectiveCapacity ... Each provider's capacity is multiplied by its
// effectiveCapacityMultiplier." The status lists flavors sorted by name with
// quantities in the usual formats.
func TestDiscoveryStatusIsSortedAndFormatted(t *testing.T) {
	p := makeProvider("nodes", "zeta", "alpha").
		Report("zeta", "cpu", "1500m", "memory", "2Gi").
		Report("alpha", "nvidia.com/gpu", "8").Obj()
	got := Discover(makeDQO("prod").Provider("nodes", "").Obj(), providerMap(p))
	ec := got.EffectiveCapacity
	if ec == nil || len(ec.Flavors) != 2 || ec.Flavors[0].Name != "alpha" || ec.Flavors[1].Name != "zeta" {
		t.Fatalf("effectiveCapacity = %+v, want flavors alpha, zeta", ec)
	}
	cpu, mem, g := ec.Flavors[1].Resources["cpu"], ec.Flavors[1].Resources["memory"], ec.Flavors[0].Resources[gpu]
	if cpu.String() != "1500m" || mem.String() != "2Gi" || g.String() != "8" {
		t.Errorf("quantities = %s %s %s, want 1500m 2Gi 8", cpu.String(), mem.String(), g.String())
	}
	back, err := CapacityFromStatus(ec)
	if err != nil || back.Amount("zeta", "cpu") != 1500 || back.Amount("alpha", gpu) != 8 || !back.Orchestrates("alpha") {
		t.Errorf("CapacityFromStatus round trip = %+v, %v", back, err)
	}
}

// 000: "Kueue ignores flavors in the status that are not in this list."
func TestDiscoveryIgnoresFlavorsNotOrchestrated(t *testing.T) {
	p := makeProvider("nodes", "h100").Report("h100", "nvidia.com/gpu", "8").Report("a100", "nvidia.com/gpu", "64").Obj()
	got := Discover(makeDQO("prod").Provider("nodes", "").Obj(), providerMap(p))
	wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}})
}

// 001: "The provider orchestrates all resources of the listed flavors: capacity that
// is not reported for a listed flavor is zero." A provider that orchestrates a flavor
// but omits a resource that another provider reports contributes zero to it.
func TestDiscoveryUnreportedResourceIsZero(t *testing.T) {
	a := makeProvider("a", "h100").Report("h100", "nvidia.com/gpu", "8", "cpu", "64").Obj()
	b := makeProvider("b", "h100").Report("h100", "nvidia.com/gpu", "8").Obj()
	got := Discover(makeDQO("prod").Provider("a", "").Provider("b", "").Obj(), providerMap(a, b))
	wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{"h100": {gpu: 16, "cpu": 64000}})
	if v := got.Capacity.Amount("h100", "memory"); v != 0 {
		t.Errorf("memory, reported by nobody, = %d, want 0", v)
	}
}

// 001: "An empty resources map means zero capacity for all resources of the flavor."
// The flavor stays orchestrated, with an empty map in the status.
func TestDiscoveryEmptyResourcesMapIsZero(t *testing.T) {
	p := makeProvider("nodes", "h100").Report("h100").Obj()
	got := Discover(makeDQO("prod").Provider("nodes", "").Obj(), providerMap(p))
	wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{"h100": {}})
	if r := got.EffectiveCapacity.Flavors[0].Resources; r == nil || len(r) != 0 {
		t.Errorf("resources of h100 = %#v, want an empty non-nil map", r)
	}
}

// 001: "orchestratedFlavors ... capacity that is not reported for a listed flavor is
// zero." A flavor absent from status.capacity, or a provider with no capacity at all,
// counts with an empty map.
func TestDiscoveryOrchestratedFlavorAbsentFromStatus(t *testing.T) {
	a := makeProvider("a", "h100", "a100").Report("h100", "nvidia.com/gpu", "8").Obj()
	b := makeProvider("b", "l4").Obj() // no status.capacity
	got := Discover(makeDQO("prod").Provider("a", "").Provider("b", "").Obj(), providerMap(a, b))
	wantAmounts(t, got, map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8}, "a100": {}, "l4": {}})
}

// 000: "Kueue uses the capacity only when CapacitySynchronized is True and the
// condition's observedGeneration equals the object's metadata.generation. Otherwise
// Kueue treats the provider as not ready."
func TestDiscoveryProviderNotReady(t *testing.T) {
	cases := []struct {
		name     string
		provider *v1alpha1.CapacityProvider
		why      string
	}{
		{"no condition", makeProvider("nodes", "h100").NoConditions().Obj(), "has no CapacitySynchronized condition"},
		{"condition False", makeProvider("nodes", "h100").Synced(metav1.ConditionFalse, v1alpha1.CapacityProviderReasonSourceUnavailable, 1).Obj(),
			"CapacitySynchronized=False with reason SourceUnavailable"},
		{"condition Unknown", makeProvider("nodes", "h100").Synced(metav1.ConditionUnknown, "Pending", 1).Obj(), "CapacitySynchronized=Unknown"},
		{"generation bumped, observedGeneration stale", makeProvider("nodes", "h100").Generation(2).Obj(),
			"observedGeneration 1, metadata.generation 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.provider.Status.Capacity = &v1alpha1.Capacity{Flavors: []v1alpha1.FlavorCapacity{{Name: "h100", Resources: corev1.ResourceList{gpu: resource.MustParse("8")}}}}
			d := makeDQO("prod").Provider("nodes", "").Generation(7).Obj()
			got := Discover(d, providerMap(c.provider))
			cond := got.Condition
			if cond.Status != metav1.ConditionFalse || cond.Reason != v1alpha1.ReasonProviderNotReady || cond.ObservedGeneration != 7 {
				t.Errorf("condition = %+v, want False/ProviderNotReady at generation 7", cond)
			}
			if !strings.Contains(cond.Message, `CapacityProvider "nodes"`) || !strings.Contains(cond.Message, c.why) {
				t.Errorf("message %q must name the provider and say %q", cond.Message, c.why)
			}
			if got.EffectiveCapacity != nil || got.Capacity != nil {
				t.Error("capacity must be cleared when not computed")
			}
		})
	}
}

// 000: "The EffectiveCapacityComputed condition reports the result" and 001: "DQO
// clears this field if any referenced provider is missing". A missing provider is a
// misconfiguration of the orchestrator, named in the message.
func TestDiscoveryMissingProviderIsMisconfigured(t *testing.T) {
	present := makeProvider("present", "h100").Report("h100", "nvidia.com/gpu", "8").Obj()
	d := makeDQO("prod").Provider("present", "").Provider("gone", "").Obj()
	got := Discover(d, providerMap(present))
	if got.Condition.Status != metav1.ConditionFalse || got.Condition.Reason != v1alpha1.ReasonMisconfigured {
		t.Fatalf("condition = %+v, want False/Misconfigured", got.Condition)
	}
	if !strings.Contains(got.Condition.Message, `CapacityProvider "gone" (spec.capacityDiscovery.providers[1]) does not exist`) {
		t.Errorf("message %q must name the missing provider", got.Condition.Message)
	}
	if got.EffectiveCapacity != nil || got.Capacity != nil {
		t.Error("capacity must be cleared")
	}
}

// A missing provider outranks a not-ready one: the orchestrator's own spec is wrong,
// which no provider controller can fix.
func TestDiscoveryMisconfiguredBeforeNotReady(t *testing.T) {
	stale := makeProvider("stale", "h100").Generation(3).Obj()
	got := Discover(makeDQO("prod").Provider("stale", "").Provider("gone", "").Obj(), providerMap(stale))
	if got.Condition.Reason != v1alpha1.ReasonMisconfigured {
		t.Errorf("reason = %s, want Misconfigured", got.Condition.Reason)
	}
}

// 000: "Each entry can set an effectiveCapacityMultiplier (default 1, must be 0 or
// more)." and "lists 1 to 8 CapacityProviders".
func TestDiscoveryRejectsInvalidProviderList(t *testing.T) {
	p := makeProvider("nodes", "h100").Obj()
	nine := makeDQO("prod")
	for i := 0; i < 9; i++ {
		nine.Provider(fmt.Sprintf("p%d", i), "")
	}
	cases := []struct {
		name string
		dqo  *v1alpha1.DynamicQuotaOrchestrator
		want string
	}{
		{"negative multiplier", makeDQO("prod").Provider("nodes", "-0.5").Obj(), "spec.capacityDiscovery.providers[0].effectiveCapacityMultiplier: -500m must be 0 or more"},
		{"no providers", makeDQO("prod").Obj(), "spec.capacityDiscovery.providers is empty"},
		{"more than 8", nine.Obj(), "lists 9 CapacityProviders; at most 8"},
		{"listed twice", makeDQO("prod").Provider("nodes", "").Provider("nodes", "2").Obj(), `CapacityProvider "nodes" is already listed at index 0`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Discover(c.dqo, providerMap(p))
			if got.Condition.Reason != v1alpha1.ReasonMisconfigured || !strings.Contains(got.Condition.Message, c.want) {
				t.Errorf("condition = %+v, want Misconfigured mentioning %q", got.Condition, c.want)
			}
		})
	}
}

// 001: "It includes all flavors listed in spec.orchestratedFlavors of the referenced
// providers, up to 128 distinct flavors. If the referenced providers together
// orchestrate more distinct flavors, the DQO sets EffectiveCapacityComputed=False with
// reason AggregationFailed and clears status.effectiveCapacity."
func TestDiscoveryMoreThan128FlavorsFails(t *testing.T) {
	flavors := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("f%03d", i))
		}
		return out
	}
	for _, c := range []struct {
		name     string
		a, b     []string
		computed bool
	}{
		{"128 distinct flavors, overlapping providers", flavors(0, 64), flavors(64, 128), true},
		{"shared flavors count once", flavors(0, 64), flavors(32, 96), true},
		{"129 distinct flavors", flavors(0, 64), flavors(64, 129), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := makeProvider("a", c.a...).Obj(), makeProvider("b", c.b...).Obj()
			got := Discover(makeDQO("prod").Provider("a", "").Provider("b", "").Obj(), providerMap(a, b))
			if got.Computed() != c.computed {
				t.Fatalf("computed = %v, want %v (%+v)", got.Computed(), c.computed, got.Condition)
			}
			if c.computed {
				return
			}
			if got.Condition.Reason != v1alpha1.ReasonAggregationFailed || !strings.Contains(got.Condition.Message, "129 distinct flavors") {
				t.Errorf("condition = %+v, want AggregationFailed naming 129 flavors", got.Condition)
			}
			if got.EffectiveCapacity != nil || got.Capacity != nil {
				t.Error("effectiveCapacity must be cleared")
			}
		})
	}
}

// Adding capacities saturates instead of wrapping around; a total that reaches the
// int64 limit cannot be a capacity, so aggregation fails and names the cell.
func TestDiscoveryOverflowFails(t *testing.T) {
	a := makeProvider("a", "h100").Report("h100", "nvidia.com/gpu", "5E").Obj()
	b := makeProvider("b", "h100").Report("h100", "nvidia.com/gpu", "5E").Obj()
	got := Discover(makeDQO("prod").Provider("a", "").Provider("b", "").Obj(), providerMap(a, b))
	if got.Condition.Reason != v1alpha1.ReasonAggregationFailed || !strings.Contains(got.Condition.Message, `flavor "h100" resource nvidia.com/gpu overflows`) {
		t.Errorf("condition = %+v, want AggregationFailed naming h100/nvidia.com/gpu", got.Condition)
	}
	c := makeProvider("c", "h100").Report("h100", "cpu", "9E").Obj()
	got = Discover(makeDQO("prod").Provider("c", "").Obj(), providerMap(c))
	if got.Condition.Reason != v1alpha1.ReasonAggregationFailed || !strings.Contains(got.Condition.Message, `CapacityProvider "c"`) {
		t.Errorf("9E CPUs in millicores: condition = %+v, want AggregationFailed naming provider c", got.Condition)
	}
}

// Discovery must not modify its inputs: the objects come from an informer cache that
// other controllers read.
func TestDiscoveryDoesNotModifyInputs(t *testing.T) {
	p := makeProvider("nodes", "h100").Report("h100", "nvidia.com/gpu", "8", "cpu", "1500m").Obj()
	d := makeDQO("prod").Provider("nodes", "0.95").Obj()
	pBefore, dBefore := p.DeepCopy(), d.DeepCopy()
	Discover(d, providerMap(p))
	// reflect.DeepEqual, not a semantic comparison: converting a Quantity to its
	// decimal form in place would keep its value but still race with other readers.
	if !reflect.DeepEqual(p, pBefore) || !reflect.DeepEqual(d, dBefore) {
		t.Error("Discover modified its inputs")
	}
}
