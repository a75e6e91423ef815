package dqo

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/apis/kueue/v1alpha1"
	"quokka.dev/quokka/apis/kueue/v1beta2"
)

// conflictTree is org ⊃ {research ⊃ {r1, r2}, prod-q}, plus an unrelated Cohort.
func conflictTree() *Tree {
	return NewTree(
		[]*v1beta2.ClusterQueue{
			makeCQ("r1").Cohort("research").Quota("h100", gpu, "1").Obj(),
			makeCQ("r2").Cohort("research").Quota("h100", gpu, "1").Obj(),
			makeCQ("prod-q").Cohort("org").Quota("h100", gpu, "1").Obj(),
			makeCQ("other-q").Cohort("other").Quota("h100", gpu, "1").Obj(),
		},
		[]*v1beta2.Cohort{makeCohort("org").Obj(), makeCohort("research").Parent("org").Obj()},
	)
}

// wantWinners checks who is blocked by whom; absent names must not be blocked.
func wantWinners(t *testing.T, r Resolution, dqos []*v1alpha1.DynamicQuotaOrchestrator, want map[string]string) {
	t.Helper()
	for _, d := range dqos {
		winner, blocked := r.Winner(d.Name)
		if w, ok := want[d.Name]; ok != blocked || winner != w {
			t.Errorf("Winner(%q) = %q, %v; want %q, %v", d.Name, winner, blocked, w, ok)
		}
	}
}

// 000: "If two orchestrators manage overlapping subtrees, the one with the higher root
// wins. If they have the same root, the one with the earlier creationTimestamp wins.
// If both were created at the same time, the smaller UID wins."
func TestConflictPrecedence(t *testing.T) {
	early, late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		dqos []*v1alpha1.DynamicQuotaOrchestrator
		want map[string]string // loser → winner
	}{
		{
			name: "higher root wins, even when created later",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("low").Root(cohortKind, "research").Created(early).Obj(),
				makeDQO("top").Root(cohortKind, "org").Created(late).Obj(),
			},
			want: map[string]string{"low": "top"},
		},
		{
			name: "a Cohort above a ClusterQueue root wins",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("queue").Root(cqKind, "r1").Obj(),
				makeDQO("team").Root(cohortKind, "research").Obj(),
			},
			want: map[string]string{"queue": "team"},
		},
		{
			name: "same root: earlier creationTimestamp wins, even with a larger UID",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("a").Root(cohortKind, "org").Created(late).UID("1").Obj(),
				makeDQO("b").Root(cohortKind, "org").Created(early).UID("9").Obj(),
			},
			want: map[string]string{"a": "b"},
		},
		{
			name: "same root, same time: smaller UID wins",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("a").Root(cohortKind, "org").UID("uid-9").Obj(),
				makeDQO("b").Root(cohortKind, "org").UID("uid-1").Obj(),
			},
			want: map[string]string{"a": "b"},
		},
		{
			name: "disjoint subtrees do not conflict",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("research").Root(cohortKind, "research").Obj(),
				makeDQO("prod").Root(cqKind, "prod-q").Obj(),
				makeDQO("other").Root(cohortKind, "other").Obj(),
			},
			want: map[string]string{},
		},
		{
			name: "the top of three nested orchestrators is named",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("queue").Root(cqKind, "r1").Obj(),
				makeDQO("team").Root(cohortKind, "research").Obj(),
				makeDQO("org").Root(cohortKind, "org").Created(late).Obj(),
			},
			want: map[string]string{"queue": "org", "team": "org"},
		},
		{
			name: "discovery-only and missing roots take no part",
			dqos: []*v1alpha1.DynamicQuotaOrchestrator{
				makeDQO("discovery").Obj(),
				makeDQO("ghost").Root(cohortKind, "nowhere").Created(early).Obj(),
				makeDQO("ghost-queue").Root(cqKind, "org").Created(early).Obj(), // only a Cohort is named org
				makeDQO("real").Root(cohortKind, "org").Created(late).Obj(),
			},
			want: map[string]string{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := conflictTree()
			wantWinners(t, ResolveConflicts(c.dqos, tree), c.dqos, c.want)
			// Precedence does not depend on the order in which objects are listed.
			rng := rand.New(rand.NewSource(int64(len(c.name))))
			for i := 0; i < 10; i++ {
				shuffled := append([]*v1alpha1.DynamicQuotaOrchestrator(nil), c.dqos...)
				rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
				wantWinners(t, ResolveConflicts(shuffled, tree), c.dqos, c.want)
			}
		})
	}
}

// The loser reports ConflictingDynamicQuotaOrchestrator, names the winner and writes
// nothing.
func TestConflictLoserReportsWinner(t *testing.T) {
	tree := conflictTree()
	top := makeDQO("top").Provider("nodes", "").Root(cohortKind, "org").Obj()
	low := makeDQO("low").Provider("nodes", "").Root(cohortKind, "research").Obj()
	res := ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{top, low}, tree)
	capacity := capacityOf(map[string]map[corev1.ResourceName]int64{"h100": {gpu: 30}})

	r := Distribute(low, capacity, tree, res, t0)
	if r.Condition == nil || r.Condition.Reason != v1alpha1.ReasonConflictingDynamicQuotaOrchestrator ||
		!strings.Contains(r.Condition.Message, `DynamicQuotaOrchestrator "top"`) || len(r.Updates) != 0 {
		t.Errorf("loser result = %+v, want ConflictingDynamicQuotaOrchestrator naming top and no updates", r)
	}
	r = Distribute(top, capacity, tree, res, t0)
	if len(r.Updates) != 5 {
		t.Errorf("winner updates = %v, want Cohorts org and research, ClusterQueues r1, r2 and prod-q", r.Updates)
	}
	wantNominal(t, r, "h100", gpu, map[NodeRef]string{cq("r1"): "10", cq("r2"): "10", cq("prod-q"): "10"})
}

// 000: "The winner keeps precedence even when it is not distributing, for example
// because its discovery fails. Then no orchestrator updates the subtree."
func TestConflictWinnerNotDistributingBlocksEveryone(t *testing.T) {
	tree := conflictTree()
	top := makeDQO("top").Provider("gone", "").Root(cohortKind, "org").Obj()
	low := makeDQO("low").Provider("nodes", "").Root(cohortKind, "research").Obj()
	providers := providerMap(makeProvider("nodes", "h100").Report("h100", "nvidia.com/gpu", "8").Obj())
	res := ResolveConflicts([]*v1alpha1.DynamicQuotaOrchestrator{top, low}, tree)

	topDiscovery := Discover(top, providers)
	if topDiscovery.Computed() {
		t.Fatal("top's provider is missing: discovery must fail")
	}
	rTop := Distribute(top, topDiscovery.Capacity, tree, res, t0)
	rLow := Distribute(low, Discover(low, providers).Capacity, tree, res, t0)
	if rTop.Condition.Reason != v1alpha1.ReasonEffectiveCapacityNotComputed || len(rTop.Updates) != 0 {
		t.Errorf("top = %+v, want EffectiveCapacityNotComputed and no updates", rTop)
	}
	if rLow.Condition.Reason != v1alpha1.ReasonConflictingDynamicQuotaOrchestrator || len(rLow.Updates) != 0 {
		t.Errorf("low = %+v, want ConflictingDynamicQuotaOrchestrator and no updates", rLow)
	}
}

// The zero Resolution blocks nothing and recognises only the orchestrator itself as a
// previous writer.
func TestZeroResolution(t *testing.T) {
	var r Resolution
	if _, blocked := r.Winner("x"); blocked || r.Knows("x") {
		t.Error("zero Resolution must block nothing and know nobody")
	}
}
