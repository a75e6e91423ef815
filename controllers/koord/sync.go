package koord

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
)

// syncState is what the admission loop knows of the cluster, beside the
// engine: which object each engine entry came from, so that a change of the
// object reaches the engine once and a decision can be written to the object.
type syncState struct {
	sched *elasticquota.Scheduler
	// quotaVersion is namespace/resourceVersion of the ElasticQuota each quota
	// name was last taken from.
	quotaVersion map[string]string
	units        map[types.NamespacedName]*knownUnit
	// queueFailRecorded remembers the queues already given an AddQueueFail
	// event for their policy.
	queueFailRecorded map[string]queuev1alpha1.QueuePolicy
}

// knownUnit is one QueueUnit as the loop knows it.
type knownUnit struct {
	obj *queuev1alpha1.QueueUnit
	// admitted: the engine holds the unit admitted (charged).
	admitted bool
	// done: the unit has ended (Succeed, Failed, or being deleted) and was
	// released; it is never queued again.
	done bool
	// notFoundRecorded: the QueueNotFound event was recorded ("recorded once
	// on the unit").
	notFoundRecorded bool
	// reclaimFrom is, for a victim of queue-level preemption, how many
	// replicas it held when marked; the Job extension has reclaimed once the
	// unit records fewer. 0 when the unit is no victim.
	reclaimFrom int64
	// markPending is how many replicas a Preempt decision marked that the
	// unit's status does not record yet (its write failed); the loop writes
	// it again before the next cycle.
	markPending int64
}

func newSyncState(rate elasticquota.OversellRate) *syncState {
	return &syncState{
		sched:             elasticquota.NewScheduler(rate),
		quotaVersion:      map[string]string{},
		units:             map[types.NamespacedName]*knownUnit{},
		queueFailRecorded: map[string]queuev1alpha1.QueuePolicy{},
	}
}

// syncQuotas upserts every quota whose object changed and deletes the quotas
// that are gone. Of several ElasticQuotas sharing a name, the one written last
// wins (004). A quota the engine refuses is reported and left as it was.
func (s *syncState) syncQuotas(items []koordv1alpha1.ElasticQuota, _ []queuev1alpha1.Queue) []error {
	byName := map[string][]koordv1alpha1.ElasticQuota{}
	for i := range items {
		byName[items[i].Name] = append(byName[items[i].Name], items[i])
	}
	var errs []error
	for name, group := range byName {
		eq := newest(group)
		if eq == nil {
			continue
		}
		version := eq.Namespace + "/" + eq.ResourceVersion
		if s.quotaVersion[name] == version {
			continue
		}
		if err := s.sched.UpsertQuota(eq); err != nil {
			errs = append(errs, fmt.Errorf("ElasticQuota %s/%s: %w", eq.Namespace, eq.Name, err))
			continue
		}
		s.quotaVersion[name] = version
	}
	for name := range s.quotaVersion {
		if eq := newest(byName[name]); eq == nil {
			s.sched.DeleteQuota(name)
			delete(s.quotaVersion, name)
		}
	}
	return errs
}

// syncUnits brings the engine's units in step with the QueueUnits:
//   - a unit that ended (Succeed, Failed) or is being deleted is released at
//     once: "A unit in Succeed or Failed stops counting as usage at once";
//   - a unit with admissions (or Dequeued, Running) that the engine does not
//     hold admitted is restored as admitted, charged without a usage check:
//     this is how a new leader learns what an earlier one admitted;
//   - any other unit is queued, re-read when its object changed;
//   - a unit that is gone is forgotten.
//
// A unit this loop admitted stays admitted although the cache may still show
// it pending: the cache lags the loop's own status write.
func (s *syncState) syncUnits(items []queuev1alpha1.QueueUnit) []error {
	var errs []error
	seen := make(map[types.NamespacedName]bool, len(items))
	for i := range items {
		qu := &items[i]
		key := types.NamespacedName{Namespace: qu.Namespace, Name: qu.Name}
		seen[key] = true
		k := s.units[key]
		if k != nil && k.obj.UID != qu.UID {
			s.forget(key) // deleted and created again under the same name
			k = nil
		}
		if ended(qu) {
			if k == nil {
				k = &knownUnit{}
				s.units[key] = k
			}
			if !k.done {
				s.sched.DeleteUnit(key)
				k.done, k.admitted = true, false
			}
			k.obj = qu
			continue
		}
		if k != nil && k.done {
			k.obj = qu
			continue
		}
		apiAdmitted := holdsQuota(qu)
		if k != nil && k.obj.ResourceVersion == qu.ResourceVersion {
			continue
		}
		if k != nil && k.reclaimFrom > 0 {
			if done, err := s.reclaimed(key, k, qu); done || err != nil {
				if err != nil {
					errs = append(errs, err)
				}
				continue
			}
		}
		switch {
		case k == nil:
			k = &knownUnit{}
		case k.admitted && !apiAdmitted:
			// Admitted by this loop; the cache has not caught up yet.
			continue
		case k.admitted && apiAdmitted:
			k.obj = qu
			_ = s.sched.SetRunning(key, runningReplicas(qu))
			continue
		default:
			s.sched.DeleteUnit(key)
		}
		u, err := elasticquota.UnitOf(qu)
		if err != nil {
			errs = append(errs, err)
			delete(s.units, key)
			continue
		}
		if apiAdmitted {
			err = s.sched.RestoreAdmitted(u, elasticquota.QuotaNameOf(qu.Labels))
			if err == nil {
				_ = s.sched.SetRunning(key, runningReplicas(qu))
				// A victim marked by an earlier leader: the Job extension
				// still reclaims it; the engine learns the outcome below.
				if marked := markedReplicas(qu); marked > 0 {
					k.reclaimFrom = admittedReplicas(qu)
				}
			}
		} else {
			err = s.sched.AddUnit(u)
		}
		if err != nil {
			errs = append(errs, err)
			delete(s.units, key)
			continue
		}
		k.obj, k.admitted = qu, apiAdmitted
		s.units[key] = k
	}
	for key := range s.units {
		if !seen[key] {
			s.forget(key)
		}
	}
	return errs
}

// reclaimed handles a victim whose object changed: once the unit records fewer
// replicas than it held when marked (none, and Enqueued, when the whole unit
// was reclaimed), the reclaim is done and the engine releases that part of its
// quota. It reports whether it took the change.
func (s *syncState) reclaimed(key types.NamespacedName, k *knownUnit, qu *queuev1alpha1.QueueUnit) (bool, error) {
	left := admittedReplicas(qu)
	if !holdsQuota(qu) {
		left = 0
	}
	if left >= k.reclaimFrom || markedReplicas(qu) > 0 {
		return false, nil // not reclaimed yet (or the cache lags the mark)
	}
	k.reclaimFrom = 0
	k.obj = qu
	if _, err := s.sched.ReclaimDone(key, left); err != nil {
		// Marked by an earlier leader: this engine restored the unit without
		// the mark, so it takes the unit again as the API now records it.
		s.sched.DeleteUnit(key)
		u, uerr := elasticquota.UnitOf(qu)
		if uerr != nil {
			delete(s.units, key)
			return true, uerr
		}
		if left == 0 {
			k.admitted = false
			return true, s.sched.AddUnit(u)
		}
		return true, s.sched.RestoreAdmitted(u, elasticquota.QuotaNameOf(qu.Labels))
	}
	k.admitted = left > 0
	return true, nil
}

// admittedReplicas, runningReplicas and markedReplicas sum a unit's
// admissions: replicas held, replicas running, replicas marked for reclaim.
func admittedReplicas(qu *queuev1alpha1.QueueUnit) int64 {
	var n int64
	for _, a := range qu.Status.Admissions {
		n += a.Replicas
	}
	return n
}

func runningReplicas(qu *queuev1alpha1.QueueUnit) int64 {
	var n int64
	for _, a := range qu.Status.Admissions {
		n += a.Running
	}
	return n
}

func markedReplicas(qu *queuev1alpha1.QueueUnit) int64 {
	var n int64
	for _, a := range qu.Status.Admissions {
		if a.ReclaimState != nil {
			n += a.ReclaimState.Replicas
		}
	}
	return n
}

func (s *syncState) forget(key types.NamespacedName) {
	s.sched.DeleteUnit(key)
	delete(s.units, key)
}

// unadmit takes back an admission whose status write failed: the unit is
// queued again, as it still is in the API.
func (s *syncState) unadmit(key types.NamespacedName) {
	k := s.units[key]
	if k == nil {
		return
	}
	s.sched.DeleteUnit(key)
	k.admitted = false
	if u, err := elasticquota.UnitOf(k.obj); err == nil {
		_ = s.sched.AddUnit(u)
	} else {
		delete(s.units, key)
	}
}

// ended reports whether a unit no longer holds or waits for quota.
func ended(qu *queuev1alpha1.QueueUnit) bool {
	return !qu.DeletionTimestamp.IsZero() ||
		qu.Status.Phase == queuev1alpha1.Succeed || qu.Status.Phase == queuev1alpha1.Failed
}

// holdsQuota reports whether the API records the unit as admitted.
func holdsQuota(qu *queuev1alpha1.QueueUnit) bool {
	return len(qu.Status.Admissions) > 0 || dequeued(qu)
}
