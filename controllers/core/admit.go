package core

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
)

// admit writes an admission. The engine assumed it when it decided; if the API
// refuses the write (or the workload changed so that it no longer applies) the
// assumption is forgotten and the workload is pending again. cohorts are the
// Cohorts the admission counts in (kueue_cohort_subtree_admitted_workloads_total).
func (l *loop) admit(ctx context.Context, d scheduler.Admit, cohorts metrics.CohortPath) error {
	adm := d.Admission()
	msg := fmt.Sprintf("Quota reserved in ClusterQueue %s", d.ClusterQueue)
	wl, err := l.updateWorkloadStatus(ctx, d.Workload, func(wl *kueue.Workload) error {
		if !wl.DeletionTimestamp.IsZero() || isTrue(wl, kueue.WorkloadFinished) || wl.Status.Admission != nil {
			return errSkip
		}
		setAdmitted(wl, adm, msg)
		return nil
	})
	if err != nil {
		l.engine.Do(func(s *scheduler.Scheduler) { s.Forget(d.Workload) })
		if ignoreGone(err) == nil {
			return nil
		}
		l.log.Error(err, "writing admission", "workload", d.Workload, "clusterQueue", d.ClusterQueue)
		return fmt.Errorf("admitting workload %s: %w", d.Workload, err)
	}
	l.pending.forget(d.Workload)
	// One event, where Kueue records QuotaReserved and then Admitted: without
	// admission checks both happen in the same write, and every event is one
	// more write for the API server; past a budget, none (README, "Decisions").
	if l.admittedEvents.allow(l.now()) {
		l.events.Eventf(wl, corev1.EventTypeNormal, EventAdmitted, "%s and admitted, wait time since queued was %.0fs", msg, l.waited(wl).Seconds())
	}
	mw := metricsWorkload(wl, d.ClusterQueue)
	mw.Cohorts = cohorts
	l.metrics.Admitted(mw, l.waited(wl))
	return nil
}

// metricsWorkload is what the counters label a workload of a ClusterQueue by.
func metricsWorkload(wl *kueue.Workload, clusterQueue string) metrics.Workload {
	return metrics.Workload{ClusterQueue: clusterQueue, Namespace: wl.Namespace, LocalQueue: string(wl.Spec.QueueName),
		PriorityClass: priorityClassName(wl)}
}

// priorityClassName is Kueue's priority_class label value: the name
// spec.priorityClassRef gives, whichever kind of class it is; empty without
// one.
func priorityClassName(wl *kueue.Workload) string {
	if wl.Spec.PriorityClassRef == nil {
		return ""
	}
	return wl.Spec.PriorityClassRef.Name
}

// waited is how long the workload has been queued: since its creation, or since
// it was last requeued after an eviction.
func (l *loop) waited(wl *kueue.Workload) time.Duration {
	since := wl.CreationTimestamp.Time
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadRequeued); c != nil && c.LastTransitionTime.After(since) {
		since = c.LastTransitionTime.Time
	}
	return max(0, l.now().Sub(since))
}

// quantity converts a canonical amount back to what users write.
func quantity(name corev1.ResourceName, v int64) resource.Quantity {
	return resources.ToQuantity(name, v)
}
