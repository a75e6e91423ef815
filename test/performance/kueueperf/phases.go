package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Under Kueue's baseline the classes are admitted one after the other, in
// priority order: the large workloads take the quota for the first minute or
// more, then the medium ones, then the small ones, each phase at the pace at
// which the runner marks workloads Finished (the quota is full, so a workload
// is admitted as another finishes). A class's average wait is therefore where
// its phase starts and how fast it runs; phaseLog reads both off the audit log.

// phaseLog collects, from the API server's audit log, when each workload was
// created, admitted and finished.
type phaseLog struct {
	manager, runner string
	start           time.Time
	workloads       map[string]*workloadTimes
	// finishes are the runner's workloads/status writes, all classes, when
	// they landed and in which Cohort.
	finishes []stamp
	// sent holds, per Cohort, when the API server received each of the
	// manager's successful workload writes.
	sent map[string][]time.Time
}

// stamp is a moment and the Cohort of the workload written then.
type stamp struct {
	at     time.Time
	cohort string
}

type workloadTimes struct {
	class, cohort string
	// created is when the runner's create landed.
	created time.Time
	// managerWrites are the manager's successful writes of the workload.
	managerWrites []time.Time
	// finished is the runner's last successful workloads/status write: the
	// Finished condition, after any eviction it finished; finishSent is when
	// the API server received that write.
	finished, finishSent time.Time
}

func newPhaseLog(manager, runner string) *phaseLog {
	return &phaseLog{manager: manager, runner: runner, workloads: map[string]*workloadTimes{}, sent: map[string][]time.Time{}}
}

// note takes one completed request.
func (p *phaseLog) note(e *auditEvent) {
	if e.ObjectRef == nil || e.ObjectRef.Resource != "workloads" || e.ResponseStatus == nil ||
		e.ResponseStatus.Code < 200 || e.ResponseStatus.Code > 299 {
		return
	}
	key := e.ObjectRef.Namespace + "/" + e.ObjectRef.Name
	switch user := e.User.Username; {
	case user == p.runner && e.Verb == "create":
		if p.start.IsZero() || e.Received.Before(p.start) {
			p.start = e.Received
		}
		p.workloads[key] = &workloadTimes{class: workloadClass(e.ObjectRef.Name), cohort: cohortOf(e.ObjectRef.Namespace), created: e.Completed}
	case user == p.runner && e.ObjectRef.Subresource == "status":
		p.finishes = append(p.finishes, stamp{at: e.Completed, cohort: cohortOf(e.ObjectRef.Namespace)})
		if w := p.workloads[key]; w != nil {
			w.finished, w.finishSent = e.Completed, e.Received
		}
	case user == p.manager:
		if w := p.workloads[key]; w != nil {
			w.managerWrites = append(w.managerWrites, e.Completed)
		}
		c := cohortOf(e.ObjectRef.Namespace)
		p.sent[c] = append(p.sent[c], e.Received)
	}
}

// cohortOf is the Cohort of a workload in namespace ns: the runner's
// generator puts each ClusterQueue's workloads in a namespace named after it,
// "<class>-<set>-<index>-<cohort>"; a namespace not named so is its own group.
func cohortOf(ns string) string {
	parts := strings.Split(ns, "-")
	for i := 0; i+2 < len(parts); i++ {
		_, errSet := strconv.ParseUint(parts[i], 10, 32)
		_, errIndex := strconv.ParseUint(parts[i+1], 10, 32)
		if errSet == nil && errIndex == nil {
			return strings.Join(parts[i+2:], "-")
		}
	}
	return ns
}

// workloadClass is the class of a workload the runner's generator named
// "<class>-<set>-<group>-<index>".
func workloadClass(name string) string {
	parts := strings.Split(name, "-")
	if len(parts) < 4 {
		return name
	}
	return strings.Join(parts[:len(parts)-3], "-")
}

// admitted is when the workload's admission landed: the manager's last write
// before the runner's Finished write (earlier ones are pending reasons, or
// admissions that an eviction undid); false for a workload that never
// finished.
func (w *workloadTimes) admitted() (time.Time, bool) {
	var at time.Time
	for _, t := range w.managerWrites {
		if t.Before(w.finished) && t.After(at) {
			at = t
		}
	}
	return at, !w.finished.IsZero() && !at.IsZero()
}

// classPhase is one class's phase: the middle 90% of its admissions (seconds
// since the first workload was created), how many were admitted per second in
// it, and how many workloads of any class the runner marked Finished per
// second in it.
type classPhase struct {
	class                          string
	from, to                       time.Duration
	admittedPerSec, finishedPerSec float64
	// lagMedian and lagP90 are the runner's lag over the class's workloads:
	// the time from the manager's admission write landing to the runner's
	// Finished write reaching the API server, less the class's runtime, what
	// the runner adds to a workload's hold on quota (watch delivery, its work
	// queue, its own CPU time). hasLag is false when the runtime is unknown.
	lagMedian, lagP90 time.Duration
	hasLag            bool
	// reactionMedian and reactionMean are the manager's reaction in the
	// phase: from a Finished write landing (any class) to the API server
	// receiving the manager's next workload write in the same Cohort, what
	// the manager adds to the turnover of quota (watch delivery, its cycle,
	// its write). hasReaction is false when no Finished write was followed
	// by one.
	reactionMedian, reactionMean time.Duration
	hasReaction                  bool
}

func (c classPhase) String() string {
	return fmt.Sprintf("%.0f–%.0f s, %.1f/s, %.1f/s", c.from.Seconds(), c.to.Seconds(), c.admittedPerSec, c.finishedPerSec)
}

// lagString is the runner's lag as "median / p90".
func (c classPhase) lagString() string {
	if !c.hasLag {
		return "-"
	}
	return fmt.Sprintf("%s / %s", c.lagMedian.Round(time.Millisecond), c.lagP90.Round(time.Millisecond))
}

// reactionString is the manager's reaction as "median / mean".
func (c classPhase) reactionString() string {
	if !c.hasReaction {
		return "-"
	}
	return fmt.Sprintf("%s / %s", c.reactionMedian.Round(time.Millisecond), c.reactionMean.Round(time.Millisecond))
}

// phases works out each class's phase, the manager's reaction in it, and the
// runner's lag for the classes whose runtime is known. A workload's admission
// is as admitted says; a workload that never finished is left out.
func (p *phaseLog) phases(runtimes map[string]time.Duration) map[string]classPhase {
	admitted := map[string][]time.Duration{}
	lags := map[string][]time.Duration{}
	for _, w := range p.workloads {
		at, ok := w.admitted()
		if !ok {
			continue
		}
		admitted[w.class] = append(admitted[w.class], at.Sub(p.start))
		if runtime, ok := runtimes[w.class]; ok {
			lags[w.class] = append(lags[w.class], w.finishSent.Sub(at)-runtime)
		}
	}
	for _, ts := range p.sent {
		slices.SortFunc(ts, time.Time.Compare)
	}
	out := map[string]classPhase{}
	for class, ts := range admitted {
		slices.Sort(ts)
		from, to := ts[len(ts)*5/100], ts[min(len(ts)-1, len(ts)*95/100)]
		span := (to - from).Seconds()
		if span <= 0 {
			continue
		}
		in := 0
		for _, t := range ts {
			if t >= from && t <= to {
				in++
			}
		}
		fin := 0
		var reactions []time.Duration
		for _, f := range p.finishes {
			if d := f.at.Sub(p.start); d < from || d > to {
				continue
			}
			fin++
			sent := p.sent[f.cohort]
			if i, _ := slices.BinarySearchFunc(sent, f.at, time.Time.Compare); i < len(sent) {
				reactions = append(reactions, sent[i].Sub(f.at))
			}
		}
		c := classPhase{class: class, from: from, to: to, admittedPerSec: float64(in) / span, finishedPerSec: float64(fin) / span}
		if len(reactions) > 0 {
			slices.Sort(reactions)
			var sum time.Duration
			for _, r := range reactions {
				sum += r
			}
			c.reactionMedian, c.reactionMean, c.hasReaction = reactions[len(reactions)/2], sum/time.Duration(len(reactions)), true
		}
		if l := lags[class]; len(l) > 0 {
			slices.Sort(l)
			c.lagMedian, c.lagP90, c.hasLag = l[len(l)/2], l[len(l)*9/10], true
		}
		out[class] = c
	}
	return out
}

// analyze prints the phases and order floors of an earlier run from the
// audit logs in its output directory, one column per side found there; config
// is the run's generator config.
func analyze(w io.Writer, dir, config string) error {
	var results []*sideResult
	for _, name := range []string{"quokka", "minimalkueue"} {
		path := filepath.Join(dir, name, "audit.log")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		phases := newPhaseLog(managerUser, runnerUser)
		if _, err := countAudit(path, phases); err != nil {
			return err
		}
		r := &sideResult{name: name}
		r.phases, r.floors = classFigures(phases, config)
		results = append(results, r)
	}
	if len(results) == 0 {
		return fmt.Errorf("--analyze: no quokka/audit.log or minimalkueue/audit.log under %s", dir)
	}
	t := newSideTable(results, func(r *sideResult) string { return r.name })
	for _, pr := range phaseRows() {
		for _, class := range phaseClasses(results) {
			t.row(pr.label(class), func(r *sideResult) string { return pr.cell(r, class) })
		}
	}
	floorRows(t, results)
	t.write(w)
	return nil
}
