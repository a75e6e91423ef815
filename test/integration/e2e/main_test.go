//go:build integration

// Package e2e runs the whole manager of `quokka manager` (core controllers and
// scheduling loop, the batch/v1 Job integration and its webhooks) against a real
// kube-apiserver, and plays the spec's worked example with real Jobs. No Job
// controller runs here: the Jobs get no pods (test/integration/cluster follows
// them to pods on nodes).
package e2e

import (
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
	env, err := framework.StartWithWebhooks()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	k8s = env.Client
	return env.RunWithManager(m, []cli.Controller{
		core.NewController(),
		job.Controller(),
		webhooks.ControllerWith(webhooks.Options{ManageCerts: false}),
	})
}
