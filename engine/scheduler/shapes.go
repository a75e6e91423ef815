package scheduler

import (
	"fmt"
	"strings"
	"unique"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
)

// A deep queue holds hundreds of pending jobs but few distinct ones: a
// handful of sizes at a few priorities. Flavor assignment is a pure function
// of the cache's content, the queue and the pod sets, and skipUnfit's answer
// of those and the priority; so within one walk of a queue, at one state of
// the cache, workloads of the same shape get the answer computed for the
// first of them. The state is told by the scheduler's epoch, which moves with
// every real change of usage in a cycle (admissions, reservations) and at
// every cycle's end; the cache's Version would not do, as a preemption
// search's release and recharge of victims in flight moves it without
// changing the content.
type shapeCache struct {
	q         *quota.ClusterQueue
	epoch     uint64
	cycle     uint64
	structVer uint64
	unfit     map[prioShape]*flavorassigner.Result
	skip      map[prioShape]skipAnswer
	// blockers holds blockersOf's answers (see blockersFor).
	blockers map[string][]need
}

type prioShape struct {
	priority int32
	shape    string
}

type skipAnswer struct {
	skip     bool
	blockers []need
}

// shapesFor returns the cache for q at the current state. Each queue keeps
// its own: a tree's walk takes its heads from all of its queues in turn, and
// one cache for the last queue asked would be emptied at every turn.
func (s *Scheduler) shapesFor(q *quota.ClusterQueue) *shapeCache {
	if s.shapes == nil || s.shapesStructVer != s.structVer {
		// A change of structure may have removed queues: start afresh.
		s.shapes, s.shapesStructVer = map[string]*shapeCache{}, s.structVer
	}
	c := s.shapes[q.Name()]
	if c == nil {
		c = &shapeCache{unfit: map[prioShape]*flavorassigner.Result{}, skip: map[prioShape]skipAnswer{}, blockers: map[string][]need{}}
		s.shapes[q.Name()] = c
	} else if c.q == q && c.epoch == s.viewEpoch() && c.cycle == s.cycle && c.structVer == s.structVer {
		return c
	}
	// Every admission moves the epoch: reuse the maps rather than allocate.
	clear(c.unfit)
	clear(c.skip)
	clear(c.blockers)
	c.q, c.epoch, c.cycle, c.structVer = q, s.viewEpoch(), s.cycle, s.structVer
	return c
}

// shareableShape is r's shape when workloads of that shape and r's priority
// get the same assignment in q: the preemption oracle the assigner consults
// reads the preemptor's priority, and also its creation time under
// LowerOrNewerEqualPriority and its labels and LocalQueue when q's
// PreemptionConfig rules read them; "" when they may differ.
func (s *Scheduler) shareableShape(q *quota.ClusterQueue, r *record) string {
	if q.Preemption.WithinClusterQueue == kueue.PreemptionPolicyLowerOrNewerEqualPriority || s.rulesOf(q).ReadsPreemptor() {
		return ""
	}
	return r.shapeOf()
}

// shapeOf is a key equal for workloads whose pod sets the flavor assigner
// cannot tell apart: names, counts and per-pod requests, with no node
// selector, affinity or toleration (those are not worth keying); "" when the
// workload is not that simple.
func (r *record) shapeOf() string {
	if r.shapeFor == r.info {
		return r.shape
	}
	r.shapeFor, r.shape = r.info, ""
	var b strings.Builder
	for _, ps := range r.info.PodSets {
		if len(ps.NodeSelector) > 0 || ps.RequiredAffinity != nil || len(ps.Tolerations) > 0 {
			return ""
		}
		// fmt prints maps sorted by key.
		fmt.Fprintf(&b, "%s/%d/%v/%v;", ps.Name, ps.Count, ps.PerPod, ps.Zero)
	}
	// Interned: a walk compares each entry's shape with the last one's
	// (skipFor, runEnd), and equal shapes that share their bytes compare
	// by pointer; built apart, each comparison read both strings (about 3%
	// of the manager's CPU in a profile under Kueue's harness).
	r.shape = unique.Make(b.String()).Value()
	return r.shape
}
