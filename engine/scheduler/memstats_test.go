package scheduler

import "runtime"

type runtimeMemStats = runtime.MemStats

// readMemStats reads allocation counters around the measured call only, since
// the benchmarks build their world outside the timer.
func readMemStats(m *runtime.MemStats) { runtime.ReadMemStats(m) }
