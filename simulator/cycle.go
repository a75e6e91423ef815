package simulator

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// settle runs engine cycles at the current instant until one changes nothing.
//
// A cycle that only admitted (no preemption, no eviction) leaves nothing for the
// next one: usage only grew, so what did not fit still does not fit. settle stops
// there, unless Options.ConfirmSettled asks to check it with one more cycle, or
// the engine asks for another (Engine.WantsCycle: a workload held quota for
// that cycle only).
func (s *sim) settle() error {
	confirming := false
	var last []string
	for i := 0; i < maxCyclesPerInstant; i++ {
		decisions := s.engine.Cycle(s.clock(s.now))
		changed, evicted := false, false
		last = describeChanges(last[:0], decisions, s.displayName)
		// Decisions are carried out in the engine's order: it lists a Preempt
		// before anything that depends on it, so a victim's Preempted comes
		// before its preemptor's Admitted.
		for _, d := range decisions {
			switch d := d.(type) {
			case Preempt:
				preemptor := s.displayName(d.Preemptor)
				for _, v := range d.Victims {
					if w, ok := s.workloads[v.Workload]; ok && w.state == StateAdmitted {
						s.evicted(w, Preempted, v.Reason, v.Message, preemptor)
						changed, evicted = true, true
					}
				}
			case Evict:
				if w, ok := s.workloads[d.Workload]; ok && w.state == StateAdmitted {
					s.evicted(w, Evicted, d.Reason, d.Message, "")
					if d.Reason == kueue.WorkloadEvictedByPodsReadyTimeout {
						if err := s.backOff(w, d.RequeueAt); err != nil {
							return err
						}
					}
					changed, evicted = true, true
				}
			case Deactivate:
				if w, ok := s.workloads[d.Workload]; ok && w.state == StateAdmitted {
					if err := s.deactivate(w, d.Reason, d.Message); err != nil {
						return err
					}
					changed, evicted = true, true
				}
			case Admit:
				w, ok := s.workloads[d.Workload]
				if !ok {
					return fmt.Errorf("at %s the engine admitted %s, which the simulator never submitted", formatDuration(s.now), d.Workload)
				}
				if w.state != StatePending {
					return fmt.Errorf("at %s the engine admitted %s, which is %s", formatDuration(s.now), w.name, w.state)
				}
				s.admitted(w, d.ClusterQueue, d.PodSets, d.Borrowing, false)
				changed = true
			case Pending:
				if w, ok := s.workloads[d.Workload]; ok && w.state == StatePending {
					w.reason, w.message = d.Reason, d.Message
				}
			}
		}
		if s.engine.WantsCycle() {
			// The cycle held quota for a waiting workload, which the
			// next one does not: what it kept out may fit there, even
			// after a cycle that only admitted.
			confirming = false
			continue
		}
		switch {
		case confirming && changed:
			return fmt.Errorf("at %s a cycle after a cycle that only admitted still changed decisions; the engine did not settle in one pass", formatDuration(s.now))
		case !changed:
			return nil
		case !evicted && !s.opts.ConfirmSettled:
			return nil
		case !evicted:
			confirming = true
		}
	}
	return fmt.Errorf("at %s the engine was still changing its decisions after %d cycles; decisions keep undoing each other (last cycle: %s)",
		formatDuration(s.now), maxCyclesPerInstant, strings.Join(last, "; "))
}

// describeChanges lists a cycle's admissions, preemptions and evictions in a few
// words each, for an error that must point at the workloads involved.
func describeChanges(out []string, decisions []Decision, name func(types.NamespacedName) string) []string {
	for _, d := range decisions {
		switch d := d.(type) {
		case Admit:
			out = append(out, fmt.Sprintf("%s admitted to %s", name(d.Workload), d.ClusterQueue))
		case Evict:
			out = append(out, fmt.Sprintf("%s evicted (%s)", name(d.Workload), d.Reason))
		case Deactivate:
			out = append(out, fmt.Sprintf("%s deactivated (%s)", name(d.Workload), d.Reason))
		case Preempt:
			victims := make([]string, len(d.Victims))
			for i, v := range d.Victims {
				victims[i] = fmt.Sprintf("%s in %s (%s)", name(v.Workload), v.ClusterQueue, v.Reason)
			}
			out = append(out, fmt.Sprintf("%s preempts %s", name(d.Preemptor), strings.Join(victims, ", ")))
		}
		if len(out) >= 10 {
			return append(out, "...")
		}
	}
	return out
}

func (s *sim) displayName(key types.NamespacedName) string {
	if w, ok := s.workloads[key]; ok {
		return w.name
	}
	return key.String()
}
