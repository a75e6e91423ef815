package core

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/event"

	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/internal/feed"
)

// rebuild loads every object the engine needs from the (synced) informer cache,
// in dependency order, before the first cycle (feed.List and Objects.Into, which
// `quokka explain` shares). Reconcilers feed the same objects as their events
// arrive, but a cycle run before they all did could admit a pending workload into
// quota that an admitted one, not yet seen, holds. Workloads
// with status.admission are charged as admitted, so a restart admits nothing
// twice. Upserts are idempotent, so reconcilers repeating them are harmless.
func (l *loop) rebuild(ctx context.Context) error {
	objs, err := feed.List(ctx, l.client)
	if err != nil {
		return fmt.Errorf("rebuilding the engine: %w", err)
	}
	var errs []error
	l.engine.Do(func(s *scheduler.Scheduler) { errs = objs.Into(s) })
	for _, err := range errs {
		// The same objects are refused by their reconcilers; they do not stop
		// the rest of the cluster from being scheduled.
		l.log.Error(err, "the engine refused an object while rebuilding")
	}
	l.log.Info("engine rebuilt", "clusterQueues", len(objs.ClusterQueues.Items),
		"localQueues", len(objs.LocalQueues.Items), "workloads", len(objs.Workloads.Items))
	// Writes that followers skipped (finalizers, ends of evictions) are now due.
	go func() {
		for i := range objs.Workloads.Items {
			select {
			case l.resync <- event.GenericEvent{Object: &objs.Workloads.Items[i]}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}
