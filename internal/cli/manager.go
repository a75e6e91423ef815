package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/internal/version"
)

// Controller is one controller (or webhook) of the manager. Setup registers it
// with mgr; it receives the validated Configuration so that it can read resolved
// options (cfg.FairSharingEnabled(), cfg.FeatureGate(...)) once, at start-up.
type Controller struct {
	// Name appears in the error when Setup or BeforeStart fails.
	Name  string
	Setup func(mgr manager.Manager, cfg *configapi.Configuration) error
	// BeforeStart, if set, runs when the manager starts, before its caches,
	// controllers and leader election: it creates what they need to find in the
	// cluster. c reads from the API server, not from a cache; ctx carries a
	// logger named after the controller. An error stops the manager.
	BeforeStart func(ctx context.Context, c client.Client, cfg *configapi.Configuration) error
	// Flags, if set, adds the controller's own command-line flags to `quokka
	// manager` (Koord-Queue's --oversellrate, for one). A value that does not
	// parse is refused by the flag itself, so the error names the flag.
	Flags func(fs *pflag.FlagSet)
}

// managerFlags are the command-line flags of `quokka manager`. The three that also
// exist in the Configuration override it when given; the rest have no equivalent
// in Kueue's file.
type managerFlags struct {
	configFile         string
	metricsBindAddress string
	healthProbeAddress string
	leaderElect        bool
	featureGates       map[string]bool
	metricsSecure      bool
	enableHTTP2        bool
	cpuProfile         string
	logging            *textlogger.Config
}

func newManagerCommand(controllers []Controller) *cobra.Command {
	cmd, _ := newManagerCommandWithFlags(controllers)
	return cmd
}

// newManagerCommandWithFlags also returns the flags' destination, for tests.
func newManagerCommandWithFlags(controllers []Controller) (*cobra.Command, *managerFlags) {
	// klog's text logger, the format of Kubernetes components; it needs no module
	// beyond those the API machinery already brings.
	f := &managerFlags{logging: textlogger.NewConfig(textlogger.Output(os.Stderr))}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the controller manager in a cluster",
		Long: "Run the controllers, webhooks, metrics and health probes against the cluster of\n" +
			"the current kubeconfig (or the in-cluster service account).\n\n" +
			"--config reads a config.kueue.x-k8s.io/v1beta2 Configuration; an invalid file\n" +
			"stops the manager before it connects to the cluster, naming the field.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.loadConfiguration(cmd)
			if err != nil {
				return err
			}
			ctrl.SetLogger(textlogger.NewLogger(f.logging))
			restConfig, err := ctrlconfig.GetConfig()
			if err != nil {
				return fmt.Errorf("finding the cluster to manage: %w", err)
			}
			mgr, err := NewManager(restConfig, cfg, ManagerOptions{
				MetricsSecure: f.metricsSecure,
				EnableHTTP2:   f.enableHTTP2,
				Controllers:   controllers,
			})
			if err != nil {
				return err
			}
			if f.cpuProfile != "" {
				stop, err := startCPUProfile(f.cpuProfile)
				if err != nil {
					return err
				}
				defer stop()
			}
			ctrl.Log.WithName("setup").Info("starting manager",
				"version", version.Get().String(),
				"fairSharing", cfg.FairSharingEnabled(),
				"featureGates", cfg.ResolvedFeatureGates())
			if err := mgr.Start(cmd.Context()); err != nil {
				return fmt.Errorf("running manager: %w", err)
			}
			return nil
		},
	}

	fs := cmd.Flags()
	fs.StringVar(&f.configFile, "config", "",
		"config.kueue.x-k8s.io/v1beta2 Configuration file; without it, Kueue's defaults apply")
	fs.StringVar(&f.metricsBindAddress, "metrics-bind-address", configapi.DefaultMetricsBindAddress,
		`metrics endpoint address, "0" to disable; overrides metrics.bindAddress`)
	fs.StringVar(&f.healthProbeAddress, "health-probe-bind-address", configapi.DefaultHealthProbeBindAddress,
		`health probe address, "0" to disable; overrides health.healthProbeBindAddress`)
	fs.BoolVar(&f.leaderElect, "leader-elect", true,
		"campaign for leadership so that only one replica acts; overrides leaderElection.leaderElect")
	fs.Var(cliflag.NewMapStringBool(&f.featureGates), "feature-gates",
		"comma-separated Feature=bool pairs; cannot be combined with featureGates in --config")
	fs.BoolVar(&f.metricsSecure, "metrics-secure", true,
		"serve metrics over HTTPS, authenticated and authorized against the API server")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "",
		"write a CPU profile of the whole run to this file when the manager stops (for performance work)")
	fs.BoolVar(&f.enableHTTP2, "enable-http2", false,
		"allow HTTP/2 on the metrics and webhook servers (off because of the HTTP/2 rapid-reset CVEs)")

	for _, c := range controllers {
		if c.Flags != nil {
			c.Flags(fs)
		}
	}

	// Logging (-v, --vmodule) and controller-runtime's --kubeconfig are Go flags;
	// adding them here keeps one definition and shows them in --help.
	gofs := flag.NewFlagSet("manager", flag.ContinueOnError)
	f.logging.AddFlags(gofs)
	gofs.Lookup("v").Usage = "log verbosity: 0 for start-up and errors, higher for more detail"
	if kc := flag.CommandLine.Lookup(ctrlconfig.KubeconfigFlagName); kc != nil {
		gofs.Var(kc.Value, kc.Name, kc.Usage)
	}
	fs.AddGoFlagSet(gofs)
	return cmd, f
}

// startCPUProfile profiles the process until the returned function runs.
func startCPUProfile(path string) (func(), error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		out.Close()
	}, nil
}

// loadConfiguration reads --config (or takes Kueue's defaults), applies the flags
// that override it, and validates the result, so that a bad flag is refused with
// the same message as the same mistake in the file.
func (f *managerFlags) loadConfiguration(cmd *cobra.Command) (*configapi.Configuration, error) {
	env := configapi.WithEnvironment(configapi.EnvironmentFromServiceAccount(configapi.DefaultServiceAccountNamespaceFile))
	var cfg *configapi.Configuration
	if f.configFile == "" {
		cfg = configapi.Default(env)
	} else {
		var err error
		if cfg, err = configapi.Load(f.configFile, env); err != nil {
			return nil, err
		}
	}

	// Each override remembers the field it sets, so that a bad flag value is
	// reported against the flag the user typed.
	fromFlag := map[string]string{}
	changed := cmd.Flags().Changed
	if changed("metrics-bind-address") {
		cfg.Metrics.BindAddress = f.metricsBindAddress
		fromFlag["metrics.bindAddress"] = "--metrics-bind-address"
	}
	if changed("health-probe-bind-address") {
		cfg.Health.HealthProbeBindAddress = f.healthProbeAddress
		fromFlag["health.healthProbeBindAddress"] = "--health-probe-bind-address"
	}
	if changed("leader-elect") {
		elect := f.leaderElect
		cfg.LeaderElection.LeaderElect = &elect
	}
	if changed("feature-gates") {
		// Kueue refuses the combination too: two sources for one map would make
		// it unclear which wins.
		if len(cfg.FeatureGates) > 0 {
			return nil, errors.New("--feature-gates cannot be used together with featureGates in the configuration file")
		}
		cfg.FeatureGates = f.featureGates
		for name := range f.featureGates {
			fromFlag["featureGates["+name+"]"] = "--feature-gates"
		}
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		for _, e := range errs {
			if flagName, ok := fromFlag[e.Field]; ok {
				e.Detail += " (set by " + flagName + ")"
			}
		}
		source := "configuration"
		if f.configFile != "" {
			source = f.configFile
		}
		return nil, &configapi.InvalidError{Source: source, Errs: errs}
	}
	return cfg, nil
}

// ManagerOptions are the manager's settings that are not in the Configuration.
type ManagerOptions struct {
	// MetricsSecure serves metrics over HTTPS behind TokenReview and
	// SubjectAccessReview, as Kueue does on :8443.
	MetricsSecure bool
	// EnableHTTP2 allows HTTP/2 on the metrics and webhook servers.
	EnableHTTP2 bool
	// Controllers are set up on the manager, in order.
	Controllers []Controller
}

// NewManager builds the controller-runtime manager from a validated Configuration,
// registers the health probes and sets up the controllers. It does not start it,
// and it does not contact the API server, so it can be tested without a cluster;
// the controllers' BeforeStart hooks run when the returned manager starts.
func NewManager(restConfig *rest.Config, cfg *configapi.Configuration, opts ManagerOptions) (manager.Manager, error) {
	restConfig = rest.CopyConfig(restConfig)
	if cc := cfg.ClientConnection; cc != nil {
		if cc.QPS != nil {
			restConfig.QPS = *cc.QPS
		}
		if cc.Burst != nil {
			restConfig.Burst = int(*cc.Burst)
		}
	}
	mgr, err := ctrl.NewManager(restConfig, managerOptions(cfg, opts))
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	// The probes only say that the process serves HTTP; controllers that need to
	// gate readiness (on cache sync, on webhook certificates) add their own check.
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding liveness check: %w", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding readiness check: %w", err)
	}
	var hooked []Controller
	for _, c := range opts.Controllers {
		if err := c.Setup(mgr, cfg); err != nil {
			return nil, fmt.Errorf("setting up controller %s: %w", c.Name, err)
		}
		if c.BeforeStart != nil {
			hooked = append(hooked, c)
		}
	}
	if len(hooked) > 0 {
		return &preparingManager{Manager: mgr, cfg: cfg, controllers: hooked}, nil
	}
	return mgr, nil
}

// preparingManager runs its controllers' BeforeStart hooks, in order, when it
// starts. They cannot be runnables: controller-runtime starts the runnables of a
// group together, while the certificate rotator stops the manager if its Secret
// is missing when it starts, and leader election needs its Lease's namespace.
type preparingManager struct {
	manager.Manager
	cfg         *configapi.Configuration
	controllers []Controller
}

func (m *preparingManager) Start(ctx context.Context) error {
	c, err := client.New(m.GetConfig(), client.Options{
		HTTPClient: m.GetHTTPClient(),
		Scheme:     m.GetScheme(),
		Mapper:     m.GetRESTMapper(),
	})
	if err != nil {
		return fmt.Errorf("creating a client to prepare the cluster: %w", err)
	}
	for _, ctl := range m.controllers {
		hookCtx := ctrl.LoggerInto(ctx, m.GetLogger().WithName(ctl.Name))
		if err := ctl.BeforeStart(hookCtx, c, m.cfg); err != nil {
			return fmt.Errorf("preparing controller %s: %w", ctl.Name, err)
		}
	}
	return m.Manager.Start(ctx)
}

// managerOptions translates the Configuration into controller-runtime's options.
func managerOptions(cfg *configapi.Configuration, opts ManagerOptions) ctrl.Options {
	var tlsOpts []func(*tls.Config)
	if !opts.EnableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metrics := metricsserver.Options{
		BindAddress:   cfg.Metrics.BindAddress,
		SecureServing: opts.MetricsSecure,
		TLSOpts:       tlsOpts,
	}
	if opts.MetricsSecure {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}

	o := ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metrics,
		HealthProbeBindAddress: cfg.Health.HealthProbeBindAddress,
		ReadinessEndpointName:  cfg.Health.ReadinessEndpointName,
		LivenessEndpointName:   cfg.Health.LivenessEndpointName,
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    cfg.Webhook.Host,
			Port:    derefOr(cfg.Webhook.Port, configapi.DefaultWebhookPort),
			CertDir: cfg.Webhook.CertDir,
			TLSOpts: tlsOpts,
		}),
		// Workloads are the objects written most; nothing in the manager reads
		// their managedFields, and the API server ignores them in a status
		// update (a subresource write keeps the live object's), so the cache
		// drops them: smaller copies on every read, and status writes that do
		// not carry them back. Other kinds keep theirs (the Koord-Queue
		// controller reads ElasticQuotas' update times from them). A
		// DefaultTransform, not a per-object one: ByObject needs a REST mapping
		// when the manager is built, and NewManager contacts no API server.
		Cache: cache.Options{DefaultTransform: stripWorkloadManagedFields},
	}
	if cfg.PprofBindAddress != "" {
		o.PprofBindAddress = cfg.PprofBindAddress
	}
	if c := cfg.Controller; c != nil {
		o.Controller.GroupKindConcurrency = c.GroupKindConcurrency
		if c.CacheSyncTimeout != nil {
			o.Controller.CacheSyncTimeout = *c.CacheSyncTimeout
		}
	}
	if le := cfg.LeaderElection; le != nil {
		o.LeaderElection = cfg.LeaderElectionEnabled()
		o.LeaderElectionID = le.ResourceName
		o.LeaderElectionResourceLock = le.ResourceLock
		o.LeaderElectionNamespace = le.ResourceNamespace
		if o.LeaderElectionNamespace == "" && cfg.Namespace != nil {
			// The lease lives next to the manager unless the file says otherwise;
			// this also lets a manager run outside the cluster, where
			// controller-runtime cannot guess a namespace.
			o.LeaderElectionNamespace = *cfg.Namespace
		}
		o.LeaseDuration = &le.LeaseDuration.Duration
		o.RenewDeadline = &le.RenewDeadline.Duration
		o.RetryPeriod = &le.RetryPeriod.Duration
		// Stepping down promptly on shutdown lets the next replica take over in
		// seconds instead of waiting out the lease; safe because Start returns
		// only after every controller has stopped.
		o.LeaderElectionReleaseOnCancel = true
	}
	return o
}

// stripWorkloadManagedFields is the cache's transform: it drops a Workload's
// managedFields and passes every other object through unchanged.
func stripWorkloadManagedFields(obj any) (any, error) {
	if wl, ok := obj.(*kueue.Workload); ok {
		wl.ManagedFields = nil
	}
	return obj, nil
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
