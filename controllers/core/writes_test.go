package core

import (
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"quokka.dev/quokka/engine/scheduler"
)

func wlKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "ns", Name: name}
}

// A cycle's writes run in the background: start returns while they are in
// flight, so that the loop can run the next cycle's engine work. The next
// cycle's writes start only once the previous cycle's are done and its
// bookkeeping has run (the preemption of a workload whose admission is still
// in flight reaches the API server after the admission), and a failed write
// signals the loop for a retry.
func TestCycleWritesOverlapTheNextCycleButNotEachOther(t *testing.T) {
	w := newCycleWrites(4)
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, s)
	}
	release := make(chan struct{})
	w.start([]scheduler.Decision{scheduler.Admit{Workload: wlKey("a")}, scheduler.Admit{Workload: wlKey("b")}},
		func(d scheduler.Decision) {
			if d.WorkloadKey() == wlKey("a") {
				<-release
			}
			note("admit " + d.WorkloadKey().Name)
		}, func() bool {
			note("first cycle done")
			return false
		})
	// start returned with the first cycle's writes in flight.
	second := make(chan struct{})
	go func() {
		defer close(second)
		w.start([]scheduler.Decision{scheduler.Preempt{Preemptor: wlKey("c"), Victims: []scheduler.Victim{{Workload: wlKey("a")}}}},
			func(scheduler.Decision) { note("evict a") }, func() bool {
				note("second cycle done")
				return true
			})
	}()
	select {
	case <-second:
		t.Fatal("the second cycle's writes started while the first cycle's were in flight")
	case <-time.After(50 * time.Millisecond):
	}
	select {
	case <-w.failed:
		t.Fatal("failure signalled before any write failed")
	default:
	}
	close(release)
	<-second
	w.wait()
	want := []string{"admit b", "admit a", "first cycle done", "evict a", "second cycle done"}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != len(want) {
		t.Fatalf("writes ran in order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("writes ran in order %v, want %v", order, want)
		}
	}
	select {
	case <-w.failed:
	default:
		t.Fatal("the second cycle's failed write was not signalled for a retry")
	}
}
