package dqo

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// QuotaUpdate is the status.effectiveQuotas that one ClusterQueue or Cohort of the
// subtree should have.
type QuotaUpdate struct {
	// Node names the object to write.
	Node NodeRef
	// EffectiveQuotas is the complete value for status.effectiveQuotas, with
	// lastUpdateTime set to the now passed to Distribute.
	EffectiveQuotas v1beta2.EffectiveQuotas
	// NeedsWrite is NeedsWrite(current, EffectiveQuotas) for the object's current
	// status.effectiveQuotas in the Tree: false when only lastUpdateTime would change.
	NeedsWrite bool
}

// DistributionResult is the outcome of distribution for one orchestrator.
type DistributionResult struct {
	// Condition is the Distributed condition. It is nil in discovery-only mode
	// (000: "In discovery-only mode, the condition is not set."), in which case a
	// controller removes a Distributed condition left from an earlier spec.
	Condition *metav1.Condition

	// Updates holds one entry for every ClusterQueue and every created Cohort of the
	// subtree, sorted by kind and name. Implicit Cohorts have no object and no entry.
	// Updates is empty unless Condition is True: when Distributed is False, the
	// orchestrator writes nothing and the objects keep their last effective quotas
	// (000, "Caveats").
	Updates []QuotaUpdate
}

// Distributed reports whether the condition is True, that is, whether Updates holds
// quotas to write.
func (r DistributionResult) Distributed() bool {
	return r.Condition != nil && r.Condition.Status == metav1.ConditionTrue
}

// Distribute splits capacity over the subtree of dqo (000, "Distribution").
//
// Inputs: capacity is DiscoveryResult.Capacity (nil when discovery failed); tree holds
// every ClusterQueue and Cohort of the cluster; resolution is ResolveConflicts over
// every orchestrator of the cluster; now becomes lastUpdateTime. Nothing is modified.
//
// The checks come in this order, and the first that fails decides the reason of
// Distributed=False:
//  1. Misconfigured: the root does not exist (neither created nor referenced as a
//     parent), its kind is neither ClusterQueue nor Cohort, or it is a Cohort on a
//     cycle.
//  2. ConflictingDynamicQuotaOrchestrator: another orchestrator takes precedence.
//  3. EffectiveCapacityNotComputed: capacity is nil.
//  4. EffectiveQuotasConflict: an object of the subtree has status.effectiveQuotas
//     written by something that is not one of the orchestrators in resolution.
//  5. Misconfigured: a nominalQuota of the subtree cannot be read in canonical units.
//
// Otherwise Distributed is True with reason QuotasDistributed, and Updates holds the
// effective quotas of every object of the subtree, built as effectiveResourceGroups
// describes from shares computed by the splitter.
func Distribute(dqo *v1alpha1.DynamicQuotaOrchestrator, capacity *Capacity, tree *Tree, resolution Resolution, now metav1.Time) DistributionResult {
	if dqo.Spec.CapacityDistribution == nil {
		return DistributionResult{}
	}
	gen := dqo.Generation
	fail := func(reason, message string) DistributionResult {
		c := condition(v1alpha1.Distributed, metav1.ConditionFalse, reason, message, gen)
		return DistributionResult{Condition: &c}
	}
	const rootField = "spec.capacityDistribution.subtreeRootQuotaRef"
	root := rootOf(dqo)
	if root.Kind != v1alpha1.ClusterQueueKind && root.Kind != v1alpha1.CohortKind {
		return fail(v1alpha1.ReasonMisconfigured, fmt.Sprintf("%s.kind: %q must be ClusterQueue or Cohort", rootField, root.Kind))
	}
	if !tree.Exists(root) {
		return fail(v1alpha1.ReasonMisconfigured, fmt.Sprintf("%s: %s does not exist", rootField, root))
	}
	if root.Kind == v1alpha1.CohortKind {
		if cycle := tree.cohortCycle(root.Name); cycle != nil {
			return fail(v1alpha1.ReasonMisconfigured, fmt.Sprintf("%s: %s is on a Cohort cycle (%s); a subtree needs a tree", rootField, root, strings.Join(cycle, " -> ")))
		}
	}
	if winner, blocked := resolution.Winner(dqo.Name); blocked {
		return fail(v1alpha1.ReasonConflictingDynamicQuotaOrchestrator, fmt.Sprintf(
			"DynamicQuotaOrchestrator %q takes precedence over the subtree of %s: the subtrees overlap and its root is higher, or the same and it was created earlier (or at the same time with a smaller UID)", winner, root))
	}
	if capacity == nil {
		return fail(v1alpha1.ReasonEffectiveCapacityNotComputed, fmt.Sprintf(
			"%s is not True, so there is no capacity to distribute; the objects in the subtree of %s keep their current status.effectiveQuotas", v1alpha1.EffectiveCapacityComputed, root))
	}

	nodes := collectNodes(tree, root)
	if foreign := foreignWriters(nodes, dqo.Name, resolution); len(foreign) > 0 {
		return fail(v1alpha1.ReasonEffectiveQuotasConflict, fmt.Sprintf(
			"status.effectiveQuotas is managed by another component on %d objects of the subtree, which are not overwritten: %s; clear status.effectiveQuotas to let DynamicQuotaOrchestrator %q manage them",
			len(foreign), joinLimited(foreign), dqo.Name))
	}
	s, err := computeShares(nodes, capacity)
	if err != nil {
		return fail(v1alpha1.ReasonMisconfigured, err.Error())
	}

	ref := OrchestratorRef(dqo.Name)
	updates := make([]QuotaUpdate, len(nodes))
	queues := 0
	for i := range nodes {
		n := &nodes[i]
		if n.clusterQueue {
			queues++
		}
		stamp := now
		eq := v1beta2.EffectiveQuotas{
			OrchestratorRef: ref,
			LastUpdateTime:  &stamp,
			ResourceGroups:  effectiveResourceGroups(n, capacity, s.perNode[i]),
		}
		updates[i] = QuotaUpdate{Node: n.ref, EffectiveQuotas: eq, NeedsWrite: NeedsWrite(n.current, eq)}
	}
	message := fmt.Sprintf("distributed %d flavor-resource pairs over %d ClusterQueues and %d Cohorts in the subtree of %s",
		len(s.pairs), queues, len(nodes)-queues, root)
	if unused := s.unusedPairs(capacity); len(unused) > 0 {
		message += fmt.Sprintf("; %d pairs of status.effectiveCapacity have no participant and stay unused: %s", len(unused), joinLimited(unused))
	}
	c := condition(v1alpha1.Distributed, metav1.ConditionTrue, v1alpha1.ReasonQuotasDistributed, message, gen)
	return DistributionResult{Condition: &c, Updates: updates}
}

// quotaNode is a created ClusterQueue or Cohort of the subtree, reduced to what
// distribution reads.
type quotaNode struct {
	ref          NodeRef
	uid          string
	clusterQueue bool
	spec         []v1beta2.ResourceGroup
	current      *v1beta2.EffectiveQuotas
}

// collectNodes returns the created objects of the subtree sorted by kind and name, so
// that Updates come out in an order that does not depend on map iteration.
func collectNodes(tree *Tree, root NodeRef) []quotaNode {
	refs := tree.Subtree(root)
	nodes := make([]quotaNode, 0, len(refs))
	for _, ref := range refs {
		switch ref.Kind {
		case v1alpha1.ClusterQueueKind:
			cq := tree.ClusterQueue(ref.Name)
			nodes = append(nodes, quotaNode{ref: ref, uid: string(cq.UID), clusterQueue: true, spec: cq.Spec.ResourceGroups, current: cq.Status.EffectiveQuotas})
		case v1alpha1.CohortKind:
			// An implicit Cohort has no spec and no status to write.
			if co := tree.Cohort(ref.Name); co != nil {
				nodes = append(nodes, quotaNode{ref: ref, uid: string(co.UID), spec: co.Spec.ResourceGroups, current: co.Status.EffectiveQuotas})
			}
		}
	}
	sortNodes(nodes)
	return nodes
}

func sortNodes(nodes []quotaNode) {
	slices.SortFunc(nodes, func(a, b quotaNode) int {
		if a.ref == b.ref {
			return 0
		}
		if a.ref.less(b.ref) {
			return -1
		}
		return 1
	})
}

// foreignWriters lists the objects whose status.effectiveQuotas were written by a
// component that is neither this orchestrator nor another orchestrator the
// resolution knows. Overwriting them would fight that component.
func foreignWriters(nodes []quotaNode, self string, resolution Resolution) []string {
	var out []string
	for i := range nodes {
		cur := nodes[i].current
		if cur == nil {
			continue
		}
		ref := cur.OrchestratorRef
		if name, ok := isOrchestrator(ref); ok && (name == self || resolution.Knows(name)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s (orchestratorRef %s/%s %q)", nodes[i].ref, ref.APIGroup, ref.Kind, ref.Name))
	}
	return out
}
