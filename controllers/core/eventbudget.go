package core

import (
	"time"

	"golang.org/x/time/rate"
)

// eventBudget bounds how many Admitted events the loop records. Admissions are
// the one event every workload gets, and under load they are most of the
// manager's writes after the admissions themselves; client-go's recorder then
// drops events anyway once a thousand wait, at random among all reasons. The
// budget makes the loss deliberate: past it, Admitted events are skipped (the
// Admitted condition and the admission metrics carry the same fact), while the
// rarer events that explain a wait or a disruption (Pending, Preempted,
// Evicted) are always recorded.
type eventBudget struct {
	lim *rate.Limiter
}

// newEventBudget allows perSecond events a second on average, in bursts of up
// to ten seconds' worth; a negative rate means no budget.
func newEventBudget(perSecond float64) *eventBudget {
	if perSecond < 0 {
		return &eventBudget{}
	}
	return &eventBudget{lim: rate.NewLimiter(rate.Limit(perSecond), max(1, int(10*perSecond)))}
}

// allow tells whether one more event may be recorded at now.
func (b *eventBudget) allow(now time.Time) bool {
	return b.lim == nil || b.lim.AllowN(now, 1)
}
