package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Kueue's manager can crash on a world it meets: v0.17.0 dereferences a nil
// Cohort when fair sharing must preempt for a ClusterQueue without one
// (kubernetes-sigs/kueue#10891). A dead manager decides nothing, so every
// later event would look decided differently. The decisions load therefore
// watches the process: an event during which it exited is not compared, the
// rest of its scenario is skipped, the scenario's workloads are deleted (so
// that the manager does not meet them again), and the manager is started
// again for the next scenario. The report counts the crashes apart from the
// differences.

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
func (k *kueueProcess) exited() bool {
	select {
	case <-k.p.done:
		return true
	default:
		return false
	}
}

func (k *kueueProcess) stop() { k.p.stop() }

// kueueCrash is the manager's exit while an event of a scenario was played.
type kueueCrash struct {
	event int
	why   string
}

func (c *kueueCrash) Error() string {
	if c.event < 0 {
		return "Kueue's manager exited while the scenario was set up: " + c.why
	}
	return fmt.Sprintf("Kueue's manager exited during event %d: %s", c.event, c.why)
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
