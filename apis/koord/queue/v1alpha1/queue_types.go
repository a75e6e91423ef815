package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Names shared with Koord-Queue.
const (
	// QueuePolicyLabel on an ElasticQuota sets the policy of its Queue.
	QueuePolicyLabel = "koord-queue/queue-policy"
	// SyncedAnnotationPrefix: ElasticQuota annotations with this prefix are copied
	// onto the Queue (except the policy key).
	SyncedAnnotationPrefix = "koord-queue/"
	// DefaultQueueNamespace is where Queue objects live.
	DefaultQueueNamespace = "koord-queue"
	// DefaultQueuePriority is the spec.priority of a Queue created for a quota.
	DefaultQueuePriority int32 = 1000
)

// QueuePolicy is how a Queue dequeues its units.
// +kubebuilder:validation:Enum=Priority;Block;Round;Intelligent;FIFO
type QueuePolicy string

const (
	PriorityPolicy    QueuePolicy = "Priority"
	BlockPolicy       QueuePolicy = "Block"
	RoundPolicy       QueuePolicy = "Round"
	IntelligentPolicy QueuePolicy = "Intelligent"
	FIFOPolicy        QueuePolicy = "FIFO"
)

// QueueSpec is a Koord-Queue queue.
type QueueSpec struct {
	// priority of the queue.
	// +optional
	Priority *int32 `json:"priority,omitempty"`
	// queuePolicy: Priority, Block, Round, Intelligent (FIFO is accepted by the
	// schema but not registered by the queue factory).
	// +optional
	QueuePolicy QueuePolicy `json:"queuePolicy,omitempty"`
}

// QueueStatus is the observed state of a Queue.
type QueueStatus struct {
	// queueItemDetails lists the units in the queue, per state.
	// +optional
	QueueItemDetails map[string][]QueueItemDetail `json:"queueItemDetails,omitempty"`
}

// QueueItemDetail names one unit in a queue.
type QueueItemDetail struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// +optional
	Priority int32 `json:"priority,omitempty"`
	// +optional
	Position int32 `json:"position,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Queue is a Koord-Queue queue, kept in sync with its ElasticQuota.
type Queue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec QueueSpec `json:"spec,omitempty"`
	// +optional
	Status QueueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// QueueList is a list of Queues.
type QueueList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Queue `json:"items"`
}

// QueueUnitPhase is the state of a QueueUnit.
type QueueUnitPhase string

// The phases Koord-Queue writes (pkg/apis/scheduling/v1alpha1). Quokka writes
// Enqueued, Dequeued, Running, Succeed and Failed; the others are accepted so that
// units written by Koord-Queue itself still load.
const (
	Enqueued     QueueUnitPhase = "Enqueued"
	Reserved     QueueUnitPhase = "Reserved"
	Dequeued     QueueUnitPhase = "Dequeued"
	Running      QueueUnitPhase = "Running"
	Succeed      QueueUnitPhase = "Succeed"
	Failed       QueueUnitPhase = "Failed"
	SchedReady   QueueUnitPhase = "SchedReady"
	SchedSucceed QueueUnitPhase = "SchedSucceed"
	SchedFailed  QueueUnitPhase = "SchedFailed"
	Backoff      QueueUnitPhase = "TimeoutBackoff"
)

// QueueUnitSpec is the queueing view of one job.
type QueueUnitSpec struct {
	// consumerRef points at the job.
	// +optional
	ConsumerRef *corev1.ObjectReference `json:"consumerRef,omitempty"`
	// priority of the unit.
	// +optional
	Priority *int32 `json:"priority,omitempty"`
	// queue is left empty for units created by a job extension: the plugin
	// resolves the queue from the quota label.
	// +optional
	Queue string `json:"queue,omitempty"`
	// resource is the total request of the job.
	// +optional
	Resource corev1.ResourceList `json:"resource,omitempty"`
	// podSet describes the pods of the job.
	// +optional
	// +listType=atomic
	PodSet []PodSet `json:"podSet,omitempty"`
	// priorityClassName is the PriorityClass the job's pod template names.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// request is the job's total request; Koord-Queue's job extension writes
	// the same list as resource.
	// +optional
	Request corev1.ResourceList `json:"request,omitempty"`
}

// PodSet is a group of identical pods of a QueueUnit.
type PodSet struct {
	Name string `json:"name"`
	// +optional
	Count int32 `json:"count"`
	// +optional
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
}

// QueueUnitStatus is the observed state of a QueueUnit.
type QueueUnitStatus struct {
	// +optional
	Phase QueueUnitPhase `json:"phase,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	LastUpdateTime *metav1.Time `json:"lastUpdateTime,omitempty"`
	// attempts counts the scheduling attempts of the unit.
	// +optional
	Attempts int64 `json:"attempts,omitempty"`
	// podState counts the unit's pods that run and that wait.
	// +optional
	PodState PodState `json:"podState,omitempty"`
	// admissions is what the unit was admitted with, per pod set.
	// +optional
	// +listType=map
	// +listMapKey=name
	Admissions []Admission `json:"admissions,omitempty"`
	// lastAllocateTime is when the unit was last dequeued.
	// +optional
	LastAllocateTime *metav1.Time `json:"lastAllocateTime,omitempty"`
}

// Admission is what one pod set of a unit was admitted with.
type Admission struct {
	Name string `json:"name"`
	// replicas admitted.
	Replicas int64 `json:"replicas"`
	// resources per replica.
	// +optional
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// running counts the replicas whose pods run.
	// +optional
	Running int64 `json:"running"`
	// reclaimState is set on a victim of queue-level preemption: replicas is
	// how many of its replicas are to be given back.
	// +optional
	ReclaimState *ReclaimState `json:"reclaimState,omitempty"`
}

// ReclaimState marks replicas of an admission to be reclaimed.
type ReclaimState struct {
	Replicas int64 `json:"replicas"`
}

// PodState counts a unit's pods.
type PodState struct {
	// +optional
	Running int `json:"running,omitempty"`
	// +optional
	Pending int `json:"pending,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName={qu,qus}
// +kubebuilder:printcolumn:JSONPath=.status.phase,name=PHASE,type=string
// +kubebuilder:printcolumn:JSONPath=.spec.priority,name=PRIORITY,type=integer
// +kubebuilder:printcolumn:JSONPath=.spec.consumerRef.kind,name=JOBTYPE,type=string

// QueueUnit is Koord-Queue's queueing record of a job.
type QueueUnit struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec QueueUnitSpec `json:"spec,omitempty"`
	// +optional
	Status QueueUnitStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// QueueUnitList is a list of QueueUnits.
type QueueUnitList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []QueueUnit `json:"items"`
}
