package simulator

import (
	"fmt"
	"sort"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/simulator/manifest"
)

// apply applies one document at the current instant, as kubectl apply would: a
// new object is created, an existing one (same kind, namespace and name) replaced.
func (s *sim) apply(d *manifest.Document) error {
	fail := func(err error) error {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	if d.IsJob() {
		if err := s.submitJob(d); err != nil {
			return fail(err)
		}
		return nil
	}
	switch o := d.Object.(type) {
	case *configv1beta2.Configuration:
		if s.now == 0 {
			// Already in effect: start() reads the last Configuration of time 0.
			return nil
		}
		return s.useConfiguration(o, &d.Source)
	case *kueue.ResourceFlavor:
		rf := o.DeepCopy()
		s.stamp(&rf.ObjectMeta, d.Key)
		s.world.flavors[rf.Name] = rf
		s.engine.UpsertResourceFlavor(rf)
	case *corev1.Namespace:
		ns := o.DeepCopy()
		s.stamp(&ns.ObjectMeta, d.Key)
		s.world.namespaces[ns.Name] = ns
		s.engine.UpsertNamespace(ns.Name, ns.Labels)
	case *kueue.WorkloadPriorityClass:
		s.world.wpcs[o.Name] = o.Value
		s.engine.UpsertWorkloadPriorityClass(o.Name, o.Value)
	case *schedulingv1.PriorityClass:
		// The priority of a Koord-Queue Job whose pod template names it
		// (koord-queue's job extension reads the class when it creates the
		// unit). Kueue's jobs are not affected: a Workload that refers to a
		// PriorityClass carries the resolved value in spec.priority, and a
		// Kueue Job's pod PriorityClass is not resolved (docs/koord-queue.md,
		// "Where Quokka decides otherwise").
		s.world.pcs[o.Name] = o.Value
	case *corev1.LimitRange:
		s.applyLimitRange(o)
	case *nodev1.RuntimeClass:
		s.applyRuntimeClass(o)
	case *queuev1alpha1.Queue:
		return s.applyQueue(d, o)
	case *kueue.LocalQueue:
		return s.applyLocalQueue(d, o)
	case *kueue.ClusterQueue:
		return s.applyClusterQueue(d, o)
	case *kueue.Cohort:
		return s.applyCohort(d, o)
	case *kueuev1alpha1.CapacityProvider:
		cp := o.DeepCopy()
		s.stamp(&cp.ObjectMeta, d.Key)
		s.world.providers[cp.Name] = cp
		s.dqoDirty = true
	case *kueuev1alpha1.DynamicQuotaOrchestrator:
		dqo := o.DeepCopy()
		s.stamp(&dqo.ObjectMeta, d.Key)
		if prev, ok := s.world.dqos[dqo.Name]; ok {
			// Status belongs to the controller; a re-applied spec keeps it.
			dqo.Status = prev.obj.Status
		}
		s.world.dqos[dqo.Name] = &live[kueuev1alpha1.DynamicQuotaOrchestrator]{obj: dqo, src: d.Source}
		s.dqoDirty = true
	case *kueuev1alpha1.PreemptionConfig:
		return s.applyPreemptionConfig(d, o)
	case *koordv1alpha1.ElasticQuota:
		return s.applyElasticQuota(d, o)
	case *batchv1.Job, *kueue.Workload, *queuev1alpha1.QueueUnit:
		// Handled by submit above.
	default:
		return fail(fmt.Errorf("no way to apply %T", d.Object))
	}
	return nil
}

// stamp sets what the API server sets on create: UID and creation time (kept on
// replacement).
func (s *sim) stamp(meta *metav1.ObjectMeta, key manifest.Key) {
	meta.UID = s.world.uidFor(key, meta.UID)
	if first, ok := s.world.created[key]; ok {
		meta.CreationTimestamp = first
	} else {
		meta.CreationTimestamp = metav1.NewTime(s.clock(s.now))
		s.world.created[key] = meta.CreationTimestamp
	}
}

// ensureNamespace makes an undeclared namespace exist, with no labels.
func (s *sim) ensureNamespace(name string) {
	if _, ok := s.world.namespaces[name]; ok || s.world.implicitNS[name] {
		return
	}
	s.world.implicitNS[name] = true
	s.engine.UpsertNamespace(name, nil)
}

func (s *sim) applyLocalQueue(d *manifest.Document, o *kueue.LocalQueue) error {
	lq := o.DeepCopy()
	s.stamp(&lq.ObjectMeta, d.Key)
	key := types.NamespacedName{Namespace: lq.Namespace, Name: lq.Name}
	if prev, ok := s.world.lqs[key]; ok && prev.obj.Spec.ClusterQueue != lq.Spec.ClusterQueue {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: fmt.Errorf(
			"spec.clusterQueue: Invalid value: %q: clusterQueue is immutable (it was %q, applied by %s)",
			lq.Spec.ClusterQueue, prev.obj.Spec.ClusterQueue, prev.src)}
	}
	s.ensureNamespace(lq.Namespace)
	_, existed := s.world.lqs[key]
	s.world.lqs[key] = &live[kueue.LocalQueue]{obj: lq, src: d.Source}
	s.engine.UpsertLocalQueue(lq)
	if !existed {
		// Workloads already waiting for this LocalQueue now count for its
		// ClusterQueue's queue length.
		s.recountPending()
	}
	return nil
}

func (s *sim) applyClusterQueue(d *manifest.Document, o *kueue.ClusterQueue) error {
	cq := o.DeepCopy()
	s.stamp(&cq.ObjectMeta, d.Key)
	if errs := s.config.ValidateClusterQueue(cq); len(errs) > 0 {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: errs.ToAggregate()}
	}
	if err := s.checkPreemptionConfigRef(cq); err != nil {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	if prev, ok := s.world.cqs[cq.Name]; ok && cq.Status.EffectiveQuotas == nil {
		// kubectl apply does not touch status: effective quotas written by DQO
		// stay until DQO rewrites them.
		cq.Status.EffectiveQuotas = prev.obj.Status.EffectiveQuotas
	}
	s.world.cqs[cq.Name] = &live[kueue.ClusterQueue]{obj: cq, src: d.Source}
	s.dqoDirty = s.dqoDirty || len(s.world.dqos) > 0
	return s.upsertClusterQueue(cq, d.Source)
}

// upsertClusterQueue hands a ClusterQueue to the engine and records the quota it
// now has.
func (s *sim) upsertClusterQueue(cq *kueue.ClusterQueue, src manifest.Source) error {
	if err := s.engine.UpsertClusterQueue(cq); err != nil {
		return &manifest.Error{Source: src, Object: "ClusterQueue " + cq.Name, Err: err}
	}
	groups := groupsInEffect(cq.Spec.ResourceGroups, cq.Status.EffectiveQuotas, s.config.FeatureGate(configv1beta2.FeatureDynamicQuotaOrchestration))
	s.acct.setQuotas(cq.Name, s.now, quotasOf(groups))
	return nil
}

func (s *sim) applyCohort(d *manifest.Document, o *kueue.Cohort) error {
	c := o.DeepCopy()
	s.stamp(&c.ObjectMeta, d.Key)
	if prev, ok := s.world.cohorts[c.Name]; ok && c.Status.EffectiveQuotas == nil {
		c.Status.EffectiveQuotas = prev.obj.Status.EffectiveQuotas
	}
	s.world.cohorts[c.Name] = &live[kueue.Cohort]{obj: c, src: d.Source}
	s.dqoDirty = s.dqoDirty || len(s.world.dqos) > 0
	if err := s.engine.UpsertCohort(c); err != nil {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	return nil
}

// applyLimitRange replaces a LimitRange of its namespace: the namespace's
// pending workloads are counted again with the namespace's LimitRanges, as
// the manager counts them (Kueue's LimitRange defaults and checks).
func (s *sim) applyLimitRange(o *corev1.LimitRange) {
	ranges := s.world.limitRanges[o.Namespace]
	if ranges == nil {
		ranges = map[string]corev1.LimitRange{}
		s.world.limitRanges[o.Namespace] = ranges
	}
	ranges[o.Name] = *o.DeepCopy()
	s.engine.SetLimitRanges(o.Namespace, s.world.limitRangesOf(o.Namespace))
	s.reupsertPending(func(w *workloadRecord) bool { return w.key.Namespace == o.Namespace })
}

// applyRuntimeClass records a RuntimeClass's overhead: pending workloads
// whose pod sets name it are counted again.
func (s *sim) applyRuntimeClass(o *nodev1.RuntimeClass) {
	var overhead corev1.ResourceList
	if o.Overhead != nil {
		overhead = o.Overhead.PodFixed.DeepCopy()
	}
	s.world.runtimeClasses[o.Name] = overhead
	s.engine.UpsertRuntimeClass(o.Name, overhead)
	s.reupsertPending(func(w *workloadRecord) bool {
		for _, ps := range w.obj.Spec.PodSets {
			if n := ps.Template.Spec.RuntimeClassName; n != nil && *n == o.Name {
				return true
			}
		}
		return false
	})
}

// reupsertPending upserts again the pending workloads that match, in name
// order, so that the engine counts them in their namespace's environment as
// it now is. A workload the engine now refuses keeps its last reading.
func (s *sim) reupsertPending(match func(*workloadRecord) bool) {
	var names []string
	byName := map[string]*workloadRecord{}
	for _, w := range s.workloads {
		if w.state == StatePending && match(w) {
			names = append(names, w.name)
			byName[w.name] = w
		}
	}
	sort.Strings(names)
	for _, n := range names {
		_ = s.engine.UpsertWorkload(byName[n].obj)
	}
}
