//go:build integration

// Package dqo runs the Dynamic Quota Orchestration controller in-process against a
// real kube-apiserver (envtest) and checks the rules of spec 000 through the API:
// what it writes to DynamicQuotaOrchestrators, ClusterQueues and Cohorts, and what
// it leaves alone.
//
// One manager serves every test of the package, as one manager serves a cluster.
// Tests run in parallel on disjoint subtrees (every name carries the test's
// prefix), which also checks that orchestrators of unrelated subtrees do not
// disturb each other.
package dqo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	dqocontroller "quokka.dev/quokka/controllers/dqo"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

var env *framework.Env

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The controller's log goes to stderr, which `go test` shows only for a failing
	// package: exactly when it helps.
	ctrl.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(1), textlogger.Output(os.Stderr))))

	var err error
	env, err = framework.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}()

	mgr, err := ctrl.NewManager(env.Config, manager.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating manager:", err)
		return 1
	}
	cfg := &configapi.Configuration{FeatureGates: map[string]bool{string(configapi.FeatureDynamicQuotaOrchestration): true}}
	if err := dqocontroller.Setup(mgr, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	code := m.Run()

	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "manager:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
