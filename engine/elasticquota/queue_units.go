package elasticquota

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/engine/resources"
)

// QueueUnit is Koord-Queue's queueing record of one job, as far as admission
// reads it. 004: "The job extension copies the labels and annotations of a job
// onto the QueueUnit that it creates for it"; the quota, and so the queue, is
// resolved from Labels on every cycle, never stored in the unit.
type QueueUnit struct {
	Namespace string
	Name      string
	// Labels are the job's labels; quota.scheduling.koordinator.sh/name names
	// the quota.
	Labels map[string]string
	// Priority is spec.priority of the unit (0 when unset).
	Priority int32
	// Created orders units of equal priority: older first. Koord-Queue uses the
	// unit's initial attempt time, which is its creation for a unit that has
	// never been dequeued.
	Created time.Time
	// Request is spec.resource, the job's total request, in canonical units.
	Request resources.Requests
	// Replicas and PerReplica split Request into identical replicas (the pod
	// set's count and one pod's request), so that queue-level preemption can
	// reclaim part of a unit. A unit with Replicas ≤ 1 or no PerReplica is one
	// replica of its whole Request (Koord-Queue's koord-queue/default-requirement
	// for a unit without pod sets).
	Replicas   int64
	PerReplica resources.Requests
	// AllocatedAt is status.lastAllocateTime of a unit given to RestoreAdmitted:
	// when it was admitted, the start of its reclaim protection. Cycle sets the
	// admission time itself.
	AllocatedAt time.Time
	// RunsAtAdmission says that the unit's pods run the instant it is admitted
	// (a simulated unit without a start-up delay), so it is never "assumed";
	// any other admitted unit is assumed until SetRunning reports all its
	// replicas running.
	RunsAtAdmission bool
}

// replicas is how many replicas the unit is made of (at least 1).
func (u *QueueUnit) replicas() int64 {
	if u.Replicas > 1 && u.PerReplica != nil {
		return u.Replicas
	}
	return 1
}

// perReplica is the request of one replica.
func (u *QueueUnit) perReplica() resources.Requests {
	if u.replicas() > 1 {
		return u.PerReplica
	}
	return u.Request
}

// Key is the unit's namespace/name, the key of the scheduler's maps.
func (u *QueueUnit) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: u.Namespace, Name: u.Name}
}

// Annotations the queue policies read from their Queue (synchronised from the
// ElasticQuota, 004 "Reconciliation Semantics").
const (
	// PriorityThresholdAnnotation splits an Intelligent queue: units with a
	// priority at or above it are the high-priority part.
	PriorityThresholdAnnotation = "koord-queue/priority-threshold"
	// MaxDepthAnnotation bounds how deep a Priority or Block queue is scanned
	// (Koord-Queue's "scan depth").
	MaxDepthAnnotation = "koord-queue/max-depth"
	// WaitForPodsRunningAnnotation ("true") makes a Priority or Block queue
	// admit nothing new while one of its admitted units has replicas whose pods
	// do not run yet (waitforpods.go).
	WaitForPodsRunningAnnotation = "koord-queue/wait-for-pods-running"
	// EnableQueueUnitPreemptionAnnotation ("true"), together with
	// WaitForPodsRunningAnnotation, lets a unit that does not fit reclaim the
	// queue's assumed units that sort after it (preemption.go).
	EnableQueueUnitPreemptionAnnotation = "koord-queue/enable-queueunit-preemption"
	// DefaultPriorityThreshold is Koord-Queue's default for an Intelligent queue
	// without the annotation.
	DefaultPriorityThreshold int32 = 4
)

// factoryPolicies are the policies Koord-Queue's queue factory registers
// (pkg/queue/factory.go: Priority and Block through schedulingqueuev2, and
// Intelligent). 004: "The requested policy is not registered by the queue
// factory, which is the case for Round and for FIFO."
var factoryPolicies = map[queuev1alpha1.QueuePolicy]bool{
	queuev1alpha1.PriorityPolicy:    true,
	queuev1alpha1.BlockPolicy:       true,
	queuev1alpha1.IntelligentPolicy: true,
}

// queueConfig is what admission needs from the Queue of one quota.
type queueConfig struct {
	name   string
	policy queuev1alpha1.QueuePolicy
	// threshold is the Intelligent policy's priority threshold.
	threshold int32
	// maxDepth bounds the scan of a Priority or Block queue; 0 is no bound.
	maxDepth int
	// waitPodsRunning and enablePreempt are the two annotations, read by the
	// Priority and Block policies only.
	waitPodsRunning, enablePreempt bool
}

// queueConfigOf derives the queue's configuration from the Queue that the
// plugin would maintain for eq (DesiredQueue), so that the simulator and the
// Queue controller can never disagree on a policy. As in Koord-Queue, an
// annotation that does not parse as an integer is ignored, and a max depth of
// zero or less means no bound.
func queueConfigOf(eq *koordv1alpha1.ElasticQuota) queueConfig {
	q := DesiredQueue(eq, queuev1alpha1.DefaultQueueNamespace)
	cfg := queueConfig{name: q.Name, policy: q.Spec.QueuePolicy, threshold: DefaultPriorityThreshold}
	if v, ok := q.Annotations[PriorityThresholdAnnotation]; ok {
		if n, err := strconv.ParseInt(v, 10, 32); err == nil {
			cfg.threshold = int32(n)
		}
	}
	if v, ok := q.Annotations[MaxDepthAnnotation]; ok {
		if n, err := strconv.ParseInt(v, 10, 32); err == nil && n > 0 {
			cfg.maxDepth = int(n)
		}
	}
	// schedulingqueuev2 NewPriorityQueue and UpdateQueueCr: exactly "true".
	if cfg.scansDepth() {
		cfg.waitPodsRunning = q.Annotations[WaitForPodsRunningAnnotation] == "true"
		cfg.enablePreempt = q.Annotations[EnableQueueUnitPreemptionAnnotation] == "true"
	}
	return cfg
}

// preempts reports whether a unit that does not fit may preempt: Koord-Queue's
// Preempt refuses unless both annotations are "true" ("preemption is disabled
// because wait-for-pods-running is disabled", "preemption is disabled in
// queue").
func (c queueConfig) preempts() bool { return c.waitPodsRunning && c.enablePreempt }

// dequeuedBefore is the order of every registered policy (Koord-Queue's
// schedulingqueuev2 and intelligentqueue sort the same way): higher priority
// first, then the older unit, then by namespace/name so that the order is total.
func dequeuedBefore(a, b *QueueUnit) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// blocksOnFailure reports whether a unit that does not fit holds back the rest
// of its queue under the queue's policy:
//
//   - Priority: never. A unit that does not fit is skipped and the scan goes on
//     with the next one (schedulingqueuev2 advances its index past it).
//   - Block: always. Koord-Queue marks the unit's quota as blocked when the unit
//     is unschedulable and skips every later unit of that quota until quota is
//     released, a unit is added or deleted, or nothing was scheduled for three
//     minutes; each of those rescans from the head, which is tried first again.
//     Since a queue holds exactly the units of one quota, a head that does not
//     fit blocks the rest of its queue for as long as it does not fit, which is
//     what this cycle-by-cycle model does.
//   - Intelligent: when the unit is in the high-priority part (priority ≥ the
//     threshold). Koord-Queue retries a failed high-priority unit instead of
//     moving on, and tries the low-priority part only when no high-priority unit
//     is left; a low-priority unit that does not fit is skipped like under
//     Priority.
func (c queueConfig) blocksOnFailure(u *QueueUnit) bool {
	switch c.policy {
	case queuev1alpha1.BlockPolicy:
		return true
	case queuev1alpha1.IntelligentPolicy:
		return u.Priority >= c.threshold
	}
	return false
}

// scansDepth reports whether the policy reads the max-depth annotation. 004:
// "The Priority and Block policies read the wait-for-pods-running, preemption
// and scan depth annotations, while the Intelligent policy reads
// koord-queue/priority-threshold only".
func (c queueConfig) scansDepth() bool { return c.policy != queuev1alpha1.IntelligentPolicy }
