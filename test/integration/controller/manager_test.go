//go:build integration

package controller

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/internal/cli"
)

// runningManager is a manager started by a test.
type runningManager struct {
	metricsAddr string
	cancel      context.CancelFunc
	done        chan error
}

// startManager runs a manager with the core controllers until stop or the end
// of the test. configure may change the Configuration first.
func startManager(t *testing.T, configure func(*configapi.Configuration)) *runningManager {
	t.Helper()
	cfg := configapi.Default()
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Health.HealthProbeBindAddress = "0"
	cfg.Metrics.BindAddress = freeAddr(t)
	cfg.ClientConnection = &configapi.ClientConnection{QPS: ptr.To[float32](-1), Burst: ptr.To[int32](1000)}
	if configure != nil {
		configure(cfg)
	}
	restConfig := rest.CopyConfig(env.Config)
	mgr, err := cli.NewManager(restConfig, cfg, cli.ManagerOptions{
		MetricsSecure: false,
		Controllers:   []cli.Controller{core.NewController()},
	})
	if err != nil {
		t.Fatalf("creating manager: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rm := &runningManager{metricsAddr: cfg.Metrics.BindAddress, cancel: cancel, done: make(chan error, 1)}
	go func() { rm.done <- mgr.Start(ctx) }()
	t.Cleanup(rm.stop)
	return rm
}

// stop cancels the manager and waits for it to return; it may be called twice.
func (m *runningManager) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	select {
	case <-m.done:
	case <-time.After(30 * time.Second):
	}
}

// scrape returns the metrics endpoint's text.
func (m *runningManager) scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + m.metricsAddr + "/metrics")
	if err != nil {
		t.Fatalf("scraping metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading metrics: %v", err)
	}
	return string(body)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return fmt.Sprintf("127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}
