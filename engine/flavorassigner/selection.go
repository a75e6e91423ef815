package flavorassigner

import (
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/workload"
)

// skipReason tells why a pod set may not use a flavor, or "" when it may: the
// pod template must tolerate the flavor's NoSchedule and NoExecute taints, and the
// flavor's node labels must not contradict the template's nodeSelector or required
// node affinity. Only the keys the flavor defines are compared, as in Kueue: a
// selector on other keys is kube-scheduler's business.
func skipReason(rf *kueue.ResourceFlavor, ps *workload.PodSet) string {
	for _, taint := range rf.Spec.NodeTaints {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		// The flavor's own tolerations count too: Kueue injects them into
		// the pods it admits there.
		if !tolerated(ps.Tolerations, &taint) && !tolerated(rf.Spec.Tolerations, &taint) {
			return fmt.Sprintf("pod set %s does not tolerate the flavor's taint %s", ps.Name, taint.ToString())
		}
	}
	if len(rf.Spec.NodeLabels) == 0 {
		return ""
	}
	keys := make([]string, 0, len(rf.Spec.NodeLabels))
	for k := range rf.Spec.NodeLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := ps.NodeSelector[k]; ok && v != rf.Spec.NodeLabels[k] {
			return fmt.Sprintf("pod set %s has nodeSelector %s=%s but the flavor's nodes have %s=%s", ps.Name, k, v, k, rf.Spec.NodeLabels[k])
		}
	}
	if aff := ps.RequiredAffinity; aff != nil && len(aff.NodeSelectorTerms) > 0 {
		for i := range aff.NodeSelectorTerms {
			if termMatches(&aff.NodeSelectorTerms[i], rf.Spec.NodeLabels) {
				return ""
			}
		}
		return fmt.Sprintf("pod set %s has a required node affinity that no node of the flavor (labels %s) satisfies", ps.Name, labelString(keys, rf.Spec.NodeLabels))
	}
	return ""
}

// tolerated follows the Kubernetes toleration rules: an empty effect matches
// every effect, an empty key with Exists matches every taint, Exists ignores the
// value and Equal (the default) compares it.
func tolerated(tols []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tols {
		t := &tols[i]
		if t.Effect != "" && t.Effect != taint.Effect {
			continue
		}
		if t.Key == "" {
			if t.Operator == corev1.TolerationOpExists {
				return true
			}
			continue
		}
		if t.Key != taint.Key {
			continue
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			return true
		case "", corev1.TolerationOpEqual:
			if t.Value == taint.Value {
				return true
			}
		}
	}
	return false
}

// termMatches evaluates a node selector term against the flavor's labels,
// considering only expressions on keys the flavor defines. A term that says
// nothing about those keys matches.
func termMatches(term *corev1.NodeSelectorTerm, labels map[string]string) bool {
	for _, e := range term.MatchExpressions {
		v, ok := labels[e.Key]
		if !ok {
			continue
		}
		if !exprMatches(e, v) {
			return false
		}
	}
	return true
}

func exprMatches(e corev1.NodeSelectorRequirement, v string) bool {
	switch e.Operator {
	case corev1.NodeSelectorOpIn:
		return contains(e.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !contains(e.Values, v)
	case corev1.NodeSelectorOpExists:
		return true
	case corev1.NodeSelectorOpDoesNotExist:
		return false
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(e.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(e.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if e.Operator == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func labelString(keys []string, labels map[string]string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ","
		}
		s += k + "=" + labels[k]
	}
	return s
}
