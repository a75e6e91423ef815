package core

import (
	"testing"
	"time"
)

// Queue status is written at most once per StatusInterval, and a pass whose
// writes were slow (a loaded API server) spaces the next by StatusGapFactor
// times its own duration, so that status writes take at most a third of the
// status loop's time.
func TestStatusGapBacksOffASlowPass(t *testing.T) {
	o := LoopOptions{}.withDefaults()
	if o.StatusInterval != time.Second || o.StatusGapFactor != 2 {
		t.Fatalf("defaults: interval %v, factor %d; want 1s and 2", o.StatusInterval, o.StatusGapFactor)
	}
	for _, tc := range []struct {
		took, want time.Duration
	}{
		{took: 0, want: time.Second},
		{took: 20 * time.Millisecond, want: time.Second},
		{took: 500 * time.Millisecond, want: time.Second},
		{took: 800 * time.Millisecond, want: 1600 * time.Millisecond},
		{took: 3 * time.Second, want: 6 * time.Second},
	} {
		if got := statusGap(o, tc.took); got != tc.want {
			t.Errorf("after a pass of %v: wait %v, want %v", tc.took, got, tc.want)
		}
	}
}
