package simulator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// settle runs engine cycles at the current instant until one changes nothing.
//
// Within a cycle's decisions, evictions and preemptions are carried out first, so
// that the timeline lists a victim's Preempted before its preemptor's Admitted
// whether the engine admits the preemptor in the same cycle or in the next one.
func (s *sim) settle() error {
	for i := 0; i < maxCyclesPerInstant; i++ {
		decisions := s.engine.Cycle(s.clock(s.now))
		changed := false
		for _, d := range decisions {
			switch d := d.(type) {
			case Preempt:
				preemptor := s.displayName(d.Preemptor)
				for _, v := range d.Victims {
					if w, ok := s.workloads[v.Workload]; ok && w.state == StateAdmitted {
						s.evicted(w, Preempted, v.Reason, v.Message, preemptor)
						changed = true
					}
				}
			case Evict:
				if w, ok := s.workloads[d.Workload]; ok && w.state == StateAdmitted {
					s.evicted(w, Evicted, d.Reason, d.Message, "")
					changed = true
				}
			}
		}
		for _, d := range decisions {
			a, ok := d.(Admit)
			if !ok {
				continue
			}
			w, ok := s.workloads[a.Workload]
			if !ok {
				return fmt.Errorf("at %s the engine admitted %s, which the simulator never submitted", formatDuration(s.now), a.Workload)
			}
			if w.state != StatePending {
				return fmt.Errorf("at %s the engine admitted %s, which is %s", formatDuration(s.now), w.name, w.state)
			}
			s.admitted(w, a.ClusterQueue, a.PodSets, a.Borrowing, false)
			changed = true
		}
		for _, d := range decisions {
			p, ok := d.(Pending)
			if !ok {
				continue
			}
			if w, ok := s.workloads[p.Workload]; ok && w.state == StatePending {
				w.reason, w.message = p.Reason, p.Message
			}
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("at %s the engine was still changing its decisions after %d cycles; two decisions keep undoing each other", formatDuration(s.now), maxCyclesPerInstant)
}

func (s *sim) displayName(key types.NamespacedName) string {
	if w, ok := s.workloads[key]; ok {
		return w.name
	}
	return key.String()
}
