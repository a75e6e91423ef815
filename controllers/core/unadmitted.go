package core

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core/metrics"
)

// unadmittedReasons returns the two labels Kueue's kueue_unadmitted_workloads
// gives a workload, and false for a workload it does not count (admitted,
// finished or being deleted). As Kueue reads them from the conditions
// (pkg/cache/queue/unadmitted_workloads.go, getUnadmittedWorkloadStatus and
// resolveUnadmittedUnderlyingCause): the reason is the Admitted condition's,
// NoReservation before there is one; the underlying cause is the
// QuotaReserved condition's while it is False, nothing while it is True, and
// PendingEvaluation before the scheduler has written one.
func unadmittedReasons(wl *kueue.Workload) (reason, cause string, ok bool) {
	if isTrue(wl, kueue.WorkloadAdmitted) || isTrue(wl, kueue.WorkloadFinished) || wl.DeletionTimestamp != nil {
		return "", "", false
	}
	reason = kueue.WorkloadAdmittedReasonNoReservation
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadAdmitted); c != nil {
		reason = c.Reason
	}
	switch c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); {
	case c == nil:
		cause = kueue.WorkloadQuotaReservedReasonPendingEvaluation
	case c.Status != metav1.ConditionTrue:
		cause = c.Reason
	}
	return reason, cause, true
}

// countUnadmitted counts the unadmitted workloads of list per LocalQueue and
// pair of reasons; clusterQueueOf names the ClusterQueue of an existing
// LocalQueue. A workload whose LocalQueue does not exist is counted without
// one (the gauges leave it out, having no ClusterQueue for it).
func countUnadmitted(list []kueue.Workload, clusterQueueOf map[types.NamespacedName]string) []metrics.Unadmitted {
	type key struct {
		lq             types.NamespacedName
		reason, cause  string
		localQueueSeen bool
	}
	counts := map[key]int{}
	var order []key
	for i := range list {
		wl := &list[i]
		reason, cause, ok := unadmittedReasons(wl)
		if !ok {
			continue
		}
		lq := types.NamespacedName{Namespace: wl.Namespace, Name: string(wl.Spec.QueueName)}
		_, seen := clusterQueueOf[lq]
		k := key{lq: lq, reason: reason, cause: cause, localQueueSeen: seen}
		if _, ok := counts[k]; !ok {
			order = append(order, k)
		}
		counts[k]++
	}
	out := make([]metrics.Unadmitted, 0, len(order))
	for _, k := range order {
		u := metrics.Unadmitted{Reason: k.reason, UnderlyingCause: k.cause, Count: counts[k]}
		if k.localQueueSeen {
			u.ClusterQueue = clusterQueueOf[k.lq]
			u.Namespace, u.LocalQueue = k.lq.Namespace, k.lq.Name
		}
		out = append(out, u)
	}
	return out
}

// listWorkloads lists the Workloads in the manager's cache without copying
// them: the gauges only read their conditions.
func listWorkloads(ctx context.Context, c client.Reader) ([]kueue.Workload, error) {
	var list kueue.WorkloadList
	if err := c.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	return list.Items, nil
}
