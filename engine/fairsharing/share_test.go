package fairsharing

import (
	"math"
	"testing"
)

// 002: "In v0.20.3 the ratio is computed per thousand, and
// .status.fairSharing.weightedShare reports it rounded up to an integer."
func TestRatioPerThousandAndRounding(t *testing.T) {
	cases := []struct {
		name                        string
		borrowed, lendable, weightM int64
		want                        Share
		weighted                    int64
	}{
		{"12 of 64 is 187.5", 12, 64, 1000, 187_500_000, 188},
		{"4 of 64 is 62.5", 4, 64, 1000, 62_500_000, 63},
		{"weight 2 halves it", 8, 64, 2000, 62_500_000, 63},
		{"weight 0.5 doubles it", 8, 64, 500, 250_000_000, 250},
		{"nothing lendable is infinite", 1, 0, 1000, Infinite, math.MaxInt64},
		{"large quantities do not overflow", 1 << 50, 1 << 52, 1000, 250_000_000, 250},
		// Kueue's share is a float: positive whenever something is borrowed,
		// and its status value is the ceil of it.
		{"1 of 3 rounds up at the last unit", 1, 3, 1000, 333_333_334, 334},
		{"a tiny positive share is not 0", 1000, math.MaxInt64 / 2, 1000, 1, 1},
		{"weight 3 rounds once, up", 1, 1000, 3000, 333_334, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ratio(tc.borrowed, tc.lendable, tc.weightM)
			if got != tc.want || got.Weighted() != tc.weighted {
				t.Fatalf("ratio(%d, %d, %d) = %d (weighted %d), want %d (%d)", tc.borrowed, tc.lendable, tc.weightM, got, got.Weighted(), tc.want, tc.weighted)
			}
		})
	}
}

// 002: "Only three lists are accepted" — the resolver keeps the given order.
func TestStrategiesKeepOrder(t *testing.T) {
	st, err := Strategies([]PreemptionStrategyName{LessThanOrEqualToFinalShare.Name, LessThanInitialShare.Name})
	if err != nil || len(st) != 2 || st[0].Name != LessThanOrEqualToFinalShare.Name || st[1].Name != LessThanInitialShare.Name {
		t.Fatalf("got %v, %v", st, err)
	}
	if _, err := Strategies([]PreemptionStrategyName{"Nope"}); err == nil {
		t.Fatal("an unknown strategy must be an error")
	}
	// LessThanOrEqualToFinalShare: 125 ≤ 125 holds; LessThanInitialShare: 187.5 < 187.5 does not.
	if !LessThanOrEqualToFinalShare.Allow(125*Scale, 187*Scale, 125*Scale) {
		t.Error("125 ≤ 125 must hold")
	}
	if LessThanInitialShare.Allow(187*Scale+Scale/2, 187*Scale+Scale/2, 0) {
		t.Error("187.5 < 187.5 must fail")
	}
}
