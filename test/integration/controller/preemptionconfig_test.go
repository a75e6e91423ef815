//go:build integration

package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// 001: "Baseline candidates are the deduplicated union of: candidates selected
// by the preemptor's ClusterQueue.spec.preemption policy; candidates selected
// by applicable rules in the referenced PreemptionConfig whose
// activationPolicy.trigger is Always."
//
// The manager mirrors PreemptionConfigs from the API into the engine: a queue
// whose spec.preemption never preempts (the defaults) takes a lower-priority
// workload of its own through the rule of the config its annotation names.
func TestPreemptionConfigRuleThroughTheManager(t *testing.T) {
	ns := "pconfig"
	pc := &kueuev1alpha1.PreemptionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "lower-in-queue"},
		Spec: kueuev1alpha1.PreemptionConfigSpec{Rules: []kueuev1alpha1.PreemptionRule{{
			Name:             "lower",
			ActivationPolicy: kueuev1alpha1.ActivationPolicy{Trigger: kueuev1alpha1.Always},
			CandidateSelectors: []kueuev1alpha1.CandidateSelector{{
				Scope:    kueuev1alpha1.WithinClusterQueue,
				Priority: &kueuev1alpha1.PriorityConstraint{Comparison: kueuev1alpha1.LessThan},
			}},
		}}},
	}
	cq := makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", "1", "", "")).obj()
	cq.Annotations = map[string]string{kueuev1alpha1.PreemptionConfigNameAnnotation: pc.Name}
	create(t, pc, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cq, makeLQ(ns, "q", ns))
	create(t, makeWL(ns, "low", "q", "cpu", "1"))
	startManager(t, nil)
	waitAdmitted(t, ns, "low")

	high := makeWL(ns, "high", "q", "cpu", "1")
	high.Spec.Priority = ptr.To(int32(100))
	create(t, high)
	eventually(t, 30*time.Second, func() string {
		p := cond(getWL(t, ns, "low"), kueue.WorkloadPreempted)
		if p == nil || !strings.Contains(p.Message, ns+"/high") {
			return fmt.Sprintf("low Preempted = %+v, want it to name %s/high", p, ns)
		}
		return ""
	})
	// Without an owner the victim lets go at once, and the preemptor gets its room.
	waitAdmitted(t, ns, "high")
}
