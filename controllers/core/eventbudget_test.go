package core

import (
	"testing"
	"time"
)

// The budget lets a burst of ten seconds' worth through at once, then refills
// at its rate; a negative rate lets everything through.
func TestEventBudget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	count := func(b *eventBudget, n int, at time.Time) int {
		ok := 0
		for range n {
			if b.allow(at) {
				ok++
			}
		}
		return ok
	}
	b := newEventBudget(10)
	if got := count(b, 150, t0); got != 100 {
		t.Errorf("burst of 150 at once: %d allowed, want 100", got)
	}
	if got := count(b, 50, t0.Add(2*time.Second)); got != 20 {
		t.Errorf("2 s later: %d allowed, want 20 (10 a second)", got)
	}
	if got := count(b, 500, t0.Add(time.Hour)); got != 100 {
		t.Errorf("after an idle hour: %d allowed, want the burst of 100", got)
	}
	unlimited := newEventBudget(-1)
	if got := count(unlimited, 1000, t0); got != 1000 {
		t.Errorf("no budget: %d of 1000 allowed", got)
	}
}
