package resources

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Unlimited is the amount that stands for "no limit", for example an unset
// borrowingLimit. It is also where saturating arithmetic stops.
const Unlimited int64 = math.MaxInt64

// MaxAmount is the largest amount ToCanonical accepts, half of Unlimited, so
// that the sum of two accepted amounts still fits into int64. The quota cache
// holds a Cohort tree's nominal quotas to the same bound, in total per flavor
// and resource (see quota.MaxTreeQuota).
const MaxAmount int64 = math.MaxInt64 / 2

// IsMilli reports whether the canonical unit of a resource is the milli-unit.
// Only CPU is counted in millicores, as in Kubernetes itself; every other resource
// (memory, ephemeral storage, pods, extended resources such as nvidia.com/gpu) is
// counted in whole units.
func IsMilli(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU
}

// ToCanonical converts a quantity into the canonical int64 amount of the resource.
// Whole-unit resources round up (a request of 1.5 GPUs cannot be satisfied by one).
// It returns an error when the value is negative or above MaxAmount.
func ToCanonical(name corev1.ResourceName, q resource.Quantity) (int64, error) {
	if q.Sign() < 0 {
		return 0, fmt.Errorf("quantity %s of %s must not be negative", q.String(), name)
	}
	if IsMilli(name) {
		if q.Cmp(*resource.NewMilliQuantity(MaxAmount, resource.DecimalSI)) > 0 {
			return 0, fmt.Errorf("quantity %s of %s is too large", q.String(), name)
		}
		return q.MilliValue(), nil
	}
	if v, ok := q.AsInt64(); ok {
		// An integer that fits into int64 may still be above MaxAmount
		// (memory up to 7Ei does).
		if v > MaxAmount {
			return 0, fmt.Errorf("quantity %s of %s is too large", q.String(), name)
		}
		return v, nil
	}
	// Not an exact integer, or too large for int64: Value rounds up.
	if q.Cmp(*resource.NewQuantity(MaxAmount, resource.DecimalSI)) > 0 {
		return 0, fmt.Errorf("quantity %s of %s is too large", q.String(), name)
	}
	return q.Value(), nil
}

// MustCanonical is ToCanonical for values already validated at the edge (tests,
// generated data). It panics on error.
func MustCanonical(name corev1.ResourceName, q string) int64 {
	v, err := ToCanonical(name, resource.MustParse(q))
	if err != nil {
		panic(err)
	}
	return v
}

// ToQuantity converts a canonical amount back into a resource.Quantity in the
// format that Kubernetes users expect (BinarySI for memory, DecimalSI otherwise).
func ToQuantity(name corev1.ResourceName, v int64) resource.Quantity {
	if IsMilli(name) {
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	}
	if name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage {
		return *resource.NewQuantity(v, resource.BinarySI)
	}
	return *resource.NewQuantity(v, resource.DecimalSI)
}

// Add returns a+b, saturating at Unlimited. Both operands are expected to be
// non-negative quota amounts; a negative operand is added exactly.
func Add(a, b int64) int64 {
	if a == Unlimited || b == Unlimited {
		return Unlimited
	}
	s := a + b
	if b > 0 && s < a {
		return Unlimited
	}
	if b < 0 && s > a {
		return math.MinInt64
	}
	return s
}

// Sub returns a-b, where Unlimited minus anything finite stays Unlimited.
func Sub(a, b int64) int64 {
	if a == Unlimited {
		return Unlimited
	}
	if b == Unlimited {
		return math.MinInt64
	}
	d := a - b
	if b < 0 && d < a {
		return Unlimited
	}
	if b > 0 && d > a {
		return math.MinInt64
	}
	return d
}

// Mul returns a*n saturating at Unlimited, for counts of pods times per-pod requests.
func Mul(a int64, n int64) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	if a == Unlimited || n == Unlimited {
		return Unlimited
	}
	if a > 0 && n > 0 && a > Unlimited/n {
		return Unlimited
	}
	return a * n
}
