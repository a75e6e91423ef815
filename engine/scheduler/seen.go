package scheduler

import (
	"k8s.io/apimachinery/pkg/api/equality"
)

// A manager upserts an object on every event of its informer, and most
// events of ClusterQueues, LocalQueues and Cohorts are the manager's own
// status writes (usage, pending counts, conditions). Taken as changes of
// structure, each woke every queue and took every parked workload out of
// Kueue's inadmissible list (park.go), where Kueue requeues on a change of
// spec only: a reclaim that Kueue leaves waiting for a release happened in
// the manager one status write later, and the simulator, which upserts only
// changes, decided otherwise. seenObjects keeps, per object, what the engine
// last read of it, so that an upsert that changes none of it does nothing.

// seenKey names an object of one kind.
type seenKey struct {
	kind, namespace, name string
}

// unchanged tells whether what the engine reads of an object (content, a
// copy the caller owns) is what it read last.
func (s *Scheduler) unchanged(k seenKey, content any) bool {
	old, ok := s.seen[k]
	return ok && equality.Semantic.DeepEqual(old, content)
}

// remember records what the engine read of an object it took.
func (s *Scheduler) remember(k seenKey, content any) {
	if s.seen == nil {
		s.seen = map[seenKey]any{}
	}
	s.seen[k] = content
}

// forget drops an object's record when it is deleted: one created again
// under its name is new.
func (s *Scheduler) forget(k seenKey) {
	delete(s.seen, k)
}

// upsertChanged runs upsert, a change of structure, unless the engine read
// all of it already; what it read is remembered once upsert succeeds.
func (s *Scheduler) upsertChanged(k seenKey, read any, upsert func() error) error {
	if s.unchanged(k, read) {
		return nil
	}
	s.wakeAll()
	if err := upsert(); err != nil {
		return err
	}
	s.remember(k, read)
	return nil
}
