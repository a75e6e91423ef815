package simulator

import (
	"math"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
)

// QueueSummary is one row of the summary table: what happened to a ClusterQueue's
// workloads, how long they waited, and what quota they held.
type QueueSummary struct {
	Name                                   string
	Admitted, Preempted, Evicted, Finished int
	// Pending counts the workloads still waiting at the end, by reason.
	Pending        int
	PendingReasons []ReasonCount
	// AvgWait and P95Wait are over the admissions the engine made (Waits).
	Waits            int
	AvgWait, P95Wait time.Duration
	Resources        []ResourceHours
}

// ReasonCount is how many pending workloads share a reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// ResourceHours is the quota a queue held over the run, in resource-hours of the
// resource's display unit (cores for CPU, GiB for memory, devices otherwise).
type ResourceHours struct {
	Flavor   string
	Resource corev1.ResourceName
	Unit     string
	Used     float64
	Borrowed float64
}

// Summarize computes the summary table from a result, one row per ClusterQueue in
// name order.
func Summarize(r *Result) []QueueSummary {
	pending := map[string]map[string]int{}
	for _, w := range r.Workloads {
		if w.State != StatePending {
			continue
		}
		m := pending[w.ClusterQueue]
		if m == nil {
			m = map[string]int{}
			pending[w.ClusterQueue] = m
		}
		m[w.Reason]++
	}
	out := make([]QueueSummary, 0, len(r.Queues))
	for _, q := range r.Queues {
		s := QueueSummary{Name: q.Name, Admitted: q.Admitted, Preempted: q.Preempted, Evicted: q.Evicted, Finished: q.Finished}
		for reason, n := range pending[q.Name] {
			s.Pending += n
			s.PendingReasons = append(s.PendingReasons, ReasonCount{Reason: reason, Count: n})
		}
		sort.Slice(s.PendingReasons, func(i, j int) bool {
			a, b := s.PendingReasons[i], s.PendingReasons[j]
			if a.Count != b.Count {
				return a.Count > b.Count
			}
			return a.Reason < b.Reason
		})
		s.Waits, s.AvgWait, s.P95Wait = waitStats(q.Waits)
		cells := map[resources.FlavorResource]bool{}
		for fr := range q.UsedSeconds {
			cells[fr] = true
		}
		for _, fr := range sortedCells(cells) {
			unit, scale := DisplayUnit(fr.Resource)
			s.Resources = append(s.Resources, ResourceHours{
				Flavor: fr.Flavor, Resource: fr.Resource, Unit: unit,
				Used:     q.UsedSeconds[fr] / scale / 3600,
				Borrowed: q.BorrowedSeconds[fr] / scale / 3600,
			})
		}
		out = append(out, s)
	}
	return out
}

// waitStats returns the count, mean and 95th percentile (nearest rank) of waits.
func waitStats(waits []time.Duration) (int, time.Duration, time.Duration) {
	if len(waits) == 0 {
		return 0, 0, 0
	}
	sorted := append([]time.Duration(nil), waits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var sum time.Duration
	for _, w := range sorted {
		sum += w
	}
	rank := int(math.Ceil(0.95*float64(len(sorted)))) - 1
	return len(sorted), sum / time.Duration(len(sorted)), sorted[rank]
}

// DisplayUnit is the unit people read a resource in, and how many canonical units
// make one: CPU in cores (1000 millicores), memory in GiB, anything else as is.
func DisplayUnit(r corev1.ResourceName) (string, float64) {
	switch r {
	case corev1.ResourceCPU:
		return "cores", 1000
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return "GiB", 1 << 30
	}
	return string(r), 1
}

func sortedCells(cells map[resources.FlavorResource]bool) []resources.FlavorResource {
	a := resources.Amounts{}
	for fr := range cells {
		a[fr] = 1
	}
	return a.Keys()
}
