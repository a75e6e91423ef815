package elasticquota

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

// registeredPolicies are the values of koord-queue/queue-policy that the label may
// select. 004: "when that value is one of Priority, Block, Round or Intelligent.
// Otherwise Priority."
var registeredPolicies = map[queuev1alpha1.QueuePolicy]bool{
	queuev1alpha1.PriorityPolicy:    true,
	queuev1alpha1.BlockPolicy:       true,
	queuev1alpha1.RoundPolicy:       true,
	queuev1alpha1.IntelligentPolicy: true,
}

// PolicyOf is the queue policy an ElasticQuota asks for through its label.
func PolicyOf(eq *koordv1alpha1.ElasticQuota) queuev1alpha1.QueuePolicy {
	p := queuev1alpha1.QueuePolicy(eq.Labels[queuev1alpha1.QueuePolicyLabel])
	if registeredPolicies[p] {
		return p
	}
	return queuev1alpha1.PriorityPolicy
}

// SyncedAnnotation reports whether an ElasticQuota annotation is copied onto its
// Queue: every key with the koord-queue/ prefix except the policy key, which is
// translated into spec.queuePolicy instead.
func SyncedAnnotation(key string) bool {
	return strings.HasPrefix(key, queuev1alpha1.SyncedAnnotationPrefix) && key != queuev1alpha1.QueuePolicyLabel
}

// DesiredQueue derives the Queue of an ElasticQuota (004, the table under "Step 2").
func DesiredQueue(eq *koordv1alpha1.ElasticQuota, namespace string) *queuev1alpha1.Queue {
	return ReconcileQueue(nil, eq, namespace)
}

// ReconcileQueue re-derives a Queue from its ElasticQuota. Given the existing
// Queue it keeps what the spec says survives reconciliation: "Annotations that are
// written directly to the Queue are preserved", while the policy "is restored to
// the value derived from the quota label, or to Priority when the label is absent".
// The result is a new object; existing is not modified.
func ReconcileQueue(existing *queuev1alpha1.Queue, eq *koordv1alpha1.ElasticQuota, namespace string) *queuev1alpha1.Queue {
	q := &queuev1alpha1.Queue{}
	if existing != nil {
		q = existing.DeepCopy()
	}
	q.TypeMeta = metav1.TypeMeta{APIVersion: queuev1alpha1.GroupVersion.String(), Kind: "Queue"}
	q.Name = eq.Name
	q.Namespace = namespace
	priority := queuev1alpha1.DefaultQueuePriority
	q.Spec.Priority = &priority
	q.Spec.QueuePolicy = PolicyOf(eq)

	if q.Labels == nil {
		q.Labels = map[string]string{}
	}
	if parent, ok := eq.Labels[koordv1alpha1.ParentLabel]; ok {
		q.Labels[koordv1alpha1.ParentLabel] = parent
	} else {
		delete(q.Labels, koordv1alpha1.ParentLabel)
	}
	for k, v := range eq.Annotations {
		if SyncedAnnotation(k) {
			if q.Annotations == nil {
				q.Annotations = map[string]string{}
			}
			q.Annotations[k] = v
		}
	}
	return q
}
