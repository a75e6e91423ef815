package quota

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/hierarchy"
	"quokka.dev/quokka/engine/resources"
)

// ClusterQueue is the cache's view of a ClusterQueue: its quotas in canonical
// units, its policies with defaults applied, and its usage.
type ClusterQueue struct {
	node
	Quotas
	Strategy kueue.QueueingStrategy
	// NamespaceSelector is nil when the spec leaves it unset, which selects no
	// namespace.
	NamespaceSelector labels.Selector
	WhenCanBorrow     kueue.FlavorFungibilityPolicy
	WhenCanPreempt    kueue.FlavorFungibilityPolicy
	// Preference is spec.flavorFungibility.preference, BorrowingOverPreemption
	// when unset.
	Preference kueue.FlavorFungibilityPreference
	StopPolicy kueue.StopPolicy
	Preemption kueue.ClusterQueuePreemption
	// AdmissionMode is spec.admissionScope.admissionMode, "" when unset.
	AdmissionMode kueue.AdmissionMode
	// Labels are metadata.labels, for the clusterQueueSelector of a
	// PreemptionConfig's candidate selectors.
	Labels labels.Set
	// PreemptionConfigName is the kueue.x-k8s.io/preemption-config-name
	// annotation: the PreemptionConfig whose rules add candidates to this
	// queue's preemptions, "" for none.
	PreemptionConfigName string
	// Terminating tells that the object is being deleted (its
	// deletionTimestamp is set): as in Kueue, it admits nothing new, while
	// its admitted workloads keep their quota in its Cohort until they are
	// gone, which the manager's resource-in-use finalizer waits for.
	Terminating bool

	// weight is spec.fairSharing.weight in thousandths.
	weight int64

	tq *hierarchy.Queue[*ClusterQueue, *Cohort]
	// id is the queue's number in its Cache (Cache.queueID).
	id int32
}

// Name is the ClusterQueue's name.
func (q *ClusterQueue) Name() string { return q.name }

// CohortName is the name of the queue's cohort, "" when it has none.
func (q *ClusterQueue) CohortName() string {
	if c := q.tq.Cohort(); c != nil {
		return c.Name()
	}
	return ""
}

// Quota returns the queue's quota of a cell and whether the queue defines it.
func (q *ClusterQueue) Quota(fr resources.FlavorResource) (Quota, bool) {
	return q.quotaOf(fr)
}

// Usage is the queue's usage of a cell.
func (q *ClusterQueue) Usage(fr resources.FlavorResource) int64 { return q.cell(fr).used() }

// UsageAll returns a copy of the queue's usage.
func (q *ClusterQueue) UsageAll() resources.Amounts { return q.usageAmounts() }

// Borrowed is how far the queue's usage of a cell exceeds its nominal quota.
func (q *ClusterQueue) Borrowed(fr resources.FlavorResource) int64 {
	cl := q.cell(fr)
	return max(0, cl.used()-cl.sub())
}

// Stopped reports whether the stop policy holds admissions.
func (q *ClusterQueue) Stopped() bool {
	return q.StopPolicy == kueue.Hold || q.StopPolicy == kueue.HoldAndDrain
}

// InCycle reports whether the queue's cohort chain has a cycle.
func (q *ClusterQueue) InCycle() bool { return q.tq.HasCycle() }

// clusterQueueFromAPI converts the object. Errors name the field path.
func clusterQueueFromAPI(gate bool, cq *kueue.ClusterQueue) (*ClusterQueue, error) {
	path, groups := resourceGroupsOf(gate, cq.Spec.ResourceGroups, cq.Status.EffectiveQuotas)
	qs, err := ConvertResourceGroups(path, groups)
	if err != nil {
		return nil, err
	}
	out := &ClusterQueue{
		node:           newNode(cq.Name),
		Quotas:         qs,
		Strategy:       kueue.BestEffortFIFO,
		WhenCanBorrow:  kueue.MayStopSearch,
		WhenCanPreempt: kueue.TryNextFlavor,
		Preference:     kueue.BorrowingOverPreemption,
		StopPolicy:     kueue.None,
		Labels:         labels.Set(copyLabels(cq.Labels)),

		PreemptionConfigName: cq.Annotations[kueuev1alpha1.PreemptionConfigNameAnnotation],
		Terminating:          cq.DeletionTimestamp != nil,
	}
	out.setQuotas(qs.Cells)
	if cq.Spec.QueueingStrategy != "" {
		out.Strategy = cq.Spec.QueueingStrategy
	}
	if sel := cq.Spec.NamespaceSelector; sel != nil {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return nil, field.Invalid(field.NewPath("spec", "namespaceSelector"), sel.String(), err.Error())
		}
		out.NamespaceSelector = s
	}
	if ff := cq.Spec.FlavorFungibility; ff != nil {
		if ff.WhenCanBorrow != "" {
			out.WhenCanBorrow = ff.WhenCanBorrow
		}
		if ff.WhenCanPreempt != "" {
			out.WhenCanPreempt = ff.WhenCanPreempt
		}
		if ff.Preference != nil {
			out.Preference = *ff.Preference
		}
	}
	if cq.Spec.StopPolicy != nil && *cq.Spec.StopPolicy != "" {
		out.StopPolicy = *cq.Spec.StopPolicy
	}
	if p := cq.Spec.Preemption; p != nil {
		out.Preemption = *p.DeepCopy()
	}
	if out.Preemption.ReclaimWithinCohort == "" {
		out.Preemption.ReclaimWithinCohort = kueue.PreemptionPolicyNever
	}
	if out.Preemption.WithinClusterQueue == "" {
		out.Preemption.WithinClusterQueue = kueue.PreemptionPolicyNever
	}
	out.weight = weightOf(cq.Spec.FairSharing)
	if sc := cq.Spec.AdmissionScope; sc != nil {
		out.AdmissionMode = sc.AdmissionMode
	}
	for _, c := range out.cells.all() {
		c.subtree = c.quota.Nominal
	}
	return out, nil
}

// Status is the Active condition of a ClusterQueue.
type Status struct {
	Active bool
	Reason string
	// Message explains, to a workload kept pending by the queue, why the
	// queue admits nothing.
	Message string
	// Condition is the message of the ClusterQueue's Active condition, in
	// Kueue's words ("Can't admit new workloads: ...").
	Condition string
}

// Status computes the queue's Active condition. It is computed on demand (O(depth +
// flavors)) so that it can never go stale when a flavor or cohort changes.
// Precedence, as in Kueue: a deletion in progress first, then a stop policy
// (an administrator's explicit intent), then a cohort cycle (Quokka's own
// reason), then missing flavors. As Kueue does, the condition's message lists
// every cause but a deletion, and every missing flavor.
func (c *Cache) Status(q *ClusterQueue) Status {
	if q.Terminating {
		return Status{Reason: kueue.ClusterQueueActiveReasonTerminating,
			Message:   fmt.Sprintf("ClusterQueue %s is being deleted and admits nothing new", q.name),
			Condition: "Can't admit new workloads; clusterQueue is terminating"}
	}
	var st Status
	var causes []string
	because := func(reason, message, cause string) {
		if st.Reason == "" {
			st.Reason, st.Message = reason, message
		}
		causes = append(causes, cause)
	}
	if q.Stopped() {
		because(kueue.ClusterQueueActiveReasonStopped,
			fmt.Sprintf("ClusterQueue %s is stopped (stopPolicy %s)", q.name, q.StopPolicy), "is stopped")
	}
	if q.InCycle() {
		because(kueue.ClusterQueueActiveReasonCohortCycle,
			fmt.Sprintf("ClusterQueue %s is inactive: cohort %s is in a cycle of parentName references", q.name, q.CohortName()),
			fmt.Sprintf("its Cohort %s is in a cycle of parentName references", q.CohortName()))
	}
	var missing []string
	for _, g := range q.Groups {
		for _, f := range g.Flavors {
			if _, ok := c.flavors[f]; !ok {
				missing = append(missing, f)
			}
		}
	}
	if len(missing) > 0 {
		because(kueue.ClusterQueueActiveReasonFlavorNotFound,
			fmt.Sprintf("ClusterQueue %s is inactive: ResourceFlavor %s not found", q.name, missing[0]),
			"references missing ResourceFlavor(s): "+strings.Join(missing, ","))
	}
	if st.Reason == "" {
		return Status{Active: true, Reason: kueue.ClusterQueueActiveReasonReady, Message: "Can admit new workloads", Condition: "Can admit new workloads"}
	}
	st.Condition = "Can't admit new workloads: " + strings.Join(causes, ", ") + "."
	return st
}

func copyLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
