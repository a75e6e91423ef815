package manifest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// validateNamespace checks a Namespace: its labels feed the ClusterQueues'
// namespaceSelectors.
func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := validateRequiredName(ns.Name, true)
	return append(errs, metav1validation.ValidateLabels(ns.Labels, field.NewPath("metadata", "labels"))...)
}

// validateLimitRange checks what the engine reads of a LimitRange: a name,
// and items of a type the API server knows, with no negative quantity.
func validateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	errs := validateRequiredName(lr.Name, true)
	limits := field.NewPath("spec", "limits")
	for i, item := range lr.Spec.Limits {
		p := limits.Index(i)
		switch item.Type {
		case corev1.LimitTypeContainer, corev1.LimitTypePod, corev1.LimitTypePersistentVolumeClaim:
		default:
			errs = append(errs, field.NotSupported(p.Child("type"), item.Type,
				[]corev1.LimitType{corev1.LimitTypeContainer, corev1.LimitTypePod, corev1.LimitTypePersistentVolumeClaim}))
		}
		for name, list := range map[string]corev1.ResourceList{"max": item.Max, "min": item.Min, "default": item.Default,
			"defaultRequest": item.DefaultRequest, "maxLimitRequestRatio": item.MaxLimitRequestRatio} {
			for r, q := range list {
				if q.Sign() < 0 {
					errs = append(errs, field.Invalid(p.Child(name).Key(string(r)), q.String(), "must be greater than or equal to 0"))
				}
			}
		}
	}
	return errs
}

// validateRuntimeClass checks a RuntimeClass: a name and a handler, and no
// negative overhead.
func validateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	errs := validateRequiredName(rc.Name, false)
	if rc.Handler == "" {
		errs = append(errs, field.Required(field.NewPath("handler"), ""))
	}
	if rc.Overhead != nil {
		for r, q := range rc.Overhead.PodFixed {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(field.NewPath("overhead", "podFixed").Key(string(r)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	return errs
}

// validateResourceFlavor is the CRD schema of ResourceFlavor.
func validateResourceFlavor(rf *kueue.ResourceFlavor) field.ErrorList {
	errs := validateRequiredName(rf.Name, false)
	spec := field.NewPath("spec")
	if len(rf.Spec.NodeLabels) > 8 {
		errs = append(errs, field.TooMany(spec.Child("nodeLabels"), len(rf.Spec.NodeLabels), 8))
	}
	errs = append(errs, metav1validation.ValidateLabels(rf.Spec.NodeLabels, spec.Child("nodeLabels"))...)
	errs = append(errs, validateMaxItems(len(rf.Spec.NodeTaints), 8, spec.Child("nodeTaints"))...)
	for i, t := range rf.Spec.NodeTaints {
		p := spec.Child("nodeTaints").Index(i)
		if t.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), ""))
		}
		errs = append(errs, validateEnum(t.Effect, p.Child("effect"), false,
			corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute)...)
	}
	errs = append(errs, validateMaxItems(len(rf.Spec.Tolerations), 8, spec.Child("tolerations"))...)
	for i, t := range rf.Spec.Tolerations {
		p := spec.Child("tolerations").Index(i)
		if t.Operator == corev1.TolerationOpExists && t.Value != "" {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, "must be empty when operator is Exists"))
		}
		errs = append(errs, validateEnum(t.Operator, p.Child("operator"), true, corev1.TolerationOpExists, corev1.TolerationOpEqual)...)
	}
	if rf.Spec.TopologyName != nil {
		errs = append(errs, field.Forbidden(spec.Child("topologyName"),
			"topology-aware scheduling is not supported by Quokka; remove topologyName to simulate this flavor"))
	}
	return errs
}

// validateWorkloadPriorityClass checks a WorkloadPriorityClass; any int32 is a
// valid value.
func validateWorkloadPriorityClass(wpc *kueue.WorkloadPriorityClass) field.ErrorList {
	return validateRequiredName(wpc.Name, false)
}

// validateLocalQueue is the CRD schema of LocalQueue. clusterQueue is required: a
// LocalQueue that points nowhere would hold its workloads forever.
func validateLocalQueue(lq *kueue.LocalQueue) field.ErrorList {
	errs := validateRequiredName(lq.Name, false)
	spec := field.NewPath("spec")
	if lq.Spec.ClusterQueue == "" {
		errs = append(errs, field.Required(spec.Child("clusterQueue"), "the ClusterQueue this LocalQueue submits to"))
	} else {
		errs = append(errs, validateDNSSubdomain(string(lq.Spec.ClusterQueue), spec.Child("clusterQueue"))...)
	}
	if sp := lq.Spec.StopPolicy; sp != nil {
		errs = append(errs, validateEnum(*sp, spec.Child("stopPolicy"), true, kueue.None, kueue.Hold, kueue.HoldAndDrain)...)
	}
	if fs := lq.Spec.FairSharing; fs != nil {
		errs = append(errs, validateWeight(fs.Weight, spec.Child("fairSharing", "weight"))...)
	}
	return errs
}

// validateWorkload is the CRD schema of Workload plus what the simulator needs to
// run it: a queue to submit to, and a consistent preset admission.
func validateWorkload(wl *kueue.Workload) field.ErrorList {
	errs := validateRequiredName(wl.Name, false)
	spec := field.NewPath("spec")
	switch {
	case wl.Spec.QueueName == "" && IsKoordUnit(wl):
		// A Koord-Queue unit: the quota label takes the place of the LocalQueue.
	case wl.Spec.QueueName == "":
		errs = append(errs, field.Required(spec.Child("queueName"), "the simulator runs only workloads that name a LocalQueue, or Koord-Queue units with the label quota.scheduling.koordinator.sh/name"))
	default:
		errs = append(errs, validateDNSSubdomain(string(wl.Spec.QueueName), spec.Child("queueName"))...)
	}
	errs = append(errs, validatePodSets(wl.Spec.PodSets, spec.Child("podSets"))...)
	if ref := wl.Spec.PriorityClassRef; ref != nil {
		p := spec.Child("priorityClassRef")
		errs = append(errs, validateEnum(ref.Group, p.Child("group"), false, kueue.WorkloadPriorityClassGroup, kueue.PriorityClassGroup("scheduling.k8s.io"))...)
		errs = append(errs, validateEnum(ref.Kind, p.Child("kind"), false, kueue.PriorityClassKind("WorkloadPriorityClass"), kueue.PriorityClassKind("PriorityClass"))...)
		wantKind := kueue.PriorityClassKind("WorkloadPriorityClass")
		if ref.Group == "scheduling.k8s.io" {
			wantKind = "PriorityClass"
		}
		if ref.Kind != "" && ref.Kind != wantKind {
			errs = append(errs, field.Invalid(p.Child("kind"), string(ref.Kind),
				"kind must be PriorityClass for group scheduling.k8s.io and WorkloadPriorityClass for group kueue.x-k8s.io"))
		}
		errs = append(errs, validateLength(ref.Name, 1, 253, p.Child("name"))...)
		if wl.Spec.Priority == nil {
			errs = append(errs, field.Required(spec.Child("priority"), "priority must be set when priorityClassRef is set"))
		}
	}
	if m := wl.Spec.MaximumExecutionTimeSeconds; m != nil && *m < 1 {
		errs = append(errs, field.Invalid(spec.Child("maximumExecutionTimeSeconds"), *m, "must be greater than or equal to 1"))
	}
	return append(errs, validateWorkloadStatus(wl)...)
}

// validatePodSets checks pod set counts and names.
func validatePodSets(podSets []kueue.PodSet, path *field.Path) field.ErrorList {
	errs := validateItemCount(len(podSets), 1, 8, path)
	seen := map[kueue.PodSetReference]bool{}
	variable := 0 // pod sets with a minCount
	for i, ps := range podSets {
		p := path.Index(i)
		name := ps.Name
		if name == "" {
			name = kueue.DefaultPodSetName
		}
		errs = append(errs, validateDNSLabel(string(name), p.Child("name"))...)
		if seen[name] {
			errs = append(errs, field.Duplicate(p.Child("name"), string(name)))
		}
		seen[name] = true
		if ps.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("count"), ps.Count, "must be greater than or equal to 0"))
		}
		if ps.MinCount != nil && *ps.MinCount < 1 {
			errs = append(errs, field.Invalid(p.Child("minCount"), *ps.MinCount, "must be greater than or equal to 1"))
		}
		if ps.MinCount != nil && *ps.MinCount > ps.Count {
			errs = append(errs, field.Invalid(p.Child("minCount"), *ps.MinCount, "minCount should be positive and less or equal to count"))
		}
		if ps.MinCount != nil {
			variable++
			if variable == 2 {
				errs = append(errs, field.Invalid(path, "", "at most one podSet can use minCount"))
			}
		}
		errs = append(errs, validatePodSpecRequests(ps.Template.Spec, p.Child("template", "spec"))...)
	}
	return errs
}

// validatePodSpecRequests refuses negative requests and requests above limits,
// which the API server would refuse when it creates the pods.
func validatePodSpecRequests(spec corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(c corev1.Container, p *field.Path) {
		for name, q := range c.Resources.Requests {
			errs = append(errs, validateNonNegative(q, p.Child("resources", "requests").Key(string(name)))...)
			if lim, ok := c.Resources.Limits[name]; ok && q.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(p.Child("resources", "requests").Key(string(name)), q.String(),
					fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
			}
		}
		for name, q := range c.Resources.Limits {
			errs = append(errs, validateNonNegative(q, p.Child("resources", "limits").Key(string(name)))...)
		}
	}
	for i, c := range spec.InitContainers {
		check(c, path.Child("initContainers").Index(i))
	}
	for i, c := range spec.Containers {
		check(c, path.Child("containers").Index(i))
	}
	return errs
}

// validateWorkloadStatus checks a preset admission: the simulator starts such a
// Workload admitted at its time, with that assignment, so the assignment must be
// complete and the QuotaReserved condition must agree with it.
func validateWorkloadStatus(wl *kueue.Workload) field.ErrorList {
	status := field.NewPath("status")
	var errs field.ErrorList
	if len(wl.Status.Conditions) > 0 {
		errs = append(errs, metav1validation.ValidateConditions(wl.Status.Conditions, status.Child("conditions"))...)
	}
	if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
		errs = append(errs, field.Forbidden(status.Child("conditions"),
			"the Workload is already Finished: it has nothing left to simulate"))
	}
	adm := wl.Status.Admission
	reserved := apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	if adm == nil {
		if reserved {
			errs = append(errs, field.Required(status.Child("admission"), "a Workload with QuotaReserved=True must have status.admission"))
		}
		return errs
	}
	p := status.Child("admission")
	if !reserved {
		errs = append(errs, field.Required(status.Child("conditions"),
			"a Workload with status.admission must have the condition QuotaReserved=True (it starts admitted)"))
	}
	if adm.ClusterQueue == "" {
		errs = append(errs, field.Required(p.Child("clusterQueue"), ""))
	} else {
		errs = append(errs, validateDNSSubdomain(string(adm.ClusterQueue), p.Child("clusterQueue"))...)
	}
	psaPath := p.Child("podSetAssignments")
	errs = append(errs, validateItemCount(len(adm.PodSetAssignments), 1, 8, psaPath)...)
	podSets := map[kueue.PodSetReference]bool{}
	for _, ps := range wl.Spec.PodSets {
		name := ps.Name
		if name == "" {
			name = kueue.DefaultPodSetName
		}
		podSets[name] = true
	}
	assigned := map[kueue.PodSetReference]bool{}
	for i, psa := range adm.PodSetAssignments {
		ip := psaPath.Index(i)
		name := psa.Name
		if name == "" {
			name = kueue.DefaultPodSetName
		}
		if !podSets[name] {
			errs = append(errs, field.NotFound(ip.Child("name"), string(name)))
		}
		if assigned[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), string(name)))
		}
		assigned[name] = true
		for res, flavor := range psa.Flavors {
			errs = append(errs, validateDNSSubdomain(string(flavor), ip.Child("flavors").Key(string(res)))...)
		}
		for res, q := range psa.ResourceUsage {
			errs = append(errs, validateNonNegative(q, ip.Child("resourceUsage").Key(string(res)))...)
		}
		if psa.Count != nil && *psa.Count < 0 {
			errs = append(errs, field.Invalid(ip.Child("count"), *psa.Count, "must be greater than or equal to 0"))
		}
	}
	for _, ps := range wl.Spec.PodSets {
		name := ps.Name
		if name == "" {
			name = kueue.DefaultPodSetName
		}
		if !assigned[name] {
			errs = append(errs, field.Required(psaPath, fmt.Sprintf("pod set %q has no assignment", name)))
		}
	}
	return errs
}
