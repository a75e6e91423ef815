//go:build integration

// Package e2e runs the whole manager of `quokka manager` (core controllers and
// scheduling loop, the batch/v1 Job integration and its webhooks) against a real
// kube-apiserver, and plays the spec's worked example with real Jobs.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/test/integration/framework"
)

var k8s client.Client

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set: run with KUBEBUILDER_ASSETS=$(hack/envtest.sh)")
		return 1
	}
	env, err := framework.StartWithWebhooks()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	k8s = env.Client
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	err = env.StartManager(ctx, []cli.Controller{
		core.NewController(),
		job.Controller(),
		webhooks.ControllerWith(webhooks.Options{ManageCerts: false}),
	}, stopped)
	if err != nil {
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
