// Command quokka is Quokka's single binary: `quokka manager` runs the controllers
// in a cluster, `quokka version` prints the version, and other subcommands (such
// as `quokka simulate`) are added below.
package main

import (
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"quokka.dev/quokka/controllers"
	"quokka.dev/quokka/internal/cli"
	simulatecli "quokka.dev/quokka/simulator/cli"
)

// subcommands are added to `quokka` next to manager and version, e.g.
// `simulator.NewCommand()` for `quokka simulate`.
func subcommands() []*cobra.Command {
	return []*cobra.Command{simulatecli.NewCommand()}
}

func main() {
	root := cli.NewRootCommand(cli.Options{
		Controllers: controllers.All(),
		Subcommands: subcommands(),
	})
	// The signal handler cancels the context on SIGTERM or SIGINT so that the
	// manager shuts down cleanly and releases its lease; a second signal exits.
	os.Exit(cli.Execute(ctrl.SetupSignalHandler(), root, os.Args[1:], os.Stderr))
}
