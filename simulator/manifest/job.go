package manifest

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// validateJob checks a batch/v1 Job as far as the simulator reads it: the queue
// label Kueue's job integration needs, the parallelism, and the pod template's
// requests.
func validateJob(job *batchv1.Job) field.ErrorList {
	errs := validateRequiredName(job.Name, false)
	labels := field.NewPath("metadata", "labels")
	errs = append(errs, metav1validation.ValidateLabels(job.Labels, labels)...)
	queue := job.Labels[kueue.QueueNameLabel]
	switch {
	case queue == "" && hasQuotaLabel(job.Labels):
		// A Koord-Queue unit: the quota label takes the place of the LocalQueue.
	case queue == "":
		// Resolved when the Job is submitted: the namespace's "default"
		// LocalQueue, or none with manageJobsWithoutQueueName (see
		// simulator/workloads.go).
	default:
		errs = append(errs, validateDNSSubdomain(queue, labels.Key(kueue.QueueNameLabel))...)
	}
	if pc, ok := job.Labels[kueue.PriorityClassLabel]; ok {
		errs = append(errs, validateDNSSubdomain(pc, labels.Key(kueue.PriorityClassLabel))...)
	}
	if v, ok := job.Labels[kueue.MaxExecTimeSecondsLabel]; ok {
		if _, err := kueue.ParseMaxExecTimeSeconds(v); err != nil {
			errs = append(errs, field.Invalid(labels.Key(kueue.MaxExecTimeSecondsLabel), v, err.Error()))
		}
	}
	spec := field.NewPath("spec")
	if p := job.Spec.Parallelism; p != nil && *p < 0 {
		errs = append(errs, field.Invalid(spec.Child("parallelism"), *p, "must be greater than or equal to 0"))
	}
	if c := job.Spec.Completions; c != nil && *c < 0 {
		errs = append(errs, field.Invalid(spec.Child("completions"), *c, "must be greater than or equal to 0"))
	}
	if v, ok := job.Annotations[kueue.JobMinParallelismAnnotation]; ok {
		if err := kueue.ValidateJobMinParallelism(v, kueue.JobPodCount(job)); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(kueue.JobMinParallelismAnnotation), v, err.Error()))
		}
	}
	tmpl := spec.Child("template", "spec")
	if len(job.Spec.Template.Spec.Containers) == 0 {
		errs = append(errs, field.Required(tmpl.Child("containers"), ""))
	}
	errs = append(errs, validatePodSpecRequests(job.Spec.Template.Spec, tmpl)...)
	return append(errs, validateNonOvercommittable(job.Spec.Template.Spec, tmpl)...)
}

// validateNonOvercommittable is the API server's rule for pods (and so for a Job's
// pod template): an extended resource such as nvidia.com/gpu, or hugepages, cannot
// be overcommitted, so a request needs a limit and must equal it. Kueue's
// Workload CRD does not check pod templates, so this applies to Jobs only.
func validateNonOvercommittable(spec corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(c corev1.Container, p *field.Path) {
		for _, name := range sortedResourceNames(c.Resources.Requests) {
			if overcommitAllowed(name) {
				continue
			}
			req := c.Resources.Requests[name]
			lim, ok := c.Resources.Limits[name]
			if !ok {
				errs = append(errs, field.Required(p.Child("resources", "limits"), "Limit must be set for non overcommitable resources"))
				continue
			}
			if req.Cmp(lim) != 0 {
				errs = append(errs, field.Invalid(p.Child("resources", "requests").Key(string(name)), req.String(),
					fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
			}
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

// overcommitAllowed reports whether requests of a resource may be below its limit:
// native resources (no domain, or in kubernetes.io) except hugepages.
func overcommitAllowed(name corev1.ResourceName) bool {
	n := string(name)
	native := !strings.Contains(n, "/") || strings.Contains(n, corev1.ResourceDefaultNamespacePrefix)
	return native && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix)
}

// workloadForJob builds the Workload that Kueue's batch/v1 Job integration would
// create: one pod set "main" of min(parallelism, completions) pods (parallelism
// defaults to 1), the minimum of its kueue.x-k8s.io/job-min-parallelism
// annotation as minCount, with the Job's pod template, in the Job's namespace and, so that
// the timeline can name the Job by its own name, with the Job's name. The priority
// value is resolved from the WorkloadPriorityClass when the Job is submitted, the way
// Kueue resolves it when it creates the Workload.
func workloadForJob(job *batchv1.Job) *kueue.Workload {
	count := kueue.JobPodCount(job)
	out := &kueue.Workload{}
	out.APIVersion = kueue.GroupVersion.String()
	out.Kind = "Workload"
	out.Name = job.Name
	out.Namespace = job.Namespace
	out.UID = job.UID
	out.Labels = copyMap(job.Labels)
	out.Annotations = copyMap(job.Annotations)
	out.Spec.QueueName = kueue.LocalQueueName(job.Labels[kueue.QueueNameLabel])
	if pc := job.Labels[kueue.PriorityClassLabel]; pc != "" {
		out.Spec.PriorityClassRef = &kueue.PriorityClassRef{
			Group: kueue.WorkloadPriorityClassGroup,
			Kind:  "WorkloadPriorityClass",
			Name:  pc,
		}
	}
	if v, ok := job.Labels[kueue.MaxExecTimeSecondsLabel]; ok {
		if n, err := kueue.ParseMaxExecTimeSeconds(v); err == nil {
			out.Spec.MaximumExecutionTimeSeconds = &n
		}
	}
	tmpl := *job.Spec.Template.DeepCopy()
	out.Spec.PodSets = []kueue.PodSet{{
		Name:     kueue.DefaultPodSetName,
		Template: tmpl,
		Count:    count,
		// Validated: from 1 to one below count.
		MinCount: kueue.JobMinParallelism(job.Annotations),
	}}
	return out
}

// PodRequests returns what one pod of spec requests, the way the scheduler counts
// it: the sum of the containers, at least the largest init container (a sidecar,
// an init container with restartPolicy Always, adds to both), plus the overhead.
// A container's missing request is its limit, as the API server defaults a
// pod's (a GPU written only under limits is still counted).
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	total := corev1.ResourceList{}
	add := func(into corev1.ResourceList, from corev1.ResourceList) {
		for name, q := range from {
			cur := into[name]
			cur.Add(q)
			into[name] = cur
		}
	}
	for _, c := range spec.Containers {
		add(total, requestsOrLimits(c))
	}
	sidecars := corev1.ResourceList{}
	for _, c := range spec.InitContainers {
		requests := requestsOrLimits(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(total, requests)
			add(sidecars, requests)
			continue
		}
		// A regular init container runs alone, next to the sidecars started
		// before it.
		need := corev1.ResourceList{}
		add(need, sidecars)
		add(need, requests)
		for name, q := range need {
			if cur, ok := total[name]; !ok || q.Cmp(cur) > 0 {
				total[name] = q.DeepCopy()
			}
		}
	}
	add(total, spec.Overhead)
	return total
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// requestsOrLimits is a container's requests, its limit standing in for each
// resource it limits and does not request.
func requestsOrLimits(c corev1.Container) corev1.ResourceList {
	var filled corev1.ResourceList
	for name, lim := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; ok {
			continue
		}
		if filled == nil {
			filled = corev1.ResourceList{}
			for n, q := range c.Resources.Requests {
				filled[n] = q
			}
		}
		filled[name] = lim
	}
	if filled == nil {
		return c.Resources.Requests
	}
	return filled
}
