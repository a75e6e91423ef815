package scheduler

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// A queue that wakes up walks all of its pending workloads again, though
// usually only the few small enough for the quota just freed can fit. Running
// the flavor assigner (and writing its explanation) for each of the others is
// what a woken queue spends its time on. skipUnfit answers "still does not
// fit, and still has no victims" for them from a table of what the queue can
// take of each cell now, computed once per queue and cache version.
//
// It applies to a workload whose last assignment did not fit (its memo), with
// one pod set whose resources all belong to one resource group. For such a
// workload, when one of its resources exceeds what every flavor of the group
// has available, no flavor fits, and the flavor that preemption would target
// is the first one within potential quota, which depends only on the quotas,
// not on usage: the memo's preemption assignment is still the one the assigner
// would return. If, for that assignment, the search is hopeless as well, the
// workload's outcome is the one it had and the cycle moves on without a
// decision for it; its last Pending stands. Anything else runs the assigner.

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

// skipUnfit reports that r, pending in q, cannot fit now and has no victims,
// for the reasons above, without running the assigner; and, when its search
// was judged hopeless, the need the queue's sleeper keeps for it (scopeOf).
func (s *Scheduler) skipUnfit(q *quota.ClusterQueue, r *record) (bool, *need) {
	m := r.memo
	if s.opts.DisableIncrementalCycle || m == nil || m.q != q || m.info != r.info || m.structVer != s.structVer ||
		len(r.info.PodSets) != 1 || m.res.Fits {
		return false, nil
	}
	key := prioShape{priority: r.priority, shape: r.shapeOf()}
	// LowerOrNewerEqualPriority compares creation times: not one answer per shape.
	shared := key.shape != "" && q.Preemption.WithinClusterQueue != kueue.PreemptionPolicyLowerOrNewerEqualPriority
	if shared {
		if a, ok := s.shapesFor(q).skip[key]; ok {
			return a.skip, a.only
		}
	}
	skip, only := s.skipUnfitFresh(q, r)
	if shared {
		s.shapesFor(q).skip[key] = skipAnswer{skip: skip, only: only}
	}
	return skip, only
}

func (s *Scheduler) skipUnfitFresh(q *quota.ClusterQueue, r *record) (bool, *need) {
	m := r.memo
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
	if m.res.Preemption == nil || !s.canPreempt(q) {
		return true, nil
	}
	var scope searchScope
	var only *need
	s.withVictimsGone(func() { scope, only = s.scopeOf(q, r, m.res.Preemption) })
	return scope == scopeNone, only
}
