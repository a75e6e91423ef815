package dqo

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
)

// Outcome is everything that one DynamicQuotaOrchestrator should write: its own
// status (Discovery.Condition, Discovery.EffectiveCapacity, Distribution.Condition)
// and the effective quotas of its subtree (Distribution.Updates).
type Outcome struct {
	Orchestrator *v1alpha1.DynamicQuotaOrchestrator
	Discovery    DiscoveryResult
	Distribution DistributionResult
}

// Plan runs discovery, conflict resolution and distribution for every orchestrator
// of a cluster, in the order the spec implies, and returns one Outcome per
// orchestrator sorted by name. It is the whole engine side of a DQO reconcile; the
// simulator calls it per step, and a controller may call it per reconcile or use
// Discover, ResolveConflicts and Distribute on their own.
//
// Orchestrators whose subtrees do not overlap never write the same object, and a
// blocked orchestrator writes nothing, so applying every Update of every Outcome is
// safe in any order.
func Plan(dqos []*v1alpha1.DynamicQuotaOrchestrator, providers map[string]*v1alpha1.CapacityProvider, tree *Tree, now metav1.Time) []Outcome {
	resolution := ResolveConflicts(dqos, tree)
	out := make([]Outcome, 0, len(dqos))
	for _, d := range dqos {
		if d == nil {
			continue
		}
		disc := Discover(d, providers)
		out = append(out, Outcome{
			Orchestrator: d,
			Discovery:    disc,
			Distribution: Distribute(d, disc.Capacity, tree, resolution, now),
		})
	}
	slices.SortFunc(out, func(a, b Outcome) int { return strings.Compare(a.Orchestrator.Name, b.Orchestrator.Name) })
	return out
}
