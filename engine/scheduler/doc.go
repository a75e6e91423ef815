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
//
// A workload that does not fit may preempt, per its ClusterQueue's
// spec.preemption (package preemption). The cycle returns a Preempt decision
// naming the victims and leaves the preemptor pending; the victims keep their
// quota until the driver confirms each eviction with EvictWorkload, and the
// preemptor is admitted by a later cycle. While it waits, its assignment is
// reserved in every cycle (so nobody else takes the room it is making) and its
// victims are no candidates for anyone. A BestEffortFIFO workload whose
// search found no victims (or that got no flavor) is parked, as in Kueue's
// inadmissible list: it searches again only after quota is released in its
// tree (park.go).
//
// With Options.FairSharing, heads of one tree are admitted lowest share first
// (a tournament down the cohort tree) and preemption follows the configured
// strategies (package fairsharing). With Options.AdmissionFairSharing, a
// ClusterQueue in UsageBasedAdmissionFairSharing mode takes its next candidate
// from the LocalQueue with the lowest decayed usage (package
// admissionfairsharing).
package scheduler
