package core

import (
	"context"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"

	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// metricsSnapshot reads the engine for the gauges at scrape time; lqLabels,
// when set, gives each LocalQueue's labels (for metrics.localQueueMetrics'
// selector), read after the engine's lock is released. workloads, when set,
// is the manager's cache, whose Workloads' conditions the
// kueue_unadmitted_workloads gauges (with the UnadmittedWorkloadsObservability
// gate) and the kueue_finished_workloads ones count.
// pendingResources (metrics.enableClusterQueueResources) sums the pending
// workloads' requests for kueue_cluster_queue_resource_pending, a walk of
// every pending workload. classes (SchedulingEquivalenceHashing) counts the
// classes of each ClusterQueue's pending workloads for
// kueue_pending_scheduling_hashes, another.
func metricsSnapshot(e *Engine, role *Role, pending *pendingTracker, lqLabels func(namespace, name string) map[string]string,
	workloads client.Reader, pendingResources, classes bool) func() metrics.Snapshot {
	return func() metrics.Snapshot {
		snap := metrics.Snapshot{ReplicaRole: role.Label()}
		var clusterQueueOf map[types.NamespacedName]string
		if workloads != nil {
			clusterQueueOf = map[types.NamespacedName]string{}
		}
		e.Do(func(s *scheduler.Scheduler) {
			// cqActive: whether each ClusterQueue is active, for its
			// LocalQueues' kueue_local_queue_status.
			cqActive := map[string]bool{}
			for _, name := range s.ClusterQueueNames() {
				v, ok := s.ClusterQueueSnapshot(name)
				if !ok {
					continue
				}
				cqActive[name] = v.Active
				cq := clusterQueueMetrics(v, pending.inadmissibleCQ(name))
				if classes {
					cq.ActiveHashes, cq.InadmissibleHashes, _ = s.ClusterQueuePendingClasses(name)
				}
				if pendingResources {
					reqs, _ := s.ClusterQueuePendingRequests(name)
					for _, r := range slices.Sorted(maps.Keys(reqs)) {
						cq.Pending = append(cq.Pending, metrics.PendingResource{Resource: string(r), Amount: toFloat(r, reqs[r])})
					}
				}
				snap.ClusterQueues = append(snap.ClusterQueues, cq)
			}
			for _, key := range s.LocalQueueKeys() {
				v, ok := s.LocalQueueSnapshot(key.Namespace, key.Name)
				if !ok {
					continue
				}
				if clusterQueueOf != nil {
					clusterQueueOf[key] = v.ClusterQueue
				}
				inadmissible := min(pending.inadmissibleLQ(key), v.PendingWorkloads)
				lq := metrics.LocalQueue{Namespace: key.Namespace, Name: key.Name, ClusterQueue: v.ClusterQueue,
					PendingActive: v.PendingWorkloads - inadmissible, PendingInadmissible: inadmissible,
					AdmittedWorkloads: v.AdmittedWorkloads, Active: metrics.ActiveTrue}
				if active, exists := cqActive[v.ClusterQueue]; localQueueInactiveReason(v, active, exists) != "" {
					lq.Active = metrics.ActiveFalse
				}
				if v.ConsumedResources != nil {
					lq.AFSUsage = ptrFloat(v.WeightedUsage)
				}
				for _, fr := range v.Usage.Keys() {
					lq.Cells = append(lq.Cells, metrics.Cell{Flavor: fr.Flavor, Resource: string(fr.Resource),
						Usage: toFloat(fr.Resource, v.Usage[fr])})
				}
				snap.LocalQueues = append(snap.LocalQueues, lq)
			}
			cohortMetrics(s, &snap)
		})
		if workloads != nil {
			// A scrape cannot fail: if the cache cannot list (not synced
			// yet), this scrape leaves these gauges out.
			if list, err := listWorkloads(context.Background(), workloads); err == nil {
				snap.Unadmitted = countUnadmitted(list, clusterQueueOf)
				snap.Finished = countFinished(list)
			}
		}
		if lqLabels != nil {
			for i := range snap.LocalQueues {
				lq := &snap.LocalQueues[i]
				lq.Labels = lqLabels(lq.Namespace, lq.Name)
			}
			for i := range snap.Unadmitted {
				if u := &snap.Unadmitted[i]; u.LocalQueue != "" {
					u.LocalQueueLabels = lqLabels(u.Namespace, u.LocalQueue)
				}
			}
		}
		return snap
	}
}

func clusterQueueMetrics(v scheduler.ClusterQueueView, inadmissible int) metrics.ClusterQueue {
	inadmissible = min(inadmissible, v.PendingWorkloads)
	out := metrics.ClusterQueue{Name: v.Name, Cohort: v.Cohort, Status: metrics.StatusPending,
		PendingActive: v.PendingWorkloads - inadmissible, PendingInadmissible: inadmissible,
		AdmittedWorkloads: v.AdmittedWorkloads, WeightedShare: &v.PreciseWeightedShare}
	switch {
	case v.Terminating:
		out.Status = metrics.StatusTerminating
	case v.Active:
		out.Status = metrics.StatusActive
	}
	cells := map[resources.FlavorResource]*metrics.Cell{}
	var order []resources.FlavorResource
	cell := func(f string, r corev1.ResourceName) *metrics.Cell {
		fr := resources.FlavorResource{Flavor: f, Resource: r}
		if c, ok := cells[fr]; ok {
			return c
		}
		c := &metrics.Cell{Flavor: f, Resource: string(r)}
		cells[fr] = c
		order = append(order, fr)
		return c
	}
	for _, q := range v.Quotas {
		c := cell(q.Flavor, q.Resource)
		c.Nominal = ptrFloat(toFloat(q.Resource, q.Nominal))
		// An unset limit is reported as +Inf, as Kueue's main branch does
		// (v0.17 reported 0, which reads as "cannot borrow").
		c.BorrowingLimit, c.LendingLimit = ptrFloat(math.Inf(1)), ptrFloat(math.Inf(1))
		if q.BorrowingLimit != resources.Unlimited {
			c.BorrowingLimit = ptrFloat(toFloat(q.Resource, q.BorrowingLimit))
		}
		if q.LendingLimit != resources.Unlimited {
			c.LendingLimit = ptrFloat(toFloat(q.Resource, q.LendingLimit))
		}
	}
	for _, u := range v.Usage {
		cell(u.Flavor, u.Resource).Usage = toFloat(u.Resource, u.Total)
	}
	for _, fr := range order {
		out.Cells = append(out.Cells, *cells[fr])
	}
	return out
}

// toFloat reports an amount in the resource's usual unit, as Kueue does
// (cores for CPU, bytes for memory).
func toFloat(r corev1.ResourceName, v int64) float64 {
	q := quantity(r, v)
	return q.AsApproximateFloat64()
}

func ptrFloat(v float64) *float64 { return &v }

// cachedLocalQueueLabels reads a LocalQueue's labels from the manager's
// cache (nil when it is not there yet).
func cachedLocalQueueLabels(c client.Reader) func(namespace, name string) map[string]string {
	return func(namespace, name string) map[string]string {
		lq := &kueue.LocalQueue{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, lq); err != nil {
			return nil
		}
		return lq.Labels
	}
}
