// Package adapter connects the simulator to the real engine, engine/scheduler.
// It only translates: options in, decisions out. Keeping the simulator behind its
// own small Engine interface lets its time model be tested with a scripted engine,
// and keeps this file the one place to touch when the engine grows.
package adapter

import (
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/simulator"
)

// Capabilities says which rules of the spec the engine implements today. Tests of
// examples that need a missing rule say so by name instead of failing on a story
// the engine cannot tell yet. Flip a flag in the same change that wires the rule
// below.
type Capabilities struct {
	// Preemption: classic preemption (reclaimWithinCohort, withinClusterQueue)
	// delivered as Preempt decisions.
	Preemption bool
	// FairSharing: the Configuration's fairSharing block.
	FairSharing bool
	// AdmissionFairSharing: usage-based ordering within a ClusterQueue.
	AdmissionFairSharing bool
}

// Supported is what engine/scheduler implements at this commit.
func Supported() Capabilities {
	return Capabilities{Preemption: true, FairSharing: true, AdmissionFairSharing: true}
}

// New builds an engine/scheduler engine. It refuses options the engine does not
// implement: a simulation that silently ran without fair sharing would answer a
// different question than the one asked.
func New(opts simulator.EngineOptions) (simulator.Engine, error) {
	caps := Supported()
	so := SchedulerOptions(opts)
	if so.FairSharing != nil && !caps.FairSharing {
		return nil, errors.New("the Configuration enables fair sharing (it has a fairSharing block), which the engine does not implement yet; remove the block to simulate classic preemption")
	}
	if so.AdmissionFairSharing != nil && !caps.AdmissionFairSharing {
		return nil, errors.New("the Configuration enables admission fair sharing (admissionFairSharing block with the AdmissionFairSharing gate on), which the engine does not implement yet; remove the block")
	}
	return &engine{s: scheduler.New(so)}, nil
}

// SchedulerOptions is the engine's options for the simulator's: the manager's
// reading of the Configuration (scheduler.OptionsFromConfiguration), with
// waitForPodsReady only where the simulation models pods that take time to
// be ready, and quiet cycles.
func SchedulerOptions(opts simulator.EngineOptions) scheduler.Options {
	so := scheduler.OptionsFromConfiguration(opts.Configuration)
	if !opts.PodsReadyModelled {
		so.WaitForPodsReady = nil
	}
	// The simulator reads reasons only from the cycle after WakeAll, at the
	// end of a run (Engine.WakeAll).
	so.QuietCycles = true
	return so
}

// engine wraps *scheduler.Scheduler.
type engine struct {
	s *scheduler.Scheduler
	// out is reused between cycles: a week of simulation runs hundreds of
	// thousands of cycles.
	out []simulator.Decision
}

func (e *engine) UpsertResourceFlavor(rf *kueue.ResourceFlavor)   { e.s.UpsertResourceFlavor(rf) }
func (e *engine) UpsertClusterQueue(cq *kueue.ClusterQueue) error { return e.s.UpsertClusterQueue(cq) }
func (e *engine) UpsertCohort(c *kueue.Cohort) error              { return e.s.UpsertCohort(c) }
func (e *engine) UpsertLocalQueue(lq *kueue.LocalQueue)           { e.s.UpsertLocalQueue(lq) }
func (e *engine) SetLimitRanges(namespace string, ranges []corev1.LimitRange) {
	e.s.SetLimitRanges(namespace, ranges)
}
func (e *engine) UpsertRuntimeClass(name string, overhead corev1.ResourceList) {
	e.s.UpsertRuntimeClass(name, overhead)
}
func (e *engine) UpsertNamespace(name string, labels map[string]string) {
	e.s.UpsertNamespace(name, labels)
}
func (e *engine) UpsertWorkloadPriorityClass(name string, value int32) {
	e.s.UpsertWorkloadPriorityClass(name, value)
}
func (e *engine) UpsertPreemptionConfig(pc *kueuev1alpha1.PreemptionConfig) error {
	return e.s.UpsertPreemptionConfig(pc)
}
func (e *engine) UpsertWorkload(wl *kueue.Workload) error { return e.s.UpsertWorkload(wl) }
func (e *engine) DeleteWorkload(key types.NamespacedName) { e.s.DeleteWorkload(key) }
func (e *engine) FinishWorkload(key types.NamespacedName) { e.s.FinishWorkload(key) }
func (e *engine) EvictWorkload(key types.NamespacedName)  { e.s.EvictWorkload(key) }

func (e *engine) WakeAll() { e.s.WakeAll() }
func (e *engine) NextDeadline(after time.Time) (time.Time, bool) {
	return e.s.NextDeadline(after)
}
func (e *engine) NextSample(after time.Time) (time.Time, bool) {
	return e.s.NextSample(after)
}
func (e *engine) WantsCycle() bool { return e.s.WantsCycle() }

func (e *engine) LocalQueueUsage() []simulator.LocalQueueResult {
	var out []simulator.LocalQueueResult
	for _, key := range e.s.LocalQueueKeys() {
		v, ok := e.s.LocalQueueSnapshot(key.Namespace, key.Name)
		if !ok || v.ConsumedResources == nil {
			continue
		}
		out = append(out, simulator.LocalQueueResult{Name: key.String(), ClusterQueue: v.ClusterQueue,
			Consumed: v.ConsumedResources, Usage: v.WeightedUsage})
	}
	return out
}

// Cycle translates the scheduler's decisions.
func (e *engine) Cycle(now time.Time) []simulator.Decision {
	out := e.out[:0]
	for _, d := range e.s.Cycle(now) {
		switch d := d.(type) {
		case scheduler.Admit:
			out = append(out, simulator.Admit{Workload: d.Workload, ClusterQueue: d.ClusterQueue, PodSets: d.PodSets, Borrowing: d.Borrowing})
		case scheduler.Pending:
			out = append(out, simulator.Pending{Workload: d.Workload, ClusterQueue: d.ClusterQueue, Reason: d.Reason, Message: d.Message})
		case scheduler.Evict:
			out = append(out, simulator.Evict{Workload: d.Workload, ClusterQueue: d.ClusterQueue, Reason: d.Reason, Message: d.Message, RequeueAt: d.RequeueAt})
		case scheduler.Deactivate:
			out = append(out, simulator.Deactivate{Workload: d.Workload, ClusterQueue: d.ClusterQueue, Reason: d.Reason, Message: d.Message})
		case scheduler.Preempt:
			p := simulator.Preempt{Preemptor: d.Preemptor, Victims: make([]simulator.Victim, len(d.Victims))}
			for i, v := range d.Victims {
				p.Victims[i] = simulator.Victim{Workload: v.Workload, ClusterQueue: v.ClusterQueue, Reason: v.Reason, Message: v.Message}
			}
			out = append(out, p)
		}
	}
	e.out = out
	return out
}
