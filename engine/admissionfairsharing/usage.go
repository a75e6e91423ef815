package admissionfairsharing

import (
	"math"
	"slices"
	"strconv"
	"time"

	"gopkg.in/inf.v0"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	config "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// Params are the Configuration's admissionFairSharing settings, resolved once.
type Params struct {
	HalfLife         time.Duration
	SamplingInterval time.Duration
	// Weights of resources; a missing resource weighs 1.
	Weights map[corev1.ResourceName]float64
}

// ParamsFrom resolves the validated configuration block.
func ParamsFrom(c *config.AdmissionFairSharing) Params {
	p := Params{HalfLife: c.UsageHalfLifeTime.Duration, SamplingInterval: c.UsageSamplingInterval.Duration,
		Weights: map[corev1.ResourceName]float64{}}
	if p.SamplingInterval <= 0 {
		p.SamplingInterval = 5 * time.Minute
	}
	for r, w := range c.ResourceWeights {
		p.Weights[r] = w
	}
	return p
}

// Usage is one LocalQueue's decayed usage.
//
// The arithmetic is Kueue's, so that a LocalQueue's status and its place in
// the order are the same numbers Kueue computes: the factors are float64
// powers of one half, and the amounts decimals rounded down to nine
// fractional digits after each multiplication, so that a week's half-life
// sampled every five minutes still adds the fraction of a GPU it should.
type Usage struct {
	// consumed is per resource, in the resource's own units.
	consumed corev1.ResourceList
	// LastSample is when it was last decayed and sampled; zero before the first.
	LastSample time.Time
	// sum caches Σ consumed × resource weight while sumValid: the order
	// reads it at every pick, and converting decimals is not free.
	sum      float64
	sumValid bool
}

// NewUsage returns an empty usage.
func NewUsage() *Usage { return &Usage{consumed: corev1.ResourceList{}} }

// Sample applies Kueue's moving average once a sampling interval has passed
// since the last sample:
//
//	usage(t) = usage(last) × (1 − α) + current × α, α = 1 − 0.5^(Δt/halfLife)
//
// so that a LocalQueue holding the same quota for long converges to it.
// Kueue samples every sampling interval after the last update; a call later
// than that takes the samples due since, on that grid, at once (the same
// value, current being what was in use all along: the steps' factors
// multiply), and the next is due an interval after the last of them. The
// first call only starts the clock, so that a LocalQueue is not charged for a
// period it was not observed. Without a half-life the usage is always zero, as
// in Kueue. It reports whether it sampled.
func (u *Usage) Sample(p Params, now time.Time, current resources.Requests) bool {
	if u.LastSample.IsZero() {
		// Kueue's first tick of a LocalQueue lists what it holds, at
		// nothing: α over no time is 0.
		u.LastSample = now
		u.decayToward(current, 0)
		return false
	}
	dt := now.Sub(u.LastSample)
	if dt < p.SamplingInterval {
		return false
	}
	dt -= dt % p.SamplingInterval
	u.LastSample = u.LastSample.Add(dt)
	if p.HalfLife <= 0 {
		clear(u.consumed)
		u.sumValid = false
		return true
	}
	u.decayToward(current, alpha(dt, p.HalfLife))
	return true
}

// NextSample is when the next sample is due; false before the first (and
// for a nil usage, never sampled).
func (u *Usage) NextSample(p Params) (time.Time, bool) {
	if u == nil || u.LastSample.IsZero() {
		return time.Time{}, false
	}
	return u.LastSample.Add(p.SamplingInterval), true
}

// Settle folds an admission into the usage at once, as Kueue's workload
// controller does when a workload turns Admitted, so that a tenant cannot
// flood the queue before sampling catches up: one step of the moving average
// over the time since the last update, toward the LocalQueue's current usage
// (the admission included), plus the entry penalty, requests × α(sampling
// interval). The clock restarts at now and never runs backwards; a usage
// never sampled decays nothing. Without a half-life α is 0: Kueue's step
// keeps the usage and adds no penalty.
func (u *Usage) Settle(p Params, now time.Time, current, requests resources.Requests) {
	last := u.LastSample
	if last.IsZero() || last.After(now) {
		last = now
	}
	if u.LastSample.Before(now) {
		u.LastSample = now
	}
	if p.HalfLife <= 0 {
		return
	}
	u.decayToward(current, alpha(now.Sub(last), p.HalfLife))
	penalty := decimal(alpha(p.SamplingInterval, p.HalfLife))
	for r, v := range requests {
		u.addScaled(r, resources.ToQuantity(r, v), penalty)
	}
}

// decayToward is one step of the moving average: the usage keeps 1 − a of
// itself and takes a of current.
func (u *Usage) decayToward(current resources.Requests, a float64) {
	keep, take := decimal(1-a), decimal(a)
	for r, v := range u.consumed {
		u.consumed[r] = scaled(v, keep)
	}
	u.sumValid = false
	for r, v := range current {
		u.addScaled(r, resources.ToQuantity(r, v), take)
	}
}

// Seed adds usage recorded elsewhere (a LocalQueue's status), whole. A
// negative quantity is history lost, not an error: ordering starts afresh for
// that resource.
func (u *Usage) Seed(list corev1.ResourceList) {
	for r, q := range list {
		if q.Sign() < 0 {
			continue
		}
		u.add(r, q)
	}
}

// Weighted is the ordering key, as Kueue computes it: Σ consumed × resource
// weight, divided by the LocalQueue's weight. A LocalQueue of weight 0 orders
// last, with usage or without, as in Kueue (whose division would otherwise
// put an idle one first). A nil usage is an idle LocalQueue's.
func (u *Usage) Weighted(p Params, lqWeight float64) float64 {
	if lqWeight <= 0 {
		return math.Inf(1)
	}
	if u == nil {
		return 0
	}
	if !u.sumValid {
		u.sum = 0
		for _, r := range sortedNames(u.consumed) {
			w, ok := p.Weights[r]
			if !ok {
				w = 1
			}
			q := u.consumed[r]
			// The conversion keeps the product rounded on its own, so that
			// no platform fuses it into the sum and orders differently.
			u.sum += float64(w * q.AsApproximateFloat64())
		}
		u.sumValid = true
	}
	return u.sum / lqWeight
}

// ConsumedResources returns a copy of the usage, for the LocalQueue's
// status.fairSharing.admissionFairSharingStatus.
func (u *Usage) ConsumedResources() corev1.ResourceList { return u.consumed.DeepCopy() }

// alpha is Kueue's 1 − 0.5^(dt/halfLife), over seconds; time never runs
// backwards here.
func alpha(dt, halfLife time.Duration) float64 {
	if halfLife <= 0 || dt <= 0 {
		return 0
	}
	return 1 - math.Pow(0.5, dt.Seconds()/halfLife.Seconds())
}

// fractionDigits is the scale Kueue rounds every product down to.
const fractionDigits = 9

// decimal is f as Kueue turns it into a decimal factor: its shortest
// representation.
func decimal(f float64) *inf.Dec {
	d, ok := new(inf.Dec).SetString(strconv.FormatFloat(f, 'f', -1, 64))
	if !ok {
		panic("admissionfairsharing: a non-finite factor " + strconv.FormatFloat(f, 'g', -1, 64))
	}
	return d
}

// scaled is q × f, rounded down to nine fractional digits.
func scaled(q resource.Quantity, f *inf.Dec) resource.Quantity {
	d := new(inf.Dec).Mul(q.AsDec(), f)
	d.Round(d, fractionDigits, inf.RoundDown)
	return *resource.NewDecimalQuantity(*d, resource.DecimalSI)
}

// addScaled adds q × f to resource r; a factor of 0 still lists it, at 0,
// as Kueue's sums do.
func (u *Usage) addScaled(r corev1.ResourceName, q resource.Quantity, f *inf.Dec) {
	if q.Sign() < 0 {
		return
	}
	u.add(r, scaled(q, f))
}

func (u *Usage) add(r corev1.ResourceName, q resource.Quantity) {
	u.sumValid = false
	sum, ok := u.consumed[r]
	if !ok {
		u.consumed[r] = q.DeepCopy()
		return
	}
	sum.Add(q)
	u.consumed[r] = sum
}

func sortedNames(m corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}
