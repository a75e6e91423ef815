package core

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/engine/workload"
)

// loop is the scheduling loop: it runs a cycle whenever a reconciler signals a
// change and applies the decisions through the API. It needs leadership, so only
// one replica writes decisions.
type loop struct {
	log    logr.Logger
	engine *Engine
	client client.Client
	// statusWriter writes Workload status for the cycles' decisions.
	statusWriter *workloadStatusWriter
	apiReader    client.Reader
	cache        cache.Cache
	events       EventRecorder
	metrics      *metrics.Metrics
	pending      *pendingTracker
	// deferred holds the heads' pending reasons not written yet.
	deferred *deferredReasons
	// admittedEvents bounds the Admitted events (see eventBudget).
	admittedEvents *eventBudget
	// writes runs each cycle's writes beside the next cycle.
	writes *cycleWrites
	resync chan<- event.GenericEvent
	opts   LoopOptions
	// fairSharing publishes weighted shares in queue and cohort status.
	fairSharing bool
	// rules are the Configuration's resources block, for the
	// resourceRequests written with a pending reason (resourcerequests.go).
	rules *workload.ResourceRules
	// ignoreReclaimable is the ReclaimablePods gate off: resourceRequests
	// count every pod, as the engine does then.
	ignoreReclaimable bool
	// tieredReasons is Kueue's UnadmittedWorkloadsObservability gate: the
	// reasons pending workloads' conditions carry (pendingOne).
	tieredReasons bool
	// sampleEvery is admission fair sharing's sampling interval: the loop
	// runs a cycle at least that often, so that LocalQueue usage is sampled
	// (and written to status) on a quiet cluster too. Zero without it.
	sampleEvery time.Duration
	// now is the wall clock; the engine itself never reads it.
	now func() time.Time
	// lastFullCycle is when every queue was last woken (see runCycle).
	lastFullCycle time.Time
	// lastCycle is when the last cycle started: the deadlines up to it
	// were decided there (see nextDeadline).
	lastCycle time.Time
}

// LoopOptions tune the loop; zero values take the defaults.
type LoopOptions struct {
	// Debounce is how long the loop waits after a change for more changes to
	// join the same cycle; at least CycleGapFactor times as long as the last
	// cycle's engine work took.
	Debounce time.Duration
	// CycleGapFactor bounds the share of the loop's time spent in the
	// engine's cycles: after a cycle whose engine work took d, the next
	// starts d×CycleGapFactor later at the earliest. Each cycle walks every
	// awake queue's pending workloads; when little else spaced the cycles
	// out (fewer writes per cycle), back-to-back cycles while Kueue's harness
	// created its 15,000 workloads took half the manager's CPU, which the API
	// server and the runner then lacked.
	CycleGapFactor int
	// StatusInterval bounds how often queue status is written.
	StatusInterval time.Duration
	// StatusGapFactor backs queue status off a slow API server: after a
	// status pass whose writes took d, the next starts d×StatusGapFactor
	// later at the earliest (StatusInterval if that is longer). Under
	// Kueue's harness a pass over 30 ClusterQueues and 30 LocalQueues took
	// 2-3 s of sequential writes while the workloads' own writes waited
	// behind them in the same API server; status is for people and may lag
	// there, admissions may not.
	StatusGapFactor int
	// RetryAfter is when a cycle whose writes failed is retried.
	RetryAfter time.Duration
	// Workers write decisions in parallel; decisions of one cycle concern
	// distinct workloads.
	Workers int
	// FullCycleEvery bounds how long a sleeping queue's pending reasons and
	// gauges may lag: that often, a cycle evaluates every pending workload.
	// Waking every queue every cycle cost half the manager's CPU under
	// Kueue's harness.
	FullCycleEvery time.Duration
	// PendingReasonAfter is how long a queue's head stays pending before
	// its reason is written (see deferredReasons).
	PendingReasonAfter time.Duration
	// AdmittedEventsPerSecond bounds the Admitted events recorded, on
	// average, in bursts of up to ten seconds' worth (see eventBudget);
	// negative records one for every admission.
	AdmittedEventsPerSecond float64
}

func (o LoopOptions) withDefaults() LoopOptions {
	if o.Debounce == 0 {
		// Long enough that a burst of creations and finishes joins one
		// cycle (each cycle walks every awake queue's pending workloads),
		// short against any wait for quota: quota a finished workload frees
		// stays idle until the next cycle. Under Kueue's harness, at 100 ms
		// (and 4 times the last cycle's engine time, below) a Finished
		// write was followed by the next admission in its cohort a median
		// of 93-102 ms later; at 50 ms (and twice), 58-64 ms; at 20 ms, once
		// queues slept again (docs/kueue-perf.md, tenth round), 50-54 ms; at 5 ms,
		// 35-45 ms in the large phase, with the manager's CPU unchanged
		// (thirteenth round): cycles are cheap now, and a cycle's writes
		// wait for the previous cycle's (cycleWrites), which spaces cycles
		// more than the debounce does.
		o.Debounce = 5 * time.Millisecond
	}
	if o.CycleGapFactor == 0 {
		// Cycles take at most a third of the loop's time.
		o.CycleGapFactor = 2
	}
	if o.StatusInterval == 0 {
		// Queue status is for people (kubectl) and lags a second at most
		// past its writes; under Kueue's harness its writes at 250 ms were
		// a sixth of the manager's.
		o.StatusInterval = time.Second
	}
	if o.StatusGapFactor == 0 {
		// Status writes take at most a third of the status loop's time.
		o.StatusGapFactor = 2
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = time.Second
	}
	if o.Workers == 0 {
		o.Workers = 16
	}
	if o.FullCycleEvery == 0 {
		o.FullCycleEvery = 5 * time.Second
	}
	if o.PendingReasonAfter == 0 {
		o.PendingReasonAfter = 2 * time.Second
	}
	if o.AdmittedEventsPerSecond == 0 {
		// A cluster admitting fewer than ten workloads a second, or in
		// bursts of up to a hundred, gets an event for each.
		o.AdmittedEventsPerSecond = 10
	}
	return o
}

var _ manager.LeaderElectionRunnable = (*loop)(nil)

func (l *loop) NeedLeaderElection() bool { return true }

// Start rebuilds the engine from the API before the first cycle, so that a new
// leader knows every admission before it admits anything, then cycles until ctx
// ends.
func (l *loop) Start(ctx context.Context) error {
	if !l.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("scheduling loop: informer caches did not sync")
	}
	if err := l.rebuild(ctx); err != nil {
		return fmt.Errorf("scheduling loop: %w", err)
	}
	l.log.Info("engine rebuilt from the API; scheduling")
	defer l.writes.wait()
	// Status is written beside the cycles, not between them, so that slow
	// status writes never delay admissions.
	statusDirty := make(chan struct{}, 1)
	go l.statusLoop(ctx, statusDirty)
	var retry, sample, reasonsDue <-chan time.Time
	var lastCycle time.Duration
	deadline := l.nextDeadline()
	if l.sampleEvery > 0 {
		t := time.NewTicker(l.sampleEvery)
		defer t.Stop()
		sample = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-l.engine.Changed():
		case <-retry:
		case <-l.writes.failed:
			retry = time.After(l.opts.RetryAfter)
			continue
		case <-sample:
		case <-deadline:
		case <-reasonsDue:
			l.writeDueReasons(ctx)
			reasonsDue = l.nextReasonsDue()
			continue
		}
		// Let a burst of changes (many workloads created at once) settle
		// into one cycle.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(max(l.opts.Debounce, lastCycle*time.Duration(l.opts.CycleGapFactor))):
		}
		select {
		case <-l.engine.Changed():
		default:
		}
		retry = nil
		lastCycle = l.runCycle(ctx)
		reasonsDue = l.nextReasonsDue()
		deadline = l.nextDeadline()
		select {
		case statusDirty <- struct{}{}:
		default:
		}
	}
}

// statusLoop writes queue status after cycles, at most once per StatusInterval
// and, when the API server is slow, spaced by StatusGapFactor times the last
// pass (see statusGap).
func (l *loop) statusLoop(ctx context.Context, dirty <-chan struct{}) {
	l.syncStatus(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-dirty:
		}
		start := l.now()
		l.syncStatus(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(statusGap(l.opts, l.now().Sub(start))):
		}
	}
}

// statusGap is how long the status loop waits after a pass that took took.
func statusGap(o LoopOptions, took time.Duration) time.Duration {
	return max(o.StatusInterval, took*time.Duration(o.StatusGapFactor))
}

// runCycle runs one engine cycle and starts its writes (see cycleWrites); a
// failed write signals writes.failed, for a retry. It returns how long the
// engine's work took (see CycleGapFactor).
func (l *loop) runCycle(ctx context.Context) time.Duration {
	start := l.now()
	l.lastCycle = start
	var decisions []scheduler.Decision
	var cohorts map[string]metrics.CohortPath
	again := false
	l.engine.Do(func(s *scheduler.Scheduler) {
		// The engine walks only the queues whose outcome may have changed;
		// a sleeping queue's workloads keep their last reason. Every
		// FullCycleEvery, everything is evaluated again, so that the pending
		// gauges and reasons catch up with changes no trigger sees.
		// Admissions and preemptions are the same either way.
		if start.Sub(l.lastFullCycle) >= l.opts.FullCycleEvery {
			s.WakeAll()
			l.lastFullCycle = start
		}
		decisions = s.Cycle(start)
		again = s.WantsCycle()
		cohorts = admissionCohorts(s, decisions)
		l.metrics.PreemptionSkips(s.PreemptionSkips())
	})
	took := l.now().Sub(start)
	if again {
		// A workload held quota for this cycle only (see
		// Scheduler.WantsCycle): what it kept out may fit in the next,
		// which nothing else may ask for.
		l.engine.Notify()
	}
	if len(decisions) == 0 {
		return took
	}
	res, writes := l.plan(decisions, start)
	res.cohorts = cohorts
	l.deferred.prune(res.pendingKeys, res.walkedCQ)
	l.writes.start(writes, func(d scheduler.Decision) { l.applyOne(ctx, d, res) }, func() bool {
		result := metrics.ResultInadmissible
		if res.admitted > 0 {
			result = metrics.ResultSuccess
		}
		l.metrics.AdmissionAttempt(result, l.now().Sub(start))
		l.pending.endCycle(res.pendingKeys, res.walkedCQ, res.inadmissibleByCQ, res.inadmissibleByLQ)
		l.log.V(3).Info("cycle applied", "decisions", len(decisions), "admitted", res.admitted, "failed", res.failed)
		return res.failed > 0
	})
	return took
}

// writeDueReasons writes the reasons of the heads that have stayed pending for
// the grace period, without a cycle: their queues may sleep. A failed write
// signals writes.failed, for a retry.
func (l *loop) writeDueReasons(ctx context.Context) {
	due := l.deferred.expired(l.now())
	var still []scheduler.Decision
	l.engine.Do(func(s *scheduler.Scheduler) {
		for _, d := range due {
			// Still pending, and in the ClusterQueue the reason was
			// given in, if any (a workload whose LocalQueue moved to
			// another one is decided there afresh).
			if v, ok := s.WorkloadState(d.Workload); ok && v.State == scheduler.StatePending &&
				(d.ClusterQueue == "" || v.ClusterQueue == d.ClusterQueue) {
				still = append(still, d)
			}
		}
	})
	if len(still) == 0 {
		return
	}
	res := &applyResult{}
	l.writes.start(still, func(d scheduler.Decision) { l.applyOne(ctx, d, res) }, func() bool { return res.failed > 0 })
}

// nextReasonsDue fires when the next deferred reason falls due; nil when
// none waits.
func (l *loop) nextReasonsDue() <-chan time.Time {
	at, ok := l.deferred.next()
	if !ok {
		return nil
	}
	return time.After(max(0, at.Sub(l.now())))
}

// nextDeadline fires when the next admitted workload's maximum execution
// time runs out (Scheduler.NextDeadline), for a cycle that deactivates it:
// no other change may come then; or when admission fair sharing samples a
// LocalQueue's usage that orders workloads (Scheduler.NextSample), for the
// cycle that samples it when Kueue would (the ticker samples the others).
// Deadlines up to the last cycle's start were that cycle's to decide; nil
// when none is left.
func (l *loop) nextDeadline() <-chan time.Time {
	var at time.Time
	ok := false
	l.engine.Do(func(s *scheduler.Scheduler) {
		at, ok = s.NextDeadline(l.lastCycle)
		if t, has := s.NextSample(l.lastCycle); has && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	})
	if !ok {
		return nil
	}
	return time.After(max(0, at.Sub(l.now())))
}

// workloadKeys is a set of workload keys.
type workloadKeys = map[types.NamespacedName]struct{}
