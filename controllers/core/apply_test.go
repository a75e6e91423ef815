package core

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

// Only the first pending workload of each ClusterQueue (its head, in the
// engine's order) and every workload that reaches no ClusterQueue get their
// reason written.
func TestPendingHeads(t *testing.T) {
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	decisions := []scheduler.Decision{
		scheduler.Admit{Workload: key("admitted"), ClusterQueue: "a"},
		scheduler.Pending{Workload: key("a-head"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("b-head"), ClusterQueue: "b", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("a-second"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("no-lq-1"), Reason: "LocalQueueNotFound"},
		scheduler.Pending{Workload: key("no-lq-2"), Reason: "LocalQueueNotFound"},
		scheduler.Pending{Workload: key("b-second"), ClusterQueue: "b", Reason: "InsufficientQuota"},
	}
	want := map[string]bool{"a-head": true, "b-head": true, "no-lq-1": true, "no-lq-2": true}
	var tally cycleTally
	for _, d := range decisions {
		p, ok := d.(scheduler.Pending)
		if !ok {
			continue
		}
		if got := tally.pending(p); got != want[p.Workload.Name] {
			t.Errorf("%s: written = %v, want %v", p.Workload.Name, got, want[p.Workload.Name])
		}
	}
}

// The inadmissible counts sum every Pending decision per ClusterQueue and per
// LocalQueue, whether a queue's decisions come in one run or interleaved with
// other queues' (the pending-workload gauges read them).
func TestPendingCountsPerQueue(t *testing.T) {
	pending := func(ns, name, lq, cq string) scheduler.Pending {
		return scheduler.Pending{Workload: types.NamespacedName{Namespace: ns, Name: name}, LocalQueue: lq, ClusterQueue: cq, Reason: "InsufficientQuota"}
	}
	decisions := []scheduler.Pending{
		pending("ns1", "a1", "lq-a", "a"),
		pending("ns1", "a2", "lq-a", "a"),
		pending("ns2", "a3", "lq-a", "a"), // same LocalQueue name, another namespace
		pending("ns1", "b1", "lq-b", "b"),
		pending("ns1", "a4", "lq-a", "a"),
		pending("ns1", "x1", "lq-missing", ""),
		pending("ns1", "x2", "", ""),
	}
	res := &applyResult{walkedCQ: map[string]bool{}, inadmissibleByCQ: map[string]int{}, inadmissibleByLQ: map[types.NamespacedName]int{}}
	var tally cycleTally
	for _, d := range decisions {
		tally.pending(d)
	}
	tally.flush(res)
	wantCQ := map[string]int{"a": 4, "b": 1}
	wantLQ := map[types.NamespacedName]int{{Namespace: "ns1", Name: "lq-a"}: 3, {Namespace: "ns2", Name: "lq-a"}: 1,
		{Namespace: "ns1", Name: "lq-b"}: 1, {Namespace: "ns1", Name: "lq-missing"}: 1}
	if len(res.inadmissibleByCQ) != len(wantCQ) {
		t.Errorf("per ClusterQueue %v, want %v", res.inadmissibleByCQ, wantCQ)
	}
	for k, v := range wantCQ {
		if res.inadmissibleByCQ[k] != v {
			t.Errorf("per ClusterQueue %v, want %v", res.inadmissibleByCQ, wantCQ)
		}
	}
	if len(res.inadmissibleByLQ) != len(wantLQ) {
		t.Errorf("per LocalQueue %v, want %v", res.inadmissibleByLQ, wantLQ)
	}
	for k, v := range wantLQ {
		if res.inadmissibleByLQ[k] != v {
			t.Errorf("per LocalQueue %v, want %v", res.inadmissibleByLQ, wantLQ)
		}
	}
}

// A ClusterQueue with more LocalQueues than the tally searches in order
// (admission fair sharing interleaves them) keeps exact counts per LocalQueue.
func TestPendingCountsManyLocalQueues(t *testing.T) {
	res := &applyResult{walkedCQ: map[string]bool{}, inadmissibleByCQ: map[string]int{}, inadmissibleByLQ: map[types.NamespacedName]int{}}
	var tally cycleTally
	const lqs, rounds = 3 * linearLQs, 5
	for r := range rounds {
		for i := range lqs {
			// Every LocalQueue's workloads come round by round, one at a time.
			tally.pending(scheduler.Pending{Workload: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("w-%d-%d", i, r)},
				LocalQueue: fmt.Sprintf("lq-%d", i), ClusterQueue: "cq", Reason: "InsufficientQuota"})
		}
	}
	tally.flush(res)
	if got := res.inadmissibleByCQ["cq"]; got != lqs*rounds {
		t.Errorf("ClusterQueue count %d, want %d", got, lqs*rounds)
	}
	if len(res.inadmissibleByLQ) != lqs {
		t.Fatalf("%d LocalQueues counted, want %d: %v", len(res.inadmissibleByLQ), lqs, res.inadmissibleByLQ)
	}
	for k, n := range res.inadmissibleByLQ {
		if n != rounds {
			t.Errorf("LocalQueue %s counted %d, want %d", k, n, rounds)
		}
	}
	if !res.walkedCQ["cq"] || len(res.walkedCQ) != 1 {
		t.Errorf("walked %v, want only cq", res.walkedCQ)
	}
}

// The workload a blockAdmission cycle stopped at gets its Waiting reason
// written even when its queue's head was another workload, as Kueue writes
// it for the workload it blocks on; the workloads behind a head still get
// none.
func TestWaitingForPodsReadyIsWrittenBehindAHead(t *testing.T) {
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	decisions := []scheduler.Decision{
		scheduler.Pending{Workload: key("head"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("second"), ClusterQueue: "a", Reason: "InsufficientQuota"},
		scheduler.Pending{Workload: key("waiting"), ClusterQueue: "a", Reason: scheduler.ReasonWaitingForPodsReady},
	}
	l := &loop{pending: newPendingTracker(), deferred: newDeferredReasons(0)}
	_, writes := l.plan(decisions, time.Now())
	var got []string
	for _, w := range writes {
		got = append(got, w.WorkloadKey().Name)
	}
	if fmt.Sprint(got) != "[head waiting]" {
		t.Fatalf("writes for %v, want the head's and the waiting workload's", got)
	}
}

// A workload with spec.active=false is no pending workload of its queues, as in
// Kueue (its queue manager keeps inactive workloads out): the inadmissible
// counts leave it out, and it is still written, as the heads are (Kueue's
// workload controller writes Deactivated on it).
func TestPendingCountsLeaveOutInactiveWorkloads(t *testing.T) {
	inactive := scheduler.Pending{Workload: types.NamespacedName{Namespace: "ns", Name: "off"}, LocalQueue: "lq", ClusterQueue: "a",
		Reason: scheduler.ReasonInactive}
	head := scheduler.Pending{Workload: types.NamespacedName{Namespace: "ns", Name: "head"}, LocalQueue: "lq", ClusterQueue: "a",
		Reason: scheduler.ReasonInsufficientQuota}
	res := &applyResult{walkedCQ: map[string]bool{}, inadmissibleByCQ: map[string]int{}, inadmissibleByLQ: map[types.NamespacedName]int{}}
	var tally cycleTally
	if !tally.pending(inactive) {
		t.Error("the inactive workload's reason is not written")
	}
	if !tally.pending(head) {
		t.Error("the first active workload after it is not its queue's head")
	}
	tally.flush(res)
	if res.inadmissibleByCQ["a"] != 1 || res.inadmissibleByLQ[types.NamespacedName{Namespace: "ns", Name: "lq"}] != 1 {
		t.Errorf("counts %v %v, want the active workload alone", res.inadmissibleByCQ, res.inadmissibleByLQ)
	}
}
