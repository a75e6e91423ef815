package elasticquota

import (
	"fmt"
	"sort"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

// UpsertQueue applies a Queue object to the queue of the quota of the same
// name. 004, "Reconciliation Semantics": "Annotations that are written directly
// to the Queue are preserved. The reconciliation adds and updates the
// annotations that come from the ElasticQuota; it does not remove others. A
// Queue that is maintained by hand can therefore carry additional annotations,
// but its policy remains under the control of the quota." So the queue takes
// the quota's policy and synchronised annotations, plus every koord-queue/
// annotation of the Queue that the quota does not set (koord-queue/max-depth,
// koord-queue/priority-threshold); spec.queuePolicy and spec.priority of the
// Queue are ignored.
//
// The scheduler keeps no Queue objects: UpsertQuota re-derives the queue from
// the quota alone, as Koord-Queue's ElasticQuota handler rewrites the Queue
// when the quota changes. A driver that holds a Queue written by hand calls
// UpsertQueue again after every UpsertQuota of that name, as the Queue's watch
// hands the reconciled Queue back in a cluster. It reports whether the Queue
// took effect: a Queue whose ElasticQuota does not exist (yet) configures
// nothing, and its units stay QueueNotFound.
//
// Koord-Queue reads Queues in its own namespace only (koord-queue); a Queue
// elsewhere is an error.
func (s *Scheduler) UpsertQueue(q *queuev1alpha1.Queue) (bool, error) {
	if q.Namespace != queuev1alpha1.DefaultQueueNamespace {
		return false, fmt.Errorf("queue %s/%s: metadata.namespace: Invalid value: %q: Koord-Queue reads Queues in namespace %s only",
			q.Namespace, q.Name, q.Namespace, queuev1alpha1.DefaultQueueNamespace)
	}
	eq, ok := s.quotas[q.Name]
	if !ok {
		return false, nil
	}
	s.configs[q.Name] = queueConfigOf(withQueueAnnotations(eq, q))
	return true, nil
}

// withQueueAnnotations is eq with the koord-queue/ annotations of q that eq does
// not carry itself: what the reconciled Queue holds. The quota's own values win
// ("adds and updates the annotations that come from the ElasticQuota"), and the
// policy stays the quota's label.
func withQueueAnnotations(eq *koordv1alpha1.ElasticQuota, q *queuev1alpha1.Queue) *koordv1alpha1.ElasticQuota {
	out := eq.DeepCopy()
	for k, v := range q.Annotations {
		if !SyncedAnnotation(k) {
			continue
		}
		if _, own := out.Annotations[k]; own {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	return out
}

// QuotasWithRoot is Quotas with koordinator-root-quota among them, also when no
// ElasticQuota of that name exists: every quota without a parent label hangs
// below it, and its usage is that of every admitted unit (issue 14: "that usage
// is reported"). A root that is not written as an ElasticQuota is listed with
// no parent, no min and no max. Nothing is listed when there are no quotas.
func (s *Scheduler) QuotasWithRoot() []QuotaStatus {
	out := s.Quotas()
	if len(out) == 0 || s.cache.HasQuota(koordv1alpha1.RootQuotaName) {
		return out
	}
	out = append(out, QuotaStatus{Name: koordv1alpha1.RootQuotaName, Used: s.cache.Used(koordv1alpha1.RootQuotaName)})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
