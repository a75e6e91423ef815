// Package quota is the engine's quota cache: ResourceFlavors, ClusterQueues and
// Cohorts (one hierarchy.Tree) with their quotas in canonical units, and the usage
// that admitted workloads charge to them.
//
// The model follows Kueue's hierarchical resource nodes. Every node (a
// ClusterQueue or a Cohort) has, per flavor and resource:
//
//   - subtreeQuota: a ClusterQueue's nominalQuota; for a Cohort its own
//     nominalQuota plus what each child makes available to it, that is the child's
//     subtreeQuota minus the child's guaranteed quota;
//   - guaranteed quota: subtreeQuota - lendingLimit when a lendingLimit is set,
//     else 0. It is kept back for the node's own subtree and never lent;
//   - usage: for a ClusterQueue the sum of its admitted workloads; for a Cohort
//     the part of each child's usage that exceeds the child's guaranteed quota
//     (usage inside the guaranteed share does not "bubble up").
//
// What a queue can still take is available(node) = max(0, guaranteed - usage) +
// min(borrowing headroom, available(parent)), with available(root) = subtreeQuota
// - usage. Usage changes walk the ancestors once (O(depth)); quota changes
// propagate the change of the node's contribution the same way; only edge changes
// (a queue or cohort moving) recompute the affected trees.
package quota
