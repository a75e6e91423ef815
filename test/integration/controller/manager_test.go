//go:build integration

package controller

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/internal/cli"
)

// runningManager is a manager started by a test.
type runningManager struct {
	metricsAddr string
	// registry is set when the manager's metrics are on a registry of its
	// own rather than controller-runtime's (served by its endpoint).
	registry *prometheus.Registry
	cancel   context.CancelFunc
	done     chan error
}

// startManager runs a manager with the core controllers until stop or the end
// of the test. configure may change the Configuration first.
func startManager(t *testing.T, configure func(*configapi.Configuration)) *runningManager {
	t.Helper()
	return startManagerWith(t, configure, nil)
}

// startManagerWith exports metrics to registry when it is not nil: a second
// manager in the same process cannot share controller-runtime's registry with
// the first.
func startManagerWith(t *testing.T, configure func(*configapi.Configuration), registry *prometheus.Registry) *runningManager {
	t.Helper()
	return startManagerOpts(t, configure, registry, core.LoopOptions{})
}

// startManagerOpts also sets the scheduling loop's options.
// Extra controllers (the Job integration, say) run beside the core.
func startManagerOpts(t *testing.T, configure func(*configapi.Configuration), registry *prometheus.Registry, loop core.LoopOptions,
	extra ...cli.Controller) *runningManager {
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
		Controllers: append([]cli.Controller{{Name: "core", Setup: func(mgr manager.Manager, cfg *configapi.Configuration) error {
			opts := core.Options{Loop: loop}
			if registry != nil {
				opts.Registerer = registry
			}
			return core.Setup(mgr, cfg, opts)
		}}}, extra...),
	})
	if err != nil {
		t.Fatalf("creating manager: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rm := &runningManager{metricsAddr: cfg.Metrics.BindAddress, registry: registry, cancel: cancel, done: make(chan error, 1)}
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

// scrape returns the metrics endpoint's text, or "" while the endpoint is not
// serving yet (callers poll).
func (m *runningManager) scrape(t *testing.T) string {
	t.Helper()
	if m.registry != nil {
		rec := httptest.NewRecorder()
		promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	resp, err := http.Get("http://" + m.metricsAddr + "/metrics")
	if err != nil {
		t.Logf("scraping metrics: %v", err)
		return ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Logf("reading metrics: %v", err)
		return ""
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
