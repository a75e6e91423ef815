package elasticquota

import (
	"fmt"

	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
)

// QueueNotFoundReason is the reason of the Warning event recorded once on a unit
// whose quota label names a quota that does not exist.
const QueueNotFoundReason = "QueueNotFound"

// Resolution is where a job (its QueueUnit) waits and what it is charged to.
type Resolution struct {
	// Quota is the ElasticQuota's name; empty when the job carries no label.
	Quota string
	// Queue is the Queue's name: always the quota's name ("There is therefore
	// exactly one queue per quota, and both carry the name of the ElasticQuota").
	Queue string
	// Found reports whether an ElasticQuota of that name exists.
	Found bool
}

// Resolve maps a unit's labels to its quota and queue. 004: "There is no namespace
// based fallback. A job that does not carry the label does not resolve to any
// quota, and consequently not to any queue." The quota label comes first, then
// Koord-Queue's fallback label alibabacloud.com/quota-name (getQuotaName).
func (c *Cache) Resolve(labels map[string]string) Resolution {
	name := QuotaNameOf(labels)
	if name == "" {
		return Resolution{}
	}
	_, found := c.quotas[name]
	return Resolution{Quota: name, Queue: name, Found: found}
}

// QueueNotFoundMessage is the message of the QueueNotFound event, in Koord-Queue's
// words: "queue <name> not found for queueUnit <namespace>/<name>".
func QueueNotFoundMessage(queue, unitNamespace, unitName string) string {
	return fmt.Sprintf("queue %s not found for queueUnit %s/%s", queue, unitNamespace, unitName)
}

// ParentName is the parent of a quota: its parent label, or koordinator-root-quota
// when the label is absent or empty. 004: "the root quota itself has no parent."
func ParentName(eq *koordv1alpha1.ElasticQuota) string {
	if eq.Name == koordv1alpha1.RootQuotaName {
		return ""
	}
	if p := eq.Labels[koordv1alpha1.ParentLabel]; p != "" {
		return p
	}
	return koordv1alpha1.RootQuotaName
}
