package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// parse runs the manager command's flag parsing and configuration loading, which
// is everything RunE does before it looks for a cluster.
func parse(t *testing.T, args ...string) (*configapi.Configuration, error) {
	t.Helper()
	cmd, f := newManagerCommandWithFlags(nil)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("ParseFlags(%v): %v", args, err)
	}
	return f.loadConfiguration(cmd)
}

func TestNoConfigMeansKueueDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Metrics.BindAddress != ":8443" || cfg.Health.HealthProbeBindAddress != ":8081" || !cfg.LeaderElectionEnabled() {
		t.Errorf("defaults: metrics %q, health %q, leader election %v; want :8443, :8081, true",
			cfg.Metrics.BindAddress, cfg.Health.HealthProbeBindAddress, cfg.LeaderElectionEnabled())
	}
	// A flag's own default must not override the file: only flags given do.
	file := writeFile(t, "c.yaml", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmetrics:\n  bindAddress: :9090\n")
	cfg, err = parse(t, "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Metrics.BindAddress != ":9090" {
		t.Errorf("metrics.bindAddress = %q; the flag's default overrode the file's :9090", cfg.Metrics.BindAddress)
	}
}

func TestFlagsOverrideTheConfigurationFile(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "c.yaml", `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metrics:
  bindAddress: :9090
  enableClusterQueueResources: true
health:
  healthProbeBindAddress: :9091
leaderElection:
  leaderElect: true
`)
	cfg, err := parse(t, "--config", file, "--metrics-bind-address", "0", "--health-probe-bind-address", "127.0.0.1:7000", "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Metrics.BindAddress != "0" || cfg.Health.HealthProbeBindAddress != "127.0.0.1:7000" || cfg.LeaderElectionEnabled() {
		t.Errorf("overrides not applied: metrics %q, health %q, leader election %v",
			cfg.Metrics.BindAddress, cfg.Health.HealthProbeBindAddress, cfg.LeaderElectionEnabled())
	}
	if !cfg.Metrics.EnableClusterQueueResources {
		t.Error("a field without a flag lost its value from the file")
	}
}

func TestBadFlagValueNamesTheFlag(t *testing.T) {
	t.Parallel()
	_, err := parse(t, "--health-probe-bind-address", "8081")
	var invalid *configapi.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("err = %v; want an InvalidError", err)
	}
	for _, want := range []string{"health.healthProbeBindAddress", "--health-probe-bind-address"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestFeatureGatesFlag(t *testing.T) {
	t.Parallel()
	cfg, err := parse(t, "--feature-gates", "DynamicQuotaOrchestration=true,LocalQueueMetrics=false")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.FeatureGate(configapi.FeatureDynamicQuotaOrchestration) || cfg.FeatureGate(configapi.FeatureLocalQueueMetrics) {
		t.Errorf("gates = %v; want DQO on and LocalQueueMetrics off", cfg.ResolvedFeatureGates())
	}
	if _, err := parse(t, "--feature-gates", "Bogus=true"); err == nil || !strings.Contains(err.Error(), "featureGates[Bogus]") {
		t.Errorf("unknown gate on the command line: %v; want it named", err)
	}
	file := writeFile(t, "c.yaml", "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n  LocalQueueMetrics: true\n")
	if _, err := parse(t, "--config", file, "--feature-gates", "DynamicQuotaOrchestration=true"); err == nil || !strings.Contains(err.Error(), "--feature-gates") {
		t.Errorf("--feature-gates with featureGates in the file: %v; want a refusal", err)
	}
}

func TestManagerOptionsFollowTheConfiguration(t *testing.T) {
	t.Parallel()
	cfg, err := configapi.Decode([]byte(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: quokka-system
webhook:
  port: 9444
health:
  readinessEndpointName: ready
leaderElection:
  leaderElect: true
  leaseDuration: 30s
pprofBindAddress: 127.0.0.1:6060
controller:
  groupKindConcurrency:
    Job.batch: 5
    Workload.kueue.x-k8s.io: 3
  cacheSyncTimeout: 300000000000
`))
	if err != nil {
		t.Fatal(err)
	}
	o := managerOptions(cfg, ManagerOptions{MetricsSecure: true})
	if !o.LeaderElection || o.LeaderElectionID != "c1f6bfd2.kueue.x-k8s.io" || o.LeaderElectionResourceLock != "leases" {
		t.Errorf("leader election = %v %q %q; want on, Kueue's lease name, leases", o.LeaderElection, o.LeaderElectionID, o.LeaderElectionResourceLock)
	}
	if o.LeaderElectionNamespace != "quokka-system" {
		t.Errorf("lease namespace = %q; want the manager's namespace", o.LeaderElectionNamespace)
	}
	if *o.LeaseDuration != 30*time.Second || *o.RenewDeadline != 10*time.Second {
		t.Errorf("lease %v renew %v; want 30s and the default 10s", *o.LeaseDuration, *o.RenewDeadline)
	}
	if o.Metrics.BindAddress != ":8443" || !o.Metrics.SecureServing || o.Metrics.FilterProvider == nil {
		t.Errorf("metrics = %+v; want :8443 over authenticated HTTPS", o.Metrics)
	}
	if o.HealthProbeBindAddress != ":8081" || o.ReadinessEndpointName != "/ready" || o.LivenessEndpointName != "/healthz" {
		t.Errorf("health = %q %q %q", o.HealthProbeBindAddress, o.ReadinessEndpointName, o.LivenessEndpointName)
	}
	// Kueue's pprofBindAddress and controller options reach controller-runtime
	// as they are (Kueue's pkg/config does the same).
	if o.PprofBindAddress != "127.0.0.1:6060" || o.Controller.GroupKindConcurrency["Job.batch"] != 5 ||
		o.Controller.GroupKindConcurrency["Workload.kueue.x-k8s.io"] != 3 || o.Controller.CacheSyncTimeout != 5*time.Minute {
		t.Errorf("pprof %q, controller %+v; want 127.0.0.1:6060, Job.batch 5, Workload 3, a 5m cache sync timeout", o.PprofBindAddress, o.Controller)
	}
	if o.Scheme == nil || !o.Scheme.IsGroupRegistered("kueue.x-k8s.io") || !o.Scheme.IsGroupRegistered("scheduling.sigs.k8s.io") {
		t.Error("the manager's scheme does not hold the Kueue groups")
	}

	// Workloads are cached without managedFields (the manager's status writes
	// then carry none); other kinds keep theirs (the Koord-Queue controller
	// reads ElasticQuotas' update times from them).
	if o.Cache.DefaultTransform == nil {
		t.Fatal("no cache transform")
	}
	entry := []metav1.ManagedFieldsEntry{{Manager: "runner", Operation: metav1.ManagedFieldsOperationUpdate}}
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{ManagedFields: entry}}
	eq := &koordv1alpha1.ElasticQuota{ObjectMeta: metav1.ObjectMeta{ManagedFields: entry}}
	if got, err := o.Cache.DefaultTransform(wl); err != nil || len(got.(*kueue.Workload).ManagedFields) != 0 {
		t.Errorf("cached Workload keeps managedFields %v (%v)", got.(*kueue.Workload).ManagedFields, err)
	}
	if got, err := o.Cache.DefaultTransform(eq); err != nil || len(got.(*koordv1alpha1.ElasticQuota).ManagedFields) != 1 {
		t.Errorf("cached ElasticQuota lost its managedFields (%v)", err)
	}

	cfg.LeaderElection.ResourceNamespace = "leases-here"
	if o := managerOptions(cfg, ManagerOptions{}); o.LeaderElectionNamespace != "leases-here" || o.Metrics.SecureServing {
		t.Errorf("lease namespace %q, secure %v; want the file's resourceNamespace and plain HTTP", o.LeaderElectionNamespace, o.Metrics.SecureServing)
	}
}

// NewManager builds without contacting the API server, applies the client rate
// limit, and hands every registered controller the manager and the Configuration.
func TestNewManagerSetsUpControllers(t *testing.T) {
	t.Parallel()
	cfg, err := parse(t, "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	restConfig := &rest.Config{Host: "https://127.0.0.1:1"}
	var order []string
	setup := func(name string) Controller {
		return Controller{Name: name, Setup: func(mgr manager.Manager, got *configapi.Configuration) error {
			if got != cfg {
				t.Errorf("%s received another Configuration", name)
			}
			if mgr.GetConfig().QPS != 1000 || mgr.GetConfig().Burst != 1000 {
				t.Errorf("client rate limit %v/%d; want clientConnection's 1000/1000", mgr.GetConfig().QPS, mgr.GetConfig().Burst)
			}
			order = append(order, name)
			return nil
		}}
	}
	if _, err := NewManager(restConfig, cfg, ManagerOptions{Controllers: []Controller{setup("a"), setup("b")}}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "a,b" {
		t.Errorf("controllers set up as %v; want a then b", order)
	}
	if restConfig.QPS != 0 {
		t.Error("NewManager changed the caller's rest.Config")
	}

	failing := Controller{Name: "clusterqueue", Setup: func(manager.Manager, *configapi.Configuration) error { return errors.New("boom") }}
	_, err = NewManager(restConfig, cfg, ManagerOptions{Controllers: []Controller{failing}})
	if err == nil || !strings.Contains(err.Error(), "clusterqueue") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v; want the controller's name and cause", err)
	}
}

// BeforeStart hooks run when the manager starts, in order, before it starts
// anything; a hook's error stops the start, naming the controller.
func TestBeforeStartHooksRunFirstAndTheirErrorStopsTheStart(t *testing.T) {
	t.Parallel()
	cfg, err := parse(t, "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	hook := func(name string, err error) Controller {
		return Controller{
			Name:  name,
			Setup: func(manager.Manager, *configapi.Configuration) error { return nil },
			BeforeStart: func(ctx context.Context, c client.Client, got *configapi.Configuration) error {
				if c == nil || got != cfg {
					t.Errorf("%s: client %v, same Configuration %v", name, c, got == cfg)
				}
				ran = append(ran, name)
				return err
			},
		}
	}
	noHook := Controller{Name: "plain", Setup: func(manager.Manager, *configapi.Configuration) error { return nil }}
	// Nothing listens at this address: the manager would fail to sync its caches
	// if it started.
	mgr, err := NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, cfg, ManagerOptions{Controllers: []Controller{
		hook("a", nil), noHook, hook("b", errors.New("no namespace")), hook("c", nil),
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = mgr.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "preparing controller b: no namespace") {
		t.Errorf("Start: %v; want the error of b's hook, naming b", err)
	}
	if strings.Join(ran, ",") != "a,b" {
		t.Errorf("hooks ran: %v; want a then b, and nothing after b's error", ran)
	}
}
