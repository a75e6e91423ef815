package scheduler

import (
	"cmp"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/flavorassigner"
)

// DryRunResult answers "what if this workload were submitted now".
type DryRunResult struct {
	// Fits is true when the workload would be admitted if it were first in line.
	Fits         bool
	ClusterQueue string
	// PodSets and Borrowing describe the admission when Fits.
	PodSets   []PodSetAssignment
	Borrowing bool
	// Reason and Message say why not, when not Fits.
	Reason  string
	Message string
	// Flavors holds, per pod set and resource group, how each flavor fared:
	// fits, fits by borrowing, needs preemption or never fits, with amounts.
	Flavors []flavorassigner.GroupOutcome
	// Ahead counts pending workloads of the ClusterQueue ordered before it.
	Ahead int
	// Victims, when it does not fit as things are, lists the workloads its
	// ClusterQueue's preemption policies would evict to make room (nil when
	// preemption would not help or is not allowed).
	Victims []Victim
}

// DryRun evaluates the workload against the current state without changing it.
// It ignores the workload's status (an admitted workload is evaluated as if it
// were new) and does not take the queue's other pending workloads into account
// except to count those ahead of it. When it does not fit, Victims says whom
// preemption would evict for it. A workload that may be admitted with fewer
// pods is answered with the counts the cycle would nominate (PodSets'
// counts, or the victims for them).
func (s *Scheduler) DryRun(wl *kueue.Workload) DryRunResult {
	info, err := s.readWorkload(wl)
	if err != nil {
		return DryRunResult{Reason: ReasonInvalid, Message: err.Error()}
	}
	if !info.Active {
		return DryRunResult{Reason: ReasonInactive, Message: "the workload has spec.active=false"}
	}
	lqKey := types.NamespacedName{Namespace: info.Key.Namespace, Name: info.QueueName}
	lq, ok := s.localQueues[lqKey]
	if !ok {
		return DryRunResult{Reason: ReasonLocalQueueNotFound, Message: fmt.Sprintf("LocalQueue %s does not exist", lqKey)}
	}
	q, ok := s.cache.ClusterQueue(lq.cq)
	if !ok {
		return DryRunResult{ClusterQueue: lq.cq, Reason: ReasonClusterQueueNotFound, Message: fmt.Sprintf("ClusterQueue %s does not exist", lq.cq)}
	}
	res := DryRunResult{ClusterQueue: q.Name()}
	if st := s.cache.Status(q); !st.Active {
		res.Reason, res.Message = ReasonClusterQueueInactive, st.Message
		if st.Reason == kueue.ClusterQueueActiveReasonStopped {
			res.Reason = ReasonStopped
		}
		return res
	}
	// Status is ignored, a PodsReady back-off too: a dry run has no clock.
	info.RequeueAt = time.Time{}
	probe := &record{lq: lqKey, priority: info.EffectivePriority(s.lookupPriority, s.opts.PriorityBoost),
		basePriority: info.ResolvePriority(s.lookupPriority)}
	probe.setInfo(info)
	if d, filtered := s.filter(q, probe); filtered {
		p := d.(Pending)
		res.Reason, res.Message = p.Reason, p.Message
		return res
	}
	// Under admission fair sharing the queue is ordered by the usage of
	// its LocalQueues first: a LocalQueue that used less has all its
	// workloads ahead, one that used more none (as Kueue's heap orders).
	afsOrder := s.usesAFS(q)
	var mine float64
	if afsOrder {
		mine = s.afsKey(lqKey)
	}
	for key := range s.lqsByCQ[q.Name()] {
		byUsage := 0
		if afsOrder {
			byUsage = cmp.Compare(s.afsKey(key), mine)
		}
		for _, r := range s.pendingByLQ[key] {
			if r.info.Key != info.Key && (byUsage < 0 || byUsage == 0 && compareQueueOrder(r, probe) < 0) {
				res.Ahead++
			}
		}
	}
	opts := s.assignOptions(q, probe)
	opts.Explain = true
	a := flavorassigner.Assign(s.cache, q, info.PodSets, opts)
	if !a.Fits && s.partialOK(probe) {
		// Fewer pods, as the cycle would nominate it (partial.go).
		a = s.reduce(q, probe, a, opts)
	}
	res.Fits, res.Borrowing, res.Flavors = a.Fits, a.Borrowing, a.Groups
	res.Reason, res.Message = a.Reason, a.Message
	if a.Fits {
		res.PodSets = clonePodSets(a.PodSets)
	} else if a.Preemption != nil {
		targets, _, _ := s.findVictims(q, probe, a.Preemption)
		for _, t := range targets {
			res.Victims = append(res.Victims, Victim{Workload: t.Key, ClusterQueue: t.ClusterQueue, Reason: t.Reason,
				Message: preemptionMessage(probe, q.Name(), t.Reason)})
		}
	}
	return res
}
