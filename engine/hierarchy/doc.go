// Package hierarchy is the one tree of Cohorts and ClusterQueues that the quota
// cache, DQO's subtree resolution and ElasticQuota's parent chain share.
//
// It holds only names and edges (a ClusterQueue's cohortName, a Cohort's
// parentName) plus one payload per node, so that each user keeps its own
// per-node state without a second copy of the structure. A Cohort that is
// referenced but not created exists implicitly, with no parent, and disappears
// once nothing references it. Parent edges may form a cycle (the API cannot
// forbid it, since each object is written separately); HasCycle tells whether a
// node's chain of ancestors reaches one, so that callers can make the queues in it
// inactive instead of looping.
package hierarchy
