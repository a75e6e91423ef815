package dqo

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// The multiplication behind discovery: exact decimals, rounded down once, in
// canonical units, with overflow and negative values reported, never wrapped.
func TestScaleCapacity(t *testing.T) {
	decimal := resource.MustParse("12")
	decimal.ToDec() // the same value in inf.Dec form must give the same result
	cases := []struct {
		name       string
		res        corev1.ResourceName
		q          resource.Quantity
		multiplier string
		want       int64
		err        error
	}{
		{"CPU into millicores", "cpu", resource.MustParse("2.5"), "1", 2500, nil},
		{"CPU finer than 1m rounds down", "cpu", resource.MustParse("0.0005"), "1", 0, nil},
		{"whole units round down", gpu, resource.MustParse("1.5"), "1", 1, nil},
		{"decimal form", gpu, decimal, "0.25", 3, nil},
		{"binary suffix", "memory", resource.MustParse("1Gi"), "0.5", 1 << 29, nil},
		{"multiplier with exponent", gpu, resource.MustParse("1000"), "1e-3", 1, nil},
		{"tiny value vanishes without a huge power of ten", gpu, resource.MustParse("1"), "1e-100", 0, nil},
		{"zero", gpu, resource.MustParse("0"), "5", 0, nil},
		{"huge exponent overflows", gpu, resource.MustParse("1"), "1e30", 0, errOverflow},
		{"just below the int64 limit", gpu, *resource.NewQuantity(resources.Unlimited-1, resource.DecimalSI), "1", resources.Unlimited - 1, nil},
		{"Unlimited itself is an overflow", gpu, *resource.NewQuantity(resources.Unlimited, resource.DecimalSI), "1", 0, errOverflow},
		{"CPU overflows in millicores", "cpu", resource.MustParse("9E"), "1", 0, errOverflow},
		{"negative capacity", gpu, resource.MustParse("-1"), "1", 0, errNegative},
		{"negative multiplier", gpu, resource.MustParse("1"), "-1", 0, errNegative},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := scaleCapacity(c.res, c.q, resource.MustParse(c.multiplier))
			if !errors.Is(err, c.err) || got != c.want {
				t.Errorf("scaleCapacity(%s, %s, %s) = %d, %v; want %d, %v", c.res, c.q.String(), c.multiplier, got, err, c.want, c.err)
			}
		})
	}
}

// CapacityFromStatus reads back what Status writes, and rejects what discovery
// could never have produced.
func TestCapacityFromStatus(t *testing.T) {
	if c, err := CapacityFromStatus(nil); c != nil || err != nil {
		t.Errorf("nil status = %v, %v; want nil capacity", c, err)
	}
	orig := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8, "cpu": 1500, "memory": 1 << 30}, "empty": {}})
	back, err := CapacityFromStatus(orig.Status())
	if err != nil || !EffectiveCapacityEqual(back.Status(), orig.Status()) || !back.Orchestrates("empty") {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	bad := orig.Status()
	bad.Flavors = append(bad.Flavors, bad.Flavors[0])
	if _, err := CapacityFromStatus(bad); err == nil {
		t.Error("a flavor listed twice must be an error")
	}
	neg := &v1alpha1.EffectiveCapacity{Flavors: []v1alpha1.FlavorCapacity{{Name: "h100", Resources: corev1.ResourceList{gpu: resource.MustParse("-1")}}}}
	if _, err := CapacityFromStatus(neg); err == nil {
		t.Error("a negative capacity must be an error")
	}
}

// EffectiveCapacityEqual decides whether the DQO status needs a write.
func TestEffectiveCapacityEqual(t *testing.T) {
	a := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 8, "cpu": 2000}}).Status()
	b := a.DeepCopy()
	b.Flavors[0].Resources["cpu"] = resource.MustParse("2")
	if !EffectiveCapacityEqual(a, b) {
		t.Error("2000m and 2 are equal")
	}
	b.Flavors[0].Resources[gpu] = resource.MustParse("9")
	if EffectiveCapacityEqual(a, b) || EffectiveCapacityEqual(a, nil) || !EffectiveCapacityEqual(nil, nil) {
		t.Error("different values, and set versus cleared, are not equal")
	}
	c := a.DeepCopy()
	delete(c.Flavors[0].Resources, "cpu")
	c.Flavors[0].Resources["memory"] = resource.MustParse("2")
	if EffectiveCapacityEqual(a, c) {
		t.Error("different resource names are not equal")
	}
}
