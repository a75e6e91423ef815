// Package dqo is the cluster driver of Dynamic Quota Orchestration (spec 000): a
// controller-runtime reconciler that reads CapacityProviders,
// DynamicQuotaOrchestrators, ClusterQueues and Cohorts from the manager's cache,
// hands them to the pure engine (engine/dqo.Plan) and writes back what the engine
// decided: the status of every DynamicQuotaOrchestrator and status.effectiveQuotas
// of the ClusterQueues and Cohorts that an orchestrator distributes to. It holds no
// quota logic of its own; the numbers, conditions and precedence between
// orchestrators all come from the engine.
//
// # One reconcile key for the whole set
//
// Every watched event enqueues the same request, and one reconcile plans every
// orchestrator at once. Per-orchestrator keys would need mapping functions that are
// as complex as the rules themselves: whether orchestrator B may write depends on
// every other orchestrator whose subtree overlaps B's (ResolveConflicts), a
// ClusterQueue moving between Cohorts changes which subtrees overlap, and a new
// orchestrator can take precedence over an old one without either referencing the
// other. Missing one of those edges would leave a stale condition or, worse, let two
// orchestrators take turns writing the same queues. With one key:
//
//   - the result is always the engine's answer for one consistent snapshot of the
//     cache, so two orchestrators never act on different views of the tree;
//   - reconciles never run concurrently (one key), so no two writers race on a
//     ClusterQueue;
//   - bursts of events (a provider updating many flavors, a batch of new queues)
//     collapse into one reconcile, because the work queue deduplicates the key.
//
// The cost is a full plan per reconcile, which is linear in the number of queues,
// Cohorts and orchestrators and runs on cached objects with no API calls except the
// writes. Predicates keep it rare: updates of a ClusterQueue or Cohort that touch
// neither its spec (metadata.generation) nor its status.effectiveQuotas, such as the
// usage counters the core controller writes on every admission, are dropped.
//
// # Writes
//
// The reconciler writes only status subresources, never a spec, and only what
// differs semantically from what is stored (engine/dqo.NeedsWrite for effective
// quotas, EffectiveCapacityEqual and meta.SetStatusCondition for the orchestrator's
// status), so a reconcile that changes nothing makes no API call and
// lastUpdateTime moves only when the quotas do. Each write is a JSON merge patch
// with an optimistic lock: when the cache was behind the API server (for example
// just after our own previous write), the patch fails with a conflict instead of
// overwriting newer data, and the whole set is planned again once the cache has
// caught up.
//
// Effective quotas that the orchestrators no longer write are left alone: 000's
// caveats require them to stay when an orchestrator is deleted, loses
// capacityDistribution or its subtree, or reports Distributed=False. Clearing them
// is the administrator's decision (docs/dynamic-quota.md, "Clean up").
package dqo
