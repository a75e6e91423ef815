package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"quokka.dev/quokka/simulator/generate"
)

// newGenerateCommand is `quokka simulate generate`: it writes a synthetic week of
// jobs for a large cluster, to measure the scheduler and to start what-if runs from.
func newGenerateCommand() *cobra.Command {
	opts := generate.Options{}
	var dir string
	cmd := &cobra.Command{
		Use:   "generate -o DIR",
		Short: "Write a synthetic cluster and a week of jobs as manifests",
		Long: `Generate writes DIR/cluster.yaml (ResourceFlavors h100 and a100, priority classes,
a root Cohort with --cohorts children, and --queues teams each with a Namespace,
a ClusterQueue and a LocalQueue) and DIR/jobs-NN.yaml (--jobs batch/v1 Jobs).

Jobs arrive over --duration with a daily rhythm (busy afternoons, quiet nights)
and quieter weekends; teams submit with a heavy-tailed skew; sizes range from 1 to
32 GPUs (1 to 4 pods); runtimes are log-normal around 45 minutes, capped at a
day; 10% are high, 30% medium and 60% low priority. The cluster is sized so that
the demand is --load of its GPUs on average. The same --seed gives the same files.`,
		Example: `  quokka simulate generate --queues 1000 --cohorts 10 --jobs 100000 --seed 1 -o /tmp/week
  quokka simulate -f /tmp/week --output json > /tmp/week.json`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return fmt.Errorf("-o/--output-dir is required")
			}
			t, err := generate.New(opts)
			if err != nil {
				return err
			}
			files, err := t.WriteDir(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files to %s: %d ClusterQueues, %d Cohorts, %d jobs, %d GPUs\n",
				len(files), dir, len(t.Queues), len(t.Cohorts)+1, len(t.Jobs), t.GPUs)
			return nil
		},
	}
	cmd.Flags().IntVar(&opts.Queues, "queues", 1000, "number of teams (ClusterQueues)")
	cmd.Flags().IntVar(&opts.Cohorts, "cohorts", 10, "number of Cohorts under the root Cohort")
	cmd.Flags().IntVar(&opts.Jobs, "jobs", 100000, "number of jobs")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed")
	cmd.Flags().DurationVar(&opts.Duration, "duration", 7*24*time.Hour, "span over which jobs arrive")
	cmd.Flags().Float64Var(&opts.Load, "load", 0.85, "average GPU demand as a fraction of the cluster's GPUs")
	cmd.Flags().Float64Var(&opts.Reclaim, "reclaim", 0.5, "fraction of teams that reclaim lent quota by preemption (reclaimWithinCohort: Any)")
	cmd.Flags().StringVarP(&dir, "output-dir", "o", "", "directory to write the manifests into")
	return cmd
}
