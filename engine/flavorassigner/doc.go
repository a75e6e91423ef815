// Package flavorassigner chooses, for each pod set of a workload, one flavor per
// resource group of a ClusterQueue, and says per flavor whether the request fits,
// fits by borrowing, needs quota that is in use ("needs preemption"), or can never
// fit. It reads the quota cache and changes nothing.
//
// The preemption issue builds on Outcome: a Preempt flavor is where freeing
// victims would make the workload fit.
package flavorassigner
