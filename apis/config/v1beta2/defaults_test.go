package v1beta2

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

func ptrTo[T any](v T) *T { return &v }

// The defaults of an empty file are Kueue v0.20's, field by field.
func TestDefaultsMatchKueue(t *testing.T) {
	t.Parallel()
	got, err := Decode([]byte(header))
	if err != nil {
		t.Fatal(err)
	}
	want := &Configuration{
		TypeMeta:  metav1.TypeMeta{APIVersion: "config.kueue.x-k8s.io/v1beta2", Kind: "Configuration"},
		Namespace: ptrTo("kueue-system"),
		ControllerManager: ControllerManager{
			Webhook: ControllerWebhook{Port: ptrTo(9443), CertDir: "/tmp/k8s-webhook-server/serving-certs"},
			LeaderElection: &componentconfigv1alpha1.LeaderElectionConfiguration{
				LeaderElect:   ptrTo(true),
				LeaseDuration: metav1.Duration{Duration: 15 * time.Second},
				RenewDeadline: metav1.Duration{Duration: 10 * time.Second},
				RetryPeriod:   metav1.Duration{Duration: 2 * time.Second},
				ResourceLock:  "leases",
				ResourceName:  "c1f6bfd2.kueue.x-k8s.io",
			},
			Metrics: ControllerMetrics{BindAddress: ":8443", LocalQueueMetrics: &LocalQueueMetrics{Enable: true}},
			Health: ControllerHealth{
				HealthProbeBindAddress: ":8081",
				ReadinessEndpointName:  "/readyz",
				LivenessEndpointName:   "/healthz",
			},
		},
		WaitForPodsReady: &WaitForPodsReady{
			Timeout:         metav1.Duration{Duration: 30 * time.Minute},
			BlockAdmission:  ptrTo(false),
			RecoveryTimeout: &metav1.Duration{Duration: 30 * time.Minute},
			RequeuingStrategy: &RequeuingStrategy{
				Timestamp:          ptrTo(EvictionTimestamp),
				BackoffBaseSeconds: ptrTo(int32(60)),
				BackoffMaxSeconds:  ptrTo(int32(3600)),
			},
		},
		ClientConnection: &ClientConnection{QPS: ptrTo(float32(1000)), Burst: ptrTo(int32(1000))},
		Integrations:     &Integrations{Frameworks: []string{"batch/job"}},
		// Kueue: every namespace but kube-system and its own.
		ManagedJobsNamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kueue-system"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got  %+v\n want %+v", got, want)
	}
	if !reflect.DeepEqual(Default(), want) {
		t.Errorf("Default() differs from decoding an empty file")
	}
	if got.FairSharingEnabled() {
		t.Error("fair sharing is on without a fairSharing block")
	}
	if got.AdmissionFairSharingEnabled() {
		t.Error("admission fair sharing is on without an admissionFairSharing block")
	}
	if !got.LeaderElectionEnabled() {
		t.Error("leader election is off by default; Kueue turns it on")
	}
}

func TestDefaultsKeepWhatTheFileSets(t *testing.T) {
	t.Parallel()
	got, err := Decode([]byte(header + `
namespace: quokka
webhook:
  port: 9000
metrics:
  bindAddress: :9090
health:
  readinessEndpointName: ready
leaderElection:
  leaderElect: false
  resourceName: quokka.dev
clientConnection:
  qps: 50
waitForPodsReady:
  timeout: 5m
integrations:
  frameworks: [batch/job]
admissionFairSharing:
  usageHalfLifeTime: 1h
`))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"namespace", *got.Namespace, "quokka"},
		{"webhook.port", *got.Webhook.Port, 9000},
		{"metrics.bindAddress", got.Metrics.BindAddress, ":9090"},
		// Kueue's documentation writes "readyz"; the HTTP mux needs "/readyz".
		{"health.readinessEndpointName", got.Health.ReadinessEndpointName, "/ready"},
		{"leaderElection.leaderElect", *got.LeaderElection.LeaderElect, false},
		{"leaderElection.resourceName", got.LeaderElection.ResourceName, "quokka.dev"},
		{"clientConnection.qps", *got.ClientConnection.QPS, float32(50)},
		{"clientConnection.burst", *got.ClientConnection.Burst, int32(1000)},
		{"waitForPodsReady.timeout", got.WaitForPodsReady.Timeout.Duration, 5 * time.Minute},
		{"waitForPodsReady.recoveryTimeout follows timeout", got.WaitForPodsReady.RecoveryTimeout.Duration, 5 * time.Minute},
		{"admissionFairSharing.usageSamplingInterval", got.AdmissionFairSharing.UsageSamplingInterval.Duration, 5 * time.Minute},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if !got.AdmissionFairSharingEnabled() {
		t.Error("admission fair sharing is off although the block is present and the gate is on by default")
	}
}

func TestNamespaceFromTheEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nsFile := filepath.Join(dir, "namespace")
	if err := os.WriteFile(nsFile, []byte("quokka-system\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := EnvironmentFromServiceAccount(nsFile)
	cfg, err := Decode([]byte(header), WithEnvironment(env))
	if err != nil {
		t.Fatal(err)
	}
	if *cfg.Namespace != "quokka-system" {
		t.Errorf("namespace = %q; want the service account's quokka-system", *cfg.Namespace)
	}
	// Outside a cluster there is no file: Kueue's default applies.
	if env := EnvironmentFromServiceAccount(filepath.Join(dir, "missing")); env.Namespace != "" {
		t.Errorf("missing file gave namespace %q", env.Namespace)
	}
	// The file's own namespace wins over the environment.
	cfg, err = Decode([]byte(header+"namespace: mine\n"), WithEnvironment(env))
	if err != nil {
		t.Fatal(err)
	}
	if *cfg.Namespace != "mine" {
		t.Errorf("namespace = %q; want the file's mine", *cfg.Namespace)
	}
}

func TestSetDefaultsIsIdempotent(t *testing.T) {
	t.Parallel()
	once := Default()
	twice := Default()
	SetDefaults(twice, Environment{Namespace: "ignored"})
	if !reflect.DeepEqual(once, twice) {
		t.Errorf("SetDefaults changed an already defaulted Configuration:\n %+v\n %+v", once, twice)
	}
}

func TestLoadReadsAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(header+"manageJobsWithoutQueueName: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(good)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ManageJobsWithoutQueueName {
		t.Error("manageJobsWithoutQueueName was not read")
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(header+"fairSharing:\n  preemptionStrategies: [Nope]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	if err == nil {
		t.Fatal("Load accepted an invalid strategy")
	}
	for _, want := range []string{bad, "fairSharing.preemptionStrategies"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load error %q does not mention %q", err, want)
		}
	}

	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load(missing) = %v; want an error naming the file", err)
	}
}
