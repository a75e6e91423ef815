package simulator

import (
	"fmt"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/simulator/manifest"
)

// applyPreemptionConfig hands a PreemptionConfig to the engine, which compiles
// it; ClusterQueues use it through the kueue.x-k8s.io/preemption-config-name
// annotation (docs/preemption-config.md).
func (s *sim) applyPreemptionConfig(d *manifest.Document, o *kueuev1alpha1.PreemptionConfig) error {
	pc := o.DeepCopy()
	s.stamp(&pc.ObjectMeta, d.Key)
	if err := s.engine.UpsertPreemptionConfig(pc); err != nil {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	s.world.preemptionConfigs[pc.Name] = &live[kueuev1alpha1.PreemptionConfig]{obj: pc, src: d.Source}
	return nil
}

// replayPreemptionConfigs gives a rebuilt engine every PreemptionConfig.
func (s *sim) replayPreemptionConfigs() error {
	for _, name := range sortedNames(s.world.preemptionConfigs) {
		pc := s.world.preemptionConfigs[name]
		if err := s.engine.UpsertPreemptionConfig(pc.obj); err != nil {
			return &manifest.Error{Source: pc.src, Object: "PreemptionConfig " + name, Err: err}
		}
	}
	return nil
}

// checkPreemptionConfigRef refuses a ClusterQueue whose
// kueue.x-k8s.io/preemption-config-name annotation names a PreemptionConfig
// that no document of the input defines: the engine would preempt by
// spec.preemption alone, which is most likely not the question asked (a typo).
// A config applied later in the trace is fine: until then the queue preempts
// as without one, as in a cluster.
func (s *sim) checkPreemptionConfigRef(cq *kueue.ClusterQueue) error {
	name := cq.Annotations[kueuev1alpha1.PreemptionConfigNameAnnotation]
	if name == "" {
		return nil
	}
	for i := range s.docs {
		if pc, ok := s.docs[i].Object.(*kueuev1alpha1.PreemptionConfig); ok && pc.Name == name {
			return nil
		}
	}
	return fmt.Errorf("metadata.annotations[%s]: Invalid value: %q: no PreemptionConfig of that name in the input", kueuev1alpha1.PreemptionConfigNameAnnotation, name)
}
