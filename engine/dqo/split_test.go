package dqo

import (
	"math"
	"math/big"
	"math/rand"
	"sort"
	"testing"
)

func claimsOf(weights ...int64) []claim {
	cs := make([]claim, len(weights))
	for i, w := range weights {
		cs[i] = claim{weight: w, rank: i}
	}
	return cs
}

// The examples of 000 and the KEP, on the splitter alone.
func TestSplitExamples(t *testing.T) {
	cases := []struct {
		name    string
		total   int64
		claims  []claim
		want    []int64
		comment string
	}{
		// 000: "team-a has a nominal quota of 10 CPUs and team-b has 20 CPUs. If the
		// effective capacity is 48 CPUs, team-a gets 16 and team-b gets 32."
		{name: "10 and 20 CPUs share 48", total: 48000, claims: claimsOf(10000, 20000), want: []int64{16000, 32000}},
		// 000: "10 units split equally over three ClusterQueues gives 4, 3 and 3."
		{name: "10 units over three equal queues", total: 10, claims: claimsOf(1, 1, 1), want: []int64{4, 3, 3}},
		// KEP: "100 for cq1 and 200 for cq2, and the aggregated capacity is 600 ... 200 and 400".
		{name: "100 and 200 share 600", total: 600, claims: claimsOf(100, 200), want: []int64{200, 400}},
		// 000: "Ties go to the smaller UID." cq-2 has the smallest UID here.
		{name: "tie goes to the first rank", total: 10, claims: []claim{
			{weight: 5, rank: 2}, {weight: 5, rank: 1}, {weight: 5, rank: 0},
		}, want: []int64{3, 3, 4}},
		// The largest remainder wins before the UID: 7 × 1/6 = 1.1667, 7 × 2/6 = 2.333,
		// 7 × 3/6 = 3.5; floors 1+2+3 = 6, the unit left goes to the 0.5 remainder.
		{name: "largest remainder before UID", total: 7, claims: claimsOf(1, 2, 3), want: []int64{1, 2, 4}},
		// 000: "If every participant has a nominal quota of 0 ... every participant
		// gets an effective nominal quota of 0."
		{name: "all weights zero", total: 100, claims: claimsOf(0, 0), want: []int64{0, 0}},
		{name: "zero weight gets nothing even with leftovers", total: 5, claims: claimsOf(0, 1, 1), want: []int64{0, 3, 2}},
		{name: "zero capacity", total: 0, claims: claimsOf(3, 4), want: []int64{0, 0}},
		{name: "one participant takes all", total: 12345, claims: claimsOf(1), want: []int64{12345}},
		{name: "capacity near the int64 limit", total: math.MaxInt64 - 2, claims: claimsOf(1, 1), want: []int64{math.MaxInt64 / 2, math.MaxInt64/2 - 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s splitter
			got := make([]int64, len(c.claims))
			s.split(c.total, c.claims, got)
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("split(%d, %v) = %v, want %v", c.total, c.claims, got, c.want)
				}
			}
		})
	}
}

// Property: for random capacities and weights, the split (1) sums exactly to the
// capacity when some weight is nonzero and to 0 otherwise, (2) gives nobody a unit or
// more above or below the exact proportional share total·w/W, (3) does not depend on
// the order of the participants, and (4) the 128-bit path agrees with math/big.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(12382))
	var s splitter
	for iter := 0; iter < 20000; iter++ {
		n := 1 + rng.Intn(12)
		claims := make([]claim, n)
		for i, r := range rng.Perm(n) {
			claims[i] = claim{weight: randomAmount(rng), rank: r}
		}
		total := randomAmount(rng)
		got := make([]int64, n)
		s.split(total, claims, got)
		checkSplit(t, total, claims, got)

		viaBig := make([]int64, n)
		s.splitBig(total, claims, viaBig)
		for i := range got {
			if got[i] != viaBig[i] {
				t.Fatalf("128-bit and big paths disagree for total %d claims %v: %v vs %v", total, claims, got, viaBig)
			}
		}

		perm := rng.Perm(n)
		shuffled := make([]claim, n)
		for i, p := range perm {
			shuffled[i] = claims[p]
		}
		again := make([]int64, n)
		s.split(total, shuffled, again)
		for i, p := range perm {
			if again[i] != got[p] {
				t.Fatalf("order matters: %v gives %v, shuffled %v gives %v", claims, got, shuffled, again)
			}
		}
	}
}

// Weights whose sum does not fit into 64 bits take the math/big path and keep every
// property.
func TestSplitHugeWeightsUseBigArithmetic(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var s splitter
	for iter := 0; iter < 2000; iter++ {
		n := 3 + rng.Intn(5)
		claims := claimsOf(make([]int64, n)...)
		for i := range claims {
			claims[i].weight = math.MaxInt64 - rng.Int63n(1<<40)
		}
		total := rng.Int63()
		got := make([]int64, n)
		s.split(total, claims, got)
		checkSplit(t, total, claims, got)
	}
}

// randomAmount mixes small, typical and extreme values so that ties, zero weights and
// 128-bit products all occur.
func randomAmount(rng *rand.Rand) int64 {
	switch rng.Intn(6) {
	case 0:
		return 0
	case 1:
		return rng.Int63n(10)
	case 2:
		return rng.Int63n(1000)
	case 3:
		return rng.Int63n(1 << 40)
	case 4:
		return math.MaxInt64 - 1 - rng.Int63n(1000)
	}
	return rng.Int63()
}

func checkSplit(t *testing.T, total int64, claims []claim, got []int64) {
	t.Helper()
	sumW, sum := new(big.Int), new(big.Int)
	for i, c := range claims {
		sumW.Add(sumW, big.NewInt(c.weight))
		sum.Add(sum, big.NewInt(got[i]))
		if got[i] < 0 {
			t.Fatalf("negative share %d in %v", got[i], got)
		}
	}
	if sumW.Sign() == 0 {
		if sum.Sign() != 0 {
			t.Fatalf("all weights zero but shares %v", got)
		}
		return
	}
	if sum.Cmp(big.NewInt(total)) != 0 {
		t.Fatalf("shares %v of %d for weights %v sum to %s", got, total, claims, sum)
	}
	for i, c := range claims {
		// |got·W − total·w| < W  ⇔  got is less than one unit from total·w/W.
		diff := new(big.Int).Mul(big.NewInt(got[i]), sumW)
		diff.Sub(diff, new(big.Int).Mul(big.NewInt(total), big.NewInt(c.weight)))
		if diff.Abs(diff).Cmp(sumW) >= 0 {
			t.Fatalf("share %d of claim %d (weight %d of %s, total %d) is a unit or more from its exact share", got[i], i, c.weight, sumW, total)
		}
		if c.weight == 0 && got[i] != 0 {
			t.Fatalf("zero weight got %d", got[i])
		}
	}
}

// referenceSplit is the largest-remainder method written the obvious way (math/big,
// full sort), to check that the fast path hands leftovers to exactly the right
// claims, which the sum and one-unit properties alone would not notice.
func referenceSplit(total int64, claims []claim) []int64 {
	sumW := new(big.Int)
	for _, c := range claims {
		sumW.Add(sumW, big.NewInt(c.weight))
	}
	out := make([]int64, len(claims))
	if sumW.Sign() == 0 {
		return out
	}
	rems := make([]*big.Int, len(claims))
	left := total
	for i, c := range claims {
		q, r := new(big.Int).QuoRem(new(big.Int).Mul(big.NewInt(total), big.NewInt(c.weight)), sumW, new(big.Int))
		out[i], rems[i] = q.Int64(), r
		left -= out[i]
	}
	idx := make([]int, len(claims))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		if c := rems[idx[a]].Cmp(rems[idx[b]]); c != 0 {
			return c > 0
		}
		return claims[idx[a]].rank < claims[idx[b]].rank
	})
	for _, i := range idx[:left] {
		out[i]++
	}
	return out
}

func TestSplitMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	var s splitter
	for iter := 0; iter < 5000; iter++ {
		n := 1 + rng.Intn(40)
		claims := make([]claim, n)
		for i, r := range rng.Perm(n) {
			// Few distinct weights make many equal remainders, so ranks decide.
			claims[i] = claim{weight: int64(rng.Intn(5)) * int64(1+rng.Intn(3)), rank: r}
		}
		total := rng.Int63n(1000)
		got := make([]int64, n)
		s.split(total, claims, got)
		want := referenceSplit(total, claims)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("split(%d, %v) = %v, reference %v", total, claims, got, want)
			}
		}
	}
}
