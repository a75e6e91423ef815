package workload

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"quokka.dev/quokka/engine/resources"
)

// PodRequests returns the effective requests of one pod by the Kubernetes rules:
// a container's request defaults to its limit; regular containers and sidecars
// (init containers with restartPolicy Always) run together and are summed; each
// other init container runs alone next to the sidecars started before it, so the
// pod needs the maximum of those and the running sum; pod overhead is added on top.
func PodRequests(path *field.Path, spec *corev1.PodSpec) (resources.Requests, error) {
	running := resources.Requests{}
	for i := range spec.Containers {
		r, err := containerRequests(path.Child("containers").Index(i), &spec.Containers[i])
		if err != nil {
			return nil, err
		}
		running.Add(r)
	}
	sidecars := resources.Requests{}
	initPeak := resources.Requests{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		r, err := containerRequests(path.Child("initContainers").Index(i), c)
		if err != nil {
			return nil, err
		}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.Add(r)
			continue
		}
		for name, v := range r {
			initPeak[name] = max(initPeak[name], resources.Add(v, sidecars[name]))
		}
	}
	running.Add(sidecars)
	for name, v := range initPeak {
		running[name] = max(running[name], v)
	}
	if len(spec.Overhead) > 0 {
		o, err := toRequests(path.Child("overhead"), spec.Overhead)
		if err != nil {
			return nil, err
		}
		running.Add(o)
	}
	for name, v := range running {
		if v == 0 {
			delete(running, name)
		}
	}
	return running, nil
}

// ZeroRequests lists, sorted, the resources a pod spec names in a request or
// limit but requests none of: Kueue still assigns them a flavor when the
// ClusterQueue covers them.
func ZeroRequests(spec *corev1.PodSpec, perPod resources.Requests) []corev1.ResourceName {
	var out []corev1.ResourceName
	note := func(list corev1.ResourceList) {
		for name := range list {
			if perPod[name] == 0 && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			note(cs[i].Resources.Requests)
			note(cs[i].Resources.Limits)
		}
	}
	slices.Sort(out)
	return out
}

// LimitViolation names, as Kueue's validation does, the first container whose
// request of some resource exceeds its limit, "" when none does: such a pod
// could never run, and Kueue does not admit it.
func LimitViolation(path *field.Path, spec *corev1.PodSpec) string {
	check := func(kind string, cs []corev1.Container) string {
		for i := range cs {
			var over []string
			for name, lim := range cs[i].Resources.Limits {
				if req, ok := cs[i].Resources.Requests[name]; ok && req.Cmp(lim) > 0 {
					over = append(over, string(name))
				}
			}
			if len(over) > 0 {
				slices.Sort(over)
				return field.Invalid(path.Child(kind).Index(i), over, "requests must not exceed its limits").Error()
			}
		}
		return ""
	}
	if v := check("initContainers", spec.InitContainers); v != "" {
		return v
	}
	return check("containers", spec.Containers)
}

func containerRequests(path *field.Path, c *corev1.Container) (resources.Requests, error) {
	out, err := toRequests(path.Child("resources", "requests"), c.Resources.Requests)
	if err != nil {
		return nil, err
	}
	for name, q := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; ok {
			continue
		}
		v, err := resources.ToCanonical(name, q)
		if err != nil {
			return nil, field.Invalid(path.Child("resources", "limits").Key(string(name)), q.String(), err.Error())
		}
		out[resources.InternResource(name)] = v
	}
	return out, nil
}

func toRequests(path *field.Path, list corev1.ResourceList) (resources.Requests, error) {
	out := make(resources.Requests, len(list))
	for name, q := range list {
		v, err := resources.ToCanonical(name, q)
		if err != nil {
			return nil, field.Invalid(path.Key(string(name)), q.String(), err.Error())
		}
		out[resources.InternResource(name)] = v
	}
	return out, nil
}
