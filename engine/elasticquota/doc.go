// Package elasticquota is the Koord-Queue model of the spec's 004 document, as pure
// functions and a small cache: which quota and queue a job resolves to, the Queue
// object that mirrors each ElasticQuota, and the hierarchical usage check with an
// oversell rate.
//
// Quotas form a tree through the quota.scheduling.koordinator.sh/parent label. The
// edges live in the engine's shared hierarchy.Tree (every quota is a cohort node
// there), so cycles and missing parents are detected the same way as for Kueue
// Cohorts. Like Koord-Queue, quotas are indexed by name only: two ElasticQuotas of
// the same name in different namespaces are one quota, and the one upserted last
// wins.
package elasticquota
