//go:build integration

// Package e2e runs the whole manager of `quokka manager` (core controllers and
// scheduling loop, the batch/v1 Job integration and its webhooks) against a real
// kube-apiserver, and plays the spec's worked example with real Jobs.
package e2e

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
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

var (
	restConfig *rest.Config
	k8s        client.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set: run with KUBEBUILDER_ASSETS=$(hack/envtest.sh)")
		return 1
	}
	root := framework.RepoRoot()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook", "manifests.yaml")},
		},
	}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	restConfig = cfg
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme.New()}); err != nil {
		fmt.Fprintln(os.Stderr, "creating client:", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	if err := startManager(ctx, &env.WebhookInstallOptions, stopped); err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	cancel()
	if err := <-stopped; err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "manager:", err)
		code = 1
	}
	return code
}

// startManager runs the manager with every controller the binary registers for
// Jobs (core, job, webhooks), serving webhooks on envtest's address and
// certificate, and waits until the webhook server answers.
func startManager(ctx context.Context, wh *envtest.WebhookInstallOptions, stopped chan<- error) error {
	cfg := configapi.Default()
	port := wh.LocalServingPort
	cfg.Webhook = configapi.ControllerWebhook{Host: wh.LocalServingHost, Port: &port, CertDir: wh.LocalServingCertDir}
	cfg.Metrics.BindAddress = "0"
	cfg.Health.HealthProbeBindAddress = "0"
	elect := false
	cfg.LeaderElection.LeaderElect = &elect
	mgr, err := cli.NewManager(restConfig, cfg, cli.ManagerOptions{Controllers: []cli.Controller{
		core.NewController(),
		job.Controller(),
		webhooks.ControllerWith(webhooks.Options{ManageCerts: false}),
	}})
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
