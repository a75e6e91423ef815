package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterQueueReference is the name of a ClusterQueue.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
type ClusterQueueReference string

// CohortReference is the name of a Cohort.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
type CohortReference string

// QueueingStrategy orders the pending workloads of a ClusterQueue.
type QueueingStrategy string

const (
	// StrictFIFO: a head that does not fit blocks the workloads behind it.
	StrictFIFO QueueingStrategy = "StrictFIFO"
	// BestEffortFIFO: newer workloads that fit may go ahead of an older one that does not.
	BestEffortFIFO QueueingStrategy = "BestEffortFIFO"
)

// ClusterQueueSpec is the quota and policy of a ClusterQueue.
// +kubebuilder:validation:XValidation:rule="has(self.cohortName) && size(self.cohortName) > 0 || !has(self.resourceGroups) || self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit))))",message="resourceGroups: borrowingLimit must be unset when cohortName is empty",fieldPath=".resourceGroups"
type ClusterQueueSpec struct {
	// resourceGroups lists the quotas of the queue.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(g1, self.filter(g2, g2.coveredResources.exists(r, r in g1.coveredResources)).size() == 1)",message="a resource may be covered by only one resource group"
	// +kubebuilder:validation:XValidation:rule="self.all(g1, g1.flavors.all(f, self.filter(g2, g2.flavors.exists(f2, f2.name == f.name)).size() == 1))",message="a flavor may appear in only one resource group"
	// +kubebuilder:validation:XValidation:rule="self.all(g, g.flavors.all(f, f.resources.all(r, !has(r.lendingLimit) || quantity(string(r.lendingLimit)).compareTo(quantity(string(r.nominalQuota))) <= 0)))",message="lendingLimit must be less than or equal to nominalQuota",reason=FieldValueInvalid
	// +optional
	ResourceGroups []ResourceGroup `json:"resourceGroups,omitempty"`

	// cohortName is the Cohort this queue belongs to; queues of a cohort borrow
	// each other's unused quota.
	// +optional
	CohortName CohortReference `json:"cohortName,omitempty"`

	// queueingStrategy is StrictFIFO or BestEffortFIFO (the default).
	// +optional
	// +kubebuilder:default=BestEffortFIFO
	// +kubebuilder:validation:Enum=StrictFIFO;BestEffortFIFO
	QueueingStrategy QueueingStrategy `json:"queueingStrategy,omitempty"`

	// namespaceSelector selects the namespaces whose LocalQueues may submit to
	// this queue. Unset selects no namespace; {} selects all.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// flavorFungibility decides whether to try the next flavor before borrowing or
	// preempting in the current one.
	// +optional
	// +kubebuilder:default={}
	FlavorFungibility *FlavorFungibility `json:"flavorFungibility,omitempty"`

	// preemption holds the preemption policies.
	// +optional
	// +kubebuilder:default={}
	Preemption *ClusterQueuePreemption `json:"preemption,omitempty"`

	// admissionChecksStrategy is accepted for compatibility with Kueue manifests;
	// Quokka does not run admission checks and rejects a non-empty list.
	// +optional
	AdmissionChecksStrategy *AdmissionChecksStrategy `json:"admissionChecksStrategy,omitempty"`

	// stopPolicy: None (default), Hold (no new admissions) or HoldAndDrain (also
	// evict admitted workloads).
	// +optional
	// +kubebuilder:default=None
	StopPolicy *StopPolicy `json:"stopPolicy,omitempty"`

	// fairSharing holds the queue's weight in fair sharing.
	// +optional
	FairSharing *FairSharing `json:"fairSharing,omitempty"`

	// admissionScope turns on admission fair sharing between the LocalQueues of
	// this ClusterQueue.
	// +optional
	AdmissionScope *AdmissionScope `json:"admissionScope,omitempty"`
}

// AdmissionChecksStrategy is Kueue's list of admission checks per flavor.
type AdmissionChecksStrategy struct {
	// admissionChecks must be empty: Quokka does not implement admission checks.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=0
	// +optional
	AdmissionChecks []AdmissionCheckStrategyRule `json:"admissionChecks,omitempty"`
}

// AdmissionCheckStrategyRule names an admission check and its flavors.
type AdmissionCheckStrategyRule struct {
	// name of the AdmissionCheck.
	Name string `json:"name"`
	// onFlavors lists the flavors the check applies to.
	// +optional
	// +listType=set
	OnFlavors []ResourceFlavorReference `json:"onFlavors,omitempty"`
}

// AdmissionMode selects how a ClusterQueue orders workloads of different LocalQueues.
// +kubebuilder:validation:Enum=UsageBasedAdmissionFairSharing;NoAdmissionFairSharing
type AdmissionMode string

const (
	// UsageBasedAdmissionFairSharing orders by the decayed usage of each LocalQueue.
	UsageBasedAdmissionFairSharing AdmissionMode = "UsageBasedAdmissionFairSharing"
	// NoAdmissionFairSharing keeps the plain queueing order.
	NoAdmissionFairSharing AdmissionMode = "NoAdmissionFairSharing"
)

// AdmissionScope configures admission fair sharing.
type AdmissionScope struct {
	// admissionMode is UsageBasedAdmissionFairSharing or NoAdmissionFairSharing.
	AdmissionMode AdmissionMode `json:"admissionMode"`
}

// FlavorFungibilityPolicy is MayStopSearch or TryNextFlavor.
// +kubebuilder:validation:Enum=MayStopSearch;TryNextFlavor
type FlavorFungibilityPolicy string

const (
	// MayStopSearch stops at the first flavor that fits (by borrowing or preemption).
	MayStopSearch FlavorFungibilityPolicy = "MayStopSearch"
	// TryNextFlavor prefers a later flavor that fits without borrowing or preemption.
	TryNextFlavor FlavorFungibilityPolicy = "TryNextFlavor"
)

// FlavorFungibility decides whether to try the next flavor before borrowing or
// preempting in the flavor being evaluated.
type FlavorFungibility struct {
	// whenCanBorrow: MayStopSearch (default) or TryNextFlavor.
	// +optional
	// +kubebuilder:default=MayStopSearch
	WhenCanBorrow FlavorFungibilityPolicy `json:"whenCanBorrow,omitempty"`
	// whenCanPreempt: TryNextFlavor (default) or MayStopSearch.
	// +optional
	// +kubebuilder:default=TryNextFlavor
	WhenCanPreempt FlavorFungibilityPolicy `json:"whenCanPreempt,omitempty"`
	// preference chooses between flavors when every candidate needs borrowing,
	// preemption or both: BorrowingOverPreemption (the behaviour when unset)
	// prefers the better preemption mode (fit, then reclaim, then preemption
	// within the ClusterQueue) and then the lower borrowing level;
	// PreemptionOverBorrowing prefers the lower borrowing level first.
	// +optional
	Preference *FlavorFungibilityPreference `json:"preference,omitempty"`
}

// FlavorFungibilityPreference is BorrowingOverPreemption or PreemptionOverBorrowing.
// +kubebuilder:validation:Enum=BorrowingOverPreemption;PreemptionOverBorrowing
type FlavorFungibilityPreference string

const (
	// BorrowingOverPreemption prefers a flavor that fits by borrowing over one
	// that needs preemption.
	BorrowingOverPreemption FlavorFungibilityPreference = "BorrowingOverPreemption"
	// PreemptionOverBorrowing prefers a flavor that borrows less, even if it
	// needs preemption.
	PreemptionOverBorrowing FlavorFungibilityPreference = "PreemptionOverBorrowing"
)

// PreemptionPolicy is one of Never, LowerPriority, LowerOrNewerEqualPriority, Any.
type PreemptionPolicy string

const (
	PreemptionPolicyNever                     PreemptionPolicy = "Never"
	PreemptionPolicyAny                       PreemptionPolicy = "Any"
	PreemptionPolicyLowerPriority             PreemptionPolicy = "LowerPriority"
	PreemptionPolicyLowerOrNewerEqualPriority PreemptionPolicy = "LowerOrNewerEqualPriority"
)

// ClusterQueuePreemption holds the preemption policies of a ClusterQueue.
// +kubebuilder:validation:XValidation:rule="!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) && self.borrowWithinCohort.policy != 'Never')",message="borrowWithinCohort.policy must be Never when reclaimWithinCohort is Never",fieldPath=".borrowWithinCohort.policy"
type ClusterQueuePreemption struct {
	// reclaimWithinCohort: Never (default), LowerPriority or Any.
	// +optional
	// +kubebuilder:default=Never
	// +kubebuilder:validation:Enum=Never;LowerPriority;Any
	ReclaimWithinCohort PreemptionPolicy `json:"reclaimWithinCohort,omitempty"`

	// borrowWithinCohort allows preemption while borrowing (classic preemption only).
	// +optional
	// +kubebuilder:default={}
	BorrowWithinCohort *BorrowWithinCohort `json:"borrowWithinCohort,omitempty"`

	// withinClusterQueue: Never (default), LowerPriority or LowerOrNewerEqualPriority.
	// +optional
	// +kubebuilder:default=Never
	// +kubebuilder:validation:Enum=Never;LowerPriority;LowerOrNewerEqualPriority
	WithinClusterQueue PreemptionPolicy `json:"withinClusterQueue,omitempty"`
}

// BorrowWithinCohortPolicy is Never or LowerPriority.
// +kubebuilder:validation:Enum=Never;LowerPriority
type BorrowWithinCohortPolicy string

const (
	BorrowWithinCohortPolicyNever         BorrowWithinCohortPolicy = "Never"
	BorrowWithinCohortPolicyLowerPriority BorrowWithinCohortPolicy = "LowerPriority"
)

// BorrowWithinCohort allows a borrowing workload to preempt in the cohort.
type BorrowWithinCohort struct {
	// policy: Never (default) or LowerPriority.
	// +optional
	// +kubebuilder:default=Never
	Policy BorrowWithinCohortPolicy `json:"policy,omitempty"`
	// maxPriorityThreshold: only workloads at or below this priority may be preempted.
	// +optional
	MaxPriorityThreshold *int32 `json:"maxPriorityThreshold,omitempty"`
}

// ClusterQueue condition types and reasons.
const (
	ClusterQueueActive = "Active"

	ClusterQueueActiveReasonReady          = "Ready"
	ClusterQueueActiveReasonStopped        = "Stopped"
	ClusterQueueActiveReasonFlavorNotFound = "FlavorNotFound"
	ClusterQueueActiveReasonCohortCycle    = "CohortCycle"
	ClusterQueueActiveReasonTerminating    = "Terminating"
)

// ClusterQueueStatus is the observed state of a ClusterQueue.
type ClusterQueueStatus struct {
	// conditions: Active.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// flavorsReservation is the quota reserved by workloads, per flavor.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	FlavorsReservation []FlavorUsage `json:"flavorsReservation,omitempty"`

	// flavorsUsage is the quota used by admitted workloads, per flavor.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	FlavorsUsage []FlavorUsage `json:"flavorsUsage,omitempty"`

	// pendingWorkloads counts workloads waiting for admission.
	// +optional
	PendingWorkloads int32 `json:"pendingWorkloads"`

	// reservingWorkloads counts workloads holding a quota reservation.
	// +optional
	ReservingWorkloads int32 `json:"reservingWorkloads"`

	// admittedWorkloads counts admitted workloads that have not finished.
	// +optional
	AdmittedWorkloads int32 `json:"admittedWorkloads"`

	// fairSharing reports the queue's weighted share when fair sharing is on.
	// +optional
	FairSharing *FairSharingStatus `json:"fairSharing,omitempty"`

	// effectiveQuotas, when set and the DynamicQuotaOrchestration gate is on,
	// replace spec.resourceGroups.
	// +optional
	EffectiveQuotas *EffectiveQuotas `json:"effectiveQuotas,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName={cq}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cohort",JSONPath=".spec.cohortName",type=string,description="Cohort of this ClusterQueue"
// +kubebuilder:printcolumn:name="Strategy",JSONPath=".spec.queueingStrategy",type=string,priority=1
// +kubebuilder:printcolumn:name="Pending Workloads",JSONPath=".status.pendingWorkloads",type=integer
// +kubebuilder:printcolumn:name="Admitted Workloads",JSONPath=".status.admittedWorkloads",type=integer,priority=1

// ClusterQueue governs a pool of quota shared by the LocalQueues that point to it.
type ClusterQueue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ClusterQueueSpec `json:"spec,omitempty"`
	// +optional
	Status ClusterQueueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterQueueList is a list of ClusterQueues.
type ClusterQueueList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterQueue `json:"items"`
}
