package core

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// rebuild loads every object the engine needs from the (synced) informer cache,
// in dependency order, before the first cycle. Reconcilers feed the same objects
// as their events arrive, but a cycle run before they all did could admit a
// pending workload into quota that an admitted one, not yet seen, holds. Workloads
// with status.admission are charged as admitted, so a restart admits nothing
// twice. Upserts are idempotent, so reconcilers repeating them are harmless.
func (l *loop) rebuild(ctx context.Context) error {
	var (
		flavors kueue.ResourceFlavorList
		cohorts kueue.CohortList
		nss     corev1.NamespaceList
		wpcs    kueue.WorkloadPriorityClassList
		pcs     schedulingv1.PriorityClassList
		cqs     kueue.ClusterQueueList
		lqs     kueue.LocalQueueList
		wls     kueue.WorkloadList
	)
	for _, list := range []client.ObjectList{&flavors, &cohorts, &nss, &wpcs, &pcs, &cqs, &lqs, &wls} {
		if err := l.client.List(ctx, list); err != nil {
			return fmt.Errorf("listing %T to rebuild the engine: %w", list, err)
		}
	}
	var errs []error
	l.engine.Do(func(s *scheduler.Scheduler) {
		for i := range flavors.Items {
			s.UpsertResourceFlavor(&flavors.Items[i])
		}
		for i := range cohorts.Items {
			if err := s.UpsertCohort(&cohorts.Items[i]); err != nil {
				errs = append(errs, err)
			}
		}
		for i := range nss.Items {
			s.UpsertNamespace(nss.Items[i].Name, nss.Items[i].Labels)
		}
		for i := range wpcs.Items {
			s.UpsertWorkloadPriorityClass(wpcs.Items[i].Name, wpcs.Items[i].Value)
		}
		for i := range pcs.Items {
			s.UpsertPriorityClass(pcs.Items[i].Name, pcs.Items[i].Value)
		}
		for i := range cqs.Items {
			if err := s.UpsertClusterQueue(&cqs.Items[i]); err != nil {
				errs = append(errs, err)
			}
		}
		for i := range lqs.Items {
			s.UpsertLocalQueue(&lqs.Items[i])
		}
		for i := range wls.Items {
			wl := &wls.Items[i]
			if !wl.DeletionTimestamp.IsZero() {
				s.DeleteWorkload(client.ObjectKeyFromObject(wl))
				continue
			}
			if err := s.UpsertWorkload(wl); err != nil {
				errs = append(errs, err)
			}
		}
	})
	for _, err := range errs {
		// The same objects are refused by their reconcilers; they do not stop
		// the rest of the cluster from being scheduled.
		l.log.Error(err, "the engine refused an object while rebuilding")
	}
	l.log.Info("engine rebuilt", "clusterQueues", len(cqs.Items), "localQueues", len(lqs.Items), "workloads", len(wls.Items))
	// Writes that followers skipped (finalizers, ends of evictions) are now due.
	go func() {
		for i := range wls.Items {
			select {
			case l.resync <- event.GenericEvent{Object: &wls.Items[i]}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}
