// Package cli is the `quokka simulate` command and its `generate` subcommand.
// cmd/quokka adds NewCommand to the root command; the package has no other tie to
// the binary, so its tests run the command with arguments and captured output.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/internal/snapshot"
	"quokka.dev/quokka/simulator"
	"quokka.dev/quokka/simulator/adapter"
	"quokka.dev/quokka/simulator/manifest"
	"quokka.dev/quokka/simulator/output"
	"quokka.dev/quokka/simulator/report"
)

// simulateFlags are the flags of `quokka simulate`.
type simulateFlags struct {
	files          []string
	until          time.Duration
	output         string
	report         string
	oversellRate   string
	confirmSettled bool
	fromCluster    bool
	kubeconfig     string
	assumeRuntime  time.Duration
	compare        bool
	changes        []string
}

// NewCommand returns `quokka simulate` with its `generate` subcommand.
func NewCommand() *cobra.Command {
	f := &simulateFlags{}
	cmd := &cobra.Command{
		Use:   "simulate -f PATH [-f PATH ...] | --from-cluster [-f CHANGES ...] [--compare]",
		Short: "Replay manifests and a trace of jobs against the scheduler, on a virtual clock",
		Long: `Simulate reads ordinary manifests (ResourceFlavors, ClusterQueues, Cohorts,
LocalQueues, Namespaces, WorkloadPriorityClasses, PriorityClasses, CapacityProviders,
DynamicQuotaOrchestrators, the Configuration, Koord-Queue ElasticQuotas, and
jobs as Workloads or batch/v1 Jobs) and replays them against the same engine the
manager runs. A job with the label quota.scheduling.koordinator.sh/name and no
LocalQueue is a Koord-Queue unit, admitted against its ElasticQuota chain.

Annotations place objects on the clock:
  simulation.quokka.dev/at: 10m       when the object is applied (default 0)
  simulation.quokka.dev/runtime: 2h   how long a job runs once admitted
                                      (default: until the end)

The output is a timeline and a summary per ClusterQueue, or one JSON document
with --output json (schema: simulator/README.md). --report DIR also writes a
self-contained HTML page with charts.

--compare runs the start state twice, without and with the changes (the -f
files with --from-cluster, the --changes files otherwise), and prints what
differs: the pending workloads admitted at once, the running ones preempted,
and per ClusterQueue the average wait and resource-hours of both runs.`,
		Example: `  quokka simulate -f examples/gpu-cluster
  quokka simulate --from-cluster -f more-h100-quota.yaml
  quokka simulate --from-cluster -f more-h100-quota.yaml --compare
  quokka simulate -f now/ --changes more-h100-quota.yaml --compare
  quokka simulate -f examples/gpu-cluster --until 15m --output json
  quokka simulate -f cluster/ -f week.yaml --report out/`,
		Args: cobra.NoArgs,
		// A failed simulation is not a usage error: print the error alone.
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulate(cmd, f)
		},
	}
	cmd.Flags().StringArrayVarP(&f.files, "filename", "f", nil, "a manifest file or a directory of them (read recursively, in sorted order); repeatable")
	cmd.Flags().DurationVar(&f.until, "until", 0, "stop the clock at this time from the start (default: when nothing is left to happen)")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	cmd.Flags().StringVar(&f.report, "report", "", "write an HTML report (index.html) into this directory")
	cmd.Flags().StringVar(&f.oversellRate, "oversell-rate", "1", "Koord-Queue's --oversellrate: every ElasticQuota's max is scaled by this rate in the usage check (an exact decimal such as 1.2)")
	cmd.Flags().BoolVar(&f.confirmSettled, "confirm-settled", false, "diagnostic: run one more engine cycle after every cycle that only admitted, and fail if it changes anything")
	_ = cmd.Flags().MarkHidden("confirm-settled")
	cmd.Flags().BoolVar(&f.fromCluster, "from-cluster", false, "start from the live cluster (as `quokka snapshot` writes it); the -f files are then changes applied on top: an object with the same kind, namespace and name replaces the live one, others are added")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "with --from-cluster: kubeconfig file; default $KUBECONFIG, ~/.kube/config or in-cluster")
	cmd.Flags().DurationVar(&f.assumeRuntime, "assume-runtime", snapshot.DefaultAssumedRuntime, "with --from-cluster: runtime of a live Workload without the simulation.quokka.dev/runtime annotation (listed as assumed)")
	cmd.Flags().BoolVar(&f.compare, "compare", false, "run without and with the changes and print what differs (needs --from-cluster with -f CHANGES, or -f BASE with --changes CHANGES)")
	cmd.Flags().StringArrayVar(&f.changes, "changes", nil, "with --compare and without --from-cluster: a change file or directory applied on top of the -f files, as --from-cluster applies -f; repeatable")
	cmd.AddCommand(newGenerateCommand())
	return cmd
}

func runSimulate(cmd *cobra.Command, f *simulateFlags) error {
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("--output: %q is not a format; use text or json", f.output)
	}
	if f.until < 0 {
		return fmt.Errorf("--until: %s must not be negative", f.until)
	}
	rate, err := elasticquota.ParseOversellRate(f.oversellRate)
	if err != nil {
		return fmt.Errorf("--oversell-rate: %w", err)
	}
	if len(f.changes) > 0 && !f.compare {
		return errors.New("--changes: only with --compare")
	}
	opts := simulator.Options{
		NewEngine: adapter.New,
		Until:     f.until,
		HasUntil:  cmd.Flags().Changed("until"),
		// The text timeline prints usage changes, and the report draws them.
		Series:         f.report != "" || f.output == "text",
		ConfirmSettled: f.confirmSettled,
		OversellRate:   rate,
	}
	if ctx := cmd.Context(); ctx != nil {
		opts.Stop = ctx.Done() // SIGTERM or SIGINT ends a long run
	}
	if os.Getenv("GOGC") == "" {
		// A simulation is a batch job on a machine with memory to spare: the
		// engine allocates per decision, and collecting less often makes a
		// large run faster. Not much less often: at 400 the generated week's
		// heap reached 7 GB and the kernel's time to hand out that memory
		// cost more than the collections saved (147 s against 125 s at 150,
		// 133 s at 200, 137 s at 100 on this machine). GOGC, when set, still
		// wins.
		defer debug.SetGCPercent(debug.SetGCPercent(150))
	}
	progress := newProgress(cmd.ErrOrStderr())
	if progress != nil {
		opts.Progress = progress.update
	}
	if f.compare {
		return runCompare(cmd, f, opts, progress)
	}
	docs, err := loadDocuments(cmd, f)
	if err != nil {
		return err
	}
	res, err := simulator.Run(docs, opts)
	progress.done()
	if err != nil {
		return err
	}
	if f.report != "" {
		title := reportTitle(f.files)
		if f.fromCluster {
			title = "Quokka simulation: the live cluster" + strings.TrimPrefix(title, "Quokka simulation:")
			if len(f.files) == 0 {
				title = "Quokka simulation: the live cluster"
			}
		}
		path, err := report.WriteDir(f.report, res, report.Options{Title: title})
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s\n", path)
	}
	return writeResult(cmd.OutOrStdout(), f.output, res)
}

// runCompare runs the start state without and with the changes, with the same
// options, and writes what differs.
func runCompare(cmd *cobra.Command, f *simulateFlags, opts simulator.Options, progress *progress) error {
	base, changed, err := loadComparison(cmd, f)
	if err != nil {
		return err
	}
	baseRes, err := simulator.Run(base, opts)
	if err != nil {
		progress.done()
		return fmt.Errorf("the run without the changes: %w", err)
	}
	changedRes, err := simulator.Run(changed, opts)
	progress.done()
	if err != nil {
		return fmt.Errorf("the run with the changes: %w", err)
	}
	c := simulator.Compare(baseRes, changedRes)
	if f.report != "" {
		start := "Quokka simulation: " + strings.Join(f.files, ", ")
		if f.fromCluster {
			start = "Quokka simulation: the live cluster"
		}
		path, err := report.WriteComparisonDir(f.report, baseRes, changedRes, report.Options{Title: start})
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "report written to %s\n", path)
	}
	if f.output == "json" {
		return output.WriteCompareJSON(cmd.OutOrStdout(), baseRes, changedRes, c)
	}
	return output.WriteCompareText(cmd.OutOrStdout(), c)
}

// loadComparison returns the start state twice, alone and with the changes:
// the live cluster and the -f files with --from-cluster, else the -f files and
// the --changes files. Each list is read on its own, so the two runs share no
// objects.
func loadComparison(cmd *cobra.Command, f *simulateFlags) (base, changed []manifest.Document, err error) {
	changeFiles := f.changes
	var load func() ([]manifest.Document, error)
	if f.fromCluster {
		if len(f.changes) > 0 {
			return nil, nil, errors.New("--changes: with --from-cluster the -f files are the changes")
		}
		if len(f.files) == 0 {
			return nil, nil, errors.New("--compare: needs at least one -f file of changes")
		}
		changeFiles = f.files
		if f.assumeRuntime <= 0 {
			return nil, nil, fmt.Errorf("--assume-runtime: %s must be greater than 0", f.assumeRuntime)
		}
		snap, err := snapshot.Take(cmd.Context(), f.kubeconfig, snapshot.Options{AssumedRuntime: f.assumeRuntime})
		if err != nil {
			return nil, nil, err
		}
		for _, s := range snap.Skipped {
			fmt.Fprintf(cmd.ErrOrStderr(), "skipped Workload %s\n", s)
		}
		load = func() ([]manifest.Document, error) {
			docs, err := snap.Documents("cluster")
			if err != nil {
				return nil, fmt.Errorf("reading the cluster's snapshot: %w", err)
			}
			return docs, nil
		}
	} else {
		if len(f.files) == 0 {
			return nil, nil, errors.New(`required flag(s) "filename" not set`)
		}
		if len(f.changes) == 0 {
			return nil, nil, errors.New("--compare: needs --changes CHANGES (or --from-cluster with -f CHANGES)")
		}
		load = func() ([]manifest.Document, error) { return manifest.Load(f.files) }
	}
	if base, err = load(); err != nil {
		return nil, nil, err
	}
	start, err := load()
	if err != nil {
		return nil, nil, err
	}
	changes, err := manifest.Load(changeFiles)
	if err != nil {
		return nil, nil, err
	}
	changed, err = manifest.Overlay(start, changes)
	if err != nil {
		return nil, nil, err
	}
	return base, changed, nil
}

// loadDocuments reads the -f files, on top of the live cluster with
// --from-cluster.
func loadDocuments(cmd *cobra.Command, f *simulateFlags) ([]manifest.Document, error) {
	if !f.fromCluster {
		if len(f.files) == 0 {
			return nil, errors.New(`required flag(s) "filename" not set`)
		}
		return manifest.Load(f.files)
	}
	if f.assumeRuntime <= 0 {
		return nil, fmt.Errorf("--assume-runtime: %s must be greater than 0", f.assumeRuntime)
	}
	snap, err := snapshot.Take(cmd.Context(), f.kubeconfig, snapshot.Options{AssumedRuntime: f.assumeRuntime})
	if err != nil {
		return nil, err
	}
	for _, s := range snap.Skipped {
		fmt.Fprintf(cmd.ErrOrStderr(), "skipped Workload %s\n", s)
	}
	live, err := snap.Documents("cluster")
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's snapshot: %w", err)
	}
	if len(f.files) == 0 {
		return live, nil
	}
	changes, err := manifest.Load(f.files)
	if err != nil {
		return nil, err
	}
	return manifest.Overlay(live, changes)
}

func writeResult(w io.Writer, format string, res *simulator.Result) error {
	if format == "json" {
		return output.WriteJSON(w, res)
	}
	return output.WriteText(w, res)
}

func reportTitle(files []string) string {
	if len(files) == 1 {
		return "Quokka simulation: " + files[0]
	}
	return fmt.Sprintf("Quokka simulation: %d inputs", len(files))
}

// isTerminal reports whether w is a terminal, where a progress line helps; in
// tests and pipes it would only be noise.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
