package dqo

import (
	"testing"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// End to end, from CapacityProvider objects to effective quotas: the example of 000
// ("team-a has a nominal quota of 10 CPUs and team-b has 20 CPUs. If the effective
// capacity is 48 CPUs, team-a gets 16 and team-b gets 32.") with the capacity coming
// from two providers, one of them at 0.95 ("0.95 keeps 5% headroom"), next to a
// discovery-only orchestrator and a lower orchestrator that loses to the first.
func TestPlanEndToEnd(t *testing.T) {
	providers := providerMap(
		makeProvider("on-prem", "default").Report("default", "cpu", "20").Obj(), // 20 × 0.95 = 19
		makeProvider("cloud", "default").Report("default", "cpu", "29").Obj(),
	)
	tree := NewTree(
		[]*v1beta2.ClusterQueue{
			makeCQ("team-a").Cohort("org").Quota("default", "cpu", "10").Obj(),
			makeCQ("team-b").Cohort("org").Quota("default", "cpu", "20").Obj(),
		},
		[]*v1beta2.Cohort{makeCohort("org").Obj()},
	)
	dqos := []*v1alpha1.DynamicQuotaOrchestrator{
		makeDQO("prod").Provider("on-prem", "0.95").Provider("cloud", "").Root(cohortKind, "org").Obj(),
		makeDQO("check").Provider("cloud", "").Obj(),
		makeDQO("team-a-only").Provider("cloud", "").Root(cqKind, "team-a").Obj(),
	}
	out := Plan(dqos, providers, tree, t0)
	if len(out) != 3 || out[0].Orchestrator.Name != "check" || out[1].Orchestrator.Name != "prod" || out[2].Orchestrator.Name != "team-a-only" {
		t.Fatalf("outcomes not sorted by name: %+v", out)
	}
	check, prod, low := out[0], out[1], out[2]
	if !check.Discovery.Computed() || check.Distribution.Condition != nil || check.Distribution.Updates != nil {
		t.Errorf("discovery-only: %+v", check)
	}
	wantNominal(t, prod.Distribution, "default", "cpu", map[NodeRef]string{cq("team-a"): "16", cq("team-b"): "32"})
	if c := low.Distribution.Condition; c == nil || c.Reason != v1alpha1.ReasonConflictingDynamicQuotaOrchestrator || len(low.Distribution.Updates) != 0 {
		t.Errorf("lower orchestrator: %+v", low.Distribution)
	}
}
