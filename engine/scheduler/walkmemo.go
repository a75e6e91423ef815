package scheduler

import (
	"k8s.io/apimachinery/pkg/types"
)

// A cycle walks every pending entry of each awake queue, and most entries of
// a queue share their LocalQueue, namespace and shape: under Kueue's harness,
// the hash lookups repeated for each of them (the LocalQueue's stop policy,
// the namespace selector, the shape's skip answer) were most of what a walk
// cost. walkMemo keeps the last answer of each for the run; the answers are
// the ones the lookups would give, since nothing they read changes within a
// cycle (LocalQueues and namespaces change between cycles) or, for the skip
// answer, while the epoch stands (see skipFor).
type walkMemo struct {
	lqSet   bool
	lq      types.NamespacedName
	stopped bool

	nsSet    bool
	ns       string
	selected bool

	skipSet   bool
	shape     string
	epoch     uint64
	structVer uint64
	skip      skipAnswer
}

// filterWalk is filter for an entry of rn's walk: it looks up the entry's
// LocalQueue and namespace only when they differ from the previous entry's,
// and leaves the decision itself to filter.
func (s *Scheduler) filterWalk(rn *run, r *record) (Decision, bool) {
	if r.excluded {
		return s.filter(rn.q, r)
	}
	m := &rn.memo
	if !m.lqSet || m.lq != r.lq {
		lq := s.localQueues[r.lq]
		m.lqSet, m.lq, m.stopped = true, r.lq, lq != nil && lq.stopped()
	}
	// The LocalQueue's namespace is the workload's.
	if ns := r.lq.Namespace; !m.nsSet || m.ns != ns {
		m.nsSet, m.ns, m.selected = true, ns, s.namespaceSelected(rn.q, ns)
	}
	if m.stopped || !m.selected {
		return s.filter(rn.q, r)
	}
	return nil, false
}

// skipFor is skipUnfit for an entry of rn's walk. skipUnfit remembers its
// answer per shape in the queue's shape cache, which is cleared only when
// the epoch, the cycle or the structure moves (shapesFor; a hold moves the
// epoch too): while none has, the answer for the previous entry's shape is
// what the cache holds, and the lookups are skipped.
func (s *Scheduler) skipFor(rn *run, r *record) (bool, []need) {
	if s.partialOK(r) {
		// Its blockers are those of all its pods; fewer may fit sooner.
		return false, nil
	}
	m := &rn.memo
	shape := r.shapeOf()
	hit := shape != "" && m.skipSet && m.shape == shape && m.epoch == s.epoch && m.structVer == s.structVer
	if hit && !m.skip.skip {
		// skipUnfit answers no for every record of the shape, memoable
		// or not (callers read the blockers only of a skip): r's memo,
		// a read from memory far from the walk, need not be checked.
		return false, nil
	}
	if !skipMemoable(s, rn, r) {
		return s.skipUnfit(rn.q, r)
	}
	if hit {
		return m.skip.skip, m.skip.blockers
	}
	skip, blockers := s.skipUnfit(rn.q, r)
	if shape != "" {
		m.skipSet, m.shape, m.epoch, m.structVer = true, shape, s.epoch, s.structVer
		m.skip = skipAnswer{skip: skip, blockers: blockers}
	}
	return skip, blockers
}

// skipMemoable tells whether skipUnfit would answer r from the shape cache
// (its preconditions on r's memo); for any other record it is asked afresh.
func skipMemoable(s *Scheduler, rn *run, r *record) bool {
	m := r.memo
	return !s.opts.DisableIncrementalCycle && m != nil && m.q == rn.q && m.info == r.info && m.structVer == s.structVer &&
		len(r.info.PodSets) == 1 && !m.res.Fits
}
