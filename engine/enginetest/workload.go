package enginetest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Epoch is the default creation time of workloads built here.
var Epoch = time.Date(2026, 10, 28, 0, 0, 0, 0, time.UTC)

// WorkloadWrapper builds a Workload. Requests and placement constraints apply to
// the last pod set; a "main" pod set with one pod is created on first use.
type WorkloadWrapper struct{ kueue.Workload }

// MakeWorkload starts a workload; its UID defaults to namespace/name.
func MakeWorkload(namespace, name string) *WorkloadWrapper {
	w := &WorkloadWrapper{}
	w.Namespace, w.Name = namespace, name
	w.ObjectMeta.UID = types.UID(namespace + "/" + name)
	w.CreationTimestamp = metav1.NewTime(Epoch)
	return w
}

// Obj returns a copy of the object.
func (w *WorkloadWrapper) Obj() *kueue.Workload { return w.Workload.DeepCopy() }

// Key returns the workload's namespace/name.
func (w *WorkloadWrapper) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: w.Namespace, Name: w.Name}
}

// Queue sets spec.queueName.
func (w *WorkloadWrapper) Queue(name string) *WorkloadWrapper {
	w.Spec.QueueName = kueue.LocalQueueName(name)
	return w
}

// UID sets metadata.uid.
func (w *WorkloadWrapper) UID(uid string) *WorkloadWrapper {
	w.ObjectMeta.UID = types.UID(uid)
	return w
}

// Created sets the creation time to Epoch plus an offset.
func (w *WorkloadWrapper) Created(offset time.Duration) *WorkloadWrapper {
	w.CreationTimestamp = metav1.NewTime(Epoch.Add(offset))
	return w
}

// Priority sets spec.priority.
func (w *WorkloadWrapper) Priority(p int32) *WorkloadWrapper {
	w.Spec.Priority = &p
	return w
}

// PriorityClass sets spec.priorityClassRef to a WorkloadPriorityClass, or to a
// PriorityClass when pod is true.
func (w *WorkloadWrapper) PriorityClass(name string, pod bool) *WorkloadWrapper {
	ref := &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: name}
	if pod {
		ref.Group, ref.Kind = kueue.PodPriorityClassGroup, kueue.PodPriorityClassKind
	}
	w.Spec.PriorityClassRef = ref
	return w
}

// Active sets spec.active.
func (w *WorkloadWrapper) Active(a bool) *WorkloadWrapper {
	w.Spec.Active = &a
	return w
}

// PodSet starts a new pod set with count pods and one container.
func (w *WorkloadWrapper) PodSet(name string, count int32) *WorkloadWrapper {
	w.Spec.PodSets = append(w.Spec.PodSets, kueue.PodSet{
		Name:  kueue.PodSetReference(name),
		Count: count,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}}}}}},
	})
	return w
}

func (w *WorkloadWrapper) last() *kueue.PodSet {
	if len(w.Spec.PodSets) == 0 {
		w.PodSet(string(kueue.DefaultPodSetName), 1)
	}
	return &w.Spec.PodSets[len(w.Spec.PodSets)-1]
}

// Request sets a per-pod request of the last pod set's first container.
func (w *WorkloadWrapper) Request(res corev1.ResourceName, q string) *WorkloadWrapper {
	w.last().Template.Spec.Containers[0].Resources.Requests[res] = resource.MustParse(q)
	return w
}

// Toleration adds a toleration to the last pod set.
func (w *WorkloadWrapper) Toleration(t corev1.Toleration) *WorkloadWrapper {
	ps := w.last()
	ps.Template.Spec.Tolerations = append(ps.Template.Spec.Tolerations, t)
	return w
}

// NodeSelector sets nodeSelector[k]=v on the last pod set.
func (w *WorkloadWrapper) NodeSelector(k, v string) *WorkloadWrapper {
	ps := w.last()
	if ps.Template.Spec.NodeSelector == nil {
		ps.Template.Spec.NodeSelector = map[string]string{}
	}
	ps.Template.Spec.NodeSelector[k] = v
	return w
}

// AffinityTerm adds a required node affinity term with one expression.
func (w *WorkloadWrapper) AffinityTerm(key string, op corev1.NodeSelectorOperator, values ...string) *WorkloadWrapper {
	spec := &w.last().Template.Spec
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.NodeAffinity == nil {
		spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
		na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
		corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}})
	return w
}

// ReserveQuota sets status.admission: every pod set in cq with every requested
// resource in flavor (the engine computes the usage from the pod sets).
func (w *WorkloadWrapper) ReserveQuota(cq, flavor string) *WorkloadWrapper {
	adm := &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
	for _, ps := range w.Spec.PodSets {
		a := kueue.PodSetAssignment{Name: ps.Name, Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{}}
		for r := range ps.Template.Spec.Containers[0].Resources.Requests {
			a.Flavors[r] = kueue.ResourceFlavorReference(flavor)
		}
		c := ps.Count
		a.Count = &c
		adm.PodSetAssignments = append(adm.PodSetAssignments, a)
	}
	w.Status.Admission = adm
	return w
}

// ReserveQuotaAs sets status.admission in cq with each requested resource of
// every pod set in the flavor flavors names for it; a resource it does not name
// goes to flavors[""] (Kueue's admissions may split one pod set over flavors,
// one per resource group).
func (w *WorkloadWrapper) ReserveQuotaAs(cq string, flavors map[corev1.ResourceName]string) *WorkloadWrapper {
	w.ReserveQuota(cq, flavors[""])
	for i := range w.Status.Admission.PodSetAssignments {
		a := &w.Status.Admission.PodSetAssignments[i]
		for r := range a.Flavors {
			if f, ok := flavors[r]; ok {
				a.Flavors[r] = kueue.ResourceFlavorReference(f)
			}
		}
	}
	return w
}

// Reclaimable sets the status.reclaimablePods count of the pod set name (Kueue's
// ReclaimablePods): count of its pods finished for good.
func (w *WorkloadWrapper) Reclaimable(name string, count int32) *WorkloadWrapper {
	for i := range w.Status.ReclaimablePods {
		if string(w.Status.ReclaimablePods[i].Name) == name {
			w.Status.ReclaimablePods[i].Count = count
			return w
		}
	}
	w.Status.ReclaimablePods = append(w.Status.ReclaimablePods, kueue.ReclaimablePod{Name: kueue.PodSetReference(name), Count: count})
	return w
}

// Finished adds a Finished=True condition.
func (w *WorkloadWrapper) Finished() *WorkloadWrapper {
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue, Reason: "Succeeded"})
	return w
}

// QuotaReservedAt adds a QuotaReserved=True condition with that
// lastTransitionTime (Epoch plus an offset), which preemption reads as the
// admission time.
func (w *WorkloadWrapper) QuotaReservedAt(offset time.Duration) *WorkloadWrapper {
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue,
		Reason: "QuotaReserved", LastTransitionTime: metav1.NewTime(Epoch.Add(offset))})
	return w
}

// Label sets a label of the Workload (for preemptorSelector, labelSelector and
// numericLabels).
func (w *WorkloadWrapper) Label(k, v string) *WorkloadWrapper {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels[k] = v
	return w
}

// AdmittedAt adds an Admitted=True condition with that lastTransitionTime
// (Epoch plus an offset), from which the maximum execution time counts.
func (w *WorkloadWrapper) AdmittedAt(offset time.Duration) *WorkloadWrapper {
	w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue,
		Reason: "Admitted", LastTransitionTime: metav1.NewTime(Epoch.Add(offset))})
	return w
}

// MaximumExecutionTime sets spec.maximumExecutionTimeSeconds.
func (w *WorkloadWrapper) MaximumExecutionTime(seconds int32) *WorkloadWrapper {
	w.Spec.MaximumExecutionTimeSeconds = &seconds
	return w
}

// PastExecution sets status.accumulatedPastExecutionTimeSeconds.
func (w *WorkloadWrapper) PastExecution(seconds int32) *WorkloadWrapper {
	w.Status.AccumulatedPastExecutionTimeSeconds = &seconds
	return w
}

// Condition adds a status condition.
func (w *WorkloadWrapper) Condition(c metav1.Condition) *WorkloadWrapper {
	w.Status.Conditions = append(w.Status.Conditions, c)
	return w
}

// Clone returns a wrapper around a copy, to build variants of one workload.
func (w *WorkloadWrapper) Clone() *WorkloadWrapper {
	return &WorkloadWrapper{Workload: *w.Workload.DeepCopy()}
}
