package simulator

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/simulator/manifest"
)

// ReasonCreatedUnsuspended is the reason of the Unqueued event and state: the
// manager records a Warning event with this reason on such a Job.
const ReasonCreatedUnsuspended = "CreatedUnsuspended"

// unqueuedMessage says why a Job runs outside Koord-Queue, in the words of the
// manager's Warning event. An empty quota label names no quota.
func unqueuedMessage(quota string) string {
	const why = "job was created unsuspended: Koord-Queue queues only Jobs created with spec.suspend: true; it runs unqueued and is not charged to "
	if quota == "" {
		return why + "any quota"
	}
	return fmt.Sprintf(why+"quota %s", quota)
}

// submitKoordJob submits a batch/v1 Job that carries a quota label and names no
// LocalQueue. Koord-Queue's job extension queues only a Job it sees suspended
// and not started (ManagedByQueue); one created unsuspended runs unqueued and
// is never charged. A queued Job's unit is derived as the job extension derives
// it (elasticquota.JobUnitSpec): parallelism × the pod's request, and the
// priority of the template's PriorityClass when it exists, else the template's
// priority.
func (s *sim) submitKoordJob(d *manifest.Document, key types.NamespacedName, o *batchv1.Job) error {
	job := o.DeepCopy()
	s.stamp(&job.ObjectMeta, d.Key)
	quota := elasticquota.QuotaNameOf(job.Labels)
	if elasticquota.RouteJob(elasticquota.FactsOf(job)) == elasticquota.RouteUnqueued {
		s.replaceKey(key)
		u := &koordUnit{
			key: key, name: key.Namespace + "/" + key.Name, quota: quota, state: StateUnqueued,
			reason: ReasonCreatedUnsuspended, message: unqueuedMessage(quota),
		}
		s.koord.units[key] = u
		s.record(Event{Type: Unqueued, Workload: u.name, ElasticQuota: quota, Reason: u.reason, Message: u.message})
		return nil
	}
	spec, err := elasticquota.JobUnitSpec(job, s.priorityClassValue)
	if err != nil {
		return err
	}
	request, err := elasticquota.RequestOf(spec.Resource)
	if err != nil {
		return err
	}
	var priority int32
	if spec.Priority != nil {
		priority = *spec.Priority
	}
	return s.enqueueKoord(d, elasticquota.QueueUnit{
		Namespace: key.Namespace, Name: key.Name, Labels: job.Labels, Priority: priority,
		Created: job.CreationTimestamp.Time, Request: request,
	})
}

// priorityClassValue looks a PriorityClass up among those applied so far.
func (s *sim) priorityClassValue(name string) (int32, bool) {
	v, ok := s.world.pcs[name]
	return v, ok
}

// submitQueueUnit submits a QueueUnit written without a Job: a unit in its
// own right, with spec.resource as its request and spec.priority as its
// priority (elasticquota.UnitOf). One with status.admissions was admitted
// before the simulation starts: it is charged to the quota its label names
// without a usage check, as a manager that restarts restores it.
func (s *sim) submitQueueUnit(d *manifest.Document, o *queuev1alpha1.QueueUnit) error {
	qu := o.DeepCopy()
	s.stamp(&qu.ObjectMeta, d.Key)
	unit, err := elasticquota.UnitOf(qu)
	if err != nil {
		return err
	}
	if len(qu.Status.Admissions) == 0 {
		return s.enqueueKoord(d, unit)
	}
	key := unit.Key()
	quota := elasticquota.QuotaNameOf(unit.Labels)
	s.replaceKey(key)
	if err := s.koord.sched.RestoreAdmitted(unit, quota); err != nil {
		return err
	}
	s.koord.gen++
	u := &koordUnit{
		key: key, name: key.Namespace + "/" + key.Name, quota: quota, admittedTo: quota,
		state: StateAdmitted, runtime: d.Runtime, hasRuntime: d.HasRuntime, gen: s.koord.gen,
	}
	s.koord.units[key] = u
	s.counts.Running++
	if u.hasRuntime {
		s.timers.addKoord(s.now+u.runtime, key, u.gen)
	}
	s.record(Event{Type: Submitted, Workload: u.name, ElasticQuota: quota})
	s.record(Event{Type: Admitted, Workload: u.name, ElasticQuota: quota, Preset: true})
	return nil
}

// applyQueue records a Queue written by hand and hands it to the scheduler:
// its extra koord-queue/ annotations tune the queue of the quota of the same
// name, its policy does not (elasticquota.Scheduler.UpsertQueue).
func (s *sim) applyQueue(d *manifest.Document, o *queuev1alpha1.Queue) error {
	q := o.DeepCopy()
	s.stamp(&q.ObjectMeta, d.Key)
	s.world.koordQueues[q.Name] = q
	if err := s.reapplyQueue(q.Name); err != nil {
		return &manifest.Error{Source: d.Source, Object: d.Key.String(), Err: err}
	}
	return nil
}

// reapplyQueue hands the Queue written by hand for a quota, if any, back to
// the scheduler, after its quota re-derived the queue. A Queue without its
// quota waits for it.
func (s *sim) reapplyQueue(name string) error {
	q, ok := s.world.koordQueues[name]
	if !ok {
		return nil
	}
	_, err := s.koord.sched.UpsertQueue(q)
	return err
}
