package scheduler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// UpsertResourceFlavor adds or updates a flavor; queues that were inactive for
// lack of it become active.
//
// An upsert that changes nothing the engine reads (see seen.go) does nothing.
func (s *Scheduler) UpsertResourceFlavor(rf *kueue.ResourceFlavor) {
	k, read := seenKey{kind: "ResourceFlavor", name: rf.Name}, flavorRead{Meta: metaReadOf(&rf.ObjectMeta), Spec: rf.Spec.DeepCopy()}
	if s.unchanged(k, read) {
		return
	}
	s.wakeAll()
	s.cache.UpsertResourceFlavor(rf)
	s.remember(k, read)
}

// flavorRead is what the engine reads of a ResourceFlavor.
type flavorRead struct {
	Meta metaRead
	Spec *kueue.ResourceFlavorSpec
}

// metaRead is what the engine may read of an object's metadata: its labels
// and annotations (a PreemptionConfig's name, say) and whether it is being
// deleted.
type metaRead struct {
	Labels, Annotations map[string]string
	Terminating         bool
}

func metaReadOf(m *metav1.ObjectMeta) metaRead {
	return metaRead{Labels: copyLabels(m.Labels), Annotations: copyLabels(m.Annotations), Terminating: m.DeletionTimestamp != nil}
}

// DeleteResourceFlavor removes a flavor; queues that use it become inactive.
func (s *Scheduler) DeleteResourceFlavor(name string) {
	s.wakeAll()
	s.forget(seenKey{kind: "ResourceFlavor", name: name})
	s.cache.DeleteResourceFlavor(name)
}

// UpsertClusterQueue adds or updates a ClusterQueue. The error, for a quantity
// that cannot be converted or quotas that would take its Cohort tree above
// quota.MaxTreeQuota, names the field path; the previous state is kept.
// An upsert that changes neither its spec nor its status.effectiveQuotas
// does nothing (see seen.go).
func (s *Scheduler) UpsertClusterQueue(cq *kueue.ClusterQueue) error {
	read := queueRead{Meta: metaReadOf(&cq.ObjectMeta), Spec: cq.Spec.DeepCopy(), Effective: cq.Status.EffectiveQuotas.DeepCopy()}
	return s.upsertChanged(seenKey{kind: "ClusterQueue", name: cq.Name}, read, func() error { return s.cache.UpsertClusterQueue(cq) })
}

// queueRead is what the engine reads of a ClusterQueue; its fields are
// exported for equality.Semantic, which compares no unexported ones.
type queueRead struct {
	Meta      metaRead
	Spec      *kueue.ClusterQueueSpec
	Effective *kueue.EffectiveQuotas
}

// DeleteClusterQueue removes a ClusterQueue. Its pending workloads wait with
// ClusterQueueNotFound; admitted ones keep their charge in case it returns.
func (s *Scheduler) DeleteClusterQueue(name string) {
	s.wakeAll()
	s.forget(seenKey{kind: "ClusterQueue", name: name})
	s.cache.DeleteClusterQueue(name)
}

// UpsertCohort adds or updates a Cohort. An upsert that changes neither its
// spec nor its status.effectiveQuotas does nothing (see seen.go). The error,
// as UpsertClusterQueue's, names the field path; the previous state is kept.
func (s *Scheduler) UpsertCohort(c *kueue.Cohort) error {
	read := cohortRead{Meta: metaReadOf(&c.ObjectMeta), Spec: c.Spec.DeepCopy(), Effective: c.Status.EffectiveQuotas.DeepCopy()}
	return s.upsertChanged(seenKey{kind: "Cohort", name: c.Name}, read, func() error { return s.cache.UpsertCohort(c) })
}

// cohortRead is what the engine reads of a Cohort (fields exported as
// queueRead's).
type cohortRead struct {
	Meta      metaRead
	Spec      *kueue.CohortSpec
	Effective *kueue.EffectiveQuotas
}

// DeleteCohort removes a Cohort object; it stays implicit while referenced.
func (s *Scheduler) DeleteCohort(name string) {
	s.wakeAll()
	s.forget(seenKey{kind: "Cohort", name: name})
	s.cache.DeleteCohort(name)
}

// UpsertNamespace records a namespace's labels for namespaceSelectors. A
// namespace never upserted has no labels. The same labels again change
// nothing.
func (s *Scheduler) UpsertNamespace(name string, lbls map[string]string) {
	set := labels.Set(copyLabels(lbls))
	if old, ok := s.namespaces[name]; ok && labels.Equals(old, set) {
		return
	}
	s.wakeAll()
	s.namespaces[name] = set
}

// DeleteNamespace forgets a namespace's labels.
func (s *Scheduler) DeleteNamespace(name string) {
	s.wakeAll()
	delete(s.namespaces, name)
}

// UpsertLocalQueue adds or updates a LocalQueue. Pending workloads that name it
// join its ClusterQueue's queue. An upsert that does not change its spec
// changes nothing but, under admission fair sharing, the usage a LocalQueue
// new to the engine starts from (see seen.go).
func (s *Scheduler) UpsertLocalQueue(lq *kueue.LocalQueue) {
	key := types.NamespacedName{Namespace: lq.Namespace, Name: lq.Name}
	k, spec := seenKey{kind: "LocalQueue", namespace: lq.Namespace, name: lq.Name}, lq.Spec.DeepCopy()
	if s.unchanged(k, spec) {
		if s.seedAFS(key, lq) {
			s.wake(string(lq.Spec.ClusterQueue))
		}
		return
	}
	s.remember(k, spec)
	s.wakeAll()
	stop := kueue.None
	if lq.Spec.StopPolicy != nil && *lq.Spec.StopPolicy != "" {
		stop = *lq.Spec.StopPolicy
	}
	cq := string(lq.Spec.ClusterQueue)
	weight := 1.0
	if fs := lq.Spec.FairSharing; fs != nil && fs.Weight != nil {
		weight = fs.Weight.AsApproximateFloat64()
	}
	s.seedAFS(key, lq)
	if old, ok := s.localQueues[key]; ok {
		old.stop = stop
		old.weight = weight
		if old.cq == cq {
			return
		}
		s.unindexLQ(old)
		old.cq = cq
		s.indexLQ(old)
	} else {
		nl := &localQueue{key: key, cq: cq, stop: stop, weight: weight}
		s.localQueues[key] = nl
		s.indexLQ(nl)
	}
	// The records share the LocalQueue's key strings, as UpsertWorkload's do.
	shared := s.localQueues[key].key
	for _, r := range s.pendingByLQ[key] {
		r.lq = shared
		s.list(cq).add(s, r)
	}
}

// DeleteLocalQueue removes a LocalQueue; its pending workloads wait with
// LocalQueueNotFound.
func (s *Scheduler) DeleteLocalQueue(namespace, name string) {
	s.wakeAll()
	s.forget(seenKey{kind: "LocalQueue", namespace: namespace, name: name})
	key := types.NamespacedName{Namespace: namespace, Name: name}
	lq, ok := s.localQueues[key]
	if !ok {
		return
	}
	s.unindexLQ(lq)
	if s.afs != nil {
		// A LocalQueue created again under this name starts afresh.
		delete(s.afs.usage, key)
	}
	delete(s.localQueues, key)
	for _, r := range s.pendingByLQ[key] {
		s.gen++
		r.gen = s.gen // its entry in the ClusterQueue's list is now stale
	}
}

func (s *Scheduler) indexLQ(lq *localQueue) {
	m, ok := s.lqsByCQ[lq.cq]
	if !ok {
		m = map[types.NamespacedName]*localQueue{}
		s.lqsByCQ[lq.cq] = m
	}
	m[lq.key] = lq
}

func (s *Scheduler) unindexLQ(lq *localQueue) {
	if m := s.lqsByCQ[lq.cq]; m != nil {
		delete(m, lq.key)
		if len(m) == 0 {
			delete(s.lqsByCQ, lq.cq)
		}
	}
}

// UpsertWorkloadPriorityClass records a WorkloadPriorityClass value, used for
// workloads whose spec.priority is unset but whose priorityClassRef names it.
func (s *Scheduler) UpsertWorkloadPriorityClass(name string, value int32) {
	s.wpc[name] = value
	s.repriorize()
}

// DeleteWorkloadPriorityClass forgets a WorkloadPriorityClass.
func (s *Scheduler) DeleteWorkloadPriorityClass(name string) {
	delete(s.wpc, name)
	s.repriorize()
}

// UpsertPriorityClass records a scheduling.k8s.io PriorityClass value.
func (s *Scheduler) UpsertPriorityClass(name string, value int32) {
	s.pc[name] = value
	s.repriorize()
}

// DeletePriorityClass forgets a scheduling.k8s.io PriorityClass.
func (s *Scheduler) DeletePriorityClass(name string) {
	delete(s.pc, name)
	s.repriorize()
}

func (s *Scheduler) lookupPriority(ref kueue.PriorityClassRef) (int32, bool) {
	if ref.Group == kueue.PodPriorityClassGroup || ref.Kind == kueue.PodPriorityClassKind {
		v, ok := s.pc[ref.Name]
		return v, ok
	}
	v, ok := s.wpc[ref.Name]
	return v, ok
}

// repriorize re-resolves the priority of workloads that take it from a class.
// Class changes are rare, so a scan is acceptable; only changed workloads move.
func (s *Scheduler) repriorize() {
	s.wakeAll()
	clear(s.admittedSorted)
	clear(s.admittedCands)
	for _, r := range s.workloads {
		if r.info.Priority != nil || r.info.PriorityClass == nil {
			continue
		}
		p := r.info.EffectivePriority(s.lookupPriority, s.opts.PriorityBoost)
		if p == r.priority {
			continue
		}
		r.priority, r.basePriority = p, r.info.ResolvePriority(s.lookupPriority)
		r.headPriority = s.headPriority(p)
		r.cand = nil
		if r.state == StatePending {
			if lq, ok := s.localQueues[r.lq]; ok {
				s.list(lq.cq).add(s, r)
			}
		}
	}
}

func copyLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
