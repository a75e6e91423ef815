// Command kueueperf runs Kueue's scheduler performance harness (the runner of
// sigs.k8s.io/kueue test/performance/scheduler) against one manager at a time —
// `quokka manager` and Kueue's minimalkueue — each on a fresh kube-apiserver and
// etcd, and prints the results side by side. hack/kueue-perf.sh builds what it
// needs and calls it; run that script rather than this command.
//
// Each side gets the same API server (the in-flight limits the runner itself
// asks for), the same generator config and the same runner. The runner plays
// the workloads (creates them, marks each admitted one Finished after its
// runtime) and writes summary.yaml; this command adds what the runner does not
// measure: the manager's CPU time, and the manager's own API writes and events,
// counted from the API server's audit log by user, since the API server's
// request metrics cannot tell the manager's writes from the runner's.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

type options struct {
	load                         string
	kueue, stages, quokkaConfig  string
	quokkaGates                  string
	kueueQPS                     int
	runner, minimalKueue, quokka string
	kueueCRDs, quokkaCRDs        string
	kueueConfigs                 string
	config                       string
	sides                        string
	out                          string
	timeout                      time.Duration
	chaos                        bool
	seed                         int64
	scenarios, only              int
	fairSharing                  string
	partial                      bool
	reclaim                      bool
	reprioritize                 bool
	toggle                       bool
	memory                       bool
	groups                       bool
	kueueGates                   string
	kueueLogLevel                int
	profile                      bool
	analyze                      string
}

func main() {
	var o options
	flag.StringVar(&o.load, "load", "runner", `"runner": Kueue's scheduler performance runner plays workloads (sides quokka, minimalkueue); "jobs": batch/v1 Jobs get pods on KWOK's fake nodes (sides quokka, kueue: Kueue's own manager); "decisions": random scenarios played through minimalkueue, each event replayed through Quokka's engine, every decision compared`)
	flag.StringVar(&o.kueue, "kueue", "", "path to Kueue's manager (cmd/kueue), for the kueue side of --load jobs")
	flag.StringVar(&o.quokkaConfig, "quokka-config", "", "a Configuration file for quokka manager (its --config), e.g. to give it Kueue's client limits")
	flag.StringVar(&o.quokkaGates, "quokka-feature-gates", asKueueV017, `quokka manager's --feature-gates; the default makes it decide as Kueue v0.17.0, the Kueue both loads run against, which predates RecomputeAssignmentUponPreemptionTargetsOverlap and behaves as with it off; "" for Quokka's own defaults; with --quokka-config, put featureGates in the file instead`)
	flag.IntVar(&o.kueueQPS, "kueue-qps", 50, "the kueue side's clientConnection.qps (burst twice that); 50 is what Kueue ships")
	flag.StringVar(&o.stages, "stages", filepath.Join("test", "kubecluster", "stages.yaml"), "KWOK's stages, for --load jobs")
	flag.StringVar(&o.runner, "runner", "", "path to Kueue's scheduler performance runner")
	flag.StringVar(&o.minimalKueue, "minimalkueue", "", "path to Kueue's minimalkueue")
	flag.StringVar(&o.quokka, "quokka", "", "path to the quokka binary")
	flag.StringVar(&o.kueueCRDs, "kueue-crds", "", "Kueue's CRDs (for minimalkueue's API server)")
	flag.StringVar(&o.quokkaCRDs, "quokka-crds", "", "Quokka's CRDs (for quokka's API server)")
	flag.StringVar(&o.kueueConfigs, "kueue-configs", "", "Kueue's test/performance/scheduler/configs directory")
	flag.StringVar(&o.config, "config", "small", `generator config: "baseline" (Kueue's), "small" (a quick run), or a file; with --load jobs: "jobs" (the default), "jobs-small", or a file`)
	flag.StringVar(&o.sides, "sides", "", `which managers to run, in order (default "quokka,minimalkueue"; "quokka,kueue" with --load jobs)`)
	flag.StringVar(&o.out, "out", "", "output directory (default: a new directory under /tmp)")
	flag.DurationVar(&o.timeout, "timeout", 45*time.Minute, "per side: the runner's recording timeout, or how long the Jobs load may take")
	flag.BoolVar(&o.chaos, "chaos", false, "quokka side: run two replicas with leader election, kill -9 the leader at random moments and restart it, kill -9 and restart the API server once; check that nothing is lost or over-admitted")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the chaos schedule, or of the scenarios of --load decisions")
	flag.IntVar(&o.scenarios, "scenarios", 10, "--load decisions: how many scenarios to play (about 50 s each)")
	flag.StringVar(&o.fairSharing, "fair-sharing", "", `--load decisions: fair sharing's preemption strategies, comma-separated (e.g. "LessThanOrEqualToFinalShare,LessThanInitialShare"); Kueue's own manager (--kueue) then runs with them in its Configuration instead of minimalkueue, which has no fair sharing, and the scenarios get fair-sharing weights`)
	flag.BoolVar(&o.partial, "partial-admission", false, "--load decisions: half the workloads get two to four pods and a minCount, so that both schedulers may admit them with fewer pods (Kueue's PartialAdmission, on in both)")
	flag.BoolVar(&o.memory, "two-resources", false, "--load decisions: every resource group covers cpu and memory, with quotas and limits of each, and most workloads ask for both")
	flag.BoolVar(&o.groups, "two-groups", false, "--load decisions: as --two-resources, with memory in a resource group of its own, with flavors of its own")
	flag.BoolVar(&o.reclaim, "reclaimable-pods", false, "--load decisions: half the workloads get two to four pods, and half the finishes mark one more pod of an admitted workload reclaimable instead (Kueue's ReclaimablePods, on in both)")
	flag.BoolVar(&o.reprioritize, "priority-changes", false, "--load decisions: workloads take their priority from WorkloadPriorityClasses, and some finishes move a pending or admitted workload to another class instead")
	flag.BoolVar(&o.toggle, "deactivations", false, "--load decisions: some finishes flip a pending or admitted workload's spec.active instead (deactivated workloads are evicted; reactivated ones queue again)")
	flag.IntVar(&o.kueueLogLevel, "kueue-log-level", 0, `--load decisions: Kueue's manager's log verbosity (its --zap-log-level), e.g. 6 to see in kueue.log why it preempted or did not; minimalkueue takes none`)
	flag.StringVar(&o.kueueGates, "kueue-feature-gates", "", `--load decisions: feature gates for Kueue (K=V,...), e.g. "PrioritySortingWithinCohort=false"; Kueue's own manager (--kueue) then runs with them in its Configuration instead of minimalkueue, which takes none; give Quokka's engine the same with --quokka-feature-gates`)
	flag.IntVar(&o.only, "scenario", -1, "--load decisions: play only this scenario of the seed (0 is the first), to look at a difference again")
	flag.BoolVar(&o.profile, "profile", false, "quokka side: write the manager's CPU profile to quokka/manager.cpu.prof")
	flag.StringVar(&o.analyze, "analyze", "", "read the audit logs of an earlier run's output directory (made with --config) and print each class's admission phase, the runner's lag and the order floor; runs nothing")
	flag.Parse()
	gatesSet := false
	flag.Visit(func(f *flag.Flag) { gatesSet = gatesSet || f.Name == "quokka-feature-gates" })
	if o.quokkaConfig != "" {
		if gatesSet && o.quokkaGates != "" {
			fmt.Fprintln(os.Stderr, "kueueperf: --quokka-feature-gates and --quokka-config: quokka manager takes its gates from one or the other; put them in the file's featureGates")
			os.Exit(2)
		}
		o.quokkaGates = ""
	}
	// envtest and the clients log through controller-runtime; the harness
	// reports through its table and the processes' own logs, so theirs go
	// nowhere (unset, controller-runtime prints a warning with a stack).
	ctrllog.SetLogger(logr.Discard())
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "kueueperf:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.analyze != "" {
		// The runner's lag and the order floor need the run's classes:
		// --config must name the run's generator config.
		config, err := o.generatorConfig()
		if err != nil {
			return err
		}
		if _, _, err := generatorShapes(config); err != nil {
			return fmt.Errorf("--config (the analyzed run's generator config): %w", err)
		}
		return analyze(os.Stdout, o.analyze, config)
	}
	switch o.load {
	case "runner":
	case "jobs":
		return runJobs(o)
	case "decisions":
		return runDecisions(o)
	default:
		return fmt.Errorf("--load: unknown load %q (runner, jobs, decisions)", o.load)
	}
	if o.sides == "" {
		o.sides = "quokka,minimalkueue"
	}
	for name, v := range map[string]string{"--runner": o.runner, "--quokka-crds": o.quokkaCRDs, "--kueue-crds": o.kueueCRDs} {
		if v == "" {
			return fmt.Errorf("%s is required (run hack/kueue-perf.sh)", name)
		}
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return errors.New("KUBEBUILDER_ASSETS is not set: run hack/kueue-perf.sh, which builds the API server")
	}
	config, err := o.generatorConfig()
	if err != nil {
		return err
	}
	if o.out == "" {
		if o.out, err = os.MkdirTemp("", "kueue-perf-"); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var results []*sideResult
	for _, name := range strings.Split(o.sides, ",") {
		s, err := o.side(strings.TrimSpace(name), config)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "kueueperf: running %s (output in %s)\n", s.name, s.dir)
		res, err := s.run(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		results = append(results, res)
	}
	fmt.Printf("config: %s\n\n", config)
	printTable(os.Stdout, results)
	for _, r := range results {
		if r.chaos == nil {
			continue
		}
		for _, e := range r.chaos.errors {
			fmt.Printf("\n%s chaos: %s", r.name, e)
		}
		if r.chaos.apiRestarts == 0 {
			r.chaos.errors = append(r.chaos.errors, "the run ended before the API server was restarted: use a longer config")
		}
		if r.chaos.maxAfterExpiry > chaosLease {
			r.chaos.errors = append(r.chaos.errors, fmt.Sprintf("a takeover came %s after the lease expired, more than the lease duration %s",
				r.chaos.maxAfterExpiry, chaosLease))
		}
		if r.chaos.lost > 0 || r.chaos.overAdmissions > 0 || len(r.chaos.errors) > 0 {
			return fmt.Errorf("%s: the chaos run lost %d workloads, found %d over-admissions and %d errors",
				r.name, r.chaos.lost, r.chaos.overAdmissions, len(r.chaos.errors))
		}
	}
	return nil
}

// generatorConfig resolves --config.
func (o options) generatorConfig() (string, error) {
	switch o.config {
	case "baseline":
		if o.kueueConfigs == "" {
			return "", errors.New("--config baseline needs --kueue-configs")
		}
		return filepath.Join(o.kueueConfigs, "baseline", "generator.yaml"), nil
	case "small":
		return filepath.Join("test", "performance", "kueueperf", "configs", "small.yaml"), nil
	}
	if _, err := os.Stat(o.config); err != nil {
		return "", fmt.Errorf("--config: %w", err)
	}
	return o.config, nil
}

// side describes one manager to measure.
func (o options) side(name, config string) (*side, error) {
	dir := filepath.Join(o.out, name)
	if err := freshSideDir(dir); err != nil {
		return nil, err
	}
	s := &side{name: name, dir: dir, runner: o.runner, config: config, timeout: o.timeout}
	switch name {
	case "quokka":
		if o.quokka == "" {
			return nil, errors.New("--quokka is required for the quokka side")
		}
		s.crds = o.quokkaCRDs
		s.manager = func(kubeconfig string) []string { return o.quokkaManager(dir, kubeconfig) }
		if o.chaos {
			s.chaos = &chaosPlan{seed: o.seed, quokka: o.quokka}
		}
	case "minimalkueue":
		if o.minimalKueue == "" {
			return nil, errors.New("--minimalkueue is required for the minimalkueue side")
		}
		s.crds = o.kueueCRDs
		s.manager = func(kubeconfig string) []string {
			return []string{o.minimalKueue, "--kubeconfig", kubeconfig}
		}
	default:
		return nil, fmt.Errorf("--sides: unknown side %q (quokka, minimalkueue)", name)
	}
	return s, nil
}

// quokkaManager is the command line of `quokka manager` for one side, whose
// output directory is dir; with --profile it writes its CPU profile there.
func (o options) quokkaManager(dir, kubeconfig string) []string {
	args := []string{o.quokka, "manager", "--kubeconfig", kubeconfig, "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}
	if o.profile {
		args = append(args, "--cpuprofile", filepath.Join(dir, "manager.cpu.prof"))
	}
	if o.quokkaConfig != "" {
		args = append(args, "--config", o.quokkaConfig)
	}
	if o.quokkaGates != "" {
		args = append(args, "--feature-gates", o.quokkaGates)
	}
	return args
}

// asKueueV017 is quokka manager's --feature-gates by default: Kueue v0.17.0,
// on the other side of both loads, has no
// RecomputeAssignmentUponPreemptionTargetsOverlap gate and decides as Kueue
// v0.20 does with it off (a preemptor whose victims are already being evicted
// waits for them), where Quokka's default follows Kueue v0.20's (on); and its
// SchedulingEquivalenceHashing is off by default (on since v0.18, and in
// Quokka).
const asKueueV017 = "RecomputeAssignmentUponPreemptionTargetsOverlap=false,SchedulingEquivalenceHashing=false"

// runJobs runs the Jobs load (--load jobs) on each side and prints the table.
func runJobs(o options) error {
	if o.chaos {
		return errors.New("--chaos runs with --load runner only")
	}
	if o.quokkaCRDs == "" || o.kueueCRDs == "" {
		return errors.New("--quokka-crds and --kueue-crds are required (run hack/kueue-perf.sh)")
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return errors.New("KUBEBUILDER_ASSETS is not set: run hack/kueue-perf.sh, which builds the API server and the cluster's components")
	}
	path := o.config
	switch o.config {
	case "small", "jobs":
		path = filepath.Join("test", "performance", "kueueperf", "configs", "jobs.yaml")
	case "jobs-small":
		path = filepath.Join("test", "performance", "kueueperf", "configs", "jobs-small.yaml")
	}
	load, err := readJobsLoad(path)
	if err != nil {
		return err
	}
	if o.sides == "" {
		o.sides = "quokka,kueue"
	}
	if o.out == "" {
		if o.out, err = os.MkdirTemp("", "kueue-perf-jobs-"); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var results []*jobsResult
	for _, name := range strings.Split(o.sides, ",") {
		name = strings.TrimSpace(name)
		dir := filepath.Join(o.out, name)
		if err := freshSideDir(dir); err != nil {
			return err
		}
		s := &jobsSide{name: name, dir: dir, assets: assets, stages: o.stages, load: load, timeout: o.timeout}
		switch name {
		case "quokka":
			if o.quokka == "" {
				return errors.New("--quokka is required for the quokka side")
			}
			s.crds = o.quokkaCRDs
			s.manager = func(kubeconfig string) ([]string, error) { return o.quokkaManager(dir, kubeconfig), nil }
		case "kueue":
			if o.kueue == "" {
				return errors.New("--kueue is required for the kueue side")
			}
			s.crds = o.kueueCRDs
			if o.kueueQPS <= 0 {
				return fmt.Errorf("--kueue-qps must be positive, got %d", o.kueueQPS)
			}
			s.manager = kueueManager(o.kueue, dir, o.kueueQPS, "")
		default:
			return fmt.Errorf("--sides: unknown side %q for --load jobs (quokka, kueue)", name)
		}
		fmt.Fprintf(os.Stderr, "kueueperf: running the Jobs load on %s (output in %s)\n", name, dir)
		res, err := s.run(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, res)
	}
	fmt.Printf("Jobs load: %s\n\n", path)
	printJobsTable(os.Stdout, results)
	return nil
}

// freshSideDir makes a side's output directory, refusing one that holds an
// earlier run's audit log: the API server appends to it, so a rerun into the
// same --out (after an interrupted run, say) would count both runs' requests
// and phases as one.
func freshSideDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "audit.log")); err == nil {
		return fmt.Errorf("--out: %s holds an earlier run's audit.log; choose another --out or remove it", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--out: %w", err)
	}
	return os.MkdirAll(dir, 0o755)
}
