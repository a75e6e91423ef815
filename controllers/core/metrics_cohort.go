package core

import (
	"math"

	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// cohortMetrics fills the Cohort families' part of snap from the engine
// (metricsSnapshot calls it under the engine's lock, after the
// ClusterQueues): every Cohort with its place in the tree and its subtree's
// aggregates, and each ClusterQueue's parent and root Cohort for
// kueue_cluster_queue_info. A queue whose chain has a cycle gets neither, as
// in Kueue (clusterQueue.parentAndRootCohort).
func cohortMetrics(s *scheduler.Scheduler, snap *metrics.Snapshot) {
	roots := map[string]string{}
	for _, v := range s.CohortSubtrees() {
		co := metrics.Cohort{Name: v.Name, InCycle: v.InCycle}
		if !v.InCycle {
			roots[v.Name] = v.Root
			co.Parent, co.Root = v.Parent, v.Root
			co.Cells = cohortCells(v.SubtreeQuota, v.Reservations)
			co.ClusterQueues, co.AdmittedWorkloads = v.ClusterQueues, v.AdmittedWorkloads
			co.WeightedShare = v.WeightedShare
		}
		snap.Cohorts = append(snap.Cohorts, co)
	}
	for i := range snap.ClusterQueues {
		cq := &snap.ClusterQueues[i]
		if root, ok := roots[cq.Cohort]; ok {
			cq.ParentCohort, cq.RootCohort = cq.Cohort, root
		}
	}
}

// cohortCells lists every flavor and resource of a subtree's quota or
// reservations, in the resource's usual unit; an unlimited amount (a sum
// that saturated) is +Inf, as Kueue reports resources.Unlimited.
func cohortCells(quota, reserved resources.Amounts) []metrics.CohortCell {
	all := quota.Clone()
	for fr := range reserved {
		all[fr] = 0
	}
	amount := func(fr resources.FlavorResource, v int64) float64 {
		if v == resources.Unlimited {
			return math.Inf(1)
		}
		return toFloat(fr.Resource, v)
	}
	out := make([]metrics.CohortCell, 0, len(all))
	for _, fr := range all.Keys() {
		out = append(out, metrics.CohortCell{Flavor: fr.Flavor, Resource: string(fr.Resource),
			Quota: amount(fr, quota[fr]), Reservations: amount(fr, reserved[fr])})
	}
	return out
}

// admissionCohorts reads from the engine, for
// kueue_cohort_subtree_admitted_workloads_total, the Cohorts the admissions
// of a cycle count in: each admitting ClusterQueue's Cohort and that Cohort's
// ancestors. The loop calls it under the engine's lock, with the cycle, so
// that an admission's write does not wait for the engine.
func admissionCohorts(s *scheduler.Scheduler, decisions []scheduler.Decision) map[string]metrics.CohortPath {
	var out map[string]metrics.CohortPath
	for _, d := range decisions {
		a, ok := d.(scheduler.Admit)
		if !ok {
			continue
		}
		if _, done := out[a.ClusterQueue]; done {
			continue
		}
		if out == nil {
			out = map[string]metrics.CohortPath{}
		}
		out[a.ClusterQueue] = metrics.NewCohortPath(s.ClusterQueueAncestors(a.ClusterQueue))
	}
	return out
}
