// Package cli holds the quokka binary's commands. It lives outside package main
// so that the commands can be run from tests with arguments and captured output,
// without a cluster.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"quokka.dev/quokka/internal/version"
)

// Options are the binary's extension points. cmd/quokka/main.go fills them (the
// controllers from controllers.All), so that adding a controller or a subcommand
// is one line and this package does not import the controllers or the simulator.
type Options struct {
	// Controllers are set up, in order, on the manager of `quokka manager`.
	Controllers []Controller
	// Subcommands are added to the root command next to manager and version,
	// for example `quokka simulate`.
	Subcommands []*cobra.Command
}

// NewRootCommand builds `quokka` with its built-in subcommands and the extra ones
// in opts.
func NewRootCommand(opts Options) *cobra.Command {
	root := &cobra.Command{
		Use:   "quokka",
		Short: "Kueue-compatible job queueing and quota manager",
		Long: "Quokka decides which jobs wait, are admitted or are preempted, from Kueue's\n" +
			"ClusterQueues, Cohorts and LocalQueues and from Dynamic Quota Orchestration.",
		Version: version.Get().Version,
		// Errors are printed once, by Execute; usage is only useful for flag errors,
		// which SetFlagErrorFunc below handles.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// `quokka --version` prints the same line as `quokka version`.
	root.SetVersionTemplate(version.Get().String() + "\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nSee '%s --help'", err, c.CommandPath())
	})

	root.AddCommand(newVersionCommand(), newManagerCommand(opts.Controllers), NewExplainCommand(), NewSnapshotCommand())
	root.AddCommand(opts.Subcommands...)
	return root
}

// Execute runs root with args (os.Args[1:] in main) and returns the process exit
// code, printing any error to stderr. A non-zero code means the command failed,
// including an invalid configuration file.
func Execute(ctx context.Context, root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), version.Get().String())
			return err
		},
	}
}
