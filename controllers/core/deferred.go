package core

import (
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// deferredReasons holds the pending reasons of queue heads that are not
// written yet. A head's reason is written once it has stayed pending for the
// grace period (LoopOptions.PendingReasonAfter); a head admitted sooner gets no
// pending write at all. Under load most heads are admitted within a second of
// first failing, as quota frees up (under Kueue's harness three in four small
// workloads whose reason was written were admitted less than two seconds
// later), and each of those writes, with its event, competed with the writes
// that admit and finish workloads. Decisions are not affected: only when a
// reason appears on the Workload.
//
// Only the scheduling loop's goroutine uses it.
type deferredReasons struct {
	grace time.Duration
	byKey map[types.NamespacedName]deferredReason
}

type deferredReason struct {
	d     scheduler.Pending
	since time.Time
}

func newDeferredReasons(grace time.Duration) *deferredReasons {
	return &deferredReasons{grace: grace, byKey: map[types.NamespacedName]deferredReason{}}
}

// due records a head's Pending decision made at now and reports whether its
// reason is to be written now: when the head has been pending for the grace
// period. The latest decision is kept for a later write.
func (r *deferredReasons) due(d scheduler.Pending, now time.Time) bool {
	e, ok := r.byKey[d.Workload]
	if !ok {
		e.since = now
	}
	if now.Sub(e.since) >= r.grace {
		delete(r.byKey, d.Workload)
		return true
	}
	e.d = d
	r.byKey[d.Workload] = e
	return false
}

// drop forgets an admitted workload. (One that is no longer its queue's
// head is forgotten by prune.)
func (r *deferredReasons) drop(key types.NamespacedName) {
	delete(r.byKey, key)
}

// prune forgets the heads of the ClusterQueues a cycle walked that it did not
// find pending heads. The heads of sleeping queues are kept: their queues
// did not change, so their reasons still hold.
func (r *deferredReasons) prune(heads workloadKeys, walked map[string]bool) {
	for k, e := range r.byKey {
		if _, ok := heads[k]; !ok && walked[e.d.ClusterQueue] {
			delete(r.byKey, k)
		}
	}
}

// expired removes and returns the decisions whose grace period has passed at
// now, oldest first.
func (r *deferredReasons) expired(now time.Time) []scheduler.Pending {
	var out []deferredReason
	for k, e := range r.byKey {
		if now.Sub(e.since) >= r.grace {
			out = append(out, e)
			delete(r.byKey, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].since.Equal(out[j].since) {
			return out[i].since.Before(out[j].since)
		}
		return out[i].d.Workload.String() < out[j].d.Workload.String()
	})
	ds := make([]scheduler.Pending, len(out))
	for i, e := range out {
		ds[i] = e.d
	}
	return ds
}

// next is when the earliest deferred reason falls due, and false when none
// waits.
func (r *deferredReasons) next() (time.Time, bool) {
	var first time.Time
	for _, e := range r.byKey {
		if first.IsZero() || e.since.Before(first) {
			first = e.since
		}
	}
	if first.IsZero() {
		return time.Time{}, false
	}
	return first.Add(r.grace), true
}
