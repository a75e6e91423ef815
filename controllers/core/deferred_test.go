package core

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// A head's reason falls due once the head has been pending for the grace
// period, counted from the first cycle that found it a pending head; the
// latest decision is the one written. Admitted heads, heads that are heads no
// more, and heads of walked queues that no cycle found pending are forgotten;
// heads of sleeping queues are kept, and fall due without a cycle.
func TestDeferredReasons(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	pending := func(n, cq, reason string) scheduler.Pending {
		return scheduler.Pending{Workload: key(n), ClusterQueue: cq, Reason: reason}
	}
	r := newDeferredReasons(2 * time.Second)

	if r.due(pending("a", "cq-a", "InsufficientQuota"), t0) {
		t.Fatal("a head's reason is due the first time it is found pending")
	}
	if r.due(pending("a", "cq-a", "Preempting"), t0.Add(time.Second)) {
		t.Fatal("a head's reason is due before the grace period")
	}
	if !r.due(pending("a", "cq-a", "Preempting"), t0.Add(2*time.Second)) {
		t.Fatal("a head's reason is not due after the grace period")
	}
	if r.due(pending("a", "cq-a", "Preempting"), t0.Add(3*time.Second)) {
		t.Fatal("a reason that fell due is due again at once: it is counted afresh")
	}

	r = newDeferredReasons(2 * time.Second)
	r.due(pending("admitted", "cq-a", "InsufficientQuota"), t0)
	r.drop(key("admitted"))
	r.due(pending("walked", "cq-b", "InsufficientQuota"), t0)
	r.due(pending("sleeping", "cq-c", "InsufficientQuota"), t0)
	r.due(pending("later", "cq-d", "InsufficientQuota"), t0.Add(time.Second))
	r.due(pending("sleeping", "cq-c", "Preempting"), t0.Add(500*time.Millisecond))
	// A cycle walked cq-b and cq-d and found "later" its head, not "walked".
	r.prune(workloadKeys{key("later"): {}}, map[string]bool{"cq-b": true, "cq-d": true})

	if at, ok := r.next(); !ok || !at.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("next() = %v, %v; want %v, true", at, ok, t0.Add(2*time.Second))
	}
	got := r.expired(t0.Add(2 * time.Second))
	if fmt.Sprint(got) != fmt.Sprint([]scheduler.Pending{pending("sleeping", "cq-c", "Preempting")}) {
		t.Fatalf("expired at 2s = %v, want only the sleeping queue's head, with its latest reason", got)
	}
	if at, ok := r.next(); !ok || !at.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("next() = %v, %v; want %v, true", at, ok, t0.Add(3*time.Second))
	}
	if got := r.expired(t0.Add(3 * time.Second)); len(got) != 1 || got[0].Workload != key("later") {
		t.Fatalf("expired at 3s = %v, want the later head", got)
	}
	if _, ok := r.next(); ok {
		t.Fatal("next() reports a reason after every one was written")
	}
}
