package core

import (
	"sync"

	"quokka.dev/quokka/engine/scheduler"
)

// cycleWrites runs each cycle's writes in the background, one cycle's at a
// time, so that the engine's next cycle overlaps the API round-trips of this
// one. Under Kueue's harness a loaded cycle's writes took about as long as the
// wait before the next cycle (a third of a second each in the medium phase),
// and a workload that finished just after a cycle started waited for both
// before its quota was used again.
//
// The engine assumed every decision when it made it, so the next cycle decides
// on the same state whether or not the writes have landed; a write that fails
// makes the engine forget its decision, as before. Cycles' writes run in
// cycle order, never two cycles' at once, so the writes of one workload (its
// admission, then its eviction by a later preemptor) reach the API server in
// the order they were decided. (Letting the next cycle's writes start too,
// ordered per workload, was measured: the loop then ran half as many cycles
// again, and the manager's extra CPU cost the API server and the runner more
// than the earlier writes gained. Measured again in the fourteenth round, with
// cycles ten times cheaper: the manager's reaction to a Finished write in the
// large phase stayed where it was, 46 ms at the median, and its CPU rose by a
// quarter: the wait for the previous cycle's writes is not what the reaction
// is made of.)
//
// Only the scheduling loop's goroutine calls start and wait.
type cycleWrites struct {
	workers int
	// running is closed when the writes in flight are done; nil when none
	// were started.
	running chan struct{}
	// failed signals the loop that some write failed, for a retry.
	failed chan struct{}
}

func newCycleWrites(workers int) *cycleWrites {
	return &cycleWrites{workers: workers, failed: make(chan struct{}, 1)}
}

// wait returns once the writes in flight, if any, are done.
func (w *cycleWrites) wait() {
	if w.running != nil {
		<-w.running
	}
}

// start waits for the writes in flight, then writes ds in the background with
// run, up to w.workers at once; then finish does the cycle's bookkeeping and
// reports whether some write failed.
func (w *cycleWrites) start(ds []scheduler.Decision, run func(scheduler.Decision), finish func() (failed bool)) {
	w.wait()
	done := make(chan struct{})
	w.running = done
	go func() {
		defer close(done)
		w.runAll(ds, run)
		if finish() {
			select {
			case w.failed <- struct{}{}:
			default:
			}
		}
	}()
}

// runAll writes ds with up to w.workers at once and returns when all are done.
func (w *cycleWrites) runAll(ds []scheduler.Decision, run func(scheduler.Decision)) {
	work := make(chan scheduler.Decision)
	var wg sync.WaitGroup
	for range min(w.workers, len(ds)) {
		wg.Go(func() {
			for d := range work {
				run(d)
			}
		})
	}
	for _, d := range ds {
		work <- d
	}
	close(work)
	wg.Wait()
}
