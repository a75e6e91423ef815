package admissionfairsharing

import (
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// The decay is 0.5^(dt/halfLife) in Q30: whole half-lives are exact shifts;
// fractions are within a few parts per billion.
func TestDecayFactor(t *testing.T) {
	h := 10 * time.Minute
	cases := []struct {
		dt   time.Duration
		want uint64
		tol  uint64
	}{
		{0, one, 0},
		{h, one / 2, 0},
		{2 * h, one / 4, 0},
		{h / 2, 759250125, 2},           // 2^-0.5
		{3 * h / 2, 759250125 / 2, 2},   // 2^-1.5
		{h / 4, 902905651, 2},           // 2^-0.25
		{40 * h, 0, 0},                  // beyond 31 half-lives everything is gone
		{-time.Minute, one, 0},          // time never runs backwards here
		{h + h/1024, 1073015252 / 2, 2}, // 2^-(1+1/1024)
	}
	for _, tc := range cases {
		got := factor(tc.dt, h)
		diff := got - tc.want
		if got < tc.want {
			diff = tc.want - got
		}
		if diff > tc.tol {
			t.Errorf("factor(%v) = %d, want %d ± %d", tc.dt, got, tc.want, tc.tol)
		}
	}
}

func params(half, interval time.Duration, weights map[corev1.ResourceName]float64) Params {
	return ParamsFrom(&config.AdmissionFairSharing{UsageHalfLifeTime: metav1.Duration{Duration: half},
		UsageSamplingInterval: metav1.Duration{Duration: interval}, ResourceWeights: weights})
}

// Kueue's CalculateDecayedConsumed: consumed = old × (1 − α) + current × α
// with α = 1 − 0.5^(elapsed/halfLife), and CalculateEntryPenalty: requests ×
// α(samplingInterval). Values are in millicores, rounded down, within a unit
// of the exact formula (the decay is fixed-point).
func TestSampleIsKueuesMovingAverage(t *testing.T) {
	p := params(10*time.Minute, 5*time.Minute, nil)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u := NewUsage()
	cpu := corev1.ResourceName("cpu")
	near := func(step string, want float64) {
		t.Helper()
		if got := u.ConsumedResources()[cpu]; math.Abs(float64(got)-math.Floor(want)) > 1 {
			t.Fatalf("%s: consumed %dm, want %.0fm", step, got, math.Floor(want))
		}
	}
	if u.Sample(p, t0, resources.Requests{cpu: 8000}) {
		t.Fatal("the first sample only starts the clock")
	}
	alpha := func(dt time.Duration) float64 { return 1 - math.Pow(0.5, dt.Minutes()/10) }
	u.Penalize(p, resources.Requests{cpu: 8000}) // an admission of 8 cpus
	penalty := 8000 * alpha(5*time.Minute)
	near("entry penalty", penalty)
	if u.Sample(p, t0.Add(4*time.Minute), resources.Requests{cpu: 8000}) {
		t.Fatal("sampled before the sampling interval passed")
	}
	if !u.Sample(p, t0.Add(10*time.Minute), resources.Requests{cpu: 2000}) {
		t.Fatal("did not sample after the interval")
	}
	after := penalty*0.5 + 2000*0.5
	near("one half-life later, 2 cpus in use", after)
	if !u.Sample(p, t0.Add(30*time.Minute), nil) {
		t.Fatal("no sample")
	}
	near("two more half-lives idle", after*0.25)

	// Holding the same quota, the average converges to it.
	for i := range 40 {
		u.Sample(p, t0.Add(time.Duration(35+5*i)*time.Minute), resources.Requests{cpu: 3000})
	}
	near("steady 3 cpus", 3000)
}

// Kueue resets the usage and adds no penalty without a half-life.
func TestNoHalfLifeKeepsNoUsage(t *testing.T) {
	p := params(0, time.Minute, nil)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u := NewUsage()
	u.Seed(resources.Requests{"cpu": 5000})
	u.Penalize(p, resources.Requests{"cpu": 5000})
	if got := u.ConsumedResources()["cpu"]; got != 5000 {
		t.Fatalf("seeded %dm, want 5000m and no penalty", got)
	}
	u.Sample(p, t0, nil)
	u.Sample(p, t0.Add(time.Minute), resources.Requests{"cpu": 5000})
	if got := len(u.Consumed); got != 0 {
		t.Fatalf("usage after a sample without half-life: %v, want none", u.Consumed)
	}
}

// resourceWeights weigh resources; the LocalQueue's weight divides the sum.
func TestWeightedUsage(t *testing.T) {
	p := params(time.Hour, time.Minute, map[corev1.ResourceName]float64{"nvidia.com/gpu": 10})
	u := NewUsage()
	u.Seed(resources.Requests{"cpu": 4000, "nvidia.com/gpu": 1})
	// cpu 4000 × 1 + gpu 1 × 10, in thousandths: 4_000_000 + 10_000.
	if got := u.Weighted(p, 1000); got != 4_010_000 {
		t.Fatalf("weighted %d, want 4010000", got)
	}
	if got := u.Weighted(p, 2000); got != 2_005_000 {
		t.Fatalf("with LocalQueue weight 2: %d, want 2005000", got)
	}
	if got := u.Weighted(p, 0); got != 1<<63-1 {
		t.Fatalf("weight 0 with usage: %d, want MaxInt64", got)
	}
	if got := NewUsage().Weighted(p, 0); got != 0 {
		t.Fatalf("weight 0 without usage: %d, want 0", got)
	}
}
