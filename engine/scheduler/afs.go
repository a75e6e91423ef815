package scheduler

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	afs "quokka.dev/quokka/engine/admissionfairsharing"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// afsState is admission fair sharing's memory: the decayed usage of every
// LocalQueue that feeds a ClusterQueue in UsageBasedAdmissionFairSharing mode.
type afsState struct {
	params afs.Params
	usage  map[types.NamespacedName]*afs.Usage
	// held sums, per LocalQueue and resource, the quota its workloads hold
	// (Kueue's admitted usage of a LocalQueue), kept as they attach and
	// detach: every admission reads it.
	held map[types.NamespacedName]resources.Requests
}

func newAFS(c *config.AdmissionFairSharing) *afsState {
	if c == nil {
		return nil
	}
	return &afsState{params: afs.ParamsFrom(c), usage: map[types.NamespacedName]*afs.Usage{},
		held: map[types.NamespacedName]resources.Requests{}}
}

// usesAFS tells whether q orders its workloads by LocalQueue usage.
func (s *Scheduler) usesAFS(q *quota.ClusterQueue) bool {
	return s.afs != nil && q.AdmissionMode == kueue.UsageBasedAdmissionFairSharing
}

func (s *Scheduler) lqUsage(key types.NamespacedName) *afs.Usage {
	u, ok := s.afs.usage[key]
	if !ok {
		u = afs.NewUsage()
		s.afs.usage[key] = u
	}
	return u
}

// afsSample decays and samples the usage of every LocalQueue, as Kueue's
// LocalQueue controller does whenever admission fair sharing is configured:
// a ClusterQueue switched to UsageBasedAdmissionFairSharing then orders by
// history it already has. Usage counts from quota reservation: assumed
// admissions count.
func (s *Scheduler) afsSample(now time.Time) {
	if s.afs == nil {
		return
	}
	for key := range s.localQueues {
		u := s.lqUsage(key)
		if u.LastSample.IsZero() || now.Sub(u.LastSample) >= s.afs.params.SamplingInterval {
			u.Sample(s.afs.params, now, s.lqRequests(key))
		}
	}
}

// NextSample is the earliest time after after at which the usage of a
// LocalQueue that holds quota in a ClusterQueue ordering by it is due for a
// sample. Kueue's LocalQueue controller samples each LocalQueue a sampling
// interval after its last update, whatever else happens, and the order of
// the workloads depends on what was in use at each sample; a driver that
// runs a cycle then, when some later instant will make decisions, samples as
// Kueue does. A LocalQueue that holds nothing needs no such cycle: what it
// had in use, nothing, has not changed, and its next cycle takes the samples
// due since at once; nor does the only LocalQueue of its ClusterQueue, whose
// usage orders nothing against another's. False when none is due.
func (s *Scheduler) NextSample(after time.Time) (time.Time, bool) {
	var next time.Time
	found := false
	if s.afs == nil {
		return next, false
	}
	for key := range s.afs.held {
		lq, ok := s.localQueues[key]
		if !ok {
			continue
		}
		if len(s.lqsByCQ[lq.cq]) < 2 {
			continue
		}
		q, ok := s.cache.ClusterQueue(lq.cq)
		if !ok || !s.usesAFS(q) {
			continue
		}
		if at, ok := s.afs.usage[key].NextSample(s.afs.params); ok && at.After(after) && (!found || at.Before(next)) {
			next, found = at, true
		}
	}
	return next, found
}

// lqRequests is, per resource, the quota held by a LocalQueue's workloads;
// read-only.
func (s *Scheduler) lqRequests(key types.NamespacedName) resources.Requests {
	return s.afs.held[key]
}

// afsHold counts r's charge in its LocalQueue's held quota (sign 1, as it
// attaches holding quota) or takes it out (sign -1, as it detaches).
func (s *Scheduler) afsHold(r *record, sign int64) {
	if s.afs == nil {
		return
	}
	held, ok := s.afs.held[r.lq]
	if !ok {
		held = resources.Requests{}
		s.afs.held[r.lq] = held
	}
	for fr, v := range r.admission.Usage {
		if held[fr.Resource] += sign * v; held[fr.Resource] == 0 {
			delete(held, fr.Resource)
		}
	}
	if len(held) == 0 {
		delete(s.afs.held, r.lq)
	}
}

// afsSettle folds an admission into its LocalQueue's usage at once, entry
// penalty and all, as Kueue's workload controller does when the workload
// turns Admitted (see afs.Usage.Settle). The penalty is on the workload's
// requests, as Kueue's scheduler computes it (the entry's total requests):
// all its pods, even when partial admission admitted fewer; the step of the
// average reads what the LocalQueue holds.
func (s *Scheduler) afsSettle(q *quota.ClusterQueue, r *record) {
	if !s.usesAFS(q) {
		return
	}
	req := resources.Requests{}
	for _, ps := range r.info.PodSets {
		for res, v := range ps.Total {
			req[res] = resources.Add(req[res], v)
		}
	}
	s.lqUsage(r.lq).Settle(s.afs.params, s.now, s.lqRequests(r.lq), req)
}

// afsKey is the ordering key of a LocalQueue: lower goes first. A LocalQueue
// the engine has no usage for is idle; one it does not know weighs 1, as in
// Kueue.
func (s *Scheduler) afsKey(key types.NamespacedName) float64 {
	w := 1.0
	if lq, ok := s.localQueues[key]; ok {
		w = lq.weight
	}
	return s.afs.usage[key].Weighted(s.afs.params, w)
}

// seedAFS starts a LocalQueue's usage from what its status says it consumed,
// as Kueue does after a restart, so that a tenant's history survives the
// manager. Only a LocalQueue the engine has no usage for is seeded: its own
// record is newer than any status it wrote. The clock starts at the next
// sample, as in Kueue, so that the time the manager was away does not decay
// the history.
func (s *Scheduler) seedAFS(key types.NamespacedName, lq *kueue.LocalQueue) bool {
	if s.afs == nil || lq.Status.FairSharing == nil || lq.Status.FairSharing.AdmissionFairSharingStatus == nil {
		return false
	}
	if _, ok := s.afs.usage[key]; ok {
		return false
	}
	u := afs.NewUsage()
	u.Seed(lq.Status.FairSharing.AdmissionFairSharingStatus.ConsumedResources)
	s.afs.usage[key] = u
	return true
}
