package v1beta2

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

// Configuration is the manager's configuration file. Only the fields below are
// accepted; see the package documentation for why unknown fields are errors.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`

	// Namespace is where Quokka runs. Defaults to the pod's service-account namespace
	// when Load is given WithServiceAccountNamespaceFile, otherwise to kueue-system.
	Namespace *string `json:"namespace,omitempty"`

	// ControllerManager holds the options of the controller-runtime manager. It is
	// inlined, as in Kueue, so that health, metrics and friends sit at the top level.
	ControllerManager `json:",inline"`

	// ManageJobsWithoutQueueName makes the job integrations suspend and manage jobs
	// that have no kueue.x-k8s.io/queue-name label, in the namespaces
	// ManagedJobsNamespaceSelector matches (see jobs.go). Defaults to false.
	ManageJobsWithoutQueueName bool `json:"manageJobsWithoutQueueName"`

	// ManagedJobsNamespaceSelector picks the namespaces whose Jobs without a
	// queue name are managed with ManageJobsWithoutQueueName. Defaults to
	// every namespace but kube-system and Namespace, which it may not match.
	ManagedJobsNamespaceSelector *metav1.LabelSelector `json:"managedJobsNamespaceSelector,omitempty"`

	// WaitForPodsReady configures all-or-nothing start-up of admitted workloads.
	// Kueue v1beta2 has no enable field: the block is defaulted and always on.
	WaitForPodsReady *WaitForPodsReady `json:"waitForPodsReady,omitempty"`

	// ClientConnection tunes the client-side rate limit towards the API server.
	ClientConnection *ClientConnection `json:"clientConnection,omitempty"`

	// Integrations lists the job frameworks whose objects become Workloads.
	Integrations *Integrations `json:"integrations,omitempty"`

	// FairSharing turns fair sharing on by being present (Kueue removed the enable
	// field in v0.15) and chooses the preemption strategies.
	FairSharing *FairSharing `json:"fairSharing,omitempty"`

	// AdmissionFairSharing tunes usage-based ordering of workloads from many
	// LocalQueues in one ClusterQueue.
	AdmissionFairSharing *AdmissionFairSharing `json:"admissionFairSharing,omitempty"`

	// FeatureGates overrides the default state of the features in Features.
	FeatureGates map[string]bool `json:"featureGates,omitempty"`

	// InternalCertManagement decides whether the manager issues its own webhook
	// serving certificate (the default).
	InternalCertManagement *InternalCertManagement `json:"internalCertManagement,omitempty"`

	// ObjectRetentionPolicies deletes Workloads some time after they finish.
	ObjectRetentionPolicies *ObjectRetentionPolicies `json:"objectRetentionPolicies,omitempty"`

	// Resources decides what pods' requests count as against quota (see
	// resources.go).
	Resources *Resources `json:"resources,omitempty"`
}

// ObjectRetentionPolicies holds retention settings per kind, as Kueue's.
type ObjectRetentionPolicies struct {
	// Workloads configures retention for Workloads; nil keeps them.
	Workloads *WorkloadRetentionPolicy `json:"workloads,omitempty"`
}

// WorkloadRetentionPolicy says when Workloads are deleted.
type WorkloadRetentionPolicy struct {
	// AfterFinished is how long after its Finished condition a Workload is
	// deleted; 0 deletes it at once, nil keeps it.
	AfterFinished *metav1.Duration `json:"afterFinished,omitempty"`
	// AfterDeactivatedByKueue is how long after the manager deactivated a
	// Workload (maximum execution time, requeuing limit) its Job is deleted,
	// with its pods and the Workload; 0 at once, nil keeps them.
	AfterDeactivatedByKueue *metav1.Duration `json:"afterDeactivatedByKueue,omitempty"`
}

// ControllerManager holds the options of the controller-runtime manager.
type ControllerManager struct {
	// Webhook is where the admission webhook server listens.
	Webhook ControllerWebhook `json:"webhook,omitempty"`

	// LeaderElection is component-base's LeaderElectionConfiguration, the same type
	// Kueue uses, so its field names and defaults match by construction.
	LeaderElection *componentconfigv1alpha1.LeaderElectionConfiguration `json:"leaderElection,omitempty"`

	// Metrics configures the Prometheus endpoint.
	Metrics ControllerMetrics `json:"metrics,omitempty"`

	// Health configures the liveness and readiness probes.
	Health ControllerHealth `json:"health,omitempty"`

	// PprofBindAddress is where the manager serves pprof (host:port); "" or
	// "0" turns it off (the default). Profiles may hold sensitive data:
	// protect the address before exposing it.
	PprofBindAddress string `json:"pprofBindAddress,omitempty"`

	// Controller holds options of every controller the manager runs.
	Controller *ControllerConfigurationSpec `json:"controller,omitempty"`
}

// ControllerConfigurationSpec is Kueue's global controller options, given to
// controller-runtime as they are.
type ControllerConfigurationSpec struct {
	// GroupKindConcurrency maps a kind, as GroupKind.String() spells it
	// ("Job.batch", "Workload.kueue.x-k8s.io"), to how many objects of it
	// its controller reconciles at once (1 when unset).
	GroupKindConcurrency map[string]int `json:"groupKindConcurrency,omitempty"`
	// CacheSyncTimeout limits the wait for the informers' first sync
	// (controller-runtime's default, 2 minutes, when unset). Kueue's type: a
	// time.Duration, in nanoseconds.
	CacheSyncTimeout *time.Duration `json:"cacheSyncTimeout,omitempty"`
}

// ControllerWebhook is where the webhook server listens and finds its certificate.
type ControllerWebhook struct {
	// Port defaults to 9443.
	Port *int `json:"port,omitempty"`
	// Host is the address to bind to; empty means all interfaces.
	Host string `json:"host,omitempty"`
	// CertDir holds tls.crt and tls.key; defaults to /tmp/k8s-webhook-server/serving-certs.
	CertDir string `json:"certDir,omitempty"`
}

// ControllerMetrics configures the metrics endpoint.
type ControllerMetrics struct {
	// BindAddress is host:port; "0" disables the endpoint. Defaults to :8443.
	BindAddress string `json:"bindAddress,omitempty"`
	// EnableClusterQueueResources exports the per-flavor usage, nominal quota,
	// borrowing limit and lending limit gauges that chargeback dashboards need.
	EnableClusterQueueResources bool `json:"enableClusterQueueResources,omitempty"`
	// LocalQueueMetrics chooses the LocalQueues whose kueue_local_queue_*
	// gauges are exported (with the LocalQueueMetrics gate on, as in Kueue
	// v0.17). Defaults to every LocalQueue.
	LocalQueueMetrics *LocalQueueMetrics `json:"localQueueMetrics,omitempty"`
}

// LocalQueueMetrics is Kueue's metrics.localQueueMetrics.
type LocalQueueMetrics struct {
	// Enable exports the LocalQueue gauges. Defaults to true.
	Enable bool `json:"enable,omitempty"`
	// LocalQueueSelector limits them to the LocalQueues whose labels it
	// matches; unset, every LocalQueue.
	LocalQueueSelector *metav1.LabelSelector `json:"localQueueSelector,omitempty"`
}

// ControllerHealth configures the health probes.
type ControllerHealth struct {
	// HealthProbeBindAddress is host:port; "0" or "" disables probes. Defaults to :8081.
	HealthProbeBindAddress string `json:"healthProbeBindAddress,omitempty"`
	// ReadinessEndpointName defaults to readyz.
	ReadinessEndpointName string `json:"readinessEndpointName,omitempty"`
	// LivenessEndpointName defaults to healthz.
	LivenessEndpointName string `json:"livenessEndpointName,omitempty"`
}

// WaitForPodsReady is Kueue's all-or-nothing start-up: an admitted workload
// whose pods are not all ready within Timeout is evicted and requeued after a
// back-off; with BlockAdmission, workloads are admitted one at a time, each
// once every workload holding quota has PodsReady=True.
type WaitForPodsReady struct {
	// Timeout is how long an admitted workload may take to have all pods ready.
	// Defaults to 30m (Kueue v0.19+).
	Timeout metav1.Duration `json:"timeout"`
	// BlockAdmission holds further admissions until every workload holding
	// quota has PodsReady=True. Defaults to false.
	BlockAdmission *bool `json:"blockAdmission,omitempty"`
	// RequeuingStrategy controls the backoff of workloads evicted for readiness.
	RequeuingStrategy *RequeuingStrategy `json:"requeuingStrategy,omitempty"`
	// RecoveryTimeout bounds how long a running workload may stay not ready.
	// Defaults to Timeout.
	RecoveryTimeout *metav1.Duration `json:"recoveryTimeout,omitempty"`
}

// RequeuingTimestamp is the time a requeued workload is ordered by.
type RequeuingTimestamp string

const (
	// EvictionTimestamp orders by the time of the PodsReadyTimeout eviction (default).
	EvictionTimestamp RequeuingTimestamp = "Eviction"
	// CreationTimestamp orders by the workload's creation time.
	CreationTimestamp RequeuingTimestamp = "Creation"
)

// RequeuingStrategy is the backoff of workloads evicted for not becoming ready.
type RequeuingStrategy struct {
	// Timestamp defaults to Eviction.
	Timestamp *RequeuingTimestamp `json:"timestamp,omitempty"`
	// BackoffLimitCount deactivates a workload after this many requeues; nil is unlimited.
	BackoffLimitCount *int32 `json:"backoffLimitCount,omitempty"`
	// BackoffBaseSeconds defaults to 60.
	BackoffBaseSeconds *int32 `json:"backoffBaseSeconds,omitempty"`
	// BackoffMaxSeconds defaults to 3600.
	BackoffMaxSeconds *int32 `json:"backoffMaxSeconds,omitempty"`
}

// ClientConnection is the client-side rate limit towards the API server.
type ClientConnection struct {
	// QPS defaults to 1000 (Kueue v0.20); a negative value disables rate limiting.
	QPS *float32 `json:"qps,omitempty"`
	// Burst defaults to 1000 (Kueue v0.20).
	Burst *int32 `json:"burst,omitempty"`
}

// Integrations lists the job frameworks Quokka manages.
type Integrations struct {
	// Frameworks defaults to ["batch/job"].
	Frameworks []string `json:"frameworks,omitempty"`
	// LabelKeysToCopy lists the labels a job integration copies from the job
	// to the Workload it creates (when the job has them), so that, say, a
	// PreemptionConfig or a dashboard can select Workloads by them.
	LabelKeysToCopy []string `json:"labelKeysToCopy,omitempty"`
}

// PreemptionStrategy is one rule fair-sharing preemption may apply.
type PreemptionStrategy string

const (
	// LessThanOrEqualToFinalShare preempts when the preemptor's share with the
	// incoming workload is at most the target's share without the victim.
	LessThanOrEqualToFinalShare PreemptionStrategy = "LessThanOrEqualToFinalShare"
	// LessThanInitialShare preempts when the preemptor's share with the incoming
	// workload is strictly below the target's current share.
	LessThanInitialShare PreemptionStrategy = "LessThanInitialShare"
)

// FairSharing selects the fair-sharing preemption strategies, tried in order.
type FairSharing struct {
	// PreemptionStrategies is required; only three lists are valid (see Validate).
	PreemptionStrategies []PreemptionStrategy `json:"preemptionStrategies"`
}

// AdmissionFairSharing tunes the decayed-usage ordering of LocalQueues.
type AdmissionFairSharing struct {
	// UsageHalfLifeTime is how long it takes recorded usage to decay by half. It
	// must be positive: Kueue treats 0 as "forget immediately", which disables the
	// feature without saying so, and Quokka refuses that.
	UsageHalfLifeTime metav1.Duration `json:"usageHalfLifeTime"`
	// UsageSamplingInterval is how often usage is sampled. Defaults to 5m.
	UsageSamplingInterval metav1.Duration `json:"usageSamplingInterval"`
	// ResourceWeights weighs resources when summing usage; missing resources weigh 1.
	ResourceWeights map[corev1.ResourceName]float64 `json:"resourceWeights,omitempty"`
}
