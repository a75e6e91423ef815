package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/internal/snapshot"
)

// NewSnapshotCommand builds `quokka snapshot`: the live cluster's queueing state
// as manifests that `quokka simulate -f DIR` replays unchanged.
func NewSnapshotCommand() *cobra.Command {
	var dir, kubeconfig, configFile string
	var assume time.Duration
	cmd := &cobra.Command{
		Use:   "snapshot -o DIR",
		Short: "Write the cluster's queues, quotas and workloads as manifests to simulate (reads the cluster, never writes)",
		Long: "Read the cluster through the kubeconfig and write its ResourceFlavors, Cohorts,\n" +
			"ClusterQueues, LocalQueues, priority classes, Namespaces, PreemptionConfigs,\n" +
			"CapacityProviders, DynamicQuotaOrchestrators, ElasticQuotas and Workloads into DIR,\n" +
			"cleaned of what the server sets. `quokka simulate -f DIR` replays them: admitted\n" +
			"Workloads start admitted, pending ones arrive at time 0 in queue order. A Workload\n" +
			"without the simulation.quokka.dev/runtime annotation gets --assume-runtime, marked\n" +
			"as assumed, and the simulation lists it.",
		Example: "  quokka snapshot -o now/ && quokka simulate -f now/",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if assume <= 0 {
				return fmt.Errorf("--assume-runtime: %s must be greater than 0", assume)
			}
			opts := snapshot.Options{AssumedRuntime: assume}
			if configFile != "" {
				if _, err := configapi.Load(configFile); err != nil {
					return fmt.Errorf("--config: %w", err)
				}
				data, err := os.ReadFile(configFile)
				if err != nil {
					return fmt.Errorf("--config: %w", err)
				}
				opts.Configuration = data
			}
			snap, err := snapshot.Take(cmd.Context(), kubeconfig, opts)
			if err != nil {
				return err
			}
			if err := snap.Write(dir); err != nil {
				return err
			}
			errw := cmd.ErrOrStderr()
			for _, s := range snap.Skipped {
				fmt.Fprintf(errw, "skipped Workload %s\n", s)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files to %s: %d admitted and %d pending Workloads (runtime assumed for %d)\n",
				len(snap.Files), dir, snap.Admitted, snap.Pending, len(snap.Assumed))
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "output-dir", "o", "", "directory to write the manifests into (new or empty)")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file; default $KUBECONFIG, ~/.kube/config or in-cluster")
	cmd.Flags().StringVar(&configFile, "config", "", "the manager's Configuration file, written into the snapshot so that the simulation runs with the manager's options")
	cmd.Flags().DurationVar(&assume, "assume-runtime", snapshot.DefaultAssumedRuntime, "runtime of a Workload without the simulation.quokka.dev/runtime annotation")
	_ = cmd.MarkFlagRequired("output-dir")
	return cmd
}
