// Package generate writes a synthetic but realistic trace for the simulator: a
// cluster of ClusterQueues in a two-level Cohort tree and a stream of Jobs with
// mixed sizes, priorities and runtimes arriving with a daily and weekly rhythm.
// It exists to measure the engine and the simulator at scale and to give people a
// starting point for their own what-if runs; everything it writes is an ordinary
// manifest that the loader reads like any other.
//
// The output depends only on the Options: the same seed gives the same bytes.
package generate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Options describe the trace.
type Options struct {
	Queues  int
	Cohorts int
	Jobs    int
	Seed    uint64
	// Duration is the span over which jobs arrive (a week by default).
	Duration time.Duration
	// Load is the demand as a fraction of the cluster's GPU capacity, averaged
	// over Duration; above 1 the queues grow without bound.
	Load float64
	// Reclaim is the fraction of teams whose ClusterQueue reclaims lent quota
	// by preemption (reclaimWithinCohort: Any); the others use Never. Negative
	// means the default, one half.
	Reclaim float64
}

// Defaults fills unset options.
func (o *Options) Defaults() {
	if o.Queues == 0 {
		o.Queues = 1000
	}
	if o.Cohorts == 0 {
		o.Cohorts = 10
	}
	if o.Jobs == 0 {
		o.Jobs = 100000
	}
	if o.Duration == 0 {
		o.Duration = 7 * 24 * time.Hour
	}
	if o.Load == 0 {
		o.Load = 0.85
	}
	if o.Reclaim < 0 {
		o.Reclaim = 0.5
	}
}

// Validate refuses options that cannot make a trace.
func (o *Options) Validate() error {
	switch {
	case o.Queues < 1:
		return fmt.Errorf("--queues must be at least 1, got %d", o.Queues)
	case o.Cohorts < 1 || o.Cohorts > o.Queues:
		return fmt.Errorf("--cohorts must be between 1 and --queues (%d), got %d", o.Queues, o.Cohorts)
	case o.Jobs < 0:
		return fmt.Errorf("--jobs must not be negative, got %d", o.Jobs)
	case o.Duration <= 0:
		return fmt.Errorf("--duration must be positive, got %s", o.Duration)
	case o.Load <= 0:
		return fmt.Errorf("--load must be positive, got %g", o.Load)
	case o.Reclaim > 1:
		return fmt.Errorf("--reclaim must be between 0 and 1, got %g", o.Reclaim)
	}
	return nil
}

// Queue is one team: a namespace, a LocalQueue and a ClusterQueue.
type Queue struct {
	Name    string
	Cohort  string
	H100    int // nominal GPUs per flavor
	A100    int
	Borrow  int // borrowingLimit on GPUs; -1 for none
	Reclaim bool
	weight  float64
}

// Job is one batch/v1 Job of the trace.
type Job struct {
	Name       string
	Queue      string
	Priority   string
	Pods       int
	GPUsPerPod int
	Arrival    time.Duration
	Runtime    time.Duration
}

// Trace is the generated cluster and jobs.
type Trace struct {
	Options Options
	Cohorts []string
	Queues  []Queue
	Jobs    []Job
	// GPUs is the cluster's total GPU capacity (the sum of nominal quotas).
	GPUs int
}

// gpuMix is the distribution of GPUs per job: many small jobs, a few large ones.
func gpuMix() []struct {
	gpus   int
	weight float64
} {
	return []struct {
		gpus   int
		weight float64
	}{{1, 0.35}, {2, 0.15}, {4, 0.20}, {8, 0.20}, {16, 0.07}, {32, 0.03}}
}

// Runtimes are log-normal: a median of 45 minutes, a long tail, capped at a day.
const (
	runtimeMedian = 45 * time.Minute
	runtimeSigma  = 1.0
	runtimeMin    = 2 * time.Minute
	runtimeMax    = 24 * time.Hour
)

// New generates a trace.
func New(opts Options) (*Trace, error) {
	opts.Defaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	t := &Trace{Options: opts}
	for i := 0; i < opts.Cohorts; i++ {
		t.Cohorts = append(t.Cohorts, fmt.Sprintf("org-%02d", i))
	}
	t.Queues = makeQueues(rng, opts, t.Cohorts)
	t.Jobs = makeJobs(rng, opts, t.Queues)
	t.sizeQuotas(opts)
	return t, nil
}

// makeQueues creates teams whose activity follows a heavy-tailed distribution: a
// few teams submit most of the work, as in any shared cluster.
func makeQueues(rng *rand.Rand, opts Options, cohorts []string) []Queue {
	qs := make([]Queue, opts.Queues)
	for i := range qs {
		qs[i] = Queue{
			Name:    fmt.Sprintf("team-%04d", i),
			Cohort:  cohorts[i%len(cohorts)],
			Borrow:  -1,
			Reclaim: rng.Float64() < opts.Reclaim,
			weight:  1 / math.Pow(float64(rng.IntN(opts.Queues)+1), 0.8),
		}
		if rng.Float64() < 0.3 {
			qs[i].Borrow = 0 // set from the nominal quota once it is known
		}
	}
	return qs
}

// makeJobs draws arrivals from a daily and weekly rhythm (busy afternoons, quiet
// nights and weekends), a team by its weight, a size from gpuMix, a priority and a
// runtime.
func makeJobs(rng *rand.Rand, opts Options, qs []Queue) []Job {
	cum := make([]float64, len(qs))
	total := 0.0
	for i, q := range qs {
		total += q.weight
		cum[i] = total
	}
	mix := gpuMix()
	arrivals := make([]time.Duration, opts.Jobs)
	for i := range arrivals {
		arrivals[i] = drawArrival(rng, opts.Duration)
	}
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i] < arrivals[j] })
	jobs := make([]Job, opts.Jobs)
	for i := range jobs {
		qi := sort.SearchFloat64s(cum, rng.Float64()*total)
		if qi >= len(qs) {
			qi = len(qs) - 1
		}
		gpus := drawGPUs(rng, mix)
		pods, perPod := 1, gpus
		if gpus > 8 {
			pods, perPod = gpus/8, 8
		}
		prio := "low"
		switch p := rng.Float64(); {
		case p < 0.10:
			prio = "high"
		case p < 0.40:
			prio = "medium"
		}
		runtime := time.Duration(float64(runtimeMedian) * math.Exp(rng.NormFloat64()*runtimeSigma)).Round(time.Second)
		runtime = min(max(runtime, runtimeMin), runtimeMax)
		jobs[i] = Job{
			Name: fmt.Sprintf("job-%06d", i), Queue: qs[qi].Name, Priority: prio,
			Pods: pods, GPUsPerPod: perPod, Arrival: arrivals[i], Runtime: runtime,
		}
	}
	return jobs
}

// drawArrival samples the arrival rate by rejection: the rate peaks at 15:00 and is
// at a fifth of it at 03:00; Saturdays and Sundays run at half the weekday rate.
func drawArrival(rng *rand.Rand, span time.Duration) time.Duration {
	for {
		t := time.Duration(rng.Int64N(int64(span/time.Second))) * time.Second
		hours := t.Hours()
		daily := 0.6 + 0.4*math.Cos(2*math.Pi*(hours-15)/24)
		weekly := 1.0
		if day := int(hours/24) % 7; day >= 5 {
			weekly = 0.5
		}
		if rng.Float64() < daily*weekly {
			return t
		}
	}
}

func drawGPUs(rng *rand.Rand, mix []struct {
	gpus   int
	weight float64
}) int {
	p := rng.Float64()
	for _, m := range mix {
		if p < m.weight {
			return m.gpus
		}
		p -= m.weight
	}
	return mix[len(mix)-1].gpus
}

// sizeQuotas sets the cluster's capacity so that the jobs' demand is Load of it on
// average, and splits it over the teams by how much each submits: 60% H100, 40%
// A100, every team with at least one GPU of each so that it can borrow.
func (t *Trace) sizeQuotas(opts Options) {
	demand := map[string]float64{}
	total := 0.0
	for _, j := range t.Jobs {
		gh := float64(j.Pods*j.GPUsPerPod) * j.Runtime.Hours()
		demand[j.Queue] += gh
		total += gh
	}
	capacity := int(math.Ceil(total / opts.Duration.Hours() / opts.Load))
	capacity = max(capacity, 2*len(t.Queues))
	for i := range t.Queues {
		q := &t.Queues[i]
		share := float64(capacity) / float64(len(t.Queues))
		if total > 0 {
			share = float64(capacity) * demand[q.Name] / total
		}
		q.H100 = max(1, int(math.Round(share*0.6)))
		q.A100 = max(1, int(math.Round(share*0.4)))
		if q.Borrow == 0 {
			q.Borrow = max(32, q.H100)
		}
		t.GPUs += q.H100 + q.A100
	}
}
