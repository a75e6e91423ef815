package flavorassigner_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Required node affinity against a flavor's node labels with Gt and Lt:
// Kubernetes compares the label value as an integer, strictly (Gt: greater
// than, Lt: less than; k8s.io/apimachinery/pkg/labels, Requirement.Matches),
// so a flavor whose label equals the value does not match either operator.
// Kueue evaluates the term with kube-scheduler's node affinity helpers.
//
// Flavors gen-4, gen-5 and gen-6 carry the node label gen=4, 5 and 6; queue
// asc lists them in that order, queue desc the other way round, so that a
// flavor at the boundary is always tried before the one that matches. The
// workload asks for 1 CPU with a required term on gen.
func TestNodeAffinityGtLtAreStrict(t *testing.T) {
	t.Parallel()
	flavors := []*kueue.ResourceFlavor{
		MakeFlavor("gen-4").NodeLabel("gen", "4").Obj(),
		MakeFlavor("gen-5").NodeLabel("gen", "5").Obj(),
		MakeFlavor("gen-6").NodeLabel("gen", "6").Obj(),
	}
	w := kaWorld{flavors: flavors, queues: kaQueues(
		MakeClusterQueue("asc").Quota("gen-4", kaCPU, "4").Quota("gen-5", kaCPU, "4").Quota("gen-6", kaCPU, "4"),
		MakeClusterQueue("desc").Quota("gen-6", kaCPU, "4").Quota("gen-5", kaCPU, "4").Quota("gen-4", kaCPU, "4"),
	)}
	for _, tc := range []struct {
		name  string
		cq    string
		op    corev1.NodeSelectorOperator
		value string
		want  string // the flavor chosen, "" for none
	}{
		{"Gt 5 skips gen-5 (equal) for gen-6", "asc", corev1.NodeSelectorOpGt, "5", "gen-6"},
		{"Gt 4 takes gen-5", "asc", corev1.NodeSelectorOpGt, "4", "gen-5"},
		{"Gt 6 matches nothing", "asc", corev1.NodeSelectorOpGt, "6", ""},
		{"Lt 5 skips gen-5 (equal) for gen-4", "desc", corev1.NodeSelectorOpLt, "5", "gen-4"},
		{"Lt 6 takes gen-5", "desc", corev1.NodeSelectorOpLt, "6", "gen-5"},
		{"Lt 4 matches nothing", "desc", corev1.NodeSelectorOpLt, "4", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := kaAssign(t, w, tc.cq, kaPending().Request(kaCPU, "1").AffinityTerm("gen", tc.op, tc.value).Obj())
			mode, flavors, _ := kaOutcome(res)
			got := ""
			if mode == "Fit" {
				got = flavors[0][kaCPU]
			}
			if got != tc.want {
				t.Errorf("%s in flavor %q, want %q (reason %q: %s)", mode, got, tc.want, res.Reason, res.Message)
			}
			if tc.want == "" && (mode != "NoFit" || res.Reason != "FlavorSkipped") {
				t.Errorf("mode %s, reason %q; want NoFit, FlavorSkipped", mode, res.Reason)
			}
		})
	}
}
