package scheduler

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/workload"
)

// A workload that stays pending for the same reason is settled with the same
// Pending decision cycle after cycle. Boxing a new one each time was most of
// what a cycle allocated under Kueue's harness (BenchmarkKueueBaselineTick:
// 2.9 MB per cycle, 1.0 MB with the reuse), so an unchanged decision must come
// back without allocating, and a changed one must come back as it now is.
func TestPendingDecisionReusedWhileUnchanged(t *testing.T) {
	r := &record{}
	p := Pending{Workload: types.NamespacedName{Namespace: "ns", Name: "w"}, LocalQueue: "lq", ClusterQueue: "cq",
		Reason: "Unfit", Message: "insufficient quota"}
	if got := r.pendingDecision(p); got != Decision(p) {
		t.Fatalf("first decision %v, want %v", got, p)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = r.pendingDecision(p) }); allocs != 0 {
		t.Errorf("an unchanged Pending decision allocated %v times per call, want 0", allocs)
	}
	q := p
	q.Message = "insufficient quota, 2 more needed"
	if got := r.pendingDecision(q); got != Decision(q) {
		t.Errorf("after the message changed: %v, want %v", got, q)
	}
	if got := r.pendingDecision(p); got != Decision(p) {
		t.Errorf("after it changed back: %v, want %v", got, p)
	}
}

// prepare merges each cycle's new entries into the pending list; with the
// previous merge's buffer kept as the next one's, a list that does not grow
// merges without allocating, and it stays in queue order without stale
// entries.
func TestPendingListMergesIntoItsPreviousBuffer(t *testing.T) {
	s := &Scheduler{}
	l := &pendingList{}
	recs := make([]*record, 64)
	for i := range recs {
		recs[i] = &record{state: StatePending, priority: int32(i % 4)}
		recs[i].setInfo(&workload.Info{UID: types.UID(string(rune('A' + i))), Key: types.NamespacedName{Namespace: "ns", Name: string(rune('A' + i))}})
		l.add(s, recs[i])
	}
	l.prepare()
	// Each round re-adds a quarter of the records (as a requeue does): their
	// old entries go stale and the new ones are merged in.
	round := func(k int) {
		for i := k % 4; i < len(recs); i += 4 {
			l.add(s, recs[i])
		}
		l.prepare()
	}
	for k := range 4 {
		round(k)
	}
	if allocs := testing.AllocsPerRun(50, func() { round(1) }); allocs != 0 {
		t.Errorf("merging into a list that does not grow allocated %v times per cycle, want 0", allocs)
	}
	if len(l.sorted) != len(recs) {
		t.Fatalf("%d entries after the merges, want %d", len(l.sorted), len(recs))
	}
	for i, e := range l.sorted {
		if !e.valid() {
			t.Fatalf("entry %d is stale", i)
		}
		if i > 0 && compareQueueOrder(l.sorted[i-1].r, e.r) > 0 {
			t.Fatalf("entries %d and %d out of queue order", i-1, i)
		}
	}
}
