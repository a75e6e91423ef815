package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LocalQueueName is the name of a LocalQueue.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
type LocalQueueName string

// LocalQueueSpec points a namespace's queue at a ClusterQueue.
type LocalQueueSpec struct {
	// clusterQueue is the ClusterQueue that admits this queue's workloads.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterQueue is immutable"
	ClusterQueue ClusterQueueReference `json:"clusterQueue,omitempty"`

	// stopPolicy: None (default), Hold or HoldAndDrain, as on a ClusterQueue.
	// +optional
	// +kubebuilder:default=None
	StopPolicy *StopPolicy `json:"stopPolicy,omitempty"`

	// fairSharing holds the queue's weight in admission fair sharing.
	// +optional
	FairSharing *FairSharing `json:"fairSharing,omitempty"`
}

// LocalQueueStatus is the observed state of a LocalQueue.
type LocalQueueStatus struct {
	// conditions: Active.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// pendingWorkloads counts workloads waiting for admission.
	// +optional
	PendingWorkloads int32 `json:"pendingWorkloads"`

	// reservingWorkloads counts workloads holding a reservation.
	// +optional
	ReservingWorkloads int32 `json:"reservingWorkloads"`

	// admittedWorkloads counts admitted workloads.
	// +optional
	AdmittedWorkloads int32 `json:"admittedWorkloads"`

	// flavorsReservation is the quota reserved by this queue's workloads.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	FlavorsReservation []FlavorUsage `json:"flavorsReservation,omitempty"`

	// flavorsUsage is the quota used by this queue's admitted workloads.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	FlavorsUsage []FlavorUsage `json:"flavorsUsage,omitempty"`

	// fairSharing reports admission fair sharing state.
	// +optional
	FairSharing *FairSharingStatus `json:"fairSharing,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName={queue,queues,lq}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ClusterQueue",JSONPath=".spec.clusterQueue",type=string
// +kubebuilder:printcolumn:name="Pending Workloads",JSONPath=".status.pendingWorkloads",type=integer
// +kubebuilder:printcolumn:name="Admitted Workloads",JSONPath=".status.admittedWorkloads",type=integer

// LocalQueue is a namespace's entry point to a ClusterQueue.
type LocalQueue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec LocalQueueSpec `json:"spec,omitempty"`
	// +optional
	Status LocalQueueStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// LocalQueueList is a list of LocalQueues.
type LocalQueueList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []LocalQueue `json:"items"`
}
