package admissionfairsharing

import (
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// Milli is the fixed-point scale of recorded usage: a thousandth of a
// canonical unit, so that halving one GPU leaves half a GPU, not zero.
const Milli = 1000

// Params are the Configuration's admissionFairSharing settings, resolved once:
// resource weights become thousandths so that ordering compares integers.
type Params struct {
	HalfLife         time.Duration
	SamplingInterval time.Duration
	// Weights in thousandths; a missing resource weighs 1000.
	Weights map[corev1.ResourceName]int64
}

// ParamsFrom resolves the validated configuration block.
func ParamsFrom(c *config.AdmissionFairSharing) Params {
	p := Params{HalfLife: c.UsageHalfLifeTime.Duration, SamplingInterval: c.UsageSamplingInterval.Duration,
		Weights: map[corev1.ResourceName]int64{}}
	if p.SamplingInterval <= 0 {
		p.SamplingInterval = 5 * time.Minute
	}
	for r, w := range c.ResourceWeights {
		p.Weights[r] = int64(math.Round(w * 1000))
	}
	return p
}

// Usage is one LocalQueue's decayed usage.
type Usage struct {
	// Consumed is per resource, in thousandths of canonical units.
	Consumed map[corev1.ResourceName]int64
	// LastSample is when it was last decayed and sampled; zero before the first.
	LastSample time.Time
}

// NewUsage returns an empty usage.
func NewUsage() *Usage { return &Usage{Consumed: map[corev1.ResourceName]int64{}} }

// Sample applies Kueue's moving average once a sampling interval has passed
// since the last sample:
//
//	usage(now) = usage(last) × 0.5^(Δt/halfLife) + current × (1 − 0.5^(Δt/halfLife))
//
// so that a LocalQueue holding the same quota for long converges to it. The
// first call only starts the clock, so that a LocalQueue is not charged for a
// period it was not observed. Without a half-life the usage is always zero, as
// in Kueue. It reports whether it sampled.
func (u *Usage) Sample(p Params, now time.Time, current resources.Requests) bool {
	if u.LastSample.IsZero() {
		u.LastSample = now
		return false
	}
	dt := now.Sub(u.LastSample)
	if dt < p.SamplingInterval {
		return false
	}
	u.LastSample = now
	if p.HalfLife <= 0 {
		clear(u.Consumed)
		return true
	}
	f := factor(dt, p.HalfLife)
	for r, v := range u.Consumed {
		if d := decay(v, f); d > 0 {
			u.Consumed[r] = d
		} else {
			delete(u.Consumed, r)
		}
	}
	u.add(current, one-f)
	return true
}

// Penalize records an admission's entry penalty at once, so that a tenant
// cannot flood the queue before sampling catches up: as Kueue, the share of
// the requests one sampling interval would fold into the average,
// requests × (1 − 0.5^(samplingInterval/halfLife)).
func (u *Usage) Penalize(p Params, req resources.Requests) {
	if p.HalfLife <= 0 {
		return
	}
	u.add(req, one-factor(p.SamplingInterval, p.HalfLife))
}

// Seed adds usage recorded elsewhere (a LocalQueue's status), whole.
func (u *Usage) Seed(req resources.Requests) { u.add(req, one) }

// add adds req scaled by the Q30 factor f, in thousandths.
func (u *Usage) add(req resources.Requests, f uint64) {
	for r, v := range req {
		if v <= 0 {
			continue
		}
		if d := decay(resources.Mul(v, Milli), f); d > 0 {
			u.Consumed[r] = resources.Add(u.Consumed[r], d)
		}
	}
}

// Weighted is the ordering key: Σ consumed × resource weight, divided by the
// LocalQueue's weight (thousandths). A weight of 0 orders the queue last once
// it has any usage.
func (u *Usage) Weighted(p Params, lqWeightMilli int64) int64 {
	var sum int64
	for _, r := range sortedNames(u.Consumed) {
		w, ok := p.Weights[r]
		if !ok {
			w = 1000
		}
		sum = resources.Add(sum, mulDiv(u.Consumed[r], w, 1000))
	}
	if sum == 0 {
		return 0
	}
	if lqWeightMilli <= 0 {
		return math.MaxInt64
	}
	return mulDiv(sum, 1000, lqWeightMilli)
}

// ConsumedResources returns usage in canonical units (rounded down), for the
// LocalQueue's status.fairSharing.admissionFairSharingStatus.
func (u *Usage) ConsumedResources() resources.Requests {
	out := resources.Requests{}
	for r, v := range u.Consumed {
		out[r] = v / Milli
	}
	return out
}

func sortedNames(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// mulDiv is a×b/c for non-negative operands, saturating at MaxInt64.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	v := resources.Mul(a, b)
	if v == resources.Unlimited {
		return math.MaxInt64
	}
	return v / c
}
