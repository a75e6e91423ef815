package simulator

import (
	corev1 "k8s.io/api/core/v1"
	"time"

	"k8s.io/apimachinery/pkg/types"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
)

// Engine is what the simulator needs from the scheduling engine. It mirrors the
// facade of engine/scheduler; package simulator/adapter implements it.
type Engine interface {
	UpsertResourceFlavor(rf *kueue.ResourceFlavor)
	UpsertClusterQueue(cq *kueue.ClusterQueue) error
	UpsertCohort(c *kueue.Cohort) error
	UpsertLocalQueue(lq *kueue.LocalQueue)
	UpsertNamespace(name string, labels map[string]string)
	UpsertWorkloadPriorityClass(name string, value int32)
	// SetLimitRanges replaces a namespace's LimitRanges, and
	// UpsertRuntimeClass records a RuntimeClass's overhead: pod sets are
	// counted with them from then on (the simulator upserts the pending
	// workloads they concern again).
	SetLimitRanges(namespace string, ranges []corev1.LimitRange)
	UpsertRuntimeClass(name string, overhead corev1.ResourceList)
	// UpsertPreemptionConfig adds or replaces a PreemptionConfig; ClusterQueues
	// reference it by the kueue.x-k8s.io/preemption-config-name annotation. The
	// error names the field that cannot be compiled.
	UpsertPreemptionConfig(pc *kueuev1alpha1.PreemptionConfig) error
	// UpsertWorkload adds a pending workload, or an admitted one when
	// status.admission is set.
	UpsertWorkload(wl *kueue.Workload) error
	// DeleteWorkload forgets a workload and releases its quota.
	DeleteWorkload(key types.NamespacedName)
	// FinishWorkload releases the quota of a workload that completed.
	FinishWorkload(key types.NamespacedName)
	// EvictWorkload confirms an eviction: the quota is released and the workload
	// is pending again.
	EvictWorkload(key types.NamespacedName)
	// Cycle runs one scheduling cycle. Admissions it returns are already charged.
	// The slice is only valid until the next call. Pending decisions may be
	// left out of every cycle but the one after WakeAll: the simulator reads
	// reasons only there.
	Cycle(now time.Time) []Decision
	// WantsCycle tells whether the last Cycle leaves decisions to the next
	// one though nothing else changes (a workload held quota for that cycle
	// only); the simulator then runs another cycle at the same instant.
	WantsCycle() bool
	// WakeAll makes the next Cycle evaluate every pending workload again. The
	// engine skips queues whose outcome cannot have changed, and their
	// workloads keep the reason of their last evaluation; the simulator wakes
	// everything once at the end so that the final state explains every
	// pending workload as of that moment.
	WakeAll()
	// NextDeadline is the earliest time after after at which an admitted
	// workload's maximum execution time runs out: the simulator runs an
	// instant then, since nothing else may happen at that time.
	NextDeadline(after time.Time) (time.Time, bool)
	// NextSample is the earliest time after after at which admission fair
	// sharing samples a LocalQueue's usage that orders workloads: the
	// simulator runs an instant then when a later one will decide
	// anything, so that the order is the one Kueue's samples give.
	NextSample(after time.Time) (time.Time, bool)
	// LocalQueueUsage is every LocalQueue's admission fair sharing usage,
	// sorted by namespace and name; nil unless admission fair sharing is
	// configured.
	LocalQueueUsage() []LocalQueueResult
}

// EngineOptions are what an engine is built from. The engine reads the
// Configuration as the manager reads it (scheduler.OptionsFromConfiguration),
// so that a simulation decides with the switches the manager would; the
// simulator adds only what it knows of the jobs.
type EngineOptions struct {
	// Configuration is the validated, defaulted Configuration in effect.
	Configuration *configv1beta2.Configuration
	// PodsReadyModelled tells that some job's pods take time to be ready
	// (podsready.go). Only then does the Configuration's waitForPodsReady
	// block reach the engine; otherwise every job's pods are ready at
	// admission and nothing waits for them.
	PodsReadyModelled bool
}

// NewEngineFunc builds an engine. It fails when the options ask for something the
// engine does not implement, so that a simulation never quietly answers a
// different question than the one asked.
type NewEngineFunc func(EngineOptions) (Engine, error)

// PodSetAssignment is the flavor assignment of one pod set, as the engine reports it.
type PodSetAssignment = decision.PodSetAssignment

// Decision is one thing the engine asks the simulator to do.
type Decision interface{ isDecision() }

// Admit: the workload is admitted to ClusterQueue with these flavors.
type Admit struct {
	Workload     types.NamespacedName
	ClusterQueue string
	PodSets      []PodSetAssignment
	Borrowing    bool
}

// Pending: the workload was looked at and not admitted, for Reason.
type Pending struct {
	Workload     types.NamespacedName
	ClusterQueue string
	Reason       string
	Message      string
}

// Evict: an admitted workload must give its quota back for a reason other than
// preemption (a stopPolicy of HoldAndDrain, spec.active=false, its pods not
// ready in time).
type Evict struct {
	Workload     types.NamespacedName
	ClusterQueue string
	Reason       string
	Message      string
	// RequeueAt, for a PodsReadyTimeout eviction, is the end of the back-off
	// before which the workload is not admitted again.
	RequeueAt time.Time
}

// Deactivate: an admitted workload ran out of its maximum execution time
// (Reason MaximumExecutionTimeExceeded): it gets spec.active=false and is
// evicted, and stays out of its queue.
type Deactivate struct {
	Workload     types.NamespacedName
	ClusterQueue string
	Reason       string
	Message      string
}

// Preempt: the victims are evicted so that the preemptor can be admitted.
type Preempt struct {
	Preemptor types.NamespacedName
	Victims   []Victim
}

// Victim is one workload a preemption evicts.
type Victim struct {
	Workload     types.NamespacedName
	ClusterQueue string
	// Reason is Kueue's preemption reason (InClusterQueue, InCohortReclamation,
	// InCohortFairSharing, InCohortReclaimWhileBorrowing).
	Reason  string
	Message string
}

func (Admit) isDecision()      {}
func (Pending) isDecision()    {}
func (Evict) isDecision()      {}
func (Deactivate) isDecision() {}
func (Preempt) isDecision()    {}
