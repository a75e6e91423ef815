package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's manager can crash on a world it meets, or never settle it: v0.17.0 dereferences a nil
// Cohort when fair sharing must preempt for a ClusterQueue without one
// (kubernetes-sigs/kueue#10891). A dead manager decides nothing, so every
// later event would look decided differently. And in v0.17.0 a preemptor does
// not keep the room its victims free (the deliberate difference 2 of
// docs/kueue-conformance.md), so another workload can take it while the
// victim is admitted again and preempted again, round after round (run
// dec-35, scenario s6-4). The decisions load therefore watches the process
// and the settling: an event during which the manager exited, or that did not
// settle within the player's timeout, is not compared; the rest of its
// scenario is skipped; the scenario's workloads are deleted (so that the
// manager does not meet them again); a manager that exited is started again
// for the next scenario. The report counts these apart from the differences.

// kueueProcess is the Kueue manager the decisions load plays against.
type kueueProcess struct {
	args []string
	log  string
	p    *process
}

func (k *kueueProcess) start() error {
	p, err := startProcess(k.args, k.log)
	if err != nil {
		return err
	}
	k.p = p
	return nil
}

// exited tells whether the manager is gone.
func (k *kueueProcess) exited() bool { return k.p.exited() }

func (k *kueueProcess) stop() { k.p.stop() }

// kueueLost is an event Kueue's manager did not decide: it exited (exited
// set), or the namespace never settled.
type kueueLost struct {
	event  int
	exited bool
	why    string
}

func (c *kueueLost) Error() string {
	what := "did not settle"
	if c.exited {
		what = "exited"
	}
	if c.event < 0 {
		return fmt.Sprintf("Kueue's manager %s while the scenario was set up: %s", what, c.why)
	}
	return fmt.Sprintf("Kueue's manager %s during event %d: %s", what, c.event, c.why)
}

// unsettled is a namespace whose Workloads kept changing past the timeout,
// with the evictions the player completed meanwhile.
type unsettled struct {
	ns      string
	after   time.Duration
	evicted []string
}

func (u *unsettled) Error() string {
	counts := map[string]int{}
	for _, name := range u.evicted {
		counts[name]++
	}
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %d times", name, counts[name])
	}
	msg := fmt.Sprintf("namespace %s: Workloads still changing after %s", u.ns, u.after)
	if len(parts) > 0 {
		msg += " (evicted meanwhile: " + strings.Join(parts, ", ") + ")"
	}
	return msg
}

// lastPanic reads the manager's log for the last panic and the Kueue function
// it happened in, e.g. "runtime error: invalid memory address or nil pointer
// dereference in sigs.k8s.io/kueue/pkg/cache/scheduler.(*CohortSnapshot).Root".
func lastPanic(logPath string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return "no log: " + err.Error()
	}
	defer f.Close()
	why, where := "", ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "panic: "):
			why = strings.TrimSuffix(strings.TrimPrefix(line, "panic: "), " [recovered, repanicked]")
			where = ""
		case why != "" && where == "" && strings.HasPrefix(line, "sigs.k8s.io/kueue/"):
			where, _, _ = strings.Cut(line, "(0x")
		}
	}
	switch {
	case why == "":
		return "no panic in its log (" + logPath + ")"
	case where == "":
		return why
	}
	return why + " in " + where
}

// forgetScenario deletes the scenario's workloads, clearing their finalizers,
// so that a manager started again does not schedule them.
func (k *kueuePlayer) forgetScenario(ctx context.Context, sc *scenario) error {
	wls, err := k.workloads(ctx, sc.name)
	if err != nil {
		return err
	}
	for i := range wls {
		wl := &wls[i]
		if len(wl.Finalizers) > 0 {
			orig := wl.DeepCopy()
			wl.Finalizers = nil
			if err := k.c.Patch(ctx, wl, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("clearing the finalizers of Workload %s: %w", wl.Name, err)
			}
		}
		if err := k.c.Delete(ctx, wl); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Workload %s: %w", wl.Name, err)
		}
	}
	return k.c.DeleteAllOf(ctx, &kueue.Workload{}, client.InNamespace(sc.name))
}
