package elasticquota

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// Names Koord-Queue's job extension reads and writes on a batch/v1 Job
// (koord-queue pkg/jobext/handles/job.go).
const (
	// FallbackQuotaNameLabel names the quota when QuotaNameLabel is absent or
	// empty (koord-queue getQuotaName: AsiQuotaNameLabelKey).
	FallbackQuotaNameLabel = "alibabacloud.com/quota-name"
	// EnqueuedAnnotation makes the decision to queue a Job sticky: a Job that
	// carries it is managed by the queue whatever its suspend field says later.
	EnqueuedAnnotation = "koord-queue/job-has-enqueued"
	// EnqueueTimestampAnnotation is when the Job was enqueued.
	EnqueueTimestampAnnotation = "koord-queue/job-enqueue-timestamp"
	// DequeueTimestampAnnotation is when the Job was last dequeued (unsuspended).
	DequeueTimestampAnnotation = "koord-queue/job-dequeue-timestamp"
)

// QuotaNameOf is the quota a unit's labels name: the quota label, else the
// fallback label, else "" (koord-queue getQuotaName).
func QuotaNameOf(labels map[string]string) string {
	if n := labels[koordv1alpha1.QuotaNameLabel]; n != "" {
		return n
	}
	return labels[FallbackQuotaNameLabel]
}

// hasQuotaLabel reports whether labels carry either quota label, even empty.
func hasQuotaLabel(labels map[string]string) bool {
	_, a := labels[koordv1alpha1.QuotaNameLabel]
	_, b := labels[FallbackQuotaNameLabel]
	return a || b
}

// JobRoute is which queueing path a batch/v1 Job takes.
type JobRoute int

const (
	// RouteNone: neither Kueue nor Koord-Queue queues the Job (it is not
	// suspended, carries no quota label and names no LocalQueue).
	RouteNone JobRoute = iota
	// RouteKoord: the Job gets a QueueUnit and waits for Koord-Queue's admission.
	RouteKoord
	// RouteKueue: the Job names a LocalQueue; Kueue's path queues it. When it
	// also carries a quota label, that label is ignored (QuotaLabelIgnored).
	RouteKueue
	// RouteUnqueued: the Job carries a quota label but was created unsuspended,
	// so it runs unqueued and is never charged (Koord-Queue's ManagedByQueue).
	RouteUnqueued
)

// JobFacts is what the routing decision reads from a Job.
type JobFacts struct {
	Labels      map[string]string
	Annotations map[string]string
	// Suspended is spec.suspend; Started is status.startTime != nil.
	Suspended, Started bool
}

// FactsOf reads the routing facts of a Job.
func FactsOf(job *batchv1.Job) JobFacts {
	return JobFacts{
		Labels: job.Labels, Annotations: job.Annotations,
		Suspended: job.Spec.Suspend != nil && *job.Spec.Suspend,
		Started:   job.Status.StartTime != nil,
	}
}

// RouteJob decides the queueing path of a Job. A Job naming a LocalQueue is
// Kueue's, whatever else it carries: never two managers on one Job. Otherwise,
// as Koord-Queue's ManagedByQueue: a Job already enqueued stays queued; a Job
// seen suspended and not yet started is queued, labelled or not (an unlabelled
// one gets a unit that never maps to a queue, 004's silent case); a labelled
// Job that runs already is left alone.
func RouteJob(f JobFacts) JobRoute {
	switch {
	case f.Labels[kueue.QueueNameLabel] != "":
		return RouteKueue
	case f.Annotations[EnqueuedAnnotation] != "":
		return RouteKoord
	case f.Suspended && !f.Started:
		return RouteKoord
	case hasQuotaLabel(f.Labels):
		return RouteUnqueued
	}
	return RouteNone
}

// QuotaLabelIgnored reports whether a Job on Kueue's path also carries a quota
// label, which Quokka then ignores (and says so in a Warning event).
func QuotaLabelIgnored(f JobFacts) bool {
	return f.Labels[kueue.QueueNameLabel] != "" && hasQuotaLabel(f.Labels)
}

// PriorityLookup returns the value of a PriorityClass, and whether it exists.
type PriorityLookup func(className string) (int32, bool)

// JobUnitSpec derives the QueueUnit spec of a Job as Koord-Queue's job
// extension does: resource and request are parallelism × the pod's request
// (containers summed, the max with each init container, plus overhead; a
// request defaults to its limit); the priority is the value of the template's
// PriorityClass when it exists, else the template's priority; the pod set is
// the template with count min(parallelism, completions − succeeded); the queue
// is left empty (004: "The spec.queue field of a QueueUnit that was created by
// a job extension is left empty").
func JobUnitSpec(job *batchv1.Job, lookup PriorityLookup) (queuev1alpha1.QueueUnitSpec, error) {
	path := field.NewPath("spec", "template", "spec")
	perPod, err := workload.PodRequests(path, &job.Spec.Template.Spec)
	if err != nil {
		return queuev1alpha1.QueueUnitSpec{}, fmt.Errorf("job %s/%s: %w", job.Namespace, job.Name, err)
	}
	parallelism := int32(1)
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	list := corev1.ResourceList{}
	for _, name := range perPod.Names() {
		list[name] = resources.ToQuantity(name, resources.Mul(perPod[name], int64(parallelism)))
	}
	count := parallelism
	if job.Spec.Completions != nil && *job.Spec.Completions-job.Status.Succeeded < count {
		count = max(*job.Spec.Completions-job.Status.Succeeded, 0)
	}
	tmpl := job.Spec.Template.DeepCopy()
	defaultRequestsToLimits(&tmpl.Spec)
	pcName := job.Spec.Template.Spec.PriorityClassName
	var priority *int32
	if p := job.Spec.Template.Spec.Priority; p != nil {
		priority = new(int32)
		*priority = *p
	}
	if pcName != "" && lookup != nil {
		if v, ok := lookup(pcName); ok {
			priority = &v
		}
	}
	return queuev1alpha1.QueueUnitSpec{
		ConsumerRef: &corev1.ObjectReference{
			APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job",
			Namespace: job.Namespace, Name: job.Name, UID: job.UID,
		},
		Priority:          priority,
		PriorityClassName: pcName,
		Resource:          list,
		Request:           list.DeepCopy(),
		PodSet:            []queuev1alpha1.PodSet{{Name: job.Name, Count: count, Template: *tmpl}},
	}, nil
}

// defaultRequestsToLimits gives every container without requests its limits as
// requests, as the job extension does before it writes the pod set.
func defaultRequestsToLimits(spec *corev1.PodSpec) {
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			if len(cs[i].Resources.Requests) == 0 && len(cs[i].Resources.Limits) != 0 {
				cs[i].Resources.Requests = cs[i].Resources.Limits.DeepCopy()
			}
		}
	}
}

// UnitOf is the engine's view of a QueueUnit object: its labels (which name the
// quota), spec.priority, its creation time and spec.resource (for a unit
// partly reclaimed, what its admissions still hold). created is the
// time that orders units of equal priority; a zero one falls back to the
// object's creationTimestamp.
func UnitOf(qu *queuev1alpha1.QueueUnit) (QueueUnit, error) {
	req, err := canonical(qu.Spec.Resource, "spec.resource")
	if err != nil {
		return QueueUnit{}, fmt.Errorf("queueUnit %s/%s: %w", qu.Namespace, qu.Name, err)
	}
	var prio int32
	if qu.Spec.Priority != nil {
		prio = *qu.Spec.Priority
	}
	u := QueueUnit{
		Namespace: qu.Namespace, Name: qu.Name, Labels: qu.Labels,
		Priority: prio, Created: qu.CreationTimestamp.Time, Request: req,
	}
	// One pod set of several pods: queue-level preemption may reclaim some of
	// them (a unit of several pod sets is reclaimed whole, as one replica).
	if len(qu.Spec.PodSet) == 1 && qu.Spec.PodSet[0].Count > 1 {
		ps := &qu.Spec.PodSet[0]
		if perPod, err := workload.PodRequests(field.NewPath("spec", "podSet").Index(0), &ps.Template.Spec); err == nil {
			u.Replicas, u.PerReplica = int64(ps.Count), perPod
		}
	}
	if t := qu.Status.LastAllocateTime; t != nil {
		u.AllocatedAt = t.Time
	}
	// A unit that gave replicas back to queue-level preemption holds only
	// what its admissions still record.
	var held int64
	for _, a := range qu.Status.Admissions {
		held += a.Replicas
	}
	if u.PerReplica != nil && held > 0 && held < u.Replicas {
		u.Replicas = held
		u.Request = u.PerReplica.Clone()
		for r, v := range u.PerReplica {
			u.Request[r] = resources.Mul(v, held)
		}
	}
	return u, nil
}

// Admissions is what a unit is admitted with, per pod set: the pod set's count
// as replicas and its per-pod request as resources, none running yet. A unit
// without pod sets (a QueueUnit written by hand) is one replica of its whole
// spec.resource.
func Admissions(qu *queuev1alpha1.QueueUnit) []queuev1alpha1.Admission {
	if len(qu.Spec.PodSet) == 0 {
		return []queuev1alpha1.Admission{{Name: qu.Name, Replicas: 1, Resources: qu.Spec.Resource.DeepCopy()}}
	}
	out := make([]queuev1alpha1.Admission, 0, len(qu.Spec.PodSet))
	for i := range qu.Spec.PodSet {
		ps := &qu.Spec.PodSet[i]
		a := queuev1alpha1.Admission{Name: ps.Name, Replicas: int64(ps.Count)}
		if perPod, err := workload.PodRequests(field.NewPath("spec", "podSet").Index(i), &ps.Template.Spec); err == nil {
			a.Resources = corev1.ResourceList{}
			for _, name := range perPod.Names() {
				a.Resources[name] = resources.ToQuantity(name, perPod[name])
			}
		}
		out = append(out, a)
	}
	return out
}
