package core

import (
	"sync"

	"quokka.dev/quokka/engine/scheduler"
)

// Engine guards the scheduler, which is not safe for concurrent use, and tells
// the scheduling loop that something changed. Reconcilers and the loop share one
// Engine per manager.
type Engine struct {
	mu    sync.Mutex
	sched *scheduler.Scheduler
	// changed has room for one signal: many changes between two cycles collapse
	// into one, so reconcilers never block on a busy loop.
	changed chan struct{}
}

// NewEngine wraps a fresh scheduler.
func NewEngine(opts scheduler.Options) *Engine {
	return &Engine{sched: scheduler.New(opts), changed: make(chan struct{}, 1)}
}

// Do runs fn with exclusive access to the scheduler. fn must not block on I/O:
// every reconciler and the loop wait for it.
func (e *Engine) Do(fn func(s *scheduler.Scheduler)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(e.sched)
}

// Notify asks for a scheduling cycle soon.
func (e *Engine) Notify() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// Changed is signalled after Notify.
func (e *Engine) Changed() <-chan struct{} { return e.changed }
