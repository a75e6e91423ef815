package cli

import (
	"fmt"
	"io"
	"time"

	"quokka.dev/quokka/simulator"
)

// progress prints one line on a terminal, rewritten in place, for runs that last
// longer than a second: a week of jobs takes a while, and silence looks like a hang.
type progress struct {
	w       io.Writer
	started time.Time
	last    time.Time
	shown   bool
}

// newProgress returns nil when w is not a terminal; a nil *progress does nothing.
func newProgress(w io.Writer) *progress {
	if !isTerminal(w) {
		return nil
	}
	now := time.Now()
	return &progress{w: w, started: now, last: now}
}

func (p *progress) update(pr simulator.Progress) {
	now := time.Now()
	if now.Sub(p.started) < time.Second || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\rsimulated %s: %d/%d documents applied, %d running, %d pending, %d finished, %d events   ",
		simulator.FormatDuration(pr.Now), pr.Applied, pr.Documents, pr.Running, pr.Pending, pr.Finished, pr.Events)
}

func (p *progress) done() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprintf(p.w, "\rsimulation took %s%40s\n", time.Since(p.started).Round(time.Millisecond), "")
}
