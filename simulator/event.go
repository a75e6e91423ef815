package simulator

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// EventType is what happened to a workload.
type EventType string

const (
	// Submitted: the job entered its queue (a preempted job goes back without a
	// new Submitted).
	Submitted EventType = "Submitted"
	// Admitted: the job got quota and starts running.
	Admitted EventType = "Admitted"
	// Preempted: the job was evicted to make room for Preemptor; it is pending
	// again and restarts from zero when admitted again.
	Preempted EventType = "Preempted"
	// Evicted: the job lost its quota for a reason other than preemption (a
	// stopPolicy of HoldAndDrain, spec.active=false); it is pending again.
	Evicted EventType = "Evicted"
	// Finished: the job's runtime ended and its quota was released.
	Finished EventType = "Finished"
	// Reclaimed: a running Job started its last wave of pods with fewer
	// pods than it was admitted with; the idle ones are reclaimable
	// (status.reclaimablePods, as Kueue's Job integration writes it) and
	// their quota is given back while the Job runs on. PodCounts says how
	// many per pod set.
	Reclaimed EventType = "Reclaimed"
	// Unqueued: a Job with a Koord-Queue quota label was created unsuspended,
	// so Koord-Queue does not queue it; it runs unqueued and is never charged.
	// Reason and Message say so, as the manager's Warning event does.
	Unqueued EventType = "Unqueued"
)

// Flavors maps pod set name to resource to flavor.
type Flavors map[string]map[corev1.ResourceName]string

// Event is one line of the timeline.
type Event struct {
	Time time.Duration
	Type EventType
	// Workload is "namespace/name"; a Job is named by its own name.
	Workload     string
	ClusterQueue string
	// ElasticQuota is the quota of a Koord-Queue unit (ClusterQueue is then
	// empty): the one its label names, or on Admitted and Finished the one it is
	// charged to.
	ElasticQuota string
	// Flavors is set on Admitted.
	Flavors Flavors
	// Borrowing is set on Admitted when the admission borrows from the cohort.
	Borrowing bool
	// PodCounts is set on Admitted when some pod set got fewer pods than it
	// asks for (partial admission): every pod set's admitted count; on
	// Reclaimed, the reclaimable pods of each pod set.
	PodCounts map[string]int32
	// Preset is set on Admitted for a Workload whose manifest carries
	// status.admission: it was admitted before it was applied.
	Preset bool
	// Reason and Message say why, on Preempted, Evicted and Unqueued.
	Reason  string
	Message string
	// Preemptor is the workload a Preempted job made room for.
	Preemptor string
}

// QuotaUpdate records a change of the quota in effect for a ClusterQueue or a
// Cohort, or of an orchestrator's condition, made by Dynamic Quota Orchestration.
type QuotaUpdate struct {
	Time time.Duration
	// Object is "ClusterQueue name", "Cohort name" or
	// "DynamicQuotaOrchestrator name".
	Object string
	// Nominal is the new nominal quota per flavor and resource (quantities as
	// strings), for ClusterQueues and Cohorts.
	Nominal map[string]map[corev1.ResourceName]string
	// Condition, Status and Reason report an orchestrator's condition change.
	Condition string
	Status    string
	Reason    string
	Message   string
	// Seq is how many events the timeline held when the update was made, so
	// that outputs can list it in causal order among the events of its instant.
	Seq int
}
