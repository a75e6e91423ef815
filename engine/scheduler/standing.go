package scheduler

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Every cycle asks to evict the admitted workloads of draining queues and
// explains the pending workloads that reach no ClusterQueue. Both used to
// start by sorting the names of every queue with admitted or pending work,
// which on 1,000 queues cost more than the rest of a quiet cycle. The queues
// concerned change only with the structure (Scheduler.structVer) or, for
// unroutable LocalQueues, when a workload names one; standing keeps them.
type standing struct {
	ver uint64
	// drainingCQs and drainingLQs have stopPolicy HoldAndDrain, sorted.
	drainingCQs []string
	drainingLQs []types.NamespacedName
	// unroutable holds the LocalQueue keys with pending workloads that name a
	// missing LocalQueue, or one whose ClusterQueue is missing.
	unroutable map[types.NamespacedName]struct{}
}

// refreshStanding recomputes the lists after a change of structure.
func (s *Scheduler) refreshStanding() {
	st := &s.standing
	if st.unroutable != nil && st.ver == s.structVer {
		return
	}
	st.ver = s.structVer
	st.drainingCQs = st.drainingCQs[:0]
	for _, name := range s.cache.ClusterQueueNames() {
		if q, ok := s.cache.ClusterQueue(name); ok && q.StopPolicy == kueue.HoldAndDrain {
			st.drainingCQs = append(st.drainingCQs, name)
		}
	}
	st.drainingLQs = st.drainingLQs[:0]
	for key, lq := range s.localQueues {
		if lq.stop == kueue.HoldAndDrain {
			st.drainingLQs = append(st.drainingLQs, key)
		}
	}
	slices.SortFunc(st.drainingLQs, compareKeys)
	st.unroutable = map[types.NamespacedName]struct{}{}
	for key := range s.pendingByLQ {
		s.noteRoute(key)
	}
}

// noteRoute records key as unroutable if it is.
func (s *Scheduler) noteRoute(key types.NamespacedName) {
	if s.standing.unroutable == nil {
		return // refreshStanding will look at every key
	}
	if lq, ok := s.localQueues[key]; ok {
		if _, exists := s.cache.ClusterQueue(lq.cq); exists {
			return
		}
	}
	s.standing.unroutable[key] = struct{}{}
}

// unroutableKeys returns the unroutable keys that still have pending
// workloads, sorted, forgetting the others.
func (s *Scheduler) unroutableKeys() []types.NamespacedName {
	var out []types.NamespacedName
	for key := range s.standing.unroutable {
		if len(s.pendingByLQ[key]) == 0 {
			delete(s.standing.unroutable, key)
			continue
		}
		out = append(out, key)
	}
	slices.SortFunc(out, compareKeys)
	return out
}
