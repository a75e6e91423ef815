package v1beta2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations shared with Kueue.
const (
	// QueueNameLabel on a job names its LocalQueue.
	QueueNameLabel = "kueue.x-k8s.io/queue-name"
	// PriorityClassLabel on a job names its WorkloadPriorityClass.
	PriorityClassLabel = "kueue.x-k8s.io/priority-class"
	// DefaultWorkloadPriorityClass is the WorkloadPriorityClass a Job
	// created without PriorityClassLabel gets, when it exists and the
	// WorkloadPriorityClassDefaulting gate is on (Kueue's
	// DefaultWorkloadPriorityClassName).
	DefaultWorkloadPriorityClass = "default"
	// ResourceInUseFinalizerName keeps a Job's Workload until the Job no longer
	// needs it.
	ResourceInUseFinalizerName = "kueue.x-k8s.io/resource-in-use"
	// DefaultPodSetName is the name of a pod set when none is given.
	DefaultPodSetName PodSetReference = "main"
	// MaxExecTimeSecondsLabel on a job sets its Workload's
	// spec.maximumExecutionTimeSeconds (a positive integer).
	MaxExecTimeSecondsLabel = "kueue.x-k8s.io/max-exec-time-seconds"
)

// WorkloadSpec is a unit of admission: one or more sets of identical pods.
// +kubebuilder:validation:XValidation:rule="!has(self.priorityClassRef) || has(self.priority)",message="priority must be set when priorityClassRef is set",fieldPath=".priority"
type WorkloadSpec struct {
	// podSets are the groups of identical pods of the workload, 1 to 8.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="size(self) <= 1 || self.filter(ps, has(ps.minCount)).size() <= 1",message="at most one podSet can use minCount"
	PodSets []PodSet `json:"podSets"`

	// queueName is the LocalQueue, in the workload's namespace, it is submitted to.
	// +optional
	QueueName LocalQueueName `json:"queueName,omitempty"`

	// priorityClassRef names the WorkloadPriorityClass or PriorityClass that gave
	// the workload its priority.
	// +optional
	PriorityClassRef *PriorityClassRef `json:"priorityClassRef,omitempty"`

	// priority orders workloads in a queue; higher first.
	// +optional
	Priority *int32 `json:"priority,omitempty"`

	// active: false keeps the workload from being admitted and evicts it.
	// +optional
	// +kubebuilder:default=true
	Active *bool `json:"active,omitempty"`

	// maximumExecutionTimeSeconds is how long, in seconds, the workload may
	// stay admitted in all: once its time admitted, including
	// status.accumulatedPastExecutionTimeSeconds, reaches it, the workload
	// gets a DeactivationTarget condition, then spec.active=false, and is
	// evicted (reason DeactivatedDueToMaximumExecutionTimeExceeded), as in
	// Kueue.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaximumExecutionTimeSeconds *int32 `json:"maximumExecutionTimeSeconds,omitempty"`
}

// PriorityClassGroup is the API group of a priority class.
// +kubebuilder:validation:Enum=kueue.x-k8s.io;scheduling.k8s.io
type PriorityClassGroup string

// PriorityClassKind is the kind of a priority class.
// +kubebuilder:validation:Enum=WorkloadPriorityClass;PriorityClass
type PriorityClassKind string

const (
	WorkloadPriorityClassGroup PriorityClassGroup = "kueue.x-k8s.io"
	PodPriorityClassGroup      PriorityClassGroup = "scheduling.k8s.io"
	WorkloadPriorityClassKind  PriorityClassKind  = "WorkloadPriorityClass"
	PodPriorityClassKind       PriorityClassKind  = "PriorityClass"
)

// PriorityClassRef names a WorkloadPriorityClass or a pod PriorityClass.
// +kubebuilder:validation:XValidation:rule="self.group == 'scheduling.k8s.io' ? self.kind == 'PriorityClass' : self.kind == 'WorkloadPriorityClass'",message="kind must be PriorityClass for group scheduling.k8s.io and WorkloadPriorityClass for group kueue.x-k8s.io",fieldPath=".kind"
type PriorityClassRef struct {
	// group: kueue.x-k8s.io or scheduling.k8s.io.
	Group PriorityClassGroup `json:"group"`
	// kind: WorkloadPriorityClass or PriorityClass.
	Kind PriorityClassKind `json:"kind"`
	// name of the class: a DNS subdomain, as Kueue requires.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	Name string `json:"name"`
}

// PodSetReference is the name of a pod set.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
type PodSetReference string

// PodSet is a group of identical pods.
// +kubebuilder:validation:XValidation:rule="has(self.minCount) ? self.minCount <= self.count : true", message="minCount should be positive and less or equal to count"
type PodSet struct {
	// name of the pod set, unique in the workload.
	// +kubebuilder:default=main
	// +optional
	Name PodSetReference `json:"name,omitempty"`

	// template is the pod template; its requests (or limits) per container count
	// toward quota, and its nodeSelector, affinity and tolerations decide which
	// flavors it may use.
	Template corev1.PodTemplateSpec `json:"template"`

	// count is the number of pods.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +optional
	Count int32 `json:"count"`

	// minCount is the fewest pods the pod set may be admitted with when all
	// of them do not fit (partial admission, the PartialAdmission feature
	// gate, on by default); unset, the pod set is admitted whole or not at
	// all. At most one pod set of a workload may set it.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinCount *int32 `json:"minCount,omitempty"`
}

// Admission is the result of admitting a workload.
type Admission struct {
	// clusterQueue that admitted the workload.
	ClusterQueue ClusterQueueReference `json:"clusterQueue"`

	// podSetAssignments hold the flavors and usage of each pod set.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	PodSetAssignments []PodSetAssignment `json:"podSetAssignments"`
}

// PodSetAssignment is the admission of one pod set.
type PodSetAssignment struct {
	// name of the pod set.
	// +kubebuilder:default=main
	Name PodSetReference `json:"name"`

	// flavors assigned per resource.
	// +optional
	Flavors map[corev1.ResourceName]ResourceFlavorReference `json:"flavors,omitempty"`

	// resourceUsage is the total of all the pods of the set.
	// +optional
	ResourceUsage corev1.ResourceList `json:"resourceUsage,omitempty"`

	// count of pods taken into account at admission.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Count *int32 `json:"count,omitempty"`
}

// RequeueState tracks back-off of requeued workloads.
type RequeueState struct {
	// count of requeues.
	// +optional
	Count *int32 `json:"count,omitempty"`
	// requeueAt is the earliest time of the next attempt.
	// +optional
	RequeueAt *metav1.Time `json:"requeueAt,omitempty"`
}

// Workload condition types and reasons shared with Kueue.
const (
	WorkloadQuotaReserved = "QuotaReserved"
	WorkloadAdmitted      = "Admitted"
	WorkloadEvicted       = "Evicted"
	WorkloadPreempted     = "Preempted"
	WorkloadRequeued      = "Requeued"
	WorkloadFinished      = "Finished"

	WorkloadEvictedByPreemption          = "Preempted"
	WorkloadEvictedByClusterQueueStopped = "ClusterQueueStopped"
	WorkloadEvictedByLocalQueueStopped   = "LocalQueueStopped"
	// WorkloadDeactivated is the eviction reason of a workload whose
	// spec.active became false; with an underlying cause (the
	// DeactivationTarget condition's reason) it reads
	// "DeactivatedDueTo<cause>".
	WorkloadDeactivated = "Deactivated"

	// WorkloadDeactivationTarget marks a workload that must be deactivated:
	// the core sets spec.active=false and evicts it, naming the condition's
	// reason as the eviction's cause.
	WorkloadDeactivationTarget = "DeactivationTarget"
	// WorkloadMaximumExecutionTimeExceeded is the DeactivationTarget reason
	// of a workload admitted longer than spec.maximumExecutionTimeSeconds.
	WorkloadMaximumExecutionTimeExceeded = "MaximumExecutionTimeExceeded"
	// WorkloadRequeuingLimitExceeded is the DeactivationTarget reason of a
	// workload evicted for PodsReady timeouts more often than
	// waitForPodsReady.requeuingStrategy.backoffLimitCount allows.
	WorkloadRequeuingLimitExceeded = "RequeuingLimitExceeded"

	// WorkloadPodsReady says whether all the workload's pods are ready (or
	// succeeded): a job integration writes it while the workload is admitted.
	WorkloadPodsReady = "PodsReady"
	// PodsReady reasons: waiting for the pods to start, started, one failed
	// after all were ready and waiting for its replacement, recovered.
	WorkloadWaitForStart    = "WaitForStart"
	WorkloadStarted         = "Started"
	WorkloadWaitForRecovery = "WaitForRecovery"
	WorkloadRecovered       = "Recovered"
	// WorkloadEvictedByPodsReadyTimeout is the eviction reason of a workload
	// whose pods were not ready within waitForPodsReady's timeout (or
	// recoveryTimeout); the PodsReady reason is its underlying cause.
	WorkloadEvictedByPodsReadyTimeout = "PodsReadyTimeout"
	// WorkloadWaiting is the QuotaReserved=False reason of a workload that
	// fits and waits, under waitForPodsReady.blockAdmission, for every
	// workload holding quota to have PodsReady=True, while Kueue's
	// UnadmittedWorkloadsObservability gate is off (Kueue v0.19's default;
	// on, the reason is WaitingForPodsReady).
	WorkloadWaiting = "Waiting"
	// WorkloadPending is the QuotaReserved=False reason of every other
	// unadmitted workload while that gate is off.
	WorkloadPending = "Pending"
	// WorkloadInadmissible is, while that gate is off, the QuotaReserved=False
	// reason of a workload whose LocalQueue or ClusterQueue is missing or
	// stopped.
	WorkloadInadmissible = "Inadmissible"

	// QuotaReserved=False reasons while Kueue's UnadmittedWorkloadsObservability
	// gate is on (Kueue's default from v0.20, and Quokka's): one per kind of
	// obstacle, the message giving the details.
	//
	// WorkloadQuotaReservedReasonNoMatchingFlavor: no flavor matches the
	// workload's node selector or tolerations, or provides a resource.
	WorkloadQuotaReservedReasonNoMatchingFlavor = "NoMatchingFlavor"
	// WorkloadQuotaReservedReasonWaitingForQuota: not enough unused quota now.
	WorkloadQuotaReservedReasonWaitingForQuota = "WaitingForQuota"
	// WorkloadQuotaReservedReasonExceedsMaxQuota: more than the ClusterQueue
	// could ever get (nominal quota plus borrowing limit, or its cohort's).
	WorkloadQuotaReservedReasonExceedsMaxQuota = "ExceedsMaxQuota"
	// WorkloadQuotaReservedReasonWaitingForPreemptedWorkloads: the workload
	// preempted others and waits for them to release their quota.
	WorkloadQuotaReservedReasonWaitingForPreemptedWorkloads = "WaitingForPreemptedWorkloads"
	// WorkloadQuotaReservedReasonMisconfigured: its LocalQueue or ClusterQueue
	// is missing, or the ClusterQueue does not select its namespace.
	WorkloadQuotaReservedReasonMisconfigured = "Misconfigured"
	// WorkloadQuotaReservedReasonSuspended: its LocalQueue or ClusterQueue is
	// stopped or inactive.
	WorkloadQuotaReservedReasonSuspended = "Suspended"
	// WorkloadQuotaReservedReasonPendingEvaluation: waiting for the scheduler
	// to look at it (after an eviction, for instance).
	WorkloadQuotaReservedReasonPendingEvaluation = "PendingEvaluation"
	// WorkloadQuotaReservedReasonWaitingForPodsReady: WorkloadWaiting's
	// counterpart while the gate is on.
	WorkloadQuotaReservedReasonWaitingForPodsReady = "WaitingForPodsReady"
	// WorkloadAdmittedReasonNoReservation is the Admitted=False reason of a
	// workload without a quota reservation.
	WorkloadAdmittedReasonNoReservation = "NoReservation"

	InClusterQueueReason                = "InClusterQueue"
	InCohortReclamationReason           = "InCohortReclamation"
	InCohortFairSharingReason           = "InCohortFairSharing"
	InCohortReclaimWhileBorrowingReason = "InCohortReclaimWhileBorrowing"
)

// Kueue's root rule on reclaimable pods is asked on the status node, since
// it reads only the status (see Workload's rules).
// +kubebuilder:validation:XValidation:rule="!oldSelf.?reclaimablePods.hasValue() || oldSelf.reclaimablePods.all(o, has(self.reclaimablePods) && self.reclaimablePods.exists(n, n.name == o.name && n.count >= o.count)) || !((oldSelf.?conditions.hasValue() && oldSelf.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (self.?conditions.hasValue() && self.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')))",message="status.reclaimablePods may not decrease or lose an entry while the workload holds quota",fieldPath=".reclaimablePods"

// WorkloadStatus is the observed state of a Workload.
type WorkloadStatus struct {
	// conditions: QuotaReserved, Admitted, Evicted, Preempted, Requeued, Finished.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// admission holds the ClusterQueue and flavors once quota is reserved.
	// +optional
	Admission *Admission `json:"admission,omitempty"`

	// requeueState tracks back-off after evictions.
	// +optional
	RequeueState *RequeueState `json:"requeueState,omitempty"`

	// accumulatedPastExecutionTimeSeconds is the time, in seconds, the
	// workload spent admitted in its previous admit-evict cycles: added to
	// when an eviction clears the admission, cleared when the maximum
	// execution time is exceeded, and counted against
	// spec.maximumExecutionTimeSeconds.
	// +optional
	AccumulatedPastExecutionTimeSeconds *int32 `json:"accumulatedPastExecutionTimeSeconds,omitempty"`

	// schedulingStats counts the workload's evictions, per reason and
	// underlying cause; written by Kueue's workload library beside the
	// field above, kept and not read by Quokka.
	// +optional
	SchedulingStats *SchedulingStats `json:"schedulingStats,omitempty"`

	// resourceRequests is what each pod set of a workload that is not
	// admitted counts as against quota, once the manager's resources block
	// (excluded prefixes, transformations) is applied; written with its
	// pending reason, cleared on admission, where admission.resourceUsage
	// says the same.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	ResourceRequests []PodSetRequest `json:"resourceRequests,omitempty"`

	// reclaimablePods counts, per pod set, the pods whose quota is no longer
	// needed (they finished for good): Kueue's ReclaimablePods. A pending
	// workload asks for its pods less these; an admitted one holds its
	// admission scaled down to them (never above what it was admitted
	// with). Written by the job integrations; each name must be a pod set
	// of spec.podSets with a count no higher than its count, and while the
	// workload holds quota no count may go down and no entry may go away.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	ReclaimablePods []ReclaimablePod `json:"reclaimablePods,omitempty"`
}

// ReclaimablePod is how many pods of a pod set no longer need their quota.
type ReclaimablePod struct {
	// name is the pod set's name in spec.podSets.
	// +required
	Name PodSetReference `json:"name"`
	// count is the number of pods whose requests are no longer needed.
	// +required
	// +kubebuilder:validation:Minimum=0
	Count int32 `json:"count"`
}

// PodSetRequest is what one pod set counts as against quota.
type PodSetRequest struct {
	// name is the pod set's name in spec.podSets.
	// +kubebuilder:default=main
	// +required
	Name PodSetReference `json:"name"`
	// resources are the requests of all the pod set's pods together.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
}

// SchedulingStats are a workload's scheduling statistics.
type SchedulingStats struct {
	// evictions counts evictions by reason and underlying cause.
	// +optional
	// +listType=map
	// +listMapKey=reason
	// +listMapKey=underlyingCause
	// +kubebuilder:validation:MaxItems=256
	Evictions []WorkloadSchedulingStatsEviction `json:"evictions,omitempty"`
}

// WorkloadSchedulingStatsEviction counts the evictions of one reason and
// underlying cause.
type WorkloadSchedulingStatsEviction struct {
	// reason is the eviction's reason, such as Preempted.
	// +required
	// +kubebuilder:validation:MaxLength=316
	Reason string `json:"reason"`

	// underlyingCause refines the reason; it may be empty.
	// +required
	// +kubebuilder:validation:MaxLength=316
	UnderlyingCause string `json:"underlyingCause"`

	// count is how many evictions had this reason and cause.
	// +required
	// +kubebuilder:validation:Minimum=0
	Count int32 `json:"count"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName={wl}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Queue",JSONPath=".spec.queueName",type=string
// +kubebuilder:printcolumn:name="Reserved in",JSONPath=".status.admission.clusterQueue",type=string
// +kubebuilder:printcolumn:name="Admitted",JSONPath=".status.conditions[?(@.type=='Admitted')].status",type=string
// +kubebuilder:printcolumn:name="Finished",JSONPath=".status.conditions[?(@.type=='Finished')].status",type=string
// +kubebuilder:printcolumn:name="Age",JSONPath=".metadata.creationTimestamp",type=date
//
// The rules below refuse what Kueue's rules and webhook refuse, worded for
// what the API server charges. It runs every root rule on every write, status
// writes included, and each field a rule reads costs a fresh copy of the
// schema of the object it is read from (about 2 KB for the root, spec or
// status), has() as much as the read. So each rule asks first what is cheap
// and nearly always settles it (did this field change?), then whether quota
// is reserved; optional reads (a.?b) stand for has() chains where the API
// server's cost estimate allows them (not on strings, nor on lists a rule
// walks), one read where a guarded access made two or three; and the rule
// that reads only the status sits on the status node, where its reads start.
// The pod sets' and queue name's rules first ask whether the number of
// conditions changed, and if so pass (for the pod sets, the costliest
// question: the API server walks both pod templates): only a status write can
// change it, the API server keeping the old status on any other write, and a
// status write keeps the old spec, so nothing in it changed.
// BenchmarkWorkloadRootRules measures them against Kueue's order (README,
// "Against Kueue").
// +kubebuilder:validation:XValidation:rule="oldSelf.spec.?maximumExecutionTimeSeconds.orValue(0) == self.spec.?maximumExecutionTimeSeconds.orValue(0) || !((oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')) && (self.?status.?conditions.hasValue() && self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')))",message="maximumExecutionTimeSeconds is immutable while workload quota reserved"
// +kubebuilder:validation:XValidation:rule="self.?status.?conditions.orValue([]).size() != oldSelf.?status.?conditions.orValue([]).size() || !(oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) || oldSelf.spec.podSets == self.spec.podSets",message="podSets are immutable while workload quota reserved",fieldPath=".spec.podSets"
// +kubebuilder:validation:XValidation:rule="self.?status.?conditions.orValue([]).size() != oldSelf.?status.?conditions.orValue([]).size() || !has(oldSelf.spec.queueName) || !has(self.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName || !((oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) && (self.?status.?conditions.hasValue() && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')))",message="queueName is immutable while workload quota reserved",fieldPath=".spec.queueName"
// +kubebuilder:validation:XValidation:rule="self.?status.?admission.?podSetAssignments.optMap(a, size(a) == size(self.spec.podSets)).orValue(true) || !(self.?status.?conditions.hasValue() && self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))",message="podSetAssignments must have the same number of podSets as the spec",fieldPath=".status.admission.podSetAssignments"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.spec.priorityClassRef) == has(self.spec.priorityClassRef) || !(oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))",message="priorityClassRef is immutable while workload quota reserved",fieldPath=".spec.priorityClassRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.priorityClassRef) || !has(self.spec.priorityClassRef) || (oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group && oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind) || !(oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))",message="priorityClassRef.group and priorityClassRef.kind are immutable while workload quota reserved",fieldPath=".spec.priorityClassRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.priorityClassRef) || !has(self.spec.priorityClassRef) || self.spec.priorityClassRef.group != 'scheduling.k8s.io' || oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name || !(oldSelf.?status.?conditions.hasValue() && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))",message="priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while workload quota reserved",fieldPath=".spec.priorityClassRef.name"
// +kubebuilder:validation:XValidation:rule="!self.?status.?reclaimablePods.hasValue() || self.status.reclaimablePods.all(r, self.spec.podSets.exists(ps, ps.name == r.name && r.count <= ps.count))",message="each of status.reclaimablePods must name a pod set of spec.podSets and count no more pods than it has",fieldPath=".status.reclaimablePods"

// Workload is the unit of admission: a job's pods and their requests.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec WorkloadSpec `json:"spec,omitempty"`
	// +optional
	Status WorkloadStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// WorkloadList is a list of Workloads.
type WorkloadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Workload `json:"items"`
}
