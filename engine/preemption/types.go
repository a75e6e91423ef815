package preemption

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/resources"
)

// Candidate is an admitted workload that could be preempted.
type Candidate struct {
	Key          types.NamespacedName
	UID          types.UID
	ClusterQueue string
	// Priority is the effective priority (boost included with Kueue's
	// PriorityBoost gate), BasePriority the one without the boost, which a
	// PreemptionConfig rule compares in its Base mode.
	Priority, BasePriority int32
	Created                time.Time
	// AdmittedAt is when it got its quota reservation; the most recently
	// admitted are preempted first, since they lose the least work.
	AdmittedAt time.Time
	Usage      resources.Amounts
	// Labels and LocalQueue are what a PreemptionConfig's rules read of the
	// workload (labelSelector, numericLabels, scope WithinLocalQueue). Labels
	// are shared with the scheduler: read-only.
	Labels     map[string]string
	LocalQueue types.NamespacedName
	// LQUsage is, when its ClusterQueue uses admission fair sharing, its
	// LocalQueue's weighted decayed usage: between candidates of one queue
	// from different LocalQueues, the one of the LocalQueue that used more
	// goes first (Kueue's CandidatesOrdering). nil otherwise.
	LQUsage *float64
	// Evicting marks a workload already being evicted for another
	// preemptor. Only searches that list such workloads at all (see the
	// scheduler's WaitOnOverlappingTargets) set it; they come before every
	// other candidate, as Kueue's CandidatesOrdering puts evicted workloads
	// first, so that a search counts on evictions already under way before
	// it asks for new ones.
	Evicting bool
}

// Preemptor is the pending workload that needs room.
type Preemptor struct {
	Key types.NamespacedName
	UID types.UID
	// Priority and BasePriority are as a Candidate's.
	Priority, BasePriority int32
	Created                time.Time
	// Assignment is the flavor assignment preemption must make room for.
	Assignment *flavorassigner.Assignment
	// Labels and LocalQueue are what a PreemptionConfig's rules read of the
	// preemptor (preemptorSelector, numericLabels comparisons, scope
	// WithinLocalQueue). Read-only.
	Labels     map[string]string
	LocalQueue types.NamespacedName
}

// Source lists the workloads holding quota in a ClusterQueue that may still be
// chosen (the scheduler leaves out those already being evicted). The list may
// be shared between calls: callers read it and never modify it.
type Source interface {
	Admitted(cq string) []*Candidate
}

// Options select the algorithm.
type Options struct {
	// FairSharing holds the Configuration's strategies in order; nil or empty
	// selects classic preemption.
	FairSharing []fairsharing.Strategy
	// Rules is the PreemptionConfig the preemptor's ClusterQueue references,
	// compiled; nil for none. Its rules add candidates to those of the queue's
	// policies (see Find).
	Rules *Rules
}

// Target is a workload to evict and the reason for its Preempted condition.
type Target struct {
	*Candidate
	Reason string
}
