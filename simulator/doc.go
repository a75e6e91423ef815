// Package simulator replays manifests against the scheduling engine on a virtual
// clock and records what happens: a timeline of events, the state at the end, and
// the usage over time that the report draws.
//
// The simulator is the shell around a pure core (DESIGN.md, "One engine, three
// drivers"): it owns the clock, the runtimes of jobs and the bookkeeping, while the
// engine decides. It talks to the engine through the small Engine interface below,
// so that everything here can be tested with a scripted engine, and the real one
// (package simulator/adapter) is a thin translation.
//
// The time model, in order at every instant:
//  1. jobs whose runtime ends finish and release their quota;
//  2. objects due at this instant are applied, in document order;
//  3. Dynamic Quota Orchestration runs when a provider, orchestrator, ClusterQueue
//     or Cohort changed;
//  4. the engine runs cycles until a cycle changes nothing (victims of a
//     preemption are evicted, and listed, before their preemptor is admitted);
//
// and only then does time advance to the next instant at which something is due.
package simulator
