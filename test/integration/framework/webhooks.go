//go:build integration

package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/internal/scheme"
)

// WebhookEnv is a running API server with Quokka's webhook configurations
// installed, pointed by envtest at a local serving address and certificate.
type WebhookEnv struct {
	Config *rest.Config
	Client client.Client
	env    *envtest.Environment
}

// StartWithWebhooks launches etcd and kube-apiserver with the CRDs of
// config/crd/bases and the webhook configurations of config/webhook.
func StartWithWebhooks() (*WebhookEnv, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, fmt.Errorf("KUBEBUILDER_ASSETS is not set: run the integration tests with `make test-integration`, which builds the API server with hack/envtest.sh")
	}
	root := RepoRoot()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		// The webhook configurations are the ones installed in clusters; envtest
		// points their clientConfig at its local serving address and CA.
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook", "manifests.yaml")},
		},
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("creating client: %w", err)
	}
	return &WebhookEnv{Config: cfg, Client: c, env: env}, nil
}

// Stop shuts the API server and etcd down.
func (e *WebhookEnv) Stop() error { return e.env.Stop() }

// StartManager runs the manager of `quokka manager` (cli.NewManager) with the
// given controllers, serving webhooks on envtest's address with envtest's
// certificate, metrics and probes off and no leader election, and waits until the
// webhook server answers. The manager's error arrives on stopped when ctx ends.
func (e *WebhookEnv) StartManager(ctx context.Context, controllers []cli.Controller, stopped chan<- error) error {
	return e.StartManagerConfigured(ctx, nil, controllers, stopped)
}

// StartManagerConfigured is StartManager with the Configuration changed by
// configure first (nil changes nothing).
func (e *WebhookEnv) StartManagerConfigured(ctx context.Context, configure func(*configapi.Configuration),
	controllers []cli.Controller, stopped chan<- error) error {
	wh := &e.env.WebhookInstallOptions
	cfg := configapi.Default()
	if configure != nil {
		configure(cfg)
	}
	port := wh.LocalServingPort
	cfg.Webhook = configapi.ControllerWebhook{Host: wh.LocalServingHost, Port: &port, CertDir: wh.LocalServingCertDir}
	cfg.Metrics.BindAddress = "0"
	cfg.Health.HealthProbeBindAddress = "0"
	elect := false
	cfg.LeaderElection.LeaderElect = &elect
	mgr, err := cli.NewManager(e.Config, cfg, cli.ManagerOptions{Controllers: controllers})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	go func() { stopped <- mgr.Start(ctx) }()

	addr := net.JoinHostPort(wh.LocalServingHost, strconv.Itoa(wh.LocalServingPort))
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook server at %s did not start: %w", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// RunWithManager starts the manager with the given controllers (StartManager),
// runs the package's tests and stops the manager: the exit code for TestMain.
// A manager that ends in error fails an otherwise passing run.
func (e *WebhookEnv) RunWithManager(m *testing.M, controllers []cli.Controller) int {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	if err := e.StartManager(ctx, controllers, stopped); err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	cancel()
	if err := <-stopped; err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
