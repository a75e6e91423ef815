package simulator

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Comparison is what differs between two runs of the same start state, one
// without and one with a set of changes (`quokka simulate --compare`).
type Comparison struct {
	// AdmittedNow lists the workloads pending at time 0 without the changes
	// and admitted at time 0 with them, in the order of the changed run.
	AdmittedNow []ComparedWorkload
	// Preempted lists the workloads running at time 0 without the changes that
	// the changed run preempts, earlier than the base run does or where the base
	// run never does, in the order of the changed run.
	Preempted []ComparedPreemption
	// Queues has one row per ClusterQueue of either run, in name order.
	Queues []QueueComparison
}

// ComparedWorkload is a workload named in a comparison.
type ComparedWorkload struct {
	Name         string
	ClusterQueue string
	ElasticQuota string
}

// ComparedPreemption is a running workload the changes preempt: when, by whom
// and why (the first Preempted event of the changed run).
type ComparedPreemption struct {
	ComparedWorkload
	Time      time.Duration
	Preemptor string
	Reason    string
}

// QueueComparison is one ClusterQueue's average wait and resource-hours in both
// runs; a queue missing from one run has zeros there.
type QueueComparison struct {
	Name                    string
	BaseWaits, ChangedWaits int
	BaseAvgWait, ChangedAvg time.Duration
	Resources               []ResourceComparison
}

// ResourceComparison is a resource's hours of quota held by a queue, summed over
// its flavors, in the resource's display unit (see DisplayUnit).
type ResourceComparison struct {
	Resource      corev1.ResourceName
	Unit          string
	Base, Changed float64
}

// Compare computes what differs between a run without the changes (base) and
// one with them (changed), both from the same start state.
func Compare(base, changed *Result) Comparison {
	var c Comparison
	baseRunning, basePending := stateAtStart(base)
	changedRunning, _ := stateAtStart(changed)
	for _, w := range changedRunning.order {
		if basePending.has[w.Name] {
			c.AdmittedNow = append(c.AdmittedNow, w)
		}
	}
	basePreempted := firstPreemptions(base)
	seen := map[string]bool{}
	for _, e := range changed.Events {
		if e.Type != Preempted || !baseRunning.has[e.Workload] || seen[e.Workload] {
			continue
		}
		seen[e.Workload] = true // only the first preemption counts
		if b, ok := basePreempted[e.Workload]; ok && b <= e.Time {
			continue
		}
		c.Preempted = append(c.Preempted, ComparedPreemption{
			ComparedWorkload: ComparedWorkload{Name: e.Workload, ClusterQueue: e.ClusterQueue, ElasticQuota: e.ElasticQuota},
			Time:             e.Time, Preemptor: e.Preemptor, Reason: e.Reason,
		})
	}
	c.Queues = compareQueues(Summarize(base), Summarize(changed))
	return c
}

// workloadSet is a set of workloads that remembers the order they joined it.
type workloadSet struct {
	has   map[string]bool
	order []ComparedWorkload
}

// stateAtStart returns the workloads running and those pending after every
// event at time 0.
func stateAtStart(r *Result) (running, pending workloadSet) {
	state := map[string]bool{} // workload: running
	var order []ComparedWorkload
	for _, e := range r.Events {
		if e.Time > 0 {
			break
		}
		if _, seen := state[e.Workload]; !seen {
			order = append(order, ComparedWorkload{Name: e.Workload, ClusterQueue: e.ClusterQueue, ElasticQuota: e.ElasticQuota})
		}
		state[e.Workload] = e.Type == Admitted
	}
	running.has, pending.has = map[string]bool{}, map[string]bool{}
	for _, w := range order {
		if state[w.Name] {
			running.has[w.Name] = true
			running.order = append(running.order, w)
		} else {
			pending.has[w.Name] = true
			pending.order = append(pending.order, w)
		}
	}
	return running, pending
}

// firstPreemptions returns when each workload was first preempted.
func firstPreemptions(r *Result) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, e := range r.Events {
		if _, ok := out[e.Workload]; e.Type == Preempted && !ok {
			out[e.Workload] = e.Time
		}
	}
	return out
}

func compareQueues(base, changed []QueueSummary) []QueueComparison {
	rows := map[string]*QueueComparison{}
	row := func(name string) *QueueComparison {
		if q, ok := rows[name]; ok {
			return q
		}
		q := &QueueComparison{Name: name}
		rows[name] = q
		return q
	}
	type cell struct {
		queue    string
		resource corev1.ResourceName
	}
	hours := map[cell]*ResourceComparison{}
	add := func(queue string, rh ResourceHours, changed bool) {
		k := cell{queue, rh.Resource}
		h := hours[k]
		if h == nil {
			h = &ResourceComparison{Resource: rh.Resource, Unit: rh.Unit}
			hours[k] = h
		}
		if changed {
			h.Changed += rh.Used
		} else {
			h.Base += rh.Used
		}
	}
	for _, s := range base {
		q := row(s.Name)
		q.BaseWaits, q.BaseAvgWait = s.Waits, s.AvgWait
		for _, rh := range s.Resources {
			add(s.Name, rh, false)
		}
	}
	for _, s := range changed {
		q := row(s.Name)
		q.ChangedWaits, q.ChangedAvg = s.Waits, s.AvgWait
		for _, rh := range s.Resources {
			add(s.Name, rh, true)
		}
	}
	for k, h := range hours {
		rows[k.queue].Resources = append(rows[k.queue].Resources, *h)
	}
	out := make([]QueueComparison, 0, len(rows))
	for _, q := range rows {
		sort.Slice(q.Resources, func(i, j int) bool { return q.Resources[i].Resource < q.Resources[j].Resource })
		out = append(out, *q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
