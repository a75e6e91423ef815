package workload

import (
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// Reclaimable pods, as Kueue counts them (its ReclaimablePods gate, beta and
// on by default): a job integration writes status.reclaimablePods when some
// of a workload's pods finished for good (a Job whose remaining completions
// need fewer pods than its parallelism). Their quota is given back at once:
// a pending workload asks for its pods less the reclaimable ones, an
// admitted one is charged its admission scaled down to the pods still
// needed. FromAPI reads them so; IgnoringReclaimablePods is the gate off.

// IgnoringReclaimablePods is wl as the engine reads it with Kueue's
// ReclaimablePods gate off: without status.reclaimablePods. wl itself is
// not changed (a shallow copy is returned when it has any).
func IgnoringReclaimablePods(wl *kueue.Workload) *kueue.Workload {
	if len(wl.Status.ReclaimablePods) == 0 {
		return wl
	}
	c := *wl
	c.Status.ReclaimablePods = nil
	return &c
}

// reclaimableOf is wl's status.reclaimablePods count for the pod set name,
// within [0, count] (the API server refuses more; a Workload read from a
// file is held to the same).
func reclaimableOf(wl *kueue.Workload, name string, count int32) int32 {
	for _, rp := range wl.Status.ReclaimablePods {
		n := string(rp.Name)
		if n == "" {
			n = string(kueue.DefaultPodSetName)
		}
		if n == name {
			return min(max(rp.Count, 0), max(count, 0))
		}
	}
	return 0
}

// ScaleDown is usage, the charge of from pods, for to pods: each total
// divided by from, then multiplied by to, as Kueue's Divide and Mul do.
func ScaleDown(usage resources.Requests, from, to int32) resources.Requests {
	out := make(resources.Requests, len(usage))
	for r, v := range usage {
		if w := v / int64(from) * int64(to); w != 0 {
			out[r] = w
		}
	}
	return out
}
