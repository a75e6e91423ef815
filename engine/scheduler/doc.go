// Package scheduler is the engine's facade: drivers feed it objects one at a time
// (Upsert*/Delete*), call Cycle(now) and apply the returned decisions. It is pure
// and deterministic: no goroutines, no clock, no globals; the same calls in the
// same order give the same decisions.
//
// Unlike Kueue, which pops one head per ClusterQueue per cycle, one Cycle admits
// every workload that fits, in the order the queueing strategy defines. Within a
// ClusterQueue that order is priority, then creation time, then UID, then
// namespace/name. Between the ClusterQueues of one cohort tree the next admission
// goes to the best head by Kueue's rules: a head that fits without borrowing
// before one that borrows, then priority, creation time, UID. Since usage only
// grows during a cycle, a workload that does not fit when it is evaluated cannot
// fit later in the same cycle; this is what lets the cycle settle every workload
// in one pass.
package scheduler
