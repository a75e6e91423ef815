//go:build integration

// Package jobs tests the batch/v1 Job integration against a real kube-apiserver:
// the webhooks of config/webhook served by the manager's webhook server, and the
// Job controller running in-process. The core scheduler is not running; the
// tests write Workload status the way it does (status.admission with
// QuotaReserved and Admitted on admission, Evicted on eviction).
package jobs

import (
	"fmt"
	"os"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/internal/cli"
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
	env, err := framework.StartWithWebhooks()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}()
	restConfig, k8s = env.Config, env.Client

	return env.RunWithManager(m, []cli.Controller{
		job.Controller(),
		webhooks.ControllerWith(webhooks.Options{ManageCerts: false}),
	})
}
