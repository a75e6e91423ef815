// Package dqo implements Dynamic Quota Orchestration (spec 000, API reference 001) as
// pure functions, so that the cluster controller, the simulator and the tests all get
// the same answer from the same objects.
//
// The package has two phases, each a function of its inputs only:
//
//   - Discovery (Discover): CapacityProviders in, the DynamicQuotaOrchestrator's
//     status.effectiveCapacity and its EffectiveCapacityComputed condition out.
//   - Distribution (Distribute): the canonical capacity, the quota tree (Tree) and the
//     precedence between orchestrators (ResolveConflicts) in, the
//     status.effectiveQuotas of every ClusterQueue and Cohort of the subtree and the
//     Distributed condition out.
//
// Nothing here reads a clock, talks to an API server or starts a goroutine: the time
// to stamp on effective quotas is an argument, and inputs are never modified. All
// arithmetic is on integers in canonical units (see engine/resources); multipliers and
// proportional shares are computed exactly and rounded down, never through float64,
// so that a distribution always adds up to the capacity it splits.
//
// Conditions are returned without LastTransitionTime: the caller stores them with
// meta.SetStatusCondition, which keeps the transition time when the status does not
// change and otherwise stamps the current time.
package dqo
