package v1beta2

import (
	"fmt"
	"maps"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidPreemptionStrategies are the only strategy lists Kueue accepts; any other
// list "fails configuration validation and Kueue does not start" (spec 002).
var ValidPreemptionStrategies = [][]PreemptionStrategy{
	{LessThanOrEqualToFinalShare},
	{LessThanInitialShare},
	{LessThanOrEqualToFinalShare, LessThanInitialShare},
}

// SupportedFrameworks are the job integrations Quokka implements. Kueue knows
// more (kubeflow, ray, jobset, ...); listing one of those is refused instead of
// silently leaving those jobs unmanaged.
var SupportedFrameworks = []string{DefaultJobFramework}

// leaderElectionJitter is client-go's leaderelection.JitterFactor: the renew
// deadline must exceed the retry period times this, or client-go refuses to start.
const leaderElectionJitter = 1.2

// Validate checks a defaulted Configuration and returns every problem with its full
// path. Load and Decode call it; call it yourself after changing a Configuration
// (for example after applying command-line overrides).
func (c *Configuration) Validate() field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTypeMeta(c)...)
	if c.Namespace != nil {
		for _, msg := range validation.IsDNS1123Label(*c.Namespace) {
			errs = append(errs, field.Invalid(field.NewPath("namespace"), *c.Namespace, msg))
		}
	}
	errs = append(errs, validateControllerManager(&c.ControllerManager)...)
	errs = append(errs, validateClientConnection(c.ClientConnection, field.NewPath("clientConnection"))...)
	errs = append(errs, validateIntegrations(c.Integrations, field.NewPath("integrations"))...)
	errs = append(errs, validateWaitForPodsReady(c.WaitForPodsReady, field.NewPath("waitForPodsReady"))...)
	if r := c.ObjectRetentionPolicies; r != nil && r.Workloads != nil {
		p := field.NewPath("objectRetentionPolicies", "workloads")
		for _, d := range []struct {
			name string
			v    *metav1.Duration
		}{{"afterFinished", r.Workloads.AfterFinished}, {"afterDeactivatedByKueue", r.Workloads.AfterDeactivatedByKueue}} {
			if d.v != nil && d.v.Duration < 0 {
				errs = append(errs, field.Invalid(p.Child(d.name), d.v.Duration.String(), "must not be negative (0 deletes at once)"))
			}
		}
	}
	errs = append(errs, validateFairSharing(c.FairSharing, field.NewPath("fairSharing"))...)
	errs = append(errs, validateFeatureGates(c, field.NewPath("featureGates"))...)
	errs = append(errs, validateAdmissionFairSharing(c, field.NewPath("admissionFairSharing"))...)
	errs = append(errs, validateInternalCertManagement(c.InternalCertManagement, field.NewPath("internalCertManagement"))...)
	errs = append(errs, validateResources(c.Resources, field.NewPath("resources"))...)
	errs = append(errs, validateManagedJobs(c)...)
	return errs
}

func validateControllerManager(m *ControllerManager) field.ErrorList {
	var errs field.ErrorList
	if p := m.Webhook.Port; p != nil && (*p < 1 || *p > 65535) {
		errs = append(errs, field.Invalid(field.NewPath("webhook", "port"), *p, "must be between 1 and 65535"))
	}
	errs = append(errs, validateBindAddress(m.Metrics.BindAddress, field.NewPath("metrics", "bindAddress"))...)
	if lq := m.Metrics.LocalQueueMetrics; lq != nil && lq.LocalQueueSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(lq.LocalQueueSelector, metav1validation.LabelSelectorValidationOptions{},
			field.NewPath("metrics", "localQueueMetrics", "localQueueSelector"))...)
	}
	if m.PprofBindAddress != "" {
		errs = append(errs, validateBindAddress(m.PprofBindAddress, field.NewPath("pprofBindAddress"))...)
	}
	if c := m.Controller; c != nil {
		p := field.NewPath("controller")
		for _, kind := range slices.Sorted(maps.Keys(c.GroupKindConcurrency)) {
			if n := c.GroupKindConcurrency[kind]; n < 1 {
				errs = append(errs, field.Invalid(p.Child("groupKindConcurrency").Key(kind), n, "must be at least 1"))
			}
		}
		if t := c.CacheSyncTimeout; t != nil && *t <= 0 {
			errs = append(errs, field.Invalid(p.Child("cacheSyncTimeout"), t.String(), "must be greater than 0"))
		}
	}

	health := field.NewPath("health")
	errs = append(errs, validateBindAddress(m.Health.HealthProbeBindAddress, health.Child("healthProbeBindAddress"))...)
	errs = append(errs, validateEndpointName(m.Health.ReadinessEndpointName, health.Child("readinessEndpointName"))...)
	errs = append(errs, validateEndpointName(m.Health.LivenessEndpointName, health.Child("livenessEndpointName"))...)
	// Both are registered on one HTTP mux, which panics on a duplicate pattern.
	if m.Health.ReadinessEndpointName != "" && m.Health.ReadinessEndpointName == m.Health.LivenessEndpointName {
		errs = append(errs, field.Invalid(health.Child("livenessEndpointName"), m.Health.LivenessEndpointName,
			"must differ from health.readinessEndpointName"))
	}

	if le := m.LeaderElection; le != nil && le.LeaderElect != nil && *le.LeaderElect {
		p := field.NewPath("leaderElection")
		if le.ResourceLock != DefaultLeaderElectionResourceLock {
			errs = append(errs, field.NotSupported(p.Child("resourceLock"), le.ResourceLock, []string{DefaultLeaderElectionResourceLock}))
		}
		if le.ResourceName == "" {
			errs = append(errs, field.Required(p.Child("resourceName"), "needed to name the lease"))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(le.ResourceName) {
				errs = append(errs, field.Invalid(p.Child("resourceName"), le.ResourceName, msg))
			}
		}
		if le.ResourceNamespace != "" {
			for _, msg := range validation.IsDNS1123Label(le.ResourceNamespace) {
				errs = append(errs, field.Invalid(p.Child("resourceNamespace"), le.ResourceNamespace, msg))
			}
		}
		lease, renew, retry := le.LeaseDuration.Duration, le.RenewDeadline.Duration, le.RetryPeriod.Duration
		errs = append(errs, positiveDuration(lease, p.Child("leaseDuration"))...)
		errs = append(errs, positiveDuration(renew, p.Child("renewDeadline"))...)
		errs = append(errs, positiveDuration(retry, p.Child("retryPeriod"))...)
		if lease > 0 && renew > 0 && lease <= renew {
			errs = append(errs, field.Invalid(p.Child("leaseDuration"), le.LeaseDuration.Duration.String(),
				fmt.Sprintf("must be greater than leaderElection.renewDeadline (%s)", renew)))
		}
		if renew > 0 && retry > 0 && float64(renew) <= leaderElectionJitter*float64(retry) {
			errs = append(errs, field.Invalid(p.Child("renewDeadline"), renew.String(),
				fmt.Sprintf("must be greater than %.1f times leaderElection.retryPeriod (%s)", leaderElectionJitter, retry)))
		}
	}
	return errs
}

// validateBindAddress accepts "0" (disabled) or host:port with a numeric port;
// the host may be empty (all interfaces).
func validateBindAddress(addr string, p *field.Path) field.ErrorList {
	if addr == DisabledBindAddress || addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return field.ErrorList{field.Invalid(p, addr, fmt.Sprintf(`must be host:port or "0" to disable: %v`, err))}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return field.ErrorList{field.Invalid(p, addr, "port must be a number between 0 and 65535")}
	}
	return nil
}

func validateEndpointName(name string, p *field.Path) field.ErrorList {
	if name == "" || name == "/" || strings.ContainsAny(name, " \t?#") {
		return field.ErrorList{field.Invalid(p, name, "must be a URL path such as /readyz")}
	}
	return nil
}

func positiveDuration(d time.Duration, p *field.Path) field.ErrorList {
	if d <= 0 {
		return field.ErrorList{field.Invalid(p, d.String(), "must be greater than 0")}
	}
	return nil
}

func validateClientConnection(cc *ClientConnection, p *field.Path) field.ErrorList {
	if cc == nil {
		return nil
	}
	var errs field.ErrorList
	if cc.Burst != nil && *cc.Burst < 0 {
		errs = append(errs, field.Invalid(p.Child("burst"), *cc.Burst, "must not be negative"))
	}
	// client-go refuses a rate limiter with a positive QPS and no burst.
	if cc.QPS != nil && *cc.QPS > 0 && cc.Burst != nil && *cc.Burst == 0 {
		errs = append(errs, field.Invalid(p.Child("burst"), *cc.Burst, "must be greater than 0 when clientConnection.qps is greater than 0"))
	}
	return errs
}

func validateIntegrations(in *Integrations, p *field.Path) field.ErrorList {
	if in == nil {
		return nil
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, fw := range in.Frameworks {
		fp := p.Child("frameworks").Index(i)
		if seen.Has(fw) {
			errs = append(errs, field.Duplicate(fp, fw))
			continue
		}
		seen.Insert(fw)
		if !slices.Contains(SupportedFrameworks, fw) {
			errs = append(errs, field.NotSupported(fp, fw, SupportedFrameworks))
		}
	}
	for i, key := range in.LabelKeysToCopy {
		for _, msg := range validation.IsQualifiedName(key) {
			errs = append(errs, field.Invalid(p.Child("labelKeysToCopy").Index(i), key, msg))
		}
	}
	return errs
}

func validateWaitForPodsReady(w *WaitForPodsReady, p *field.Path) field.ErrorList {
	if w == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, positiveDuration(w.Timeout.Duration, p.Child("timeout"))...)
	if w.RecoveryTimeout != nil && w.RecoveryTimeout.Duration < 0 {
		errs = append(errs, field.Invalid(p.Child("recoveryTimeout"), w.RecoveryTimeout.Duration.String(), "must not be negative (0 disables it)"))
	}
	if rs := w.RequeuingStrategy; rs != nil {
		rp := p.Child("requeuingStrategy")
		if rs.Timestamp != nil && *rs.Timestamp != EvictionTimestamp && *rs.Timestamp != CreationTimestamp {
			errs = append(errs, field.NotSupported(rp.Child("timestamp"), *rs.Timestamp,
				[]RequeuingTimestamp{EvictionTimestamp, CreationTimestamp}))
		}
		for _, f := range []struct {
			name string
			v    *int32
		}{
			{"backoffLimitCount", rs.BackoffLimitCount},
			{"backoffBaseSeconds", rs.BackoffBaseSeconds},
			{"backoffMaxSeconds", rs.BackoffMaxSeconds},
		} {
			if f.v != nil && *f.v < 0 {
				errs = append(errs, field.Invalid(rp.Child(f.name), *f.v, "must not be negative"))
			}
		}
	}
	return errs
}

func validateFairSharing(fs *FairSharing, p *field.Path) field.ErrorList {
	if fs == nil {
		return nil
	}
	for _, valid := range ValidPreemptionStrategies {
		if slices.Equal(fs.PreemptionStrategies, valid) {
			return nil
		}
	}
	accepted := make([]string, 0, len(ValidPreemptionStrategies))
	for _, valid := range ValidPreemptionStrategies {
		accepted = append(accepted, fmt.Sprintf("%v", valid))
	}
	return field.ErrorList{field.Invalid(p.Child("preemptionStrategies"), fs.PreemptionStrategies,
		"must be one of "+strings.Join(accepted, ", ")+", in that order")}
}

func validateFeatureGates(c *Configuration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := make([]string, 0, len(c.FeatureGates))
	for name := range c.FeatureGates {
		names = append(names, name)
	}
	slices.Sort(names) // map order would make the message change from run to run
	for _, name := range names {
		if _, ok := knownFeatures[Feature(name)]; !ok {
			errs = append(errs, field.NotSupported(p.Key(name), name, knownFeatureNames()))
		}
	}

	// Kueue v0.20 refuses to start in this combination: anchoring usage at quota
	// reservation only means something while admission fair sharing is on.
	if !c.FeatureGate(FeatureAdmissionFairSharing) && c.FeatureGate(FeatureAdmissionFairSharingAnchorAtQuotaReservation) {
		how := "explicitly"
		if _, set := c.FeatureGates[string(FeatureAdmissionFairSharingAnchorAtQuotaReservation)]; !set {
			how = "by default"
		}
		errs = append(errs, field.Invalid(p.Key(string(FeatureAdmissionFairSharingAnchorAtQuotaReservation)), true,
			fmt.Sprintf("is true (%s) while %s is false; disabling %s requires also disabling %s",
				how, FeatureAdmissionFairSharing, FeatureAdmissionFairSharing, FeatureAdmissionFairSharingAnchorAtQuotaReservation)))
	}
	return errs
}

func validateAdmissionFairSharing(c *Configuration, p *field.Path) field.ErrorList {
	afs := c.AdmissionFairSharing
	if afs == nil {
		return nil
	}
	var errs field.ErrorList
	if !c.FeatureGate(FeatureAdmissionFairSharing) {
		errs = append(errs, field.Forbidden(p,
			"the AdmissionFairSharing feature gate is off, so this block would be ignored; enable the gate or remove the block"))
	}
	// Kueue accepts 0 and then forgets usage at once, which quietly turns the
	// feature into plain FIFO; refusing says so.
	if afs.UsageHalfLifeTime.Duration <= 0 {
		errs = append(errs, field.Invalid(p.Child("usageHalfLifeTime"), afs.UsageHalfLifeTime.Duration.String(),
			"must be greater than 0: with no half-life, usage is forgotten immediately and admission fair sharing has no effect"))
	}
	errs = append(errs, positiveDuration(afs.UsageSamplingInterval.Duration, p.Child("usageSamplingInterval"))...)

	resources := make([]string, 0, len(afs.ResourceWeights))
	for r := range afs.ResourceWeights {
		resources = append(resources, string(r))
	}
	slices.Sort(resources)
	for _, r := range resources {
		w := afs.ResourceWeights[corev1.ResourceName(r)]
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			errs = append(errs, field.Invalid(p.Child("resourceWeights").Key(r), w, "must be a finite number greater than or equal to 0"))
		}
	}
	return errs
}
