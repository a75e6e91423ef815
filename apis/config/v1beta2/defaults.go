package v1beta2

import (
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

// Defaults, identical to Kueue v0.20's so that an empty file means the same thing
// to both.
const (
	DefaultNamespace                   = "kueue-system"
	DefaultServiceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
	DefaultWebhookPort                 = 9443
	DefaultWebhookCertDir              = "/tmp/k8s-webhook-server/serving-certs"
	DefaultHealthProbeBindAddress      = ":8081"
	DefaultMetricsBindAddress          = ":8443"
	DefaultReadinessEndpointName       = "/readyz"
	DefaultLivenessEndpointName        = "/healthz"
	DefaultLeaderElectionID            = "c1f6bfd2.kueue.x-k8s.io"
	DefaultLeaderElectionResourceLock  = "leases"
	DefaultLeaderElectionLeaseDuration = 15 * time.Second
	DefaultLeaderElectionRenewDeadline = 10 * time.Second
	DefaultLeaderElectionRetryPeriod   = 2 * time.Second
	DefaultClientConnectionQPS         = float32(1000)
	DefaultClientConnectionBurst       = int32(1000)
	DefaultJobFramework                = "batch/job"
	DefaultWaitForPodsReadyTimeout     = 30 * time.Minute
	DefaultRequeuingBackoffBaseSeconds = int32(60)
	DefaultRequeuingBackoffMaxSeconds  = int32(3600)
	DefaultUsageSamplingInterval       = 5 * time.Minute
)

// DisabledBindAddress turns off the metrics or health endpoint.
const DisabledBindAddress = "0"

// Environment holds what defaulting may read from outside the file. It is passed in
// rather than read from the pod's file system inside SetDefaults so that defaulting
// is a pure function and tests do not depend on where they run.
type Environment struct {
	// Namespace is the pod's namespace, if known; empty means kueue-system.
	Namespace string
}

// EnvironmentFromServiceAccount reads the pod's namespace from the service-account
// file, as Kueue does. A missing or empty file yields an empty Environment, which
// defaults the namespace to kueue-system, because running outside a cluster (a
// developer's laptop, the simulator) is normal.
func EnvironmentFromServiceAccount(path string) Environment {
	data, err := os.ReadFile(path)
	if err != nil {
		return Environment{}
	}
	return Environment{Namespace: strings.TrimSpace(string(data))}
}

// SetDefaults fills every unset field with Kueue's default. It never overwrites a
// value that the file set, so it is safe to call twice.
func SetDefaults(c *Configuration, env Environment) {
	if c.APIVersion == "" {
		c.APIVersion = GroupVersion.String()
	}
	if c.Kind == "" {
		c.Kind = Kind
	}
	if c.Namespace == nil || *c.Namespace == "" {
		ns := env.Namespace
		if ns == "" {
			ns = DefaultNamespace
		}
		c.Namespace = &ns
	}

	if c.Webhook.Port == nil {
		port := DefaultWebhookPort
		c.Webhook.Port = &port
	}
	if c.Webhook.CertDir == "" {
		c.Webhook.CertDir = DefaultWebhookCertDir
	}
	if c.Metrics.BindAddress == "" {
		c.Metrics.BindAddress = DefaultMetricsBindAddress
	}
	if c.Metrics.LocalQueueMetrics == nil {
		c.Metrics.LocalQueueMetrics = &LocalQueueMetrics{Enable: true}
	}
	if c.Health.HealthProbeBindAddress == "" {
		c.Health.HealthProbeBindAddress = DefaultHealthProbeBindAddress
	}
	c.Health.ReadinessEndpointName = endpointPath(c.Health.ReadinessEndpointName, DefaultReadinessEndpointName)
	c.Health.LivenessEndpointName = endpointPath(c.Health.LivenessEndpointName, DefaultLivenessEndpointName)

	setLeaderElectionDefaults(c)

	if c.ClientConnection == nil {
		c.ClientConnection = &ClientConnection{}
	}
	if c.ClientConnection.QPS == nil {
		qps := DefaultClientConnectionQPS
		c.ClientConnection.QPS = &qps
	}
	if c.ClientConnection.Burst == nil {
		burst := DefaultClientConnectionBurst
		c.ClientConnection.Burst = &burst
	}

	setWaitForPodsReadyDefaults(c)
	setResourcesDefaults(c)
	setManagedJobsDefaults(c)

	if c.Integrations == nil {
		c.Integrations = &Integrations{}
	}
	if len(c.Integrations.Frameworks) == 0 {
		c.Integrations.Frameworks = []string{DefaultJobFramework}
	}

	if afs := c.AdmissionFairSharing; afs != nil && afs.UsageSamplingInterval.Duration == 0 {
		afs.UsageSamplingInterval = metav1.Duration{Duration: DefaultUsageSamplingInterval}
	}
}

// endpointPath defaults an endpoint name and gives it a leading slash. Kueue's
// documentation writes the names without one ("readyz"), but controller-runtime
// registers them as HTTP mux patterns, where a name without a slash would be read
// as a host name and never match.
func endpointPath(name, def string) string {
	if name == "" {
		return def
	}
	if !strings.HasPrefix(name, "/") {
		return "/" + name
	}
	return name
}

func setLeaderElectionDefaults(c *Configuration) {
	if c.LeaderElection == nil {
		c.LeaderElection = &componentconfigv1alpha1.LeaderElectionConfiguration{}
	}
	le := c.LeaderElection
	if le.ResourceName == "" {
		le.ResourceName = DefaultLeaderElectionID
	}
	// component-base still defaults to endpoints locks, which controller-runtime
	// no longer supports; Kueue defaults to leases for the same reason.
	if le.ResourceLock == "" {
		le.ResourceLock = DefaultLeaderElectionResourceLock
	}
	componentconfigv1alpha1.RecommendedDefaultLeaderElectionConfiguration(le)
}

func setWaitForPodsReadyDefaults(c *Configuration) {
	// Kueue v0.19 turned waitForPodsReady on for everyone; an absent block gets
	// the defaults, exactly as an empty one does.
	if c.WaitForPodsReady == nil {
		c.WaitForPodsReady = &WaitForPodsReady{}
	}
	w := c.WaitForPodsReady
	if w.Timeout.Duration == 0 {
		w.Timeout = metav1.Duration{Duration: DefaultWaitForPodsReadyTimeout}
	}
	if w.BlockAdmission == nil {
		block := false
		w.BlockAdmission = &block
	}
	if w.RecoveryTimeout == nil {
		rt := w.Timeout
		w.RecoveryTimeout = &rt
	}
	if w.RequeuingStrategy == nil {
		w.RequeuingStrategy = &RequeuingStrategy{}
	}
	rs := w.RequeuingStrategy
	if rs.Timestamp == nil {
		ts := EvictionTimestamp
		rs.Timestamp = &ts
	}
	if rs.BackoffBaseSeconds == nil {
		base := DefaultRequeuingBackoffBaseSeconds
		rs.BackoffBaseSeconds = &base
	}
	if rs.BackoffMaxSeconds == nil {
		maxSeconds := DefaultRequeuingBackoffMaxSeconds
		rs.BackoffMaxSeconds = &maxSeconds
	}
}
