package v1beta2

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const header = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"

// fieldErrors decodes a file and returns the field errors it was refused with,
// failing the test if it was refused for another reason (unreadable YAML).
func fieldErrors(t *testing.T, doc string) field.ErrorList {
	t.Helper()
	_, err := Decode([]byte(doc))
	if err == nil {
		return nil
	}
	var invalid *InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("Decode failed without field errors: %v", err)
	}
	return invalid.Errs
}

// wantField checks that errs holds an error on path whose message contains every
// one of words, and that err.Error() names the path (what a person reads).
func wantField(t *testing.T, errs field.ErrorList, path string, words ...string) {
	t.Helper()
	for _, e := range errs {
		if e.Field != path {
			continue
		}
		msg := e.Error()
		for _, w := range words {
			if !strings.Contains(msg, w) {
				t.Errorf("error on %s is %q; want it to mention %q", path, msg, w)
			}
		}
		return
	}
	t.Errorf("no error on %s; got %v", path, errs)
}

func TestValidConfigurationsLoad(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"empty file with apiVersion and kind": header,
		"spec 002 fair-sharing block": header + `
metrics:
  enableClusterQueueResources: true
fairSharing:
  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
`,
		"only LessThanOrEqualToFinalShare": header + "fairSharing:\n  preemptionStrategies: [LessThanOrEqualToFinalShare]\n",
		"only LessThanInitialShare":        header + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare]\n",
		"metrics disabled with 0":          header + "metrics:\n  bindAddress: \"0\"\n",
		"health probes disabled with 0":    header + "health:\n  healthProbeBindAddress: \"0\"\n",
		"bind address with a host":         header + "metrics:\n  bindAddress: 127.0.0.1:9090\n",
		"IPv6 bind address":                header + "health:\n  healthProbeBindAddress: \"[::1]:8081\"\n",
		"both admission fair sharing gates off": header + `
featureGates:
  AdmissionFairSharing: false
  AdmissionFairSharingAnchorAtQuotaReservation: false
`,
		"admission fair sharing tuned": header + `
admissionFairSharing:
  usageHalfLifeTime: 168h
  usageSamplingInterval: 1m
  resourceWeights:
    nvidia.com/gpu: 10
    cpu: 0
`,
		"leader election off ignores its timings": header + `
leaderElection:
  leaderElect: false
  leaseDuration: 1s
  renewDeadline: 5s
`,
		"kueue's full leader election block": header + `
leaderElection:
  leaderElect: true
  leaseDuration: 15s
  renewDeadline: 10s
  retryPeriod: 2s
  resourceLock: leases
  resourceName: c1f6bfd2.kueue.x-k8s.io
  resourceNamespace: kueue-system
`,
		"negative qps disables rate limiting": header + "clientConnection:\n  qps: -1\n  burst: 0\n",
		"blockAdmission":                      header + "waitForPodsReady:\n  blockAdmission: true\n",
		// Kueue: "quotaCheckStrategy with value ignoreundeclared allowed
		// without excludeResourcePrefixes", "… blockundeclared allowed with
		// excludeResourcePrefixes".
		"IgnoreUndeclared":                header + "resources:\n  quotaCheckStrategy: IgnoreUndeclared\n",
		"BlockUndeclared beside prefixes": header + "resources:\n  quotaCheckStrategy: BlockUndeclared\n  excludeResourcePrefixes: [networking.example.com/]\n",
		// Kueue: "valid .resources.transformations".
		"resources": header + "resources:\n  excludeResourcePrefixes: [networking.example.com/]\n  transformations:\n" +
			"  - input: cpu\n    strategy: Retain\n  - input: memory\n    strategy: Replace\n" +
			"  - input: nvidia.com/gpumem\n    multiplyBy: nvidia.com/gpu\n    outputs:\n      example.com/total-gpumem: \"1\"\n",
		"waitForPodsReady shape": header + `
waitForPodsReady:
  timeout: 10m
  blockAdmission: false
  recoveryTimeout: 0s
  requeuingStrategy:
    timestamp: Creation
    backoffLimitCount: 5
    backoffBaseSeconds: 10
    backoffMaxSeconds: 600
`,
		"objectRetentionPolicies": header + "objectRetentionPolicies:\n  workloads:\n    afterFinished: 10m\n    afterDeactivatedByKueue: 1h\n",
		"JSON is YAML too":        `{"apiVersion":"config.kueue.x-k8s.io/v1beta2","kind":"Configuration","manageJobsWithoutQueueName":true}`,
		// Kueue: "prohibited namespace in MatchExpressions with operator NotIn managedJobsNamespaceSelector" (valid).
		"managedJobsNamespaceSelector excluding the system namespaces": header + "manageJobsWithoutQueueName: true\n" +
			"managedJobsNamespaceSelector:\n  matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kueue-system]}]\n",
		"managedJobsNamespaceSelector by a team label": header + "managedJobsNamespaceSelector:\n  matchLabels: {team: research}\n",
		// Kueue v0.17's config/components/manager/controller_manager_config.yaml
		// as shipped, with the frameworks Quokka integrates.
		"Kueue's shipped Configuration": `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
health:
  healthProbeBindAddress: :8081
metrics:
  bindAddress: :8443
webhook:
  port: 9443
leaderElection:
  leaderElect: true
  resourceName: c1f6bfd2.kueue.x-k8s.io
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: 50
  burst: 100
integrations:
  frameworks:
  - "batch/job"
`,
		// Kueue fields Quokka refused before December 5 (eighth session).
		"pprof, controller concurrency and label keys to copy": header + "pprofBindAddress: :6060\ncontroller:\n  groupKindConcurrency:\n    Job.batch: 5\n" +
			"integrations:\n  frameworks: [batch/job]\n  labelKeysToCopy: [team, example.com/cost-center]\n",
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := Decode([]byte(doc)); err != nil {
				t.Fatalf("Decode: %v", err)
			}
		})
	}
}

// One case per rule; each checks that the refusal names the field a person has to fix.
func TestInvalidConfigurationsNameTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		doc   string
		path  string
		words []string
	}{
		// apiVersion and kind.
		{"missing apiVersion", "kind: Configuration\n", "apiVersion", []string{"Required"}},
		{"other group", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Configuration\n", "apiVersion", []string{"config.kueue.x-k8s.io/v1beta2"}},
		{"v1beta1 is no longer read", "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n", "apiVersion", []string{"migrate"}},
		{"wrong kind", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n", "kind", []string{"Configuration"}},

		// Strict decoding: "never silently ignored".
		{"unknown top-level field", header + "fairsharing: {}\n", "fairsharing", []string{"unknown field"}},
		{"unknown nested field", header + "metrics:\n  bindAdress: :8080\n", "metrics.bindAdress", []string{"unknown field"}},
		{"fairSharing.enable was removed", header + "fairSharing:\n  enable: true\n  preemptionStrategies: [LessThanInitialShare]\n",
			"fairSharing.enable", []string{"removed", "block is present"}},
		{"waitForPodsReady.enable was removed", header + "waitForPodsReady:\n  enable: true\n", "waitForPodsReady.enable", []string{"removed"}},
		{"Kueue field Quokka does not implement", header + "multiKueue:\n  gcInterval: 1m\n", "multiKueue", []string{"not implemented by Quokka"}},
		// Kueue: pkg/config/validation_test.go (v0.17.0), the prohibited
		// namespace cases of managedJobsNamespaceSelector.
		{"prohibited namespace in MatchLabels managedJobsNamespaceSelector", header + "managedJobsNamespaceSelector:\n  matchLabels: {kubernetes.io/metadata.name: kube-system}\n",
			"managedJobsNamespaceSelector", []string{`should not match the "kube-system" namespace`}},
		{"prohibited namespace in MatchExpressions with operator In managedJobsNamespaceSelector", header + "managedJobsNamespaceSelector:\n  matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [kube-system]}]\n",
			"managedJobsNamespaceSelector", []string{`should not match the "kube-system" namespace`}},
		{"an empty managedJobsNamespaceSelector matches the manager's namespace", header + "namespace: quokka-system\nmanagedJobsNamespaceSelector: {}\n",
			"managedJobsNamespaceSelector", []string{"should not match"}},
		{"managedJobsNamespaceSelector with a bad operator", header + "managedJobsNamespaceSelector:\n  matchExpressions: [{key: team, operator: Near, values: [a]}]\n",
			"managedJobsNamespaceSelector.matchExpressions[0].operator", nil},
		{"a LocalQueue metrics selector with a bad operator", header + "metrics:\n  localQueueMetrics:\n    enable: true\n    localQueueSelector:\n      matchExpressions: [{key: team, operator: Near}]\n",
			"metrics.localQueueMetrics.localQueueSelector.matchExpressions[0].operator", nil},
		{"a pprof address without a port", header + "pprofBindAddress: localhost\n", "pprofBindAddress", nil},
		{"a controller concurrency of zero", header + "controller:\n  groupKindConcurrency:\n    Job.batch: 0\n", "controller.groupKindConcurrency[Job.batch]", []string{"at least 1"}},
		{"a label key to copy that is no label key", header + "integrations:\n  labelKeysToCopy: [\"not a key!\"]\n", "integrations.labelKeysToCopy[0]", nil},
		{"internal cert management names another Service", header + "internalCertManagement:\n  webhookServiceName: kueue-webhook-service\n", "internalCertManagement.webhookServiceName", []string{"quokka-webhook-service"}},

		// fairSharing.preemptionStrategies: only three lists.
		{"strategies missing", header + "fairSharing: {}\n", "fairSharing.preemptionStrategies", []string{"in that order"}},
		{"strategies empty", header + "fairSharing:\n  preemptionStrategies: []\n", "fairSharing.preemptionStrategies", nil},
		{"unknown strategy", header + "fairSharing:\n  preemptionStrategies: [LessThanFinalShare]\n", "fairSharing.preemptionStrategies", []string{"LessThanFinalShare"}},
		{"strategies reversed", header + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanOrEqualToFinalShare]\n", "fairSharing.preemptionStrategies", nil},
		{"strategy duplicated", header + "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanInitialShare]\n", "fairSharing.preemptionStrategies", nil},

		// admissionFairSharing.
		{"half-life of zero", header + "admissionFairSharing:\n  usageHalfLifeTime: 0s\n", "admissionFairSharing.usageHalfLifeTime", []string{"greater than 0", "no effect"}},
		{"half-life missing", header + "admissionFairSharing:\n  usageSamplingInterval: 1m\n", "admissionFairSharing.usageHalfLifeTime", nil},
		{"negative half-life", header + "admissionFairSharing:\n  usageHalfLifeTime: -1h\n", "admissionFairSharing.usageHalfLifeTime", nil},
		{"negative sampling interval", header + "admissionFairSharing:\n  usageHalfLifeTime: 1h\n  usageSamplingInterval: -5m\n", "admissionFairSharing.usageSamplingInterval", nil},
		{"negative resource weight", header + "admissionFairSharing:\n  usageHalfLifeTime: 1h\n  resourceWeights:\n    nvidia.com/gpu: -1\n",
			"admissionFairSharing.resourceWeights[nvidia.com/gpu]", []string{"greater than or equal to 0"}},
		{"admissionFairSharing with its gate off", header + "admissionFairSharing:\n  usageHalfLifeTime: 1h\nfeatureGates:\n  AdmissionFairSharing: false\n  AdmissionFairSharingAnchorAtQuotaReservation: false\n",
			"admissionFairSharing", []string{"feature gate is off"}},

		// featureGates.
		{"unknown feature gate", header + "featureGates:\n  TopologyAwareScheduling: true\n", "featureGates[TopologyAwareScheduling]", []string{"DynamicQuotaOrchestration"}},
		{"AFS off, anchor on by default", header + "featureGates:\n  AdmissionFairSharing: false\n",
			"featureGates[AdmissionFairSharingAnchorAtQuotaReservation]", []string{"AdmissionFairSharing is false", "by default"}},
		{"AFS off, anchor on explicitly", header + "featureGates:\n  AdmissionFairSharing: false\n  AdmissionFairSharingAnchorAtQuotaReservation: true\n",
			"featureGates[AdmissionFairSharingAnchorAtQuotaReservation]", []string{"explicitly"}},

		// Addresses and ports.
		{"metrics address without a port", header + "metrics:\n  bindAddress: localhost\n", "metrics.bindAddress", []string{"host:port"}},
		{"metrics port not a number", header + "metrics:\n  bindAddress: \":http\"\n", "metrics.bindAddress", []string{"port"}},
		{"health address without a colon", header + "health:\n  healthProbeBindAddress: \"8081\"\n", "health.healthProbeBindAddress", nil},
		{"health port out of range", header + "health:\n  healthProbeBindAddress: \":70000\"\n", "health.healthProbeBindAddress", nil},
		{"same endpoint for readiness and liveness", header + "health:\n  readinessEndpointName: /ping\n  livenessEndpointName: ping\n", "health.livenessEndpointName", []string{"differ"}},
		{"webhook port zero", header + "webhook:\n  port: 0\n", "webhook.port", nil},
		{"webhook port too large", header + "webhook:\n  port: 65536\n", "webhook.port", nil},

		// Leader election, as client-go and controller-runtime would refuse later.
		{"configmap lock", header + "leaderElection:\n  leaderElect: true\n  resourceLock: configmaps\n", "leaderElection.resourceLock", []string{"leases"}},
		{"lease not longer than renew deadline", header + "leaderElection:\n  leaderElect: true\n  leaseDuration: 10s\n  renewDeadline: 10s\n", "leaderElection.leaseDuration", nil},
		{"renew deadline too close to retry", header + "leaderElection:\n  leaderElect: true\n  renewDeadline: 2s\n  retryPeriod: 2s\n", "leaderElection.renewDeadline", nil},
		{"bad lease name", header + "leaderElection:\n  leaderElect: true\n  resourceName: Not_A_Name\n", "leaderElection.resourceName", nil},

		// The rest.
		{"invalid namespace", header + "namespace: Kueue_System\n", "namespace", nil},
		{"negative burst", header + "clientConnection:\n  burst: -1\n", "clientConnection.burst", nil},
		{"positive qps without burst", header + "clientConnection:\n  qps: 5\n  burst: 0\n", "clientConnection.burst", []string{"qps"}},
		{"framework Quokka does not implement", header + "integrations:\n  frameworks: [batch/job, kubeflow.org/mpijob]\n", "integrations.frameworks[1]", []string{"batch/job"}},
		{"framework listed twice", header + "integrations:\n  frameworks: [batch/job, batch/job]\n", "integrations.frameworks[1]", []string{"Duplicate"}},
		{"negative pods-ready timeout", header + "waitForPodsReady:\n  timeout: -1m\n", "waitForPodsReady.timeout", nil},
		{"negative deactivation retention", header + "objectRetentionPolicies:\n  workloads:\n    afterDeactivatedByKueue: -1h\n",
			"objectRetentionPolicies.workloads.afterDeactivatedByKueue", []string{"negative"}},
		{"negative retention", header + "objectRetentionPolicies:\n  workloads:\n    afterFinished: -1m\n",
			"objectRetentionPolicies.workloads.afterFinished", []string{"negative"}},
		{"unknown requeuing timestamp", header + "waitForPodsReady:\n  requeuingStrategy:\n    timestamp: Admission\n", "waitForPodsReady.requeuingStrategy.timestamp", nil},
		{"negative backoff", header + "waitForPodsReady:\n  requeuingStrategy:\n    backoffLimitCount: -1\n", "waitForPodsReady.requeuingStrategy.backoffLimitCount", nil},

		// resources (Kueue: pkg/config/validation_test.go, "invalid
		// .resources.transformations.strategy" and "… .inputs").
		{"unknown transformation strategy", header + "resources:\n  transformations:\n  - input: cpu\n    strategy: invalid\n",
			"resources.transformations[0].strategy", []string{"Retain", "Replace"}},
		{"transformation input twice", header + "resources:\n  transformations:\n  - input: cpu\n    strategy: Retain\n" +
			"  - input: memory\n    strategy: Retain\n  - input: cpu\n    strategy: Retain\n", "resources.transformations[2].input", []string{"Duplicate"}},
		{"transformation without input", header + "resources:\n  transformations:\n  - strategy: Replace\n", "resources.transformations[0].input", nil},
		{"empty excluded prefix", header + "resources:\n  excludeResourcePrefixes: [\"\"]\n", "resources.excludeResourcePrefixes[0]", []string{"every resource"}},
		// Kueue: "quotaCheckStrategy with value ignoreUndeclared not allowed
		// with excludeResourcePrefixes", "… with unsupported value".
		{"IgnoreUndeclared beside excluded prefixes", header + "resources:\n  quotaCheckStrategy: IgnoreUndeclared\n  excludeResourcePrefixes: [networking.example.com/]\n",
			"resources.quotaCheckStrategy", []string{"excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared"}},
		{"unknown quotaCheckStrategy", header + "resources:\n  quotaCheckStrategy: test\n", "resources.quotaCheckStrategy", []string{"IgnoreUndeclared", "BlockUndeclared"}},
		{"deviceClassMappings are not implemented", header + "resources:\n  deviceClassMappings: []\n", "resources.deviceClassMappings", []string{"dynamic resource allocation", "not implemented"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantField(t, fieldErrors(t, tc.doc), tc.path, tc.words...)
		})
	}
}

// 002: "disabling AdmissionFairSharing without also disabling
// AdmissionFairSharingAnchorAtQuotaReservation is rejected at startup".
func TestDisablingAdmissionFairSharingAloneNamesBothGates(t *testing.T) {
	t.Parallel()
	_, err := Decode([]byte(header + "featureGates:\n  AdmissionFairSharing: false\n"))
	if err == nil {
		t.Fatal("Decode accepted AdmissionFairSharing=false with the anchor gate on by default")
	}
	for _, gate := range []string{"AdmissionFairSharing ", "AdmissionFairSharingAnchorAtQuotaReservation"} {
		if !strings.Contains(err.Error(), gate) {
			t.Errorf("error %q does not name %s", err, strings.TrimSpace(gate))
		}
	}
}

func TestDuplicateKeysAreRefused(t *testing.T) {
	t.Parallel()
	_, err := Decode([]byte(header + "metrics:\n  bindAddress: :8443\nmetrics:\n  bindAddress: :9090\n"))
	if err == nil || !strings.Contains(err.Error(), "metrics") {
		t.Fatalf("Decode(duplicate metrics key) = %v; want an error naming metrics", err)
	}
}

func TestWrongTypeIsAnError(t *testing.T) {
	t.Parallel()
	_, err := Decode([]byte(header + "webhook:\n  port: nine\n"))
	if err == nil || !strings.Contains(err.Error(), "port") {
		t.Fatalf("Decode(port: nine) = %v; want an error naming port", err)
	}
}

// Every problem is reported at once, so a user fixes a file in one pass.
func TestAllProblemsReportedTogether(t *testing.T) {
	t.Parallel()
	errs := fieldErrors(t, header+`
metrics:
  bindAddress: nope
fairSharing:
  preemptionStrategies: []
featureGates:
  Nope: true
`)
	for _, p := range []string{"metrics.bindAddress", "fairSharing.preemptionStrategies", "featureGates[Nope]"} {
		wantField(t, errs, p)
	}
}

func TestValidateAfterOverrides(t *testing.T) {
	t.Parallel()
	cfg := Default()
	if errs := cfg.Validate(); len(errs) != 0 {
		t.Fatalf("Default().Validate() = %v; want no errors", errs)
	}
	cfg.Metrics.BindAddress = "8080"
	wantField(t, cfg.Validate(), "metrics.bindAddress")
}
