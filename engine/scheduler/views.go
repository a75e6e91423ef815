package scheduler

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/resources"
)

// QuotaView is the quota in effect for one flavor and resource of a queue.
type QuotaView struct {
	Flavor   string
	Resource corev1.ResourceName
	Nominal  int64
	// BorrowingLimit and LendingLimit are resources.Unlimited when unset.
	BorrowingLimit int64
	LendingLimit   int64
}

// UsageView is a queue's usage of one flavor and resource.
type UsageView struct {
	Flavor   string
	Resource corev1.ResourceName
	// Total is the quota in use, Borrowed the part above nominal quota;
	// Borrowed is 0 for a queue without a cohort, as Kueue reports it.
	Total    int64
	Borrowed int64
}

// ClusterQueueView is what status, metrics and the simulator read of a queue.
type ClusterQueueView struct {
	Name   string
	Cohort string
	// Active and ActiveReason are the Active condition; reasons are kueue's
	// ClusterQueueActiveReason* (Ready, Terminating, Stopped, FlavorNotFound,
	// CohortCycle). ActiveCondition is the condition's message in Kueue's
	// words; ActiveMessage explains an inactive queue to its workloads.
	Active          bool
	ActiveReason    string
	ActiveMessage   string
	ActiveCondition string
	// Terminating tells that the object is being deleted.
	Terminating bool
	// Quotas lists the cells in resource group, flavor and resource order.
	Quotas []QuotaView
	// Usage lists the cells with quota in the spec's order (resource group,
	// flavor, resource), as Kueue's status lists them, then the cells used
	// outside the spec (a flavor removed while workloads still hold it),
	// sorted by flavor and resource.
	Usage []UsageView
	// PendingWorkloads counts pending workloads of the LocalQueues pointing here,
	// whatever keeps them pending, but for those with spec.active=false, which
	// Kueue keeps out of its queues; AdmittedWorkloads counts workloads holding
	// quota here (admitted or assumed).
	PendingWorkloads  int
	AdmittedWorkloads int
	// WeightedShare is status.fairSharing.weightedShare and the
	// kueue_cluster_queue_weighted_share metric: the dominant resource share
	// per thousand divided by the weight, rounded up (math.MaxInt64 for
	// infinite). Computed whether or not fair sharing is on; drivers publish it
	// only when it is.
	WeightedShare int64
	// PreciseWeightedShare is the same share unrounded, Kueue's
	// PreciseWeightedShare (+Inf when it borrows with weight 0), which
	// kueue_cluster_queue_weighted_share reports.
	PreciseWeightedShare float64
}

// ClusterQueueNames returns the names of all ClusterQueues, sorted.
func (s *Scheduler) ClusterQueueNames() []string { return s.cache.ClusterQueueNames() }

// ClusterQueueSnapshot returns a copy of a queue's state.
func (s *Scheduler) ClusterQueueSnapshot(name string) (ClusterQueueView, bool) {
	q, ok := s.cache.ClusterQueue(name)
	if !ok {
		return ClusterQueueView{}, false
	}
	st := s.cache.Status(q)
	v := ClusterQueueView{Name: name, Cohort: q.CohortName(), Active: st.Active, ActiveReason: st.Reason, ActiveMessage: st.Message,
		ActiveCondition: st.Condition, Terminating: q.Terminating,
		AdmittedWorkloads: len(s.admittedByCQ[name]), WeightedShare: fairsharing.Of(q).Weighted(),
		PreciseWeightedShare: fairsharing.Precise(q)}
	// Kueue enforces borrowed 0 for a queue without a Cohort (Cache.getUsage,
	// guarded by HasParent, which holds for a queue whose Cohort is in a
	// cycle too, as CohortName does): usage above nominal there is not
	// borrowed from anyone. Decisions read the quota cache, not this view.
	borrowed := func(fr resources.FlavorResource) int64 {
		if v.Cohort == "" {
			return 0
		}
		return q.Borrowed(fr)
	}
	inSpec := map[resources.FlavorResource]bool{}
	for _, g := range q.Groups {
		for _, f := range g.Flavors {
			for _, r := range g.Covered {
				fr := resources.FlavorResource{Flavor: f, Resource: r}
				qq, _ := q.Quota(fr)
				v.Quotas = append(v.Quotas, QuotaView{Flavor: f, Resource: r, Nominal: qq.Nominal, BorrowingLimit: qq.BorrowingLimit, LendingLimit: qq.LendingLimit})
				v.Usage = append(v.Usage, UsageView{Flavor: f, Resource: r, Total: q.Usage(fr), Borrowed: borrowed(fr)})
				inSpec[fr] = true
			}
		}
	}
	for _, fr := range q.UsageAll().Keys() {
		if !inSpec[fr] {
			v.Usage = append(v.Usage, UsageView{Flavor: fr.Flavor, Resource: fr.Resource, Total: q.Usage(fr), Borrowed: borrowed(fr)})
		}
	}
	for key := range s.lqsByCQ[name] {
		v.PendingWorkloads += len(s.pendingByLQ[key]) - s.inactiveByLQ[key]
	}
	return v, true
}

// CohortView is a cohort's place in the tree and its aggregates.
type CohortView struct {
	Name     string
	Parent   string
	Explicit bool
	InCycle  bool
	// SubtreeQuota is the quota the subtree offers (own nominal plus what the
	// children lend); Usage the children's usage above their guaranteed shares.
	SubtreeQuota resources.Amounts
	Usage        resources.Amounts
	// WeightedShare is the cohort's share in its parent, as for queues (0 for
	// a root).
	WeightedShare int64
}

// CohortNames returns all cohorts, explicit and implicit, sorted.
func (s *Scheduler) CohortNames() []string { return s.cache.CohortNames() }

// CohortSnapshot returns a copy of a cohort's state.
func (s *Scheduler) CohortSnapshot(name string) (CohortView, bool) {
	c, ok := s.cache.Cohort(name)
	if !ok {
		return CohortView{}, false
	}
	return CohortView{Name: name, Parent: c.ParentName(), Explicit: c.Explicit(), InCycle: c.InCycle(),
		SubtreeQuota: c.SubtreeQuota(), Usage: c.Usage(), WeightedShare: fairsharing.Of(c).Weighted()}, true
}

// LocalQueueView is a LocalQueue's counts and usage.
type LocalQueueView struct {
	Namespace, Name string
	ClusterQueue    string
	StopPolicy      kueue.StopPolicy
	// PendingWorkloads leaves out workloads with spec.active=false, as the
	// ClusterQueue's does.
	PendingWorkloads  int
	AdmittedWorkloads int
	// Usage sums the charges of its workloads holding quota.
	Usage resources.Amounts
	// ConsumedResources is admission fair sharing's decayed usage per resource
	// (status.fairSharing.admissionFairSharingStatus), and ConsumedAt its
	// last update (zero before its first sample); nil when admission fair
	// sharing is not configured.
	ConsumedResources corev1.ResourceList
	ConsumedAt        time.Time
	// WeightedUsage is the key admission fair sharing orders the LocalQueue
	// by: its usage weighted by resource, over its own weight (+Inf at
	// weight 0); meaningful when ConsumedResources is not nil. OrderedByUsage
	// tells whether its ClusterQueue orders its workloads by that key.
	WeightedUsage  float64
	OrderedByUsage bool
}

// LocalQueueSnapshot returns a copy of a LocalQueue's state.
func (s *Scheduler) LocalQueueSnapshot(namespace, name string) (LocalQueueView, bool) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	lq, ok := s.localQueues[key]
	if !ok {
		return LocalQueueView{}, false
	}
	v := LocalQueueView{Namespace: namespace, Name: name, ClusterQueue: lq.cq, StopPolicy: lq.stop,
		PendingWorkloads: len(s.pendingByLQ[key]) - s.inactiveByLQ[key], AdmittedWorkloads: len(s.admittedByLQ[key]), Usage: resources.Amounts{}}
	for _, r := range s.admittedByLQ[key] {
		v.Usage.Add(r.admission.Usage)
	}
	if s.afs != nil {
		// A LocalQueue not sampled yet is idle: no usage, and no time.
		v.ConsumedResources = corev1.ResourceList{}
		if u, ok := s.afs.usage[key]; ok {
			v.ConsumedResources, v.ConsumedAt = u.ConsumedResources(), u.LastSample
		}
		v.WeightedUsage = s.afsKey(key)
		if q, ok := s.cache.ClusterQueue(lq.cq); ok {
			v.OrderedByUsage = s.usesAFS(q)
		}
	}
	return v, true
}

// LocalQueueKeys returns the keys of all LocalQueues, sorted.
func (s *Scheduler) LocalQueueKeys() []types.NamespacedName {
	keys := make([]types.NamespacedName, 0, len(s.localQueues))
	for k := range s.localQueues {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

// WorkloadView is the engine's view of one workload.
type WorkloadView struct {
	Key   types.NamespacedName
	State State
	// LocalQueue is spec.queueName; ClusterQueue is where it holds quota, or
	// where its LocalQueue points while pending ("" when unknown).
	LocalQueue   string
	ClusterQueue string
	Priority     int32
	// PodSets and Borrowing describe the admission while it holds quota.
	PodSets   []PodSetAssignment
	Borrowing bool
}

// WorkloadState returns a workload's state, or false if unknown.
func (s *Scheduler) WorkloadState(key types.NamespacedName) (WorkloadView, bool) {
	r, ok := s.workloads[key]
	if !ok {
		return WorkloadView{}, false
	}
	v := WorkloadView{Key: key, State: r.state, LocalQueue: r.lq.Name, Priority: r.priority, Borrowing: r.borrowing}
	if r.holdsQuota() {
		v.ClusterQueue = r.admission.ClusterQueue
		v.PodSets = clonePodSets(r.admission.PodSets)
	} else if lq, ok := s.localQueues[r.lq]; ok {
		v.ClusterQueue = lq.cq
	}
	return v, true
}

// ClusterQueuePendingRequests sums, per resource, what the pending workloads
// of a ClusterQueue's LocalQueues ask for (every pod set's requests times its
// count, before any flavor is chosen), with 0 for each resource its resource
// groups cover and nothing asks for: Kueue's kueue_cluster_queue_resource_pending
// (its queue's pendingResources, seeded with the covered resources). As Kueue
// queues none of them, workloads with spec.active=false are left out. It walks
// every pending workload of the queue, so it is for a scrape, not a cycle.
func (s *Scheduler) ClusterQueuePendingRequests(name string) (resources.Requests, bool) {
	q, ok := s.cache.ClusterQueue(name)
	if !ok {
		return nil, false
	}
	out := resources.Requests{}
	for _, g := range q.Groups {
		for _, r := range g.Covered {
			out[r] = 0
		}
	}
	for key := range s.lqsByCQ[name] {
		for _, r := range s.pendingByLQ[key] {
			if !r.info.Active {
				continue
			}
			for i := range r.info.PodSets {
				out.Add(r.info.PodSets[i].Total)
			}
		}
	}
	return out, true
}
