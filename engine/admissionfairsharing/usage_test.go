package admissionfairsharing

import (
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

func params(half, interval time.Duration, weights map[corev1.ResourceName]float64) Params {
	return ParamsFrom(&config.AdmissionFairSharing{UsageHalfLifeTime: metav1.Duration{Duration: half},
		UsageSamplingInterval: metav1.Duration{Duration: interval}, ResourceWeights: weights})
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	cpu = corev1.ResourceCPU
	gpu = corev1.ResourceName("nvidia.com/gpu")
)

// consumed reads one resource of the usage as a float.
func consumed(u *Usage, r corev1.ResourceName) float64 {
	q := u.ConsumedResources()[r]
	return q.AsApproximateFloat64()
}

// Kueue's CalculateDecayedConsumed: consumed = old × (1 − α) + current × α
// with α = 1 − 0.5^(elapsed/halfLife), and its entry penalty: requests ×
// α(samplingInterval). The amounts are decimals rounded down to nine digits,
// so a few nano-units from the exact formula.
func TestSampleIsKueuesMovingAverage(t *testing.T) {
	p := params(10*time.Minute, 5*time.Minute, nil)
	u := NewUsage()
	near := func(step string, want float64) {
		t.Helper()
		if got := consumed(u, cpu); math.Abs(got-want) > 1e-8 {
			t.Fatalf("%s: consumed %.9f cpu, want %.9f", step, got, want)
		}
	}
	if u.Sample(p, t0, resources.Requests{cpu: 8000}) {
		t.Fatal("the first sample only starts the clock")
	}
	near("first sample", 0)
	alpha := func(dt time.Duration) float64 { return 1 - math.Pow(0.5, dt.Minutes()/10) }
	// An admission of 8 cpus at the first sample: no time to decay over.
	u.Settle(p, t0, resources.Requests{cpu: 8000}, resources.Requests{cpu: 8000})
	penalty := 8 * alpha(5*time.Minute)
	near("entry penalty", penalty)
	if u.Sample(p, t0.Add(4*time.Minute), resources.Requests{cpu: 8000}) {
		t.Fatal("sampled before the sampling interval passed")
	}
	if !u.Sample(p, t0.Add(10*time.Minute), resources.Requests{cpu: 2000}) {
		t.Fatal("did not sample after the interval")
	}
	after := penalty*0.5 + 2*0.5
	near("one half-life later, 2 cpus in use", after)
	if !u.Sample(p, t0.Add(30*time.Minute), nil) {
		t.Fatal("no sample")
	}
	near("two more half-lives idle", after*0.25)

	// An admission between samples is one step of the average up to it.
	u.Settle(p, t0.Add(35*time.Minute), resources.Requests{cpu: 4000}, resources.Requests{cpu: 4000})
	settled := after*0.25*(1-alpha(5*time.Minute)) + 4*alpha(5*time.Minute) + 4*alpha(5*time.Minute)
	near("settled five minutes after the last sample", settled)
	if !u.LastSample.Equal(t0.Add(35 * time.Minute)) {
		t.Fatalf("settling restarts the clock: last %v", u.LastSample)
	}

	// Holding the same quota, the average converges to it.
	for i := range 80 {
		u.Sample(p, t0.Add(time.Duration(40+5*i)*time.Minute), resources.Requests{cpu: 3000})
	}
	near("steady 3 cpus", 3)
}

// Kueue resets the usage without a half-life, and its penalty is zero.
func TestNoHalfLifeKeepsNoUsage(t *testing.T) {
	p := params(0, time.Minute, nil)
	u := NewUsage()
	u.Seed(corev1.ResourceList{cpu: resource.MustParse("5")})
	u.Settle(p, t0, resources.Requests{cpu: 5000}, resources.Requests{cpu: 5000})
	if got := consumed(u, cpu); got != 5 {
		t.Fatalf("seeded %v cpu, want 5 and no penalty", got)
	}
	u.Sample(p, t0.Add(time.Minute), resources.Requests{cpu: 5000})
	if got := u.ConsumedResources(); len(got) != 0 {
		t.Fatalf("usage after a sample without half-life: %v, want none", got)
	}
}

// resourceWeights weigh resources; the LocalQueue's weight divides the sum.
func TestWeightedUsage(t *testing.T) {
	p := params(time.Hour, time.Minute, map[corev1.ResourceName]float64{gpu: 10})
	u := NewUsage()
	u.Seed(corev1.ResourceList{cpu: resource.MustParse("4"), gpu: resource.MustParse("1")})
	if got := u.Weighted(p, 1); got != 14 {
		t.Fatalf("weighted %v, want 4 cpu × 1 + 1 gpu × 10 = 14", got)
	}
	if got := u.Weighted(p, 2); got != 7 {
		t.Fatalf("with LocalQueue weight 2: %v, want 7", got)
	}
	var idle *Usage
	if got := idle.Weighted(p, 1); got != 0 {
		t.Fatalf("a LocalQueue without usage: %v, want 0", got)
	}
}

// Kueue: pkg/util/admissionfairsharing/admission_fair_sharing_test.go,
// TestCalculateUsageWithNonPositiveWeight: "A non-positive weight must yield
// +Inf usage so the LocalQueue is sorted last in the admission order, never
// NaN (which would sort it first)."
func TestKueueUsageWithNonPositiveWeight(t *testing.T) {
	p := params(time.Hour, time.Minute, nil)
	active := NewUsage()
	active.Seed(corev1.ResourceList{cpu: resource.MustParse("4")})
	for name, tc := range map[string]struct {
		usage  *Usage
		weight float64
	}{
		"zero weight, idle queue (no usage)": {NewUsage(), 0},
		"zero weight, active queue":          {active, 0},
		"negative weight":                    {active, -1},
	} {
		t.Run(name, func(t *testing.T) {
			if got := tc.usage.Weighted(p, tc.weight); !math.IsInf(got, 1) {
				t.Fatalf("weighted %v, want +Inf", got)
			}
		})
	}
}

// A week-long half-life sampled every five minutes, as in Kueue's tests.
var weekHalfLife = params(168*time.Hour, 5*time.Minute, nil)

// Kueue: TestCalculateDecayedConsumedAccumulatesSubMilli: "with a long
// half-life the per-sample contribution is below one milli-unit, and must
// still accumulate across samples instead of being dropped."
func TestKueueDecayedConsumedAccumulatesSubMilli(t *testing.T) {
	u := NewUsage()
	u.Sample(weekHalfLife, t0, nil)
	var prevCPU, prevGPU float64
	for sample := 1; sample <= 3; sample++ {
		u.Sample(weekHalfLife, t0.Add(time.Duration(sample)*5*time.Minute), resources.Requests{cpu: 2000, gpu: 1})
		c, g := consumed(u, cpu), consumed(u, gpu)
		if c <= prevCPU || g <= prevGPU {
			t.Fatalf("sample %d: cpu %v after %v, gpu %v after %v: both must grow", sample, c, prevCPU, g, prevGPU)
		}
		prevCPU, prevGPU = c, g
	}
}

// Kueue: TestCalculateDecayedConsumedConvergesToUsage: "Decayed usage must
// approach current usage on the half-life curve, and must never exceed it",
// within a milli-unit after thousands of samples.
func TestKueueDecayedConsumedConvergesToUsage(t *testing.T) {
	const samplesPerHalfLife = 2016 // 168h / 5m
	u := NewUsage()
	u.Sample(weekHalfLife, t0, nil)
	at := t0
	for halfLives, want := range []float64{1, 1.5, 1.75} {
		for range samplesPerHalfLife {
			at = at.Add(5 * time.Minute)
			u.Sample(weekHalfLife, at, resources.Requests{cpu: 2000})
		}
		got := consumed(u, cpu)
		if math.Abs(got-want) > 0.001 {
			t.Errorf("after %d half-lives: %v cpu, want %v ± 1m", halfLives+1, got, want)
		}
		if got > 2 {
			t.Errorf("after %d half-lives: %v cpu exceeds the 2 in use", halfLives+1, got)
		}
	}
}

// Kueue: TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive.
func TestKueueDecayedConsumedKeepsLargeQuantitiesPositive(t *testing.T) {
	for _, size := range []string{"16Gi", "1Ti", "64Ti"} {
		t.Run(size, func(t *testing.T) {
			u := NewUsage()
			u.Sample(weekHalfLife, t0, nil)
			mem := resources.MustCanonical(corev1.ResourceMemory, size)
			u.Sample(weekHalfLife, t0.Add(5*time.Minute), resources.Requests{corev1.ResourceMemory: mem})
			if got := u.ConsumedResources()[corev1.ResourceMemory]; got.Sign() <= 0 {
				t.Fatalf("memory %s, want a positive value", got.String())
			}
		})
	}
}

// Kueue: TestCalculateEntryPenaltyWithLongHalfLife: a week's half-life still
// charges a positive penalty for 2 cpus and 1 GPU.
func TestKueueEntryPenaltyWithLongHalfLife(t *testing.T) {
	u := NewUsage()
	u.Settle(weekHalfLife, t0, nil, resources.Requests{cpu: 2000, gpu: 1})
	for _, r := range []corev1.ResourceName{cpu, gpu} {
		if got := u.ConsumedResources()[r]; got.Sign() <= 0 {
			t.Errorf("%s penalty %s, want a positive value", r, got.String())
		}
	}
}

// Kueue: pkg/controller/core/localqueue_controller_test.go, "clamps a future
// LastUpdate stamped by a concurrent settlement": elapsed time clamps to 0,
// the usage is kept verbatim, and the stored timestamp keeps the later value.
// The engine's drivers never move time backwards; Settle and Sample still
// treat a later last update so.
func TestKueueFutureLastUpdateIsKept(t *testing.T) {
	p := params(5*time.Minute, 5*time.Minute, nil)
	u := NewUsage()
	u.Seed(corev1.ResourceList{cpu: resource.MustParse("8")})
	later := t0.Add(5 * time.Minute)
	u.Sample(p, later, nil)
	if u.Sample(p, t0, resources.Requests{cpu: 4000}) {
		t.Fatal("sampled at an instant before the last update")
	}
	u.Settle(p, t0, resources.Requests{cpu: 4000}, nil)
	if got := u.ConsumedResources()[cpu]; got.Cmp(resource.MustParse("8")) != 0 {
		t.Fatalf("consumed %s, want 8 kept verbatim", got.String())
	}
	if !u.LastSample.Equal(later) {
		t.Fatalf("last update %v, want the later %v", u.LastSample, later)
	}
}

// Kueue samples a LocalQueue every sampling interval after its last update. A
// sample taken late takes the samples due since on that grid, at once (what
// was in use all along being current), and the next is due an interval after
// the last of them.
func TestLateSampleKeepsKueuesGrid(t *testing.T) {
	p := params(time.Hour, 5*time.Minute, nil)
	u, v := NewUsage(), NewUsage()
	for _, x := range []*Usage{u, v} {
		x.Seed(corev1.ResourceList{cpu: resource.MustParse("8")})
		x.Sample(p, t0, nil)
	}
	if _, ok := NewUsage().NextSample(p); ok {
		t.Fatal("a usage never sampled has no next sample")
	}
	if at, _ := u.NextSample(p); !at.Equal(t0.Add(5 * time.Minute)) {
		t.Fatalf("next sample %v, want t0+5m", at)
	}
	// u is sampled on time, twice; v once, late, at 12m.
	u.Sample(p, t0.Add(5*time.Minute), resources.Requests{cpu: 2000})
	u.Sample(p, t0.Add(10*time.Minute), resources.Requests{cpu: 2000})
	if !v.Sample(p, t0.Add(12*time.Minute), resources.Requests{cpu: 2000}) {
		t.Fatal("no sample at 12m")
	}
	if !v.LastSample.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("last sample %v, want the grid's t0+10m", v.LastSample)
	}
	if at, _ := v.NextSample(p); !at.Equal(t0.Add(15 * time.Minute)) {
		t.Fatalf("next sample %v, want t0+15m", at)
	}
	if got, want := consumed(v, cpu), consumed(u, cpu); math.Abs(got-want) > 1e-8 {
		t.Fatalf("late sample %.9f cpu, on-time samples %.9f", got, want)
	}
}
