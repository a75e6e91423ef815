package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PreemptionConfigNameAnnotation, on a ClusterQueue, names the PreemptionConfig
// whose rules add candidates to that queue's preemptions. As in Kueue's KEP-13396
// (Alpha), the reference is an annotation, not a field of ClusterQueueSpec, and
// spec.preemption keeps its meaning: the candidates of both are merged.
const PreemptionConfigNameAnnotation = "kueue.x-k8s.io/preemption-config-name"

// NumericComparison compares a candidate's value to the preemptor's.
// +kubebuilder:validation:Enum=LessThan;GreaterThan;LessThanOrEqual;GreaterThanOrEqual
type NumericComparison string

const (
	LessThan           NumericComparison = "LessThan"
	GreaterThan        NumericComparison = "GreaterThan"
	LessThanOrEqual    NumericComparison = "LessThanOrEqual"
	GreaterThanOrEqual NumericComparison = "GreaterThanOrEqual"
)

// ActivationTrigger is when a rule contributes candidates.
// +kubebuilder:validation:Enum=Always;InsufficientQuota;QuotaFeasibleAndInsufficientTopology
type ActivationTrigger string

const (
	// Always contributes matching candidates unconditionally.
	Always ActivationTrigger = "Always"
	// InsufficientQuota contributes only if baseline candidates do not free enough quota.
	InsufficientQuota ActivationTrigger = "InsufficientQuota"
	// QuotaFeasibleAndInsufficientTopology contributes only when quota is feasible
	// but no flavor assignment satisfies the topology.
	QuotaFeasibleAndInsufficientTopology ActivationTrigger = "QuotaFeasibleAndInsufficientTopology"
)

// QueueScope is the queue or cohort relation of candidates to the preemptor.
// +kubebuilder:validation:Enum=WithinLocalQueue;WithinClusterQueue;WithinParentCohort;WithinCohortTree;AnyClusterQueue
type QueueScope string

const (
	WithinLocalQueue   QueueScope = "WithinLocalQueue"
	WithinClusterQueue QueueScope = "WithinClusterQueue"
	WithinParentCohort QueueScope = "WithinParentCohort"
	WithinCohortTree   QueueScope = "WithinCohortTree"
	AnyClusterQueue    QueueScope = "AnyClusterQueue"
)

// PriorityMode is whether priorities are compared as base or boosted values.
// +kubebuilder:validation:Enum=Base;Boosted
type PriorityMode string

const (
	BasePriority    PriorityMode = "Base"
	BoostedPriority PriorityMode = "Boosted"
)

// PreemptionConfigSpec defines the preemption rules of the PreemptionConfig.
type PreemptionConfigSpec struct {
	// rules specifies preemption candidate selection rules.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Rules []PreemptionRule `json:"rules,omitempty"`
}

// PreemptionRule is one rule: who may preempt, when, and whom.
type PreemptionRule struct {
	// name is the identifier of the preemption rule.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	Name string `json:"name"`

	// preemptorSelector selects the workloads that may preempt with this rule.
	// Accepts all workloads if not set.
	// +optional
	PreemptorSelector *metav1.LabelSelector `json:"preemptorSelector,omitempty"`

	// activationPolicy determines when this rule contributes matching candidates.
	ActivationPolicy ActivationPolicy `json:"activationPolicy"`

	// candidateSelectors select the workloads that are candidates for preemption;
	// their results are summed. No selectors disallow preemption with this rule.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	CandidateSelectors []CandidateSelector `json:"candidateSelectors,omitempty"`
}

// ActivationPolicy holds the trigger of a rule.
type ActivationPolicy struct {
	// trigger specifies the prerequisite for contributing candidates.
	Trigger ActivationTrigger `json:"trigger"`
}

// CandidateSelector selects preemption candidates.
type CandidateSelector struct {
	// scope specifies the queue or cohort relation of candidates to the preemptor.
	Scope QueueScope `json:"scope"`

	// clusterQueueSelector selects candidate ClusterQueues. Accepts all if not set.
	// +optional
	ClusterQueueSelector *metav1.LabelSelector `json:"clusterQueueSelector,omitempty"`

	// labelSelector selects candidate Workloads. Accepts all if not set.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// numericLabels filter candidates by integer labels, all of which must hold.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	NumericLabels []NumericLabelConstraint `json:"numericLabels,omitempty"`

	// priority defines the requirements for the priority of candidates. If nil, no
	// priority requirements are enforced.
	// +optional
	Priority *PriorityConstraint `json:"priority,omitempty"`
}

// NumericLabelConstraint filters candidates by an integer label.
// +kubebuilder:validation:XValidation:rule="!has(self.minValue) || !has(self.maxValue) || self.minValue <= self.maxValue",message="minValue must be less than or equal to maxValue",fieldPath=".minValue"
type NumericLabelConstraint struct {
	// key is the label key that stores the integer value.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Key string `json:"key"`

	// fallbackValue is used when the label is missing or not an integer. If not
	// specified, such workloads are incomparable and excluded from candidates.
	// +optional
	FallbackValue *int32 `json:"fallbackValue,omitempty"`

	// comparison defines how the candidate's label value compares to the preemptor's.
	// +optional
	Comparison *NumericComparison `json:"comparison,omitempty"`

	// minValue is the lowest label value a candidate can have.
	// +optional
	MinValue *int32 `json:"minValue,omitempty"`

	// maxValue is the highest label value a candidate can have.
	// +optional
	MaxValue *int32 `json:"maxValue,omitempty"`
}

// PriorityConstraint compares a candidate's priority to the preemptor's.
type PriorityConstraint struct {
	// mode specifies whether priority comparison uses base or boosted priority.
	// +kubebuilder:default=Base
	// +optional
	Mode PriorityMode `json:"mode,omitempty"`

	// comparison defines how the candidate's priority compares to the preemptor's.
	Comparison NumericComparison `json:"comparison"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster

// PreemptionConfig holds rules that widen the candidates of preemption.
type PreemptionConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the preemption rules of the PreemptionConfig.
	// +optional
	Spec PreemptionConfigSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// PreemptionConfigList is a list of PreemptionConfigs.
type PreemptionConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PreemptionConfig `json:"items"`
}
