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

const (
	Enqueued     QueueUnitPhase = "Enqueued"
	Dequeued     QueueUnitPhase = "Dequeued"
	Running      QueueUnitPhase = "Running"
	Succeed      QueueUnitPhase = "Succeed"
	Failed       QueueUnitPhase = "Failed"
	Backoff      QueueUnitPhase = "Backoff"
	SchedReady   QueueUnitPhase = "SchedReady"
	SchedSucceed QueueUnitPhase = "SchedSucceed"
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
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

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
