package flavorassigner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Kubernetes toleration semantics, as Kueue applies them to spec.nodeTaints.
func TestTolerated(t *testing.T) {
	taint := &corev1.Taint{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name string
		tol  corev1.Toleration
		want bool
	}{
		{"equal", corev1.Toleration{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}, true},
		{"default operator is Equal", corev1.Toleration{Key: "k", Value: "other"}, false},
		{"exists ignores value", corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists}, true},
		{"other effect", corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}, false},
		{"empty key with Exists tolerates all", corev1.Toleration{Operator: corev1.TolerationOpExists}, true},
		{"empty key with Equal tolerates nothing", corev1.Toleration{Value: "v"}, false},
	}
	for _, tc := range cases {
		if got := tolerated([]corev1.Toleration{tc.tol}, taint); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

// brief: "nodeSelectorTerms: flavor label value must satisfy at least one term for
// keys the term mentions".
func TestTermMatchesOnlyFlavorKeys(t *testing.T) {
	labels := map[string]string{"gen": "5", "zone": "a"}
	req := func(k string, op corev1.NodeSelectorOperator, v ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: k, Operator: op, Values: v}
	}
	cases := []struct {
		name string
		reqs []corev1.NodeSelectorRequirement
		want bool
	}{
		{"unrelated key", []corev1.NodeSelectorRequirement{req("other", corev1.NodeSelectorOpIn, "x")}, true},
		{"Gt", []corev1.NodeSelectorRequirement{req("gen", corev1.NodeSelectorOpGt, "4")}, true},
		{"Lt fails", []corev1.NodeSelectorRequirement{req("gen", corev1.NodeSelectorOpLt, "4")}, false},
		{"DoesNotExist on a flavor key", []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpDoesNotExist)}, false},
		{"all expressions of a term must hold", []corev1.NodeSelectorRequirement{
			req("zone", corev1.NodeSelectorOpIn, "a"), req("gen", corev1.NodeSelectorOpNotIn, "5")}, false},
	}
	for _, tc := range cases {
		if got := termMatches(&corev1.NodeSelectorTerm{MatchExpressions: tc.reqs}, labels); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}
