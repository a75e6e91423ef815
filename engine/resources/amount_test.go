package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestToCanonical(t *testing.T) {
	cases := []struct {
		name corev1.ResourceName
		q    string
		want int64
	}{
		{corev1.ResourceCPU, "384", 384000},
		{corev1.ResourceCPU, "1500m", 1500},
		{corev1.ResourceMemory, "3840Gi", 3840 << 30},
		{"nvidia.com/gpu", "32", 32},
		{"nvidia.com/gpu", "1.5", 2}, // whole units round up
	}
	for _, c := range cases {
		got, err := ToCanonical(c.name, resource.MustParse(c.q))
		if err != nil || got != c.want {
			t.Errorf("ToCanonical(%s, %s) = %d, %v; want %d", c.name, c.q, got, err, c.want)
		}
		back := ToQuantity(c.name, got)
		if v, _ := ToCanonical(c.name, back); v != got {
			t.Errorf("round trip of %s %s gave %s", c.name, c.q, back.String())
		}
	}
	if _, err := ToCanonical("nvidia.com/gpu", resource.MustParse("-1")); err == nil {
		t.Error("negative quantity must be an error")
	}
	if _, err := ToCanonical(corev1.ResourceCPU, resource.MustParse("1E")); err == nil {
		t.Error("a CPU quantity beyond int64 millicores must be an error")
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	if Add(Unlimited, 5) != Unlimited || Add(Unlimited-1, 5) != Unlimited {
		t.Error("Add must saturate at Unlimited")
	}
	if Sub(Unlimited, 5) != Unlimited {
		t.Error("Unlimited minus a finite amount stays Unlimited")
	}
	if Mul(1<<40, 1<<40) != Unlimited {
		t.Error("Mul must saturate")
	}
	if Add(2, 3) != 5 || Sub(2, 3) != -1 || Mul(3, 4) != 12 {
		t.Error("finite arithmetic is exact")
	}
}

func TestAmountsSubRemovesZeroCells(t *testing.T) {
	fr := FlavorResource{"h100", "nvidia.com/gpu"}
	a := Amounts{fr: 8}
	a.Sub(Amounts{fr: 8})
	if len(a) != 0 {
		t.Errorf("cell at zero must be removed, got %v", a)
	}
}
