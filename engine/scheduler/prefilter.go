package scheduler

import (
	"slices"

	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// A queue that wakes up walks all of its pending workloads again, though
// usually only the few small enough for the quota just freed can fit. Running
// the flavor assigner (and writing its explanation) for each of the others is
// what a woken queue spends its time on. skipUnfit answers "still gets no
// flavor at all" for them from a table of what the queue can take of each
// cell now, computed once per queue and cache version.
//
// It applies to a workload whose last assignment did not fit (its memo), with
// one pod set whose resources all belong to one resource group. When one of
// its resources exceeds what every flavor of the group has available, no
// flavor fits; when, moreover, every flavor has a resource that does not fit
// and that the queue could never get, or may not preempt for
// (flavorassigner.NoFlavor: more than its nominal quota, no subtree below
// the root that could hold it, no preemption while borrowing), the
// assignment is NoFit: the workload neither preempts nor holds quota, and the
// cycle moves on without a decision for it; its last Pending stands.
// Anything else runs the assigner, whose oracle judges the flavors that need
// preemption.

// availTable is what a queue can take of each cell at one cache version.
type availTable struct {
	q     *quota.ClusterQueue
	ver   uint64
	cells []cellAvail
}

type cellAvail struct {
	fr    resources.FlavorResource
	avail int64
}

// table returns q's availability at the current cache version.
func (s *Scheduler) table(q *quota.ClusterQueue) *availTable {
	t := &s.avail
	ver := s.cache.Version()
	if t.q == q && t.ver == ver {
		return t
	}
	t.q, t.ver, t.cells = q, ver, t.cells[:0]
	for _, g := range q.Groups {
		for _, f := range g.Flavors {
			for _, r := range g.Covered {
				fr := resources.FlavorResource{Flavor: f, Resource: r}
				t.cells = append(t.cells, cellAvail{fr: fr, avail: s.cache.Available(q, fr).Available})
			}
		}
	}
	return t
}

// skipUnfit reports that r, pending in q, cannot fit now and gets no flavor
// to preempt for, for the reasons above, without running the assigner; and
// the resources that block it, for the queue's sleeper.
func (s *Scheduler) skipUnfit(q *quota.ClusterQueue, r *record) (bool, []need) {
	m := r.memo
	if s.opts.DisableIncrementalCycle || m == nil || m.q != q || m.info != r.info || m.structVer != s.structVer ||
		len(r.info.PodSets) != 1 || m.res.Fits {
		return false, nil
	}
	shape := r.shapeOf()
	if shape != "" {
		if a, ok := s.shapesFor(q).skip[prioShape{shape: shape}]; ok {
			return a.skip, a.blockers
		}
	}
	skip, blockers := s.skipUnfitFresh(q, r)
	if shape != "" {
		s.shapesFor(q).skip[prioShape{shape: shape}] = skipAnswer{skip: skip, blockers: blockers}
	}
	return skip, blockers
}

func (s *Scheduler) skipUnfitFresh(q *quota.ClusterQueue, r *record) (bool, []need) {
	ps := &r.info.PodSets[0]
	group := -1
	for res := range ps.Total {
		g := q.GroupOf(res)
		if g < 0 || (group >= 0 && g != group) {
			return false, nil
		}
		group = g
	}
	if group < 0 {
		return false, nil
	}
	t := s.table(q)
	short := false
	for res, v := range ps.Total {
		best := int64(-1 << 63)
		for _, c := range t.cells {
			if c.fr.Resource == res && c.avail > best {
				best = c.avail
			}
		}
		if v > best {
			short = true
			break
		}
	}
	if !short {
		return false, nil
	}
	none, blockers := flavorassigner.NoFlavor(s.cache, q, ps, s.kindOptions(q))
	if !none {
		return false, nil
	}
	return true, needsOf(blockers)
}

// needsOf converts the assigner's blockers.
func needsOf(bs []flavorassigner.Blocker) []need {
	out := make([]need, len(bs))
	for i, b := range bs {
		out[i] = need{resource: b.Resource, amount: b.Amount}
	}
	return out
}

// blockersFor is blockersOf, shared by the workloads of one shape at one
// state of q's view (see shapeCache): a queue that sleeps after its walk
// notes the blockers of every workload it walked. The slice is shared: read
// it, do not change it.
func (s *Scheduler) blockersFor(q *quota.ClusterQueue, r *record) []need {
	shape := r.shapeOf()
	if shape == "" {
		return s.blockersOf(q, r)
	}
	c := s.shapesFor(q)
	if bs, ok := c.blockers[shape]; ok {
		return bs
	}
	bs := s.blockersOf(q, r)
	c.blockers[shape] = bs
	return bs
}

// blockersOf are the resources that block r, which got no flavor in q, for
// the queue's sleeper: those flavorassigner.NoFlavor finds for a workload
// of one pod set; for several pod sets (whose earlier pod sets' assignments
// count against later ones), every resource they request, with the smallest
// amount a pod set requests, which any change of theirs needs.
func (s *Scheduler) blockersOf(q *quota.ClusterQueue, r *record) []need {
	if len(r.info.PodSets) == 1 {
		if none, bs := flavorassigner.NoFlavor(s.cache, q, &r.info.PodSets[0], s.kindOptions(q)); none {
			return needsOf(bs)
		}
	}
	var out []need
	for i := range r.info.PodSets {
		ps := flavorassigner.WithPods(q, &r.info.PodSets[i])
		for res, v := range ps.Total {
			i := slices.IndexFunc(out, func(n need) bool { return n.resource == res })
			if i < 0 {
				out = append(out, need{resource: res, amount: v})
			} else {
				out[i].amount = min(out[i].amount, v)
			}
		}
	}
	return out
}
