package scheduler

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/workload"
)

// A workload's pod sets are counted as Kueue counts them in the workload's
// namespace (workload.Environment): with the namespace's LimitRange defaults
// and the RuntimeClasses' overheads, and a pod set outside the namespace's
// LimitRanges is never admitted. The engine reads them when a workload is
// upserted; it keeps no Workload objects, so when LimitRanges or
// RuntimeClasses change, the driver upserts the pending workloads they
// concern again (Kueue reads them again whenever it requeues a workload),
// and every queue is walked in the next cycle, so that their reasons are
// told anew.

// environments holds the LimitRanges and RuntimeClasses the engine knows.
type environments struct {
	limitRanges map[string]workload.LimitRangeSummary
	overheads   map[string]corev1.ResourceList
	// byNamespace caches each namespace's Environment; a change drops it.
	byNamespace map[string]*workload.Environment
}

// SetLimitRanges replaces the LimitRanges of namespace ns (all of them; none
// to forget them). They are folded in name order, so that the first default
// of a resource is the same whatever order they are listed in.
func (s *Scheduler) SetLimitRanges(ns string, ranges []corev1.LimitRange) {
	s.wakeAll()
	e := &s.env
	if len(ranges) == 0 {
		delete(e.limitRanges, ns)
	} else {
		sorted := slices.Clone(ranges)
		slices.SortFunc(sorted, func(a, b corev1.LimitRange) int { return strings.Compare(a.Name, b.Name) })
		if e.limitRanges == nil {
			e.limitRanges = map[string]workload.LimitRangeSummary{}
		}
		e.limitRanges[ns] = workload.SummarizeLimitRanges(sorted...)
	}
	delete(e.byNamespace, ns)
}

// UpsertRuntimeClass records a RuntimeClass's overhead (overhead.podFixed;
// nil for none), which pod sets naming the class without an overhead of
// their own are charged for.
func (s *Scheduler) UpsertRuntimeClass(name string, overhead corev1.ResourceList) {
	s.wakeAll()
	e := &s.env
	next := make(map[string]corev1.ResourceList, len(e.overheads)+1)
	for k, v := range e.overheads {
		next[k] = v
	}
	next[name] = overhead.DeepCopy()
	e.overheads = next
	clear(e.byNamespace)
}

// DeleteRuntimeClass forgets a RuntimeClass: pod sets naming it get no
// overhead, as in Kueue when the class cannot be read.
func (s *Scheduler) DeleteRuntimeClass(name string) {
	e := &s.env
	if _, ok := e.overheads[name]; !ok {
		return
	}
	s.wakeAll()
	next := make(map[string]corev1.ResourceList, len(e.overheads))
	for k, v := range e.overheads {
		if k != name {
			next[k] = v
		}
	}
	e.overheads = next
	clear(e.byNamespace)
}

// Environment is what the cluster adds to the pod sets of namespace ns's
// workloads, nil when nothing: the drivers read workloads with it where they
// need the engine's own reading (a pending Workload's resourceRequests).
// It is never changed afterwards, so it may be used outside the engine's
// lock.
func (s *Scheduler) Environment(ns string) *workload.Environment {
	e := &s.env
	if env, ok := e.byNamespace[ns]; ok {
		return env
	}
	var env *workload.Environment
	if lr := e.limitRanges[ns]; len(lr) > 0 || len(e.overheads) > 0 {
		env = &workload.Environment{LimitRanges: lr, RuntimeClassOverhead: e.overheads}
	}
	if e.byNamespace == nil {
		e.byNamespace = map[string]*workload.Environment{}
	}
	e.byNamespace[ns] = env
	return env
}
