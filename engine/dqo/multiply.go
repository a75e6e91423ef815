package dqo

import (
	"errors"
	"math/big"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/engine/resources"
)

var (
	errNegative = errors.New("must not be negative")
	errOverflow = errors.New("does not fit into int64 canonical units")

	bigThousand = big.NewInt(1000)
	bigTen      = big.NewInt(10)
)

// scaleCapacity returns the capacity q of resource name multiplied by multiplier, in
// canonical units (millicores for CPU, whole units otherwise), rounded down.
//
// Why exact decimals: a multiplier such as 0.95 has no exact float64 value, and
// 1000 × 0.95 in float64 is 949.9999…, which would round down to 949. Both operands
// are decimals (resource.Quantity is an inf.Dec underneath), so the product
// unscaled(q) × unscaled(m) × 10^-(scale(q)+scale(m)) is computed with math/big and
// divided once, at the end.
//
// Why round down: effective capacity must never promise more than the providers
// reported, so fractions of a canonical unit are dropped (0.95 × 3 GPUs = 2.85 → 2;
// 0.95 × 1001m CPU = 950.95m → 950m). A reported quantity that is itself finer than a
// canonical unit ("1.5" GPUs, "0.5m" CPU) is rounded down the same way, after the
// multiplication, so that the only rounding is the last step.
//
// A result of resources.Unlimited or more is an overflow: Unlimited means "no limit"
// to the rest of the engine and must not appear as a capacity.
func scaleCapacity(name corev1.ResourceName, q resource.Quantity, multiplier resource.Quantity) (int64, error) {
	// AsDec converts a Quantity to its decimal form in place. q and multiplier are
	// value copies, so only the copies change; a Quantity that is already decimal
	// shares its *inf.Dec with the caller's object, which is only read below. Objects
	// shared with an informer cache are therefore never modified.
	qd, md := q.AsDec(), multiplier.AsDec()
	if qd.Sign() < 0 || md.Sign() < 0 {
		return 0, errNegative
	}
	num := new(big.Int).Mul(qd.UnscaledBig(), md.UnscaledBig())
	if num.Sign() == 0 {
		return 0, nil
	}
	if resources.IsMilli(name) {
		num.Mul(num, bigThousand)
	}
	// The value is num × 10^-exp.
	exp := int64(qd.Scale()) + int64(md.Scale())
	switch {
	case exp > 0:
		// 10^exp ≥ 2^(3·exp); when that is at least 2^BitLen the quotient is 0.
		// Checking first keeps absurd scales from allocating huge powers of ten.
		if 3*exp >= int64(num.BitLen()) {
			return 0, nil
		}
		num.Quo(num, new(big.Int).Exp(bigTen, big.NewInt(exp), nil))
	case exp < 0:
		// num ≥ 1, so any factor above 10^19 overflows int64.
		if -exp > 19 {
			return 0, errOverflow
		}
		num.Mul(num, new(big.Int).Exp(bigTen, big.NewInt(-exp), nil))
	}
	if !num.IsInt64() || num.Int64() >= resources.Unlimited {
		return 0, errOverflow
	}
	return num.Int64(), nil
}

// multiplierOf returns the entry's effectiveCapacityMultiplier, defaulting to 1 as
// the API does when the field is unset.
func multiplierOf(m *resource.Quantity) resource.Quantity {
	if m == nil {
		return *resource.NewQuantity(1, resource.DecimalSI)
	}
	return *m
}
