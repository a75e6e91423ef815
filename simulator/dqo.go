package simulator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/dqo"
	"quokka.dev/quokka/simulator/manifest"
)

// orchestrate runs Dynamic Quota Orchestration (spec 000) over the world, as the
// DQO controller would after a provider, an orchestrator, a ClusterQueue or a
// Cohort changed: discovery and distribution for every orchestrator, through the
// same pure functions the controller uses, and the resulting effective quotas
// written to the ClusterQueues and Cohorts before the next cycle.
func (s *sim) orchestrate() error {
	if len(s.world.dqos) == 0 {
		return nil
	}
	names := sortedNames(s.world.dqos)
	if !s.config.FeatureGate(configv1beta2.FeatureDynamicQuotaOrchestration) {
		for _, n := range names {
			s.noteCondition(s.world.dqos[n].obj, metav1.Condition{Type: "FeatureGate", Status: metav1.ConditionFalse, Reason: "Disabled",
				Message: "the DynamicQuotaOrchestration feature gate is off in the Configuration: nothing is discovered or distributed"})
		}
		return nil
	}
	var cqs []*kueue.ClusterQueue
	for _, cq := range s.world.sortedClusterQueues() {
		cqs = append(cqs, cq.obj)
	}
	var cohorts []*kueue.Cohort
	for _, c := range s.world.sortedCohorts() {
		cohorts = append(cohorts, c.obj)
	}
	tree := dqo.NewTree(cqs, cohorts)
	all := make([]*kueuev1alpha1.DynamicQuotaOrchestrator, 0, len(names))
	for _, n := range names {
		all = append(all, s.world.dqos[n].obj)
	}
	for _, out := range dqo.Plan(all, s.world.providers, tree, metav1.NewTime(s.clock(s.now))) {
		d := out.Orchestrator
		d.Status.EffectiveCapacity = out.Discovery.EffectiveCapacity
		s.noteCondition(d, out.Discovery.Condition)
		dist := out.Distribution
		if dist.Condition == nil {
			meta.RemoveStatusCondition(&d.Status.Conditions, kueuev1alpha1.Distributed)
			continue
		}
		s.noteCondition(d, *dist.Condition)
		for _, u := range dist.Updates {
			if !u.NeedsWrite {
				continue
			}
			if err := s.writeEffectiveQuotas(u); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeEffectiveQuotas stores one object's new status.effectiveQuotas and hands
// the object to the engine.
func (s *sim) writeEffectiveQuotas(u dqo.QuotaUpdate) error {
	eq := u.EffectiveQuotas.DeepCopy()
	switch u.Node.Kind {
	case kueuev1alpha1.ClusterQueueKind:
		cur, ok := s.world.cqs[u.Node.Name]
		if !ok {
			return nil
		}
		cq := cur.obj.DeepCopy()
		cq.Status.EffectiveQuotas = eq
		s.world.cqs[cq.Name] = &live[kueue.ClusterQueue]{obj: cq, src: cur.src}
		if err := s.upsertClusterQueue(cq, cur.src); err != nil {
			return err
		}
	case kueuev1alpha1.CohortKind:
		cur, ok := s.world.cohorts[u.Node.Name]
		if !ok {
			return nil
		}
		c := cur.obj.DeepCopy()
		c.Status.EffectiveQuotas = eq
		s.world.cohorts[c.Name] = &live[kueue.Cohort]{obj: c, src: cur.src}
		if err := s.engine.UpsertCohort(c); err != nil {
			return &manifest.Error{Source: cur.src, Object: "Cohort " + c.Name, Err: err}
		}
	default:
		return fmt.Errorf("DQO wrote effective quotas to %s, which is neither a ClusterQueue nor a Cohort", u.Node)
	}
	s.quotaUpdates = append(s.quotaUpdates, QuotaUpdate{
		Time: s.now, Object: string(u.Node.Kind) + " " + u.Node.Name, Nominal: nominalOf(eq.ResourceGroups), Seq: len(s.events),
	})
	return nil
}

// noteCondition stores an orchestrator's condition and records it in the timeline
// when its status or reason changed.
func (s *sim) noteCondition(d *kueuev1alpha1.DynamicQuotaOrchestrator, c metav1.Condition) {
	prev := meta.FindStatusCondition(d.Status.Conditions, c.Type)
	changed := prev == nil || prev.Status != c.Status || prev.Reason != c.Reason || prev.Message != c.Message
	c.LastTransitionTime = metav1.NewTime(s.clock(s.now))
	meta.SetStatusCondition(&d.Status.Conditions, c)
	if !changed {
		return
	}
	s.quotaUpdates = append(s.quotaUpdates, QuotaUpdate{
		Time: s.now, Object: "DynamicQuotaOrchestrator " + d.Name,
		Condition: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, Seq: len(s.events),
	})
}

// nominalOf lists nominal quotas as quantity strings, per flavor and resource.
func nominalOf(groups []kueue.ResourceGroup) map[string]map[corev1.ResourceName]string {
	out := map[string]map[corev1.ResourceName]string{}
	for _, g := range groups {
		for _, f := range g.Flavors {
			m := out[string(f.Name)]
			if m == nil {
				m = map[corev1.ResourceName]string{}
				out[string(f.Name)] = m
			}
			for _, r := range f.Resources {
				m[r.Name] = r.NominalQuota.String()
			}
		}
	}
	return out
}
