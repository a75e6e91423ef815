package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	cliflag "k8s.io/component-base/cli/flag"
	"sigs.k8s.io/controller-runtime/pkg/client"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/internal/scheme"
)

// --load decisions: the same objects through Kueue's scheduler and Quokka's
// engine, decision by decision. minimalkueue (Kueue v0.17.0's scheduler and
// core controllers) runs against a real API server; random scenarios
// (decisionsscenario.go) are played on it one event at a time, each event
// settled before the next; and each event is replayed through Quokka's engine
// from Kueue's state before it (decisionsreplay.go). Every admission (queue
// and flavor) and every eviction must be the same.

// decisionsSettle is how long a namespace must stay unchanged for an event to
// count as settled; see kueuePlayer.quiet.
const decisionsSettle = 2 * time.Second

// decisionsReport counts what the run compared.
type decisionsReport struct {
	scenarios, creates, finishes int
	// reclaims counts the events that marked a pod reclaimable, changes
	// those that changed a workload's priority or spec.active.
	reclaims, changes     int
	admissions, evictions int
	// partial counts Kueue's admissions with fewer pods than asked for.
	partial     int
	differences int
	// lost lists the events Kueue's manager did not decide: it exited, or
	// never settled (see decisionscrash.go).
	lost []string
}

func runDecisions(o options) error {
	if o.minimalKueue == "" || o.kueueCRDs == "" {
		return errors.New("--minimalkueue and --kueue-crds are required (run hack/kueue-perf.sh)")
	}
	var strategies []config.PreemptionStrategy
	if o.fairSharing != "" {
		if o.kueue == "" {
			return errors.New("--fair-sharing runs Kueue's own manager: --kueue is required (run hack/kueue-perf.sh)")
		}
		for _, st := range strings.Split(o.fairSharing, ",") {
			strategies = append(strategies, config.PreemptionStrategy(strings.TrimSpace(st)))
		}
		cfg := config.Configuration{FairSharing: &config.FairSharing{PreemptionStrategies: strategies}}
		for _, e := range cfg.Validate() {
			if strings.HasPrefix(e.Field, "fairSharing") {
				return fmt.Errorf("--fair-sharing: %s: %s", e.Field, e.ErrorBody())
			}
		}
	}
	if o.kueueGates != "" && o.kueue == "" {
		return errors.New("--kueue-feature-gates runs Kueue's own manager: --kueue is required (run hack/kueue-perf.sh)")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return errors.New("KUBEBUILDER_ASSETS is not set: run hack/kueue-perf.sh, which builds the API server")
	}
	if o.scenarios < 1 {
		return fmt.Errorf("--scenarios: %d; give at least 1", o.scenarios)
	}
	opts, err := engineOptions(o.quokkaGates)
	if err != nil {
		return err
	}
	if strategies != nil {
		opts.FairSharing = &config.FairSharing{PreemptionStrategies: strategies}
	}
	if o.out == "" {
		if o.out, err = os.MkdirTemp("", "kueue-decisions-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s := &side{name: "minimalkueue", dir: o.out, crds: o.kueueCRDs}
	env, err := s.startAPIServer()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	kc, err := writeKubeconfig(env, managerUser, filepath.Join(o.out, "manager.kubeconfig"))
	if err != nil {
		return err
	}
	manager, name := []string{o.minimalKueue, "--kubeconfig", kc}, "minimalkueue"
	if strategies != nil || o.kueueGates != "" {
		name = "Kueue's manager"
		if manager, err = kueueManager(o.kueue, o.out, 50, kueueExtraConfig(strategies))(kc); err != nil {
			return err
		}
		if manager, err = withKueueGates(manager, o.kueueGates); err != nil {
			return err
		}
		if o.kueueLogLevel > 0 {
			manager = append(manager, fmt.Sprintf("--zap-log-level=%d", o.kueueLogLevel))
		}
	}
	mk := &kueueProcess{args: manager, log: filepath.Join(o.out, "kueue.log")}
	if err := mk.start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	defer func() { mk.stop() }()
	c, err := client.New(env.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return err
	}
	details, err := os.Create(filepath.Join(o.out, "decisions.txt"))
	if err != nil {
		return err
	}
	defer details.Close()
	first, end := 0, o.scenarios
	if o.only >= 0 {
		first, end = o.only, o.only+1
	}
	fmt.Fprintf(os.Stderr, "kueueperf: %d scenarios from seed %d against %s (output in %s)\n", end-first, o.seed, name, o.out)
	player := &kueuePlayer{c: c, quiet: decisionsSettle, timeout: 2 * time.Minute}
	var rep decisionsReport
	for i := first; i < end; i++ {
		sc := newScenario(o.seed, i, scenarioKinds{fair: strategies != nil, partial: o.partial, reclaim: o.reclaim,
			memory: o.memory || o.groups, groups: o.groups, reprioritize: o.reprioritize, toggle: o.toggle})
		w := io.MultiWriter(os.Stdout, details)
		err := compareScenario(ctx, player, mk, opts, sc, &rep, w)
		var lost *kueueLost
		if !errors.As(err, &lost) {
			if err != nil {
				return fmt.Errorf("scenario %s: %w", sc.name, err)
			}
			continue
		}
		rep.lost = append(rep.lost, fmt.Sprintf("%s event %d", sc.name, lost.event))
		fmt.Fprintf(w, "\n%s: %s; that event and the rest of the scenario are not compared\nqueues:\n%s",
			sc.name, lost.Error(), describeWorld(sc))
		if err := player.forgetScenario(ctx, sc); err != nil {
			return fmt.Errorf("scenario %s, after %s: %w", sc.name, lost.Error(), err)
		}
		if lost.exited {
			if err := mk.start(); err != nil {
				return fmt.Errorf("starting %s again: %w", name, err)
			}
		}
	}
	partial := ""
	if o.partial {
		partial = fmt.Sprintf(" (%d with fewer pods than asked for)", rep.partial)
	}
	reclaims := ""
	if o.reclaim {
		reclaims = fmt.Sprintf(", %d reclaims", rep.reclaims)
	}
	if o.reprioritize || o.toggle {
		reclaims += fmt.Sprintf(", %d priority or activity changes", rep.changes)
	}
	fmt.Printf("\n%d scenarios, %d events (%d creates, %d finishes%s): Kueue admitted %d times%s and evicted %d times; Quokka decided %d events differently\n",
		rep.scenarios, rep.creates+rep.finishes+rep.reclaims+rep.changes, rep.creates, rep.finishes, reclaims, rep.admissions, partial, rep.evictions, rep.differences)
	if len(rep.lost) > 0 {
		fmt.Printf("%s did not decide %d events (it exited, or they never settled): %s; those were not compared (its log: %s)\n",
			name, len(rep.lost), strings.Join(rep.lost, ", "), mk.log)
	}
	if rep.differences > 0 {
		return fmt.Errorf("%d events decided differently (details in %s)", rep.differences, details.Name())
	}
	return nil
}

// compareScenario plays one scenario on Kueue and replays each event through
// the engine, writing every difference to w.
func compareScenario(ctx context.Context, player *kueuePlayer, mk *kueueProcess, opts scheduler.Options, sc *scenario, rep *decisionsReport, w io.Writer) error {
	if err := player.setup(ctx, sc); err != nil {
		if mk.exited() {
			return &kueueLost{event: -1, exited: true, why: lastPanic(mk.log)}
		}
		return err
	}
	rep.scenarios++
	start := time.Now()
	differences := 0
	for i, ev := range sc.events {
		step, err := player.play(ctx, sc, ev)
		// A manager that exited while the event settled decided nothing:
		// its settled state is no decision to compare with.
		if mk.exited() {
			return &kueueLost{event: i, exited: true, why: lastPanic(mk.log)}
		}
		var u *unsettled
		if errors.As(err, &u) {
			return &kueueLost{event: i, why: u.Error()}
		}
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		what := ""
		switch {
		case step.created != nil:
			rep.creates++
			what = "create " + step.created.Name
		case step.finished != "":
			rep.finishes++
			what = "finish " + step.finished
		case step.reclaimed != "":
			rep.reclaims++
			what = fmt.Sprintf("reclaim a pod of %s (%d reclaimable)", step.reclaimed, step.reclaimable[0].Count)
		case step.changed != nil:
			rep.changes++
			what = step.change
		default:
			continue
		}
		for name, a := range step.after {
			if before := admissionOf(findWorkload(step.before, name)); before != a {
				rep.admissions++
				if strings.Contains(a, "×") {
					rep.partial++
				}
			}
		}
		rep.evictions += len(step.evicted)
		warm, after, evicted, err := replayStep(opts, sc, step)
		var loop *engineUnsettled
		switch {
		case errors.As(err, &loop):
			// Not a harness failure: a finding, reported with its world.
			warm = err.Error()
		case err != nil:
			return fmt.Errorf("event %d (%s), Quokka's engine: %w", i, what, err)
		}
		diff := warm
		if diff == "" {
			diff = stepDiff(step.after, after, step.evicted, evicted)
		}
		if diff != "" {
			rep.differences++
			differences++
			fmt.Fprintf(w, "\n%s event %d (%s): %s\nqueues:\n%sworkloads before the event:\n%s", sc.name, i, what, diff,
				describeWorld(sc), describeWorkloads(step.before))
			if step.created != nil {
				fmt.Fprintf(w, "created:\n%s", describeWorkloads([]kueue.Workload{*step.created}))
			}
			fmt.Fprintf(w, "Kueue's events meanwhile:\n")
			for _, e := range step.events {
				fmt.Fprintf(w, "  %s\n", e)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "kueueperf: %s: %d events in %s, %d decided differently\n", sc.name, len(sc.events), time.Since(start).Round(time.Second), differences)
	return nil
}

// findWorkload returns the named workload of a list, or an empty one.
func findWorkload(wls []kueue.Workload, name string) *kueue.Workload {
	for i := range wls {
		if wls[i].Name == name {
			return &wls[i]
		}
	}
	return &kueue.Workload{}
}

// kueueExtraConfig is what Kueue's manager's Configuration gets beyond the
// harness's: fair sharing's strategies.
func kueueExtraConfig(strategies []config.PreemptionStrategy) string {
	if strategies == nil {
		return ""
	}
	list := make([]string, len(strategies))
	for i, st := range strategies {
		list[i] = string(st)
	}
	return fmt.Sprintf("fairSharing:\n  preemptionStrategies: [%s]\n", strings.Join(list, ", "))
}

// withKueueGates adds gates (a K=V list) to the --feature-gates argument of
// Kueue's manager: Kueue refuses gates given both there and in its
// Configuration, and the harness already sets one on the command line.
func withKueueGates(args []string, gates string) ([]string, error) {
	if gates == "" {
		return args, nil
	}
	m := map[string]bool{}
	if err := cliflag.NewMapStringBool(&m).Set(gates); err != nil {
		return nil, fmt.Errorf("--kueue-feature-gates: %w", err)
	}
	list := make([]string, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		list = append(list, fmt.Sprintf("%s=%t", name, m[name]))
	}
	out := slices.Clone(args)
	for i, a := range out {
		if strings.HasPrefix(a, "--feature-gates=") {
			out[i] = a + "," + strings.Join(list, ",")
			return out, nil
		}
	}
	return append(out, "--feature-gates="+strings.Join(list, ",")), nil
}

// engineOptions resolves the engine's options from --quokka-feature-gates, as
// quokka manager resolves them from its --feature-gates.
func engineOptions(gates string) (scheduler.Options, error) {
	m := map[string]bool{}
	if gates != "" {
		if err := cliflag.NewMapStringBool(&m).Set(gates); err != nil {
			return scheduler.Options{}, fmt.Errorf("--quokka-feature-gates: %w", err)
		}
	}
	known := config.KnownFeatures()
	for name := range m {
		if _, ok := known[config.Feature(name)]; !ok {
			return scheduler.Options{}, fmt.Errorf("--quokka-feature-gates: unknown feature gate %q", name)
		}
	}
	return scheduler.OptionsFromConfiguration(&config.Configuration{FeatureGates: m}), nil
}
