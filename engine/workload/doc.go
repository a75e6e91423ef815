// Package workload converts a Workload object, once, into what the engine needs:
// per pod set total requests in canonical units, the scheduling constraints that
// decide which flavors a pod set may use, and the admission it holds, if any.
package workload
