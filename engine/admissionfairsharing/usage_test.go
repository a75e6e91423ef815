package admissionfairsharing

import (
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

// The brief: "usage(t) = usage(t0) × 0.5^((t−t0)/halfLife) + sampled usage".
func TestSampleDecaysThenAdds(t *testing.T) {
	p := params(10*time.Minute, 5*time.Minute, nil)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	u := NewUsage()
	cpu := corev1.ResourceName("cpu")
	if u.Sample(p, t0, resources.Requests{cpu: 8000}) {
		t.Fatal("the first sample only starts the clock")
	}
	u.Add(resources.Requests{cpu: 8000}) // an admission's entry penalty
	if u.Sample(p, t0.Add(4*time.Minute), resources.Requests{cpu: 8000}) {
		t.Fatal("sampled before the sampling interval passed")
	}
	if !u.Sample(p, t0.Add(10*time.Minute), resources.Requests{cpu: 2000}) {
		t.Fatal("did not sample after the interval")
	}
	// 8000 × 0.5 + 2000 = 6000 millicores.
	if got := u.ConsumedResources()[cpu]; got != 6000 {
		t.Fatalf("consumed %d, want 6000", got)
	}
	if !u.Sample(p, t0.Add(30*time.Minute), nil) {
		t.Fatal("no sample")
	}
	if got := u.ConsumedResources()[cpu]; got != 1500 {
		t.Fatalf("after two more half-lives idle: %d, want 1500", got)
	}
}

// resourceWeights weigh resources; the LocalQueue's weight divides the sum.
func TestWeightedUsage(t *testing.T) {
	p := params(time.Hour, time.Minute, map[corev1.ResourceName]float64{"nvidia.com/gpu": 10})
	u := NewUsage()
	u.Add(resources.Requests{"cpu": 4000, "nvidia.com/gpu": 1})
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
