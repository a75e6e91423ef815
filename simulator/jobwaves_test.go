package simulator

import (
	"testing"
	"time"
)

// A Job's pods run in waves of the admitted count; the last wave starts after
// all but one wave's share of the runtime and leaves idle the pods its
// remaining completions do not need (Kueue's Job.ReclaimablePods:
// parallelism less the remaining completions).
func TestLastWave(t *testing.T) {
	for _, tc := range []struct {
		name              string
		completions, pods int32
		wantAfter         time.Duration
		wantIdle          int32
	}{
		{"no completions", 0, 3, 0, 0},
		{"one pod", 5, 1, 0, 0},
		{"one wave", 3, 3, 0, 0},
		{"waves filled", 6, 3, 0, 0},
		{"three waves, last of one", 7, 3, 40 * time.Minute, 2},
		{"two waves, last of three", 7, 4, 30 * time.Minute, 1},
		{"partial admission: fewer pods, more waves", 8, 3, 40 * time.Minute, 1},
	} {
		after, idle := lastWave(time.Hour, tc.completions, tc.pods)
		if after != tc.wantAfter || idle != tc.wantIdle {
			t.Errorf("%s: lastWave(1h, %d, %d) = %s, %d; want %s, %d", tc.name, tc.completions, tc.pods, after, idle, tc.wantAfter, tc.wantIdle)
		}
	}
}
