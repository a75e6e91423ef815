//go:build integration

// Package cluster runs Quokka's manager in a cluster with nodes: a real
// kube-apiserver, kube-controller-manager's Job controller, kube-scheduler,
// and KWOK playing the kubelets of fake nodes. The other integration tests
// stop at the API (a Job unsuspended, a Workload admitted); these follow the
// Job to its pods: which nodes the scheduler puts them on, when they run, and
// that quota comes back when they finish or are preempted.
package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

var (
	k8s client.Client
	// watcher watches what the tests must see in the order it happened.
	watcher client.WithWatch
	cluster *framework.Cluster
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	env, err := framework.StartWithWebhooks()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	k8s = env.Client
	if watcher, err = client.NewWithWatch(env.Config, client.Options{Scheme: scheme.New()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	cluster, err = env.StartCluster(filepath.Join(framework.RepoRoot(), "test", "kubecluster", "stages.yaml"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cluster.Stop()

	return env.RunWithManager(m, []cli.Controller{
		core.NewController(),
		job.Controller(),
		webhooks.ControllerWith(webhooks.Options{ManageCerts: false}),
		koord.Controller(),
	})
}
