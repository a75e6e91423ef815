// Command quokka is Quokka's single binary: `quokka manager` runs the controllers
// in a cluster, `quokka version` prints the version, and other subcommands (such
// as `quokka simulate`) are added below.
package main

import (
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"quokka.dev/quokka/controllers/core"
	dqocontroller "quokka.dev/quokka/controllers/dqo"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/internal/cli"
	simulatecli "quokka.dev/quokka/simulator/cli"
)

// controllers are set up, in this order, on the manager of `quokka manager`. Each
// controller package exports a cli.Controller{Name, Setup}; register it here.
func controllers() []cli.Controller {
	return []cli.Controller{
		core.NewController(),       // engine feeding, scheduling loop, Workload lifecycle, status, metrics
		dqocontroller.Controller(), // only when the DynamicQuotaOrchestration gate is on
		job.Controller(),
		webhooks.Controller(), // serving certificate managed in-process (cert-controller)
		koord.Controller(),    // Koord-Queue: a Queue per ElasticQuota, kept in sync
	}
}

// subcommands are added to `quokka` next to manager and version, e.g.
// `simulator.NewCommand()` for `quokka simulate`.
func subcommands() []*cobra.Command {
	return []*cobra.Command{simulatecli.NewCommand()}
}

func main() {
	root := cli.NewRootCommand(cli.Options{
		Controllers: controllers(),
		Subcommands: subcommands(),
	})
	// The signal handler cancels the context on SIGTERM or SIGINT so that the
	// manager shuts down cleanly and releases its lease; a second signal exits.
	os.Exit(cli.Execute(ctrl.SetupSignalHandler(), root, os.Args[1:], os.Stderr))
}
