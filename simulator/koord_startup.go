package simulator

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"quokka.dev/quokka/engine/elasticquota"
	"quokka.dev/quokka/simulator/manifest"
)

// PodStartupAnnotation is how long the pods of a Koord-Queue unit take to run
// after the unit is admitted, as a Go duration ("90s", "5m"). Until then the
// unit is "assumed": a queue with koord-queue/wait-for-pods-running admits
// nothing new, and queue-level preemption may reclaim it. Default 0: the pods
// run at admission, the unit is never assumed, and nothing changes. Kueue jobs
// ignore it.
//
// It lives outside the simulation.quokka.dev/ domain, whose annotations the
// loader checks against the list it knows (simulator/manifest).
const PodStartupAnnotation = "koord.simulation.quokka.dev/pod-startup"

// preemptedInQueue is the Reason of a Koord-Queue victim's Preempted event:
// Koord-Queue preempts within one queue.
const preemptedInQueue = "InQueue"

// koordStartup is the pod start-up delay of each unit that has one.
type koordStartup struct {
	delay map[types.NamespacedName]time.Duration
}

// podStartup reads the unit's start-up delay from its document; a unit without
// one runs at admission.
func (s *sim) podStartup(d *manifest.Document, unit *elasticquota.QueueUnit) error {
	delete(s.koord.startup.delay, unit.Key())
	unit.RunsAtAdmission = true
	obj, err := meta.Accessor(d.Object)
	if err != nil {
		return nil
	}
	v, ok := obj.GetAnnotations()[PodStartupAnnotation]
	if !ok {
		return nil
	}
	p := field.NewPath("metadata", "annotations").Key(PodStartupAnnotation)
	delay, err := time.ParseDuration(strings.TrimSpace(v))
	switch {
	case err != nil:
		return field.Invalid(p, v, fmt.Sprintf("must be a Go duration such as 90s or 5m (%v)", err))
	case delay < 0:
		return field.Invalid(p, v, "must not be negative")
	case delay == 0:
		return nil
	}
	if s.koord.startup.delay == nil {
		s.koord.startup.delay = map[types.NamespacedName]time.Duration{}
	}
	s.koord.startup.delay[unit.Key()] = delay
	unit.RunsAtAdmission = false
	return nil
}

// koordCycle runs one Koord-Queue cycle at the current instant and carries it
// out; it reports whether it admitted. A victim of queue-level preemption has
// no running pod here (a unit's pods all start together), so the job
// extension reclaims all of it at once: the victim is Preempted and pending
// again, and another cycle at the same instant admits the preemptor.
func (s *sim) koordCycle() bool {
	admitted := false
	for round := 0; ; round++ {
		s.koord.sched.SetNow(s.clock(s.now))
		decisions := s.koord.sched.Cycle()
		admitted = s.applyKoord(decisions) || admitted
		s.startPods(decisions)
		if !s.reclaimVictims(decisions) || round == 100 {
			return admitted
		}
	}
}

// startPods sets the pods-running timer of every unit just admitted with a
// start-up delay.
func (s *sim) startPods(decisions []elasticquota.Decision) {
	for _, d := range decisions {
		a, ok := d.(elasticquota.Admit)
		if !ok {
			continue
		}
		delay, ok := s.koord.startup.delay[a.Unit]
		u := s.koord.units[a.Unit]
		if !ok || u == nil || u.state != StateAdmitted {
			continue
		}
		s.timers.addKoordPodsRunning(s.now+delay, u.key, u.gen)
	}
}

// podsRunning reports a unit's pods running, once its start-up delay is over.
func (s *sim) podsRunning(t finishTimer) {
	u, ok := s.koord.units[t.key]
	if !ok || u.state != StateAdmitted || u.gen != t.gen {
		return
	}
	// Every replica: SetRunning clamps to what the unit holds.
	_ = s.koord.sched.SetRunning(u.key, 1<<62)
}

// reclaimVictims carries out the Preempt decisions of a cycle and reports
// whether any was.
func (s *sim) reclaimVictims(decisions []elasticquota.Decision) bool {
	reclaimed := false
	for _, d := range decisions {
		p, ok := d.(elasticquota.Preempt)
		if !ok {
			continue
		}
		u, ok := s.koord.units[p.Unit]
		if !ok || u.state != StateAdmitted {
			continue
		}
		r, err := s.koord.sched.ReclaimDone(p.Unit, 0)
		if err != nil || !r.Requeued {
			continue
		}
		reclaimed = true
		s.koord.gen++
		u.state, u.gen = StatePending, s.koord.gen
		u.reason, u.message = elasticquota.EventPreempted, p.Message
		s.counts.Running--
		s.counts.Pending++
		s.record(Event{Type: Preempted, Workload: u.name, ElasticQuota: u.admittedTo, Reason: preemptedInQueue,
			Message: p.Message, Preemptor: p.Preemptor.Namespace + "/" + p.Preemptor.Name})
	}
	return reclaimed
}
