package simulator

import (
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/simulator/manifest"
)

// Epoch is the wall-clock time at which every simulation starts. It is fixed so
// that creation timestamps, and therefore queue order, are the same on every run.
func Epoch() time.Time { return time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC) }

// maxCyclesPerInstant bounds the cycles at one instant. A correct engine settles
// in a few; more means two decisions keep undoing each other.
const maxCyclesPerInstant = 1000

// Options configure a run.
type Options struct {
	// NewEngine builds the engine; it is called again when a Configuration
	// replaces the previous one during the run.
	NewEngine NewEngineFunc
	// Until stops the clock there when HasUntil is set; otherwise the run ends
	// when nothing is left to happen.
	Until    time.Duration
	HasUntil bool
	// Series records usage and queue lengths over time, for the report.
	Series bool
	// Progress, when set, is called after every instant.
	Progress func(Progress)
	// ConfirmSettled runs one more cycle after every cycle that only admitted,
	// and fails the run if that cycle changes anything. The engine settles every
	// workload in one pass (engine/scheduler's doc), so this cycle is skipped by
	// default: it costs a third of a large run. Tests turn it on to hold the
	// engine to that promise.
	ConfirmSettled bool
	// Stop, when set, is checked before every instant: once it is closed the
	// run ends with ErrStopped. It lets SIGTERM stop a long run (the CLI
	// passes its context's Done channel).
	Stop <-chan struct{}
	// OversellRate scales every ElasticQuota's max in Koord-Queue's usage check
	// (its --oversellrate); the zero value is 1.
	OversellRate elasticquota.OversellRate
}

// ErrStopped is returned by Run when Options.Stop was closed.
var ErrStopped = errors.New("simulation stopped")

// Progress is how far a run has come, for a progress line.
type Progress struct {
	Now                time.Duration
	Applied, Documents int
	Events, Pending    int
	Running, Finished  int
}

// Result is what a run produced.
type Result struct {
	// End is the simulated time at which the run stopped.
	End          time.Duration
	Events       []Event
	QuotaUpdates []QuotaUpdate
	Workloads    []WorkloadResult
	Queues       []*QueueAccount
	// ElasticQuotas lists the Koord-Queue quotas at the end, by name; nil when
	// the input has none.
	ElasticQuotas []ElasticQuotaResult
	// LocalQueues lists the LocalQueues' admission fair sharing usage at the
	// end; nil unless the Configuration turns admission fair sharing on.
	LocalQueues []LocalQueueResult
}

// LocalQueueResult is one LocalQueue's admission fair sharing usage.
type LocalQueueResult struct {
	// Name is namespace/name.
	Name, ClusterQueue string
	// Consumed is its decayed usage per resource, as its status gives it.
	Consumed corev1.ResourceList
	// Usage is what the order compares: the resource-weighted sum of
	// Consumed over the LocalQueue's weight (+Inf at weight 0).
	Usage float64
}

// WorkloadState is where a workload is at the end.
type WorkloadState string

const (
	StatePending  WorkloadState = "Pending"
	StateAdmitted WorkloadState = "Admitted"
	StateFinished WorkloadState = "Finished"
	// StateUnqueued: a Job with a Koord-Queue quota label that was created
	// unsuspended. Koord-Queue does not queue it: it runs unqueued, outside
	// any quota, for the whole run.
	StateUnqueued WorkloadState = "Unqueued"
)

// WorkloadResult is one workload's state at the end.
type WorkloadResult struct {
	Name         string
	State        WorkloadState
	ClusterQueue string
	// ElasticQuota is set for a Koord-Queue unit instead of ClusterQueue.
	ElasticQuota string
	Flavors      Flavors
	// Reason and Message are the engine's last word on a pending workload.
	Reason  string
	Message string
	// RuntimeAssumed: the workload's runtime was not known and was assumed
	// (the annotation simulation.quokka.dev/runtime-assumed), so its finish
	// time and everything that waited for it are estimates.
	RuntimeAssumed bool
}

// sim is one run's state.
type sim struct {
	opts   Options
	engine Engine
	config *configv1beta2.Configuration

	docs []manifest.Document
	next int
	now  time.Duration

	world     *world
	workloads map[types.NamespacedName]*workloadRecord
	timers    timers
	acct      *accounting
	dqoDirty  bool
	koord     *koordState

	events       []Event
	quotaUpdates []QuotaUpdate
	counts       Progress

	// podsReadyModelled: some job's pods take time to be ready
	// (manifest.AnnotationPodsReadyAfter), so the engine enforces the
	// Configuration's waitForPodsReady (podsready.go).
	podsReadyModelled bool
}

// Run simulates the documents and returns what happened. The documents are applied
// at their own time (Document.At); documents with the same time are applied in the
// order given.
func Run(docs []manifest.Document, opts Options) (*Result, error) {
	if opts.NewEngine == nil {
		return nil, errors.New("simulator: Options.NewEngine is required")
	}
	sorted := make([]manifest.Document, len(docs))
	copy(sorted, docs)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].At < sorted[j].At })
	s := &sim{
		opts:      opts,
		docs:      sorted,
		world:     newWorld(),
		workloads: map[types.NamespacedName]*workloadRecord{},
		acct:      newAccounting(opts.Series),
		koord:     newKoordState(opts.OversellRate),
	}
	s.counts.Documents = len(sorted)
	for i := range sorted {
		if sorted[i].PodsReadyAfter > 0 {
			s.podsReadyModelled = true
			break
		}
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	for {
		at, ok := s.nextInstant()
		if !ok || (opts.HasUntil && at > opts.Until) {
			break
		}
		select {
		case <-opts.Stop:
			return nil, fmt.Errorf("%w at %s of simulated time", ErrStopped, at)
		default:
		}
		if err := s.step(at); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			s.counts.Now = at
			s.counts.Applied = s.next
			s.counts.Events = len(s.events)
			opts.Progress(s.counts)
		}
	}
	s.explainPending()
	end := s.now
	if opts.HasUntil {
		end = opts.Until
	}
	return s.result(end), nil
}

// start builds the engine from the Configuration in effect at time 0 (the
// defaults when there is none), the way the manager reads its file at start-up.
func (s *sim) start() error {
	cfg := configv1beta2.Default()
	var src *manifest.Source
	for i := range s.docs {
		d := &s.docs[i]
		if d.At > 0 {
			break
		}
		if c, ok := d.Object.(*configv1beta2.Configuration); ok {
			cfg, src = c, &d.Source
		}
	}
	return s.useConfiguration(cfg, src)
}

// useConfiguration builds a new engine for the Configuration; a Configuration
// applied during the run restarts the manager, so the engine is rebuilt from the
// objects as they are at that instant.
func (s *sim) useConfiguration(cfg *configv1beta2.Configuration, src *manifest.Source) error {
	eng, err := s.opts.NewEngine(EngineOptions{Configuration: cfg, PodsReadyModelled: s.podsReadyModelled})
	if err != nil {
		if src != nil {
			return &manifest.Error{Source: *src, Object: "Configuration", Err: err}
		}
		return fmt.Errorf("starting the engine: %w", err)
	}
	for _, cq := range s.world.sortedClusterQueues() {
		if errs := cfg.ValidateClusterQueue(cq.obj); len(errs) > 0 {
			return &manifest.Error{Source: cq.src, Object: "ClusterQueue " + cq.obj.Name,
				Err: fmt.Errorf("%s (with the Configuration applied at %s)", errs.ToAggregate(), formatDuration(s.now))}
		}
	}
	s.config, s.engine = cfg, eng
	if err := s.replay(); err != nil {
		return err
	}
	s.dqoDirty = true
	return nil
}

// nextInstant is the earliest time at which a document is due, a job finishes
// or an admitted job runs out of its maximum execution time; or, before such
// a time, admission fair sharing's next sample of a usage that orders
// workloads (a sample with nothing after it decides nothing, and the
// simulation ends).
func (s *sim) nextInstant() (time.Duration, bool) {
	at, ok := s.timers.next()
	if s.next < len(s.docs) {
		if d := s.docs[s.next].At; !ok || d < at {
			at, ok = d, true
		}
	}
	if t, has := s.engine.NextDeadline(s.clock(s.now)); has {
		if d := t.Sub(Epoch()); !ok || d < at {
			at, ok = d, true
		}
	}
	if t, has := s.engine.NextSample(s.clock(s.now)); has && ok {
		at = min(at, t.Sub(Epoch()))
	}
	return at, ok
}

// step runs one instant: finishes, then applications, then DQO, then cycles.
func (s *sim) step(at time.Duration) error {
	s.now = at
	for {
		t, ok := s.timers.popDue(at)
		if !ok {
			break
		}
		switch {
		case t.koord:
			s.finishKoord(t)
		case t.podsReady:
			if err := s.podsReady(t); err != nil {
				return err
			}
		case t.reclaim > 0:
			if err := s.reclaimPods(t); err != nil {
				return err
			}
		default:
			s.finish(t)
		}
	}
	for s.next < len(s.docs) && s.docs[s.next].At == at {
		d := &s.docs[s.next]
		s.next++
		if err := s.apply(d); err != nil {
			return err
		}
		if d.IsJob() {
			// Submitting copied what the run needs of the job; nothing reads
			// an applied job's document again. Letting go of its objects
			// keeps a long trace's heap to the jobs still to come.
			d.Object, d.Workload = nil, nil
		}
	}
	if s.dqoDirty {
		s.dqoDirty = false
		if err := s.orchestrate(); err != nil {
			return err
		}
	}
	if err := s.settle(); err != nil {
		return err
	}
	if err := s.settleKoord(); err != nil {
		return err
	}
	s.acct.sample(at)
	return nil
}

// explainPending refreshes the reasons of the workloads still pending with one
// cycle that evaluates every queue. Only its Pending decisions are taken: the
// run is over, so anything else it decides (an admission or a preemption the
// next instant would have carried out) is not, and a preemptor it names keeps
// the reason it had.
func (s *sim) explainPending() {
	s.engine.WakeAll()
	decisions := s.engine.Cycle(s.clock(s.now))
	preemptors := map[types.NamespacedName]bool{}
	for _, d := range decisions {
		if p, ok := d.(Preempt); ok {
			preemptors[p.Preemptor] = true
		}
	}
	for _, d := range decisions {
		if p, ok := d.(Pending); ok && !preemptors[p.Workload] {
			if w, ok := s.workloads[p.Workload]; ok && w.state == StatePending {
				w.reason, w.message = p.Reason, p.Message
			}
		}
	}
}

// clock is the wall-clock time of a simulated instant.
func (s *sim) clock(at time.Duration) time.Time { return Epoch().Add(at) }

// result collects the state at the end.
func (s *sim) result(end time.Duration) *Result {
	r := &Result{End: end, Events: s.events, QuotaUpdates: s.quotaUpdates}
	keys := make([]types.NamespacedName, 0, len(s.workloads))
	for k := range s.workloads {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.workloads[keys[i]].name < s.workloads[keys[j]].name })
	for _, k := range keys {
		w := s.workloads[k]
		wr := WorkloadResult{Name: w.name, State: w.state, ClusterQueue: w.clusterQueue(), RuntimeAssumed: w.runtimeAssumed}
		switch w.state {
		case StateAdmitted:
			wr.Flavors = w.flavors
		case StatePending:
			wr.Reason, wr.Message = w.reason, w.message
			if wr.ClusterQueue == "" {
				wr.ClusterQueue = s.world.clusterQueueOf(w.localQueue)
			}
		}
		r.Workloads = append(r.Workloads, wr)
	}
	r.Workloads = s.koordResults(r.Workloads)
	r.ElasticQuotas = s.koordQuotas()
	r.LocalQueues = s.engine.LocalQueueUsage()
	r.Queues = s.acct.finish(end)
	return r
}

// namespaceLabels returns the labels of a declared Namespace; undeclared ones exist
// implicitly with no labels.
func namespaceLabels(ns *corev1.Namespace) map[string]string {
	if ns == nil {
		return nil
	}
	return ns.Labels
}
