package simulator

import (
	"sort"
	"time"

	"quokka.dev/quokka/engine/resources"
)

// UsageSample is a ClusterQueue's usage and queue length from Time on, until the
// next sample.
type UsageSample struct {
	Time    time.Duration
	Usage   resources.Amounts
	Pending int
}

// QuotaSample is the quota in effect for a ClusterQueue from Time on.
type QuotaSample struct {
	Time   time.Duration
	Quotas Quotas
}

// QueueAccount is everything the simulator counted for one ClusterQueue.
type QueueAccount struct {
	Name string
	// Admitted, Preempted, Evicted and Finished count events of workloads of this
	// queue; a job preempted twice and admitted three times counts 3 admissions.
	Admitted, Preempted, Evicted, Finished int
	// Waits holds, for every admission made by the engine, how long the job waited
	// since it was submitted or last preempted. Preset admissions are not waits.
	Waits []time.Duration
	// UsedSeconds and BorrowedSeconds integrate usage, and usage above the nominal
	// quota, over time: canonical units × seconds (GPU-seconds, millicore-seconds).
	UsedSeconds     map[resources.FlavorResource]float64
	BorrowedSeconds map[resources.FlavorResource]float64
	// Quotas is the quota in effect at the end; QuotaSeries and Series are only
	// recorded when Options.Series is set.
	Quotas      Quotas
	QuotaSeries []QuotaSample
	Series      []UsageSample

	usage   resources.Amounts
	pending int
	since   time.Duration
	dirty   bool
}

// accounting keeps one QueueAccount per ClusterQueue name.
type accounting struct {
	queues map[string]*QueueAccount
	series bool
	// dirty lists the queues changed at this instant, so that sampling costs
	// what changed, not the number of queues.
	dirty []*QueueAccount
}

func newAccounting(series bool) *accounting {
	return &accounting{queues: map[string]*QueueAccount{}, series: series}
}

// queue returns the account of a ClusterQueue, creating it on first use.
func (a *accounting) queue(name string, now time.Duration) *QueueAccount {
	q, ok := a.queues[name]
	if !ok {
		q = &QueueAccount{Name: name, usage: resources.Amounts{}, since: now,
			UsedSeconds: map[resources.FlavorResource]float64{}, BorrowedSeconds: map[resources.FlavorResource]float64{}}
		a.queues[name] = q
	}
	return q
}

// advance integrates the queue's usage from its last change until now; call it
// before anything that changes the usage or the nominal quota.
func (q *QueueAccount) advance(now time.Duration) {
	dt := (now - q.since).Seconds()
	q.since = now
	if dt <= 0 {
		return
	}
	for fr, u := range q.usage {
		q.UsedSeconds[fr] += float64(u) * dt
		if b := u - q.Quotas.Cells[fr].Nominal; b > 0 {
			q.BorrowedSeconds[fr] += float64(b) * dt
		}
	}
}

func (a *accounting) charge(cq string, now time.Duration, usage resources.Amounts) {
	q := a.queue(cq, now)
	q.advance(now)
	q.usage.Add(usage)
	a.touch(q)
}

func (a *accounting) release(cq string, now time.Duration, usage resources.Amounts) {
	q := a.queue(cq, now)
	q.advance(now)
	q.usage.Sub(usage)
	a.touch(q)
}

func (a *accounting) addPending(cq string, now time.Duration, delta int) {
	if cq == "" {
		return
	}
	q := a.queue(cq, now)
	q.pending += delta
	a.touch(q)
}

// touch marks q as changed at this instant.
func (a *accounting) touch(q *QueueAccount) {
	if !q.dirty {
		q.dirty = true
		a.dirty = append(a.dirty, q)
	}
}

// setQuotas records the quota in effect from now on.
func (a *accounting) setQuotas(cq string, now time.Duration, quotas Quotas) {
	q := a.queue(cq, now)
	if q.Quotas.equal(quotas) && q.Quotas.Cells != nil {
		return
	}
	q.advance(now)
	q.Quotas = quotas
	if a.series {
		q.QuotaSeries = append(q.QuotaSeries, QuotaSample{Time: now, Quotas: quotas})
	}
	a.touch(q)
}

// sample appends a point to the series of every queue that changed at this
// instant. Within an instant only the final state counts.
func (a *accounting) sample(now time.Duration) {
	for _, q := range a.dirty {
		q.dirty = false
		if !a.series {
			continue
		}
		s := UsageSample{Time: now, Usage: q.usage.Clone(), Pending: q.pending}
		if n := len(q.Series); n > 0 && q.Series[n-1].Time == now {
			q.Series[n-1] = s
		} else {
			q.Series = append(q.Series, s)
		}
	}
	a.dirty = a.dirty[:0]
}

// finish integrates every queue up to the end of the simulation and returns the
// accounts sorted by name.
func (a *accounting) finish(end time.Duration) []*QueueAccount {
	out := make([]*QueueAccount, 0, len(a.queues))
	for _, q := range a.queues {
		q.advance(end)
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Usage is the queue's usage at the end of the simulation.
func (q *QueueAccount) Usage() resources.Amounts { return q.usage.Clone() }

// PendingAtEnd is the number of workloads waiting for this queue at the end.
func (q *QueueAccount) PendingAtEnd() int { return q.pending }
