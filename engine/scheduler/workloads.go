package scheduler

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/workload"
)

// UpsertWorkload adds or updates a workload:
//   - with a Finished=True condition it holds no quota and leaves the queue;
//   - with status.admission it is admitted: its usage is charged to
//     admission.clusterQueue with the flavors given there;
//   - otherwise it is pending in the LocalQueue spec.queueName of its namespace.
//
// An assumed admission (made by Cycle) survives an update without
// status.admission, since that is the informer lagging behind the driver's write;
// Forget undoes it. A workload finished with the same UID stays finished. The
// error, for a quantity that cannot be converted, names the field; the previous
// state is kept.
func (s *Scheduler) UpsertWorkload(wl *kueue.Workload) error {
	info, err := s.readWorkload(wl)
	if err != nil {
		return err
	}
	r, ok := s.workloads[info.Key]
	if ok && r.info.UID != info.UID {
		s.remove(r)
		ok = false
	}
	if !ok {
		r = &record{}
		s.workloads[info.Key] = r
	} else if r.state == StateFinished {
		r.setInfo(info)
		return nil
	}
	prev := r.state
	prevCQ := ""
	if r.holdsQuota() {
		prevCQ = r.admission.ClusterQueue
	}
	// Kueue requeues a tree's inadmissible workloads when one of its
	// pending workloads finishes, is deactivated or changes while inactive,
	// and when an admitted one's priority changes (park.go).
	pendingCQ, wasActive, prevPriority := s.pendingCQ(r), r.info != nil && r.info.Active, r.priority
	// An update that changes nothing the engine reads (the scheduler's own
	// Pending condition, say) leaves a pending workload parked, as Kueue
	// updates a workload of its inadmissible list in place.
	unchanged := prev == StatePending && r.info != nil && reflect.DeepEqual(*r.info, *info)
	parked, parkedCycle, heldAt, queuedCycle := r.parked, r.parkedCycle, r.heldAt, r.queuedCycle
	s.detach(r)
	r.setInfo(info)
	if s.opts.NoPrioritySortingWithinCohort && !info.ReclaimedWhileBorrowingAt.IsZero() {
		// Kueue's GetQueueOrderTimestamp: a millisecond after, so that it
		// comes strictly after its preemptor.
		r.orderAt = info.ReclaimedWhileBorrowingAt.Add(time.Millisecond)
	}
	if w := s.opts.WaitForPodsReady; w != nil && w.OrderByEviction && !info.PodsReadyTimeoutAt.IsZero() {
		r.orderAt = info.PodsReadyTimeoutAt
	}
	r.lq = types.NamespacedName{Namespace: info.Key.Namespace, Name: info.QueueName}
	if lq, ok := s.localQueues[r.lq]; ok {
		// Share the LocalQueue's strings: walks compare consecutive entries'
		// keys (walkMemo), and equal strings that share their bytes compare
		// without reading them.
		r.lq = lq.key
	}
	r.priority = info.EffectivePriority(s.lookupPriority, s.opts.PriorityBoost)
	r.basePriority = info.ResolvePriority(s.lookupPriority)
	r.headPriority = s.headPriority(r.priority)
	switch {
	case info.Finished:
		s.cache.Release(info.Key)
		r.state, r.admission = StateFinished, nil
		s.noteRelease(prevCQ)
		s.noteRelease(pendingCQ)
	case info.Admission != nil:
		if prevCQ != "" && prevPriority != r.priority {
			s.noteRelease(prevCQ)
		}
		if !info.QuotaReservedAt.IsZero() || prev != StateAssumed {
			r.admittedAt = info.QuotaReservedAt
		}
		r.admittedCycle = 0
		r.admission = info.Admission
		if shrinks(s.cache, info.Key, info.Admission) {
			// Reclaimed pods gave quota back: workloads holding room wait
			// for a release of their tree to try again (hold.go).
			s.noteRelease(info.Admission.ClusterQueue)
		}
		s.cache.Charge(info.Key, info.Admission.ClusterQueue, info.Admission.Usage)
		s.attachAdmitted(r, StateAdmitted)
	case prev == StateAssumed:
		s.attachAdmitted(r, StateAssumed)
	default:
		s.cache.Release(info.Key)
		r.admission = nil
		s.enqueue(r)
		if unchanged {
			r.parked, r.parkedCycle, r.heldAt, r.queuedCycle = parked, parkedCycle, heldAt, queuedCycle
		}
		s.noteRelease(prevCQ)
		if !info.Active && (wasActive || !unchanged) {
			// Kueue's workload controller requeues the tree's parked
			// workloads on every update of an inactive workload (its
			// "finished or inactive" case), not only on the one that
			// deactivates it: a priority change of a deactivated workload
			// too. An update the engine reads no change in (a status write
			// of Kueue's own) is left out, as its informer would often
			// have coalesced it.
			s.noteRelease(pendingCQ)
		}
	}
	return nil
}

// headPriority is what heads of different queues are ordered by for a
// workload of priority p: p, or nothing with the PrioritySortingWithinCohort
// gate off.
func (s *Scheduler) headPriority(p int32) int32 {
	if s.opts.NoPrioritySortingWithinCohort {
		return 0
	}
	return p
}

// readWorkload is the engine's reading of wl: its pod sets counted with the
// Configuration's resources block in its namespace's environment, less
// their reclaimable pods unless the ReclaimablePods gate is off.
func (s *Scheduler) readWorkload(wl *kueue.Workload) (*workload.Info, error) {
	if s.opts.NoReclaimablePods {
		wl = workload.IgnoringReclaimablePods(wl)
	}
	return workload.FromAPIIn(wl, s.opts.Resources, s.Environment(wl.Namespace))
}

// DeleteWorkload forgets a workload and releases its quota at once.
func (s *Scheduler) DeleteWorkload(key types.NamespacedName) {
	if r, ok := s.workloads[key]; ok {
		s.remove(r)
	}
}

// FinishWorkload releases the workload's quota at once; it leaves the queue.
func (s *Scheduler) FinishWorkload(key types.NamespacedName) {
	r, ok := s.workloads[key]
	if !ok || r.state == StateFinished {
		return
	}
	if r.holdsQuota() {
		s.noteRelease(r.admission.ClusterQueue)
	}
	s.detach(r)
	s.cache.Release(key)
	r.state, r.admission = StateFinished, nil
}

// EvictWorkload is the driver confirming an eviction: the quota is released and
// the workload is pending again, keeping its creation time and priority.
func (s *Scheduler) EvictWorkload(key types.NamespacedName) {
	r, ok := s.workloads[key]
	if !ok || !r.holdsQuota() {
		return
	}
	s.requeue(r)
}

// Forget undoes an assumed admission, for when the driver's API write failed:
// the quota is released and the workload is pending again. Confirmed admissions
// are not affected.
func (s *Scheduler) Forget(key types.NamespacedName) {
	r, ok := s.workloads[key]
	if !ok || r.state != StateAssumed {
		return
	}
	s.requeue(r)
}

func (s *Scheduler) requeue(r *record) {
	if r.holdsQuota() {
		s.noteRelease(r.admission.ClusterQueue)
	}
	s.detach(r)
	s.cache.Release(r.info.Key)
	r.admission = nil
	r.borrowing = false
	s.enqueue(r)
}

func (s *Scheduler) remove(r *record) {
	// A new workload with the same name must not inherit a preemption.
	s.dropPreemption(r.info.Key)
	if r.holdsQuota() {
		s.noteRelease(r.admission.ClusterQueue)
	}
	s.noteRelease(s.pendingCQ(r))
	s.detach(r)
	s.cache.Release(r.info.Key)
	delete(s.workloads, r.info.Key)
	r.state = StateFinished
}

// pendingCQ is the ClusterQueue r is pending in, "" when it is not pending
// or its LocalQueue does not exist.
func (s *Scheduler) pendingCQ(r *record) string {
	if r.state != StatePending {
		return ""
	}
	if lq, ok := s.localQueues[r.lq]; ok {
		return lq.cq
	}
	return ""
}

// enqueue makes r pending in its LocalQueue and, if that exists, in its
// ClusterQueue's list.
func (s *Scheduler) enqueue(r *record) {
	r.state = StatePending
	if !r.info.RequeueAt.IsZero() {
		s.backoff[r.info.Key] = r
	}
	r.heldAt = holdMark{} // a workload queued again is tried afresh
	r.parked, r.queuedCycle = holdMark{}, s.cycle
	m, ok := s.pendingByLQ[r.lq]
	if !ok {
		m = map[types.NamespacedName]*record{}
		s.pendingByLQ[r.lq] = m
	}
	m[r.info.Key] = r
	if !r.info.Active {
		s.inactiveByLQ[r.lq]++
	}
	s.noteRoute(r.lq)
	if lq, ok := s.localQueues[r.lq]; ok {
		s.listOf(lq.cq).add(s, r)
		s.arrive(lq.cq, r)
	}
}

// attachAdmitted indexes r as holding quota in its admission's ClusterQueue.
func (s *Scheduler) attachAdmitted(r *record, st State) {
	r.state = st
	r.cand = nil
	s.candVer++
	cq := r.admission.ClusterQueue
	s.wake(cq)
	addIndex(s.admittedByCQ, cq, r)
	delete(s.admittedSorted, cq)
	if !s.inCycle || r.admittedCycle != s.cycle {
		// Candidates admitted by the running cycle are none (source.Admitted):
		// only others change the list.
		delete(s.admittedCands, cq)
	}
	addIndex(s.admittedByLQ, r.lq, r)
	s.afsHold(r, 1)
	if !r.info.Active {
		s.deactivated[r.info.Key] = r
	}
	if r.info.MaxExecution > 0 {
		s.timed[r.info.Key] = r
	}
	if w := s.opts.WaitForPodsReady; w != nil && !r.info.PodsReady.Ready {
		if r.info.Active {
			s.notReady[r.info.Key] = r
		}
		if w.BlockAdmission {
			s.unready[r.info.Key] = r
		}
	}
}

// detach removes r from every index; its charge in the cache is untouched.
func (s *Scheduler) detach(r *record) {
	r.cand = nil
	switch r.state {
	case StatePending:
		delIndex(s.pendingByLQ, r.lq, r.info.Key)
		if !r.info.Active {
			if s.inactiveByLQ[r.lq]--; s.inactiveByLQ[r.lq] <= 0 {
				delete(s.inactiveByLQ, r.lq)
			}
		}
		delete(s.backoff, r.info.Key)
		s.gen++
		r.gen = s.gen
		if lq, ok := s.localQueues[r.lq]; ok {
			s.wake(lq.cq) // a StrictFIFO head may have left
		}
	case StateAdmitted, StateAssumed:
		s.candVer++
		key := r.info.Key
		s.wake(r.admission.ClusterQueue)
		delIndex(s.admittedByCQ, r.admission.ClusterQueue, key)
		delete(s.admittedSorted, r.admission.ClusterQueue)
		delete(s.admittedCands, r.admission.ClusterQueue)
		delIndex(s.admittedByLQ, r.lq, key)
		s.afsHold(r, -1)
		delete(s.deactivated, key)
		delete(s.timed, key)
		delete(s.notReady, key)
		delete(s.unready, key)
	}
}

func addIndex[K comparable](m map[K]map[types.NamespacedName]*record, k K, r *record) {
	set, ok := m[k]
	if !ok {
		set = map[types.NamespacedName]*record{}
		m[k] = set
	}
	set[r.info.Key] = r
}

func delIndex[K comparable](m map[K]map[types.NamespacedName]*record, k K, key types.NamespacedName) {
	if set, ok := m[k]; ok {
		delete(set, key)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

// shrinks tells whether adm charges less of some flavor and resource than
// the workload is charged now in the same ClusterQueue: its reclaimable
// pods grew while it was admitted.
func shrinks(c *quota.Cache, key types.NamespacedName, adm *workload.Admission) bool {
	cq, usage, ok := c.Charged(key)
	if !ok || cq != adm.ClusterQueue {
		return false
	}
	for fr, v := range usage {
		if adm.Usage[fr] < v {
			return true
		}
	}
	return false
}
