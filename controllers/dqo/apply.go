package dqo

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
	enginedqo "quokka.dev/quokka/engine/dqo"
)

// snapshot is one read of everything the plan depends on. The objects are the
// cache's own (listed with UnsafeDisableDeepCopy): a plan reads every ClusterQueue
// of the cluster but writes few, so copying all of them on every reconcile would be
// most of its cost. Nothing may modify them: the engine never modifies its inputs,
// and the writes below copy an object before changing it.
type snapshot struct {
	orchestrators []*v1alpha1.DynamicQuotaOrchestrator
	providers     map[string]*v1alpha1.CapacityProvider
	tree          *enginedqo.Tree
	clusterQueues map[string]*v1beta2.ClusterQueue
	cohorts       map[string]*v1beta2.Cohort
}

func (r *Reconciler) snapshot(ctx context.Context) (*snapshot, error) {
	var dqos v1alpha1.DynamicQuotaOrchestratorList
	if err := r.client.List(ctx, &dqos, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing DynamicQuotaOrchestrators: %w", err)
	}
	var cps v1alpha1.CapacityProviderList
	if err := r.client.List(ctx, &cps, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing CapacityProviders: %w", err)
	}
	var cqs v1beta2.ClusterQueueList
	if err := r.client.List(ctx, &cqs, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing ClusterQueues: %w", err)
	}
	var cohorts v1beta2.CohortList
	if err := r.client.List(ctx, &cohorts, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Cohorts: %w", err)
	}

	s := &snapshot{
		orchestrators: make([]*v1alpha1.DynamicQuotaOrchestrator, 0, len(dqos.Items)),
		providers:     make(map[string]*v1alpha1.CapacityProvider, len(cps.Items)),
		clusterQueues: make(map[string]*v1beta2.ClusterQueue, len(cqs.Items)),
		cohorts:       make(map[string]*v1beta2.Cohort, len(cohorts.Items)),
	}
	for i := range dqos.Items {
		s.orchestrators = append(s.orchestrators, &dqos.Items[i])
	}
	for i := range cps.Items {
		s.providers[cps.Items[i].Name] = &cps.Items[i]
	}
	cqList := make([]*v1beta2.ClusterQueue, 0, len(cqs.Items))
	for i := range cqs.Items {
		cqList = append(cqList, &cqs.Items[i])
		s.clusterQueues[cqs.Items[i].Name] = &cqs.Items[i]
	}
	cohortList := make([]*v1beta2.Cohort, 0, len(cohorts.Items))
	for i := range cohorts.Items {
		cohortList = append(cohortList, &cohorts.Items[i])
		s.cohorts[cohorts.Items[i].Name] = &cohorts.Items[i]
	}
	s.tree = enginedqo.NewTree(cqList, cohortList)
	return s, nil
}

// applyResult counts what one reconcile wrote. err holds the failures that are
// not optimistic-lock conflicts; conflicts only ask for another plan.
type applyResult struct {
	quotaWrites  int
	statusWrites int
	conflicts    int
	err          error
}

// record sorts the error of one write into the result. A NotFound means the
// object was deleted after the cache listed it; its delete event plans again.
func (a *applyResult) record(err error) {
	switch {
	case err == nil:
	case apierrors.IsConflict(err):
		a.conflicts++
	case apierrors.IsNotFound(err):
	default:
		a.err = errors.Join(a.err, err)
	}
}

// apply writes the outcomes. For each orchestrator, the effective quotas go first
// and its own status last, and the status is skipped when a quota write failed,
// so that Distributed=True is never stored before the quotas it reports are. The
// orchestrators are independent (their subtrees do not overlap, or the loser
// writes nothing), so one orchestrator's failure does not hold back another's.
func (r *Reconciler) apply(ctx context.Context, s *snapshot, outcomes []enginedqo.Outcome) applyResult {
	var res applyResult
	for i := range outcomes {
		o := &outcomes[i]
		log := ctrl.LoggerFrom(ctx).WithValues("dynamicQuotaOrchestrator", o.Orchestrator.Name)
		failed := false
		for _, u := range o.Distribution.Updates {
			if !u.NeedsWrite {
				continue
			}
			err := r.writeEffectiveQuotas(ctx, s, u)
			res.record(err)
			if err != nil {
				failed = true
				log.V(1).Info("writing effective quotas failed", "kind", u.Node.Kind, "name", u.Node.Name, "err", err.Error())
				continue
			}
			res.quotaWrites++
			log.Info("wrote effective quotas", "kind", u.Node.Kind, "name", u.Node.Name)
		}
		if failed {
			continue
		}
		wrote, err := r.writeOrchestratorStatus(ctx, o)
		res.record(err)
		if wrote {
			res.statusWrites++
			log.Info("updated status",
				"effectiveCapacityComputed", o.Discovery.Condition.Status, "reason", o.Discovery.Condition.Reason,
				"distributed", conditionStatus(o.Distribution.Condition))
		}
	}
	return res
}

// writeEffectiveQuotas patches status.effectiveQuotas of one ClusterQueue or
// Cohort. The engine only returns updates for created objects of the tree, which
// the snapshot holds.
func (r *Reconciler) writeEffectiveQuotas(ctx context.Context, s *snapshot, u enginedqo.QuotaUpdate) error {
	eq := u.EffectiveQuotas.DeepCopy()
	switch u.Node.Kind {
	case v1alpha1.ClusterQueueKind:
		cached := s.clusterQueues[u.Node.Name]
		if cached == nil {
			return fmt.Errorf("ClusterQueue %q is in the plan but not in the snapshot", u.Node.Name)
		}
		base, cq := cached.DeepCopy(), cached.DeepCopy()
		cq.Status.EffectiveQuotas = eq
		return patchStatus(ctx, r.client, cq, base, fmt.Sprintf("writing status.effectiveQuotas of ClusterQueue %q", cq.Name))
	case v1alpha1.CohortKind:
		cached := s.cohorts[u.Node.Name]
		if cached == nil {
			return fmt.Errorf("cohort %q is in the plan but not in the snapshot", u.Node.Name)
		}
		base, co := cached.DeepCopy(), cached.DeepCopy()
		co.Status.EffectiveQuotas = eq
		return patchStatus(ctx, r.client, co, base, fmt.Sprintf("writing status.effectiveQuotas of Cohort %q", co.Name))
	}
	return fmt.Errorf("the plan names %s, which is neither a ClusterQueue nor a Cohort", u.Node)
}

// writeOrchestratorStatus stores the outcome in the orchestrator's status when it
// differs from what is stored, and reports whether it wrote.
func (r *Reconciler) writeOrchestratorStatus(ctx context.Context, o *enginedqo.Outcome) (bool, error) {
	base, d := o.Orchestrator.DeepCopy(), o.Orchestrator.DeepCopy()
	if !desiredOrchestratorStatus(&d.Status, o) {
		return false, nil
	}
	if err := patchStatus(ctx, r.client, d, base, fmt.Sprintf("writing status of DynamicQuotaOrchestrator %q", d.Name)); err != nil {
		return false, err
	}
	return true, nil
}

// desiredOrchestratorStatus turns status into what the outcome says it should be
// and reports whether anything changed. Conditions go through meta's helpers, which
// keep lastTransitionTime while a condition's status stays the same; the effective
// capacity is compared by value, so "1000m" stored for "1" is not rewritten.
func desiredOrchestratorStatus(status *v1alpha1.DynamicQuotaOrchestratorStatus, o *enginedqo.Outcome) bool {
	changed := meta.SetStatusCondition(&status.Conditions, o.Discovery.Condition)
	if c := o.Distribution.Condition; c != nil {
		changed = meta.SetStatusCondition(&status.Conditions, *c) || changed
	} else {
		// Discovery-only mode (000: "In discovery-only mode, the condition is not
		// set."): a Distributed condition left from an earlier spec would claim a
		// distribution that no longer happens.
		changed = meta.RemoveStatusCondition(&status.Conditions, v1alpha1.Distributed) || changed
	}
	if !enginedqo.EffectiveCapacityEqual(status.EffectiveCapacity, o.Discovery.EffectiveCapacity) {
		status.EffectiveCapacity = o.Discovery.EffectiveCapacity.DeepCopy()
		changed = true
	}
	return changed
}

// patchStatus sends the difference between base and obj as a merge patch of the
// status subresource, guarded by base's resourceVersion: a cache that was behind
// the API server yields a conflict rather than a write computed from old data.
func patchStatus(ctx context.Context, c client.Client, obj, base client.Object, what string) error {
	patch := client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	if err := c.Status().Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func conditionStatus(c *metav1.Condition) string {
	if c == nil {
		return "unset"
	}
	return string(c.Status)
}

// metavNow is the time stamped on effective quotas. The API stores seconds, so the
// sub-second part is dropped here rather than by the serializer, which keeps the
// value a test sees before and after a round trip the same.
func metavNow(t time.Time) metav1.Time {
	return metav1.NewTime(t.Truncate(time.Second))
}
