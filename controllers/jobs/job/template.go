package job

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// The original nodeSelector and tolerations of a Job's pod template are kept in
// the Workload's pod set "main", as Kueue keeps them: the Workload is built from
// the template as submitted, before any flavor is injected, and its pod sets do
// not change while it exists. Restoring from there needs no annotation on the Job
// that a user could edit or lose.

// placement is the part of a pod template that admission changes.
type placement struct {
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
}

// originalPlacement is the Job template's placement as submitted, read from the
// Workload's pod set.
func originalPlacement(wl *kueue.Workload) (placement, error) {
	ps := mainPodSet(wl)
	if ps == nil {
		return placement{}, fmt.Errorf("workload %s/%s has no pod set %q", wl.Namespace, wl.Name, kueue.DefaultPodSetName)
	}
	spec := ps.Template.Spec
	return placement{NodeSelector: maps.Clone(spec.NodeSelector), Tolerations: slices.Clone(spec.Tolerations)}, nil
}

// admittedPlacement adds the flavors' nodeLabels to the original nodeSelector and
// their tolerations to the original tolerations, so that the pods run on the
// nodes whose quota was charged and tolerate their taints. A nodeSelector key the
// user set to another value than a flavor's label is an error: the pods could
// never schedule, and overriding the user silently would hide the mistake.
// Flavors' nodeTaints are not turned into tolerations: a tainted flavor is only
// for workloads that already tolerate it (spec 002).
func admittedPlacement(original placement, flavors []*kueue.ResourceFlavor) (placement, error) {
	out := placement{NodeSelector: maps.Clone(original.NodeSelector), Tolerations: slices.Clone(original.Tolerations)}
	for _, rf := range flavors {
		for k, v := range rf.Spec.NodeLabels {
			if old, ok := out.NodeSelector[k]; ok && old != v {
				return placement{}, fmt.Errorf("nodeSelector %s=%s of the pod template conflicts with label %s=%s of ResourceFlavor %s", k, old, k, v, rf.Name)
			}
			if out.NodeSelector == nil {
				out.NodeSelector = map[string]string{}
			}
			out.NodeSelector[k] = v
		}
		for _, t := range rf.Spec.Tolerations {
			if !slices.ContainsFunc(out.Tolerations, func(have corev1.Toleration) bool { return have.MatchToleration(&t) }) {
				out.Tolerations = append(out.Tolerations, t)
			}
		}
	}
	return out, nil
}

// applyPlacement sets the template's nodeSelector and tolerations to p and reports
// whether anything changed, so that callers write only when needed.
func applyPlacement(tmpl *corev1.PodTemplateSpec, p placement) bool {
	changed := false
	if !equality.Semantic.DeepEqual(emptyToNil(tmpl.Spec.NodeSelector), emptyToNil(p.NodeSelector)) {
		tmpl.Spec.NodeSelector = maps.Clone(p.NodeSelector)
		changed = true
	}
	if !equality.Semantic.DeepEqual(tolerationsOrNil(tmpl.Spec.Tolerations), tolerationsOrNil(p.Tolerations)) {
		tmpl.Spec.Tolerations = slices.Clone(p.Tolerations)
		changed = true
	}
	return changed
}

// admittedFlavors reads the ResourceFlavors assigned to pod set "main", in name
// order so that injection is deterministic.
func admittedFlavors(ctx context.Context, c client.Reader, wl *kueue.Workload) ([]*kueue.ResourceFlavor, error) {
	if wl.Status.Admission == nil {
		return nil, fmt.Errorf("workload %s/%s is not admitted", wl.Namespace, wl.Name)
	}
	names := map[kueue.ResourceFlavorReference]bool{}
	for _, psa := range wl.Status.Admission.PodSetAssignments {
		if psa.Name != kueue.DefaultPodSetName {
			continue
		}
		for _, f := range psa.Flavors {
			names[f] = true
		}
	}
	sorted := slices.Collect(maps.Keys(names))
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	flavors := make([]*kueue.ResourceFlavor, 0, len(sorted))
	for _, name := range sorted {
		rf := &kueue.ResourceFlavor{}
		if err := c.Get(ctx, client.ObjectKey{Name: string(name)}, rf); err != nil {
			return nil, fmt.Errorf("getting ResourceFlavor %q admitted to workload %s/%s: %w", name, wl.Namespace, wl.Name, err)
		}
		flavors = append(flavors, rf)
	}
	return flavors, nil
}

func mainPodSet(wl *kueue.Workload) *kueue.PodSet {
	for i := range wl.Spec.PodSets {
		if wl.Spec.PodSets[i].Name == kueue.DefaultPodSetName {
			return &wl.Spec.PodSets[i]
		}
	}
	return nil
}

// emptyToNil and tolerationsOrNil make an empty list and a missing one compare
// equal: the API server drops both, and a write between them would be a no-op.
func emptyToNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

func tolerationsOrNil(t []corev1.Toleration) []corev1.Toleration {
	if len(t) == 0 {
		return nil
	}
	return t
}
