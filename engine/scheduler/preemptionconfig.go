package scheduler

import (
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/engine/preemption"
	"quokka.dev/quokka/engine/quota"
)

// UpsertPreemptionConfig adds or updates a PreemptionConfig. A ClusterQueue uses
// it when its kueue.x-k8s.io/preemption-config-name annotation names it: the
// rules then add candidates to those of the queue's spec.preemption (see
// preemption.Find and docs/preemption-config.md). The error, for a selector or
// value that cannot be compiled, names the field path; the previous state is
// kept.
func (s *Scheduler) UpsertPreemptionConfig(pc *kueuev1alpha1.PreemptionConfig) error {
	rules, err := preemption.Compile(pc)
	if err != nil {
		return err
	}
	before := s.canPreemptByConfig(pc.Name)
	if s.preemptionConfigs == nil {
		s.preemptionConfigs = map[string]*preemption.Rules{}
	}
	s.preemptionConfigs[pc.Name] = rules
	s.preemptionConfigChanged(pc.Name, before)
	return nil
}

// DeletePreemptionConfig forgets a PreemptionConfig. ClusterQueues that still
// reference it preempt by their spec.preemption alone, as with an empty config.
func (s *Scheduler) DeletePreemptionConfig(name string) {
	if _, ok := s.preemptionConfigs[name]; !ok {
		return
	}
	before := s.canPreemptByConfig(name)
	delete(s.preemptionConfigs, name)
	s.preemptionConfigChanged(name, before)
}

// rulesOf is the compiled PreemptionConfig q references; nil when it
// references none or one that does not exist (yet).
func (s *Scheduler) rulesOf(q *quota.ClusterQueue) *preemption.Rules {
	if q.PreemptionConfigName == "" {
		return nil
	}
	return s.preemptionConfigs[q.PreemptionConfigName]
}

// canPreemptByConfig is canPreempt of every ClusterQueue that references the
// config name.
func (s *Scheduler) canPreemptByConfig(name string) map[string]bool {
	out := map[string]bool{}
	for _, cq := range s.cache.ClusterQueueNames() {
		if q, ok := s.cache.ClusterQueue(cq); ok && q.PreemptionConfigName == name {
			out[cq] = s.canPreempt(q)
		}
	}
	return out
}

// preemptionConfigChanged drops remembered flavor assignments when a config
// change turned preemption on or off for a queue: whether a queue may preempt
// is an input of flavor assignment (whenCanPreempt), and the remembered results
// are keyed by the quota cache's version, which a PreemptionConfig does not
// move.
//
// Any change is structural: it may change the outcome of a preemption search
// of a queue that referenced the config, so every queue is walked again.
func (s *Scheduler) preemptionConfigChanged(name string, before map[string]bool) {
	s.wakeAll()
	changed := false
	for cq, was := range s.canPreemptByConfig(name) {
		changed = changed || was != before[cq]
	}
	if !changed {
		return
	}
	for _, r := range s.workloads {
		r.memo = nil
	}
}
