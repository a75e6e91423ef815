package preemption

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
)

// Builders for rules: a table case fits on a line or two.

func config(rules ...kueuev1alpha1.PreemptionRule) *kueuev1alpha1.PreemptionConfig {
	pc := &kueuev1alpha1.PreemptionConfig{}
	pc.Name = "pc"
	pc.Spec.Rules = rules
	return pc
}

func rule(name string, trigger kueuev1alpha1.ActivationTrigger, sels ...kueuev1alpha1.CandidateSelector) kueuev1alpha1.PreemptionRule {
	return kueuev1alpha1.PreemptionRule{Name: name, ActivationPolicy: kueuev1alpha1.ActivationPolicy{Trigger: trigger}, CandidateSelectors: sels}
}

func sel(scope kueuev1alpha1.QueueScope) kueuev1alpha1.CandidateSelector {
	return kueuev1alpha1.CandidateSelector{Scope: scope}
}

func match(kv ...string) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		ls.MatchLabels[kv[i]] = kv[i+1]
	}
	return ls
}

func i32(v int32) *int32 { return &v }

func cmpp(c kueuev1alpha1.NumericComparison) *kueuev1alpha1.NumericComparison { return &c }

func numeric(key string, fallback *int32, cmp kueuev1alpha1.NumericComparison, min, max *int32) kueuev1alpha1.NumericLabelConstraint {
	n := kueuev1alpha1.NumericLabelConstraint{Key: key, FallbackValue: fallback, MinValue: min, MaxValue: max}
	if cmp != "" {
		n.Comparison = cmpp(cmp)
	}
	return n
}

func mustCompile(t *testing.T, pc *kueuev1alpha1.PreemptionConfig) *Rules {
	t.Helper()
	rs, err := Compile(pc)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// subj is a workload in ClusterQueue cq (cohort parent, root root) and
// LocalQueue ns/lq.
func subj(cq, parent, root, lq string, prio int32, lbls map[string]string) Subject {
	ns, name, _ := strings.Cut(lq, "/")
	return Subject{Labels: lbls, Priority: prio, BasePriority: prio, LocalQueue: types.NamespacedName{Namespace: ns, Name: name},
		Place: Place{ClusterQueue: cq, ParentCohort: parent, RootCohort: root}}
}

// selects is whether some Always rule of pc selects c for p.
func selects(t *testing.T, pc *kueuev1alpha1.PreemptionConfig, p, c Subject) bool {
	t.Helper()
	for _, r := range mustCompile(t, pc).Active(kueuev1alpha1.Always, p) {
		if r.Selects(p, c) {
			return true
		}
	}
	return false
}

var preemptor = subj("hero", "team", "root", "hero/lq", 100, map[string]string{"size": "8", "role": "hero"})

// 001: "scope specifies the queue or cohort relation boundary of candidates to
// the preemptor workload." The preemptor is in ClusterQueue hero, cohort team
// under root cohort root, LocalQueue hero/lq.
func TestRuleScope(t *testing.T) {
	t.Parallel()
	cands := map[string]Subject{
		"same LocalQueue":                subj("hero", "team", "root", "hero/lq", 1, nil),
		"other LocalQueue, same CQ":      subj("hero", "team", "root", "hero/other", 1, nil),
		"sibling CQ in parent cohort":    subj("sib", "team", "root", "sib/lq", 1, nil),
		"CQ elsewhere in the tree":       subj("far", "other-team", "root", "far/lq", 1, nil),
		"CQ in another tree":             subj("alien", "alien-team", "alien-root", "alien/lq", 1, nil),
		"standalone CQ (no cohort)":      subj("lonely", "", "", "lonely/lq", 1, nil),
		"same LocalQueue name, other CQ": subj("sib", "team", "root", "hero/lq", 1, nil),
	}
	for _, tc := range []struct {
		scope kueuev1alpha1.QueueScope
		want  []string
	}{
		{kueuev1alpha1.WithinLocalQueue, []string{"same LocalQueue"}},
		{kueuev1alpha1.WithinClusterQueue, []string{"same LocalQueue", "other LocalQueue, same CQ"}},
		{kueuev1alpha1.WithinParentCohort, []string{"same LocalQueue", "other LocalQueue, same CQ", "sibling CQ in parent cohort", "same LocalQueue name, other CQ"}},
		{kueuev1alpha1.WithinCohortTree, []string{"same LocalQueue", "other LocalQueue, same CQ", "sibling CQ in parent cohort", "CQ elsewhere in the tree", "same LocalQueue name, other CQ"}},
		{kueuev1alpha1.AnyClusterQueue, []string{"same LocalQueue", "other LocalQueue, same CQ", "sibling CQ in parent cohort", "CQ elsewhere in the tree", "CQ in another tree", "standalone CQ (no cohort)", "same LocalQueue name, other CQ"}},
	} {
		pc := config(rule("r", kueuev1alpha1.Always, sel(tc.scope)))
		want := map[string]bool{}
		for _, n := range tc.want {
			want[n] = true
		}
		for name, c := range cands {
			if got := selects(t, pc, preemptor, c); got != want[name] {
				t.Errorf("scope %s, candidate %s: selected %v, want %v", tc.scope, name, got, want[name])
			}
		}
	}
}

// KEP-13396: WithinParentCohort and WithinCohortTree include "the preemptor's
// own ClusterQueue (even if standalone)"; a standalone preemptor has no sibling.
func TestRuleScopeStandalonePreemptor(t *testing.T) {
	t.Parallel()
	p := subj("solo", "", "", "solo/lq", 100, nil)
	for _, scope := range []kueuev1alpha1.QueueScope{kueuev1alpha1.WithinParentCohort, kueuev1alpha1.WithinCohortTree} {
		pc := config(rule("r", kueuev1alpha1.Always, sel(scope)))
		if !selects(t, pc, p, subj("solo", "", "", "solo/lq", 1, nil)) {
			t.Errorf("%s: the standalone preemptor's own queue is out of scope", scope)
		}
		if selects(t, pc, p, subj("other", "", "", "other/lq", 1, nil)) {
			t.Errorf("%s: another standalone queue is in scope", scope)
		}
	}
}

// 001: "clusterQueueSelector defines label selector constraints on candidate
// ClusterQueues. Accepts all if not set."
func TestRuleClusterQueueSelector(t *testing.T) {
	t.Parallel()
	tier := func(v string) Subject {
		c := subj("sib", "team", "root", "sib/lq", 1, nil)
		if v != "" {
			c.Place.Labels = map[string]string{"tier": v}
		}
		return c
	}
	for _, tc := range []struct {
		name string
		sel  *metav1.LabelSelector
		cand Subject
		want bool
	}{
		{"not set accepts a labelled queue", nil, tier("batch"), true},
		{"not set accepts an unlabelled queue", nil, tier(""), true},
		{"matching labels", match("tier", "batch"), tier("batch"), true},
		{"other value", match("tier", "batch"), tier("critical"), false},
		{"no labels", match("tier", "batch"), tier(""), false},
		{"NotIn expression", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"critical"}}}}, tier("batch"), true},
		{"NotIn expression excludes", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"critical"}}}}, tier("critical"), false},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.ClusterQueueSelector = tc.sel
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, tc.cand); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "labelSelector defines label selector constraints on candidate
// Workloads. Accepts all if not set."
func TestRuleLabelSelector(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		sel    *metav1.LabelSelector
		labels map[string]string
		want   bool
	}{
		{"not set accepts an unlabelled workload", nil, nil, true},
		{"not set accepts a labelled workload", nil, map[string]string{"x": "y"}, true},
		{"matching", match("preemptible", "true"), map[string]string{"preemptible": "true", "x": "y"}, true},
		{"other value", match("preemptible", "true"), map[string]string{"preemptible": "false"}, false},
		{"missing", match("preemptible", "true"), nil, false},
		{"empty selector accepts all", &metav1.LabelSelector{}, nil, true},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.LabelSelector = tc.sel
		c := subj("sib", "team", "root", "sib/lq", 1, tc.labels)
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, c); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "key is the label key that stores the integer value in the workload that
// will be used for candidate selection." / "fallbackValue is used when a
// workload does not have the label key or the value under the key cannot be
// parsed as an integer. If not specified, workloads without the label or with a
// label value not parsable as int are treated as incomparable, and therefore
// excluded from preemption candidates." / "comparison defines how the
// candidate's label value compares to the preemptor's." / "minValue specifies
// the lowest label value a candidate workload can have to be considered for
// preemption. If not specified, no lower bound is enforced." / "maxValue
// specifies the highest label value a candidate workload can have to be
// considered for preemption. If not specified, no upper bound is enforced."
//
// The preemptor has size=8.
func TestRuleNumericLabels(t *testing.T) {
	t.Parallel()
	const (
		lt = kueuev1alpha1.LessThan
		le = kueuev1alpha1.LessThanOrEqual
		gt = kueuev1alpha1.GreaterThan
		ge = kueuev1alpha1.GreaterThanOrEqual
	)
	for _, tc := range []struct {
		name  string
		c     kueuev1alpha1.NumericLabelConstraint
		value string // the candidate's size label; "-" for none
		want  bool
	}{
		{"key read as an integer", numeric("size", nil, "", nil, nil), "4", true},
		{"missing label, no fallback: incomparable", numeric("size", nil, "", nil, nil), "-", false},
		{"not an integer, no fallback: incomparable", numeric("size", nil, "", nil, nil), "four", false},
		{"missing label takes the fallback", numeric("size", i32(0), lt, nil, nil), "-", true},
		{"unparsable label takes the fallback", numeric("size", i32(9), lt, nil, nil), "4x", false},
		{"a parsable label ignores the fallback", numeric("size", i32(0), lt, nil, nil), "9", false},
		{"LessThan", numeric("size", nil, lt, nil, nil), "7", true},
		{"LessThan, equal", numeric("size", nil, lt, nil, nil), "8", false},
		{"LessThanOrEqual, equal", numeric("size", nil, le, nil, nil), "8", true},
		{"LessThanOrEqual, greater", numeric("size", nil, le, nil, nil), "9", false},
		{"GreaterThan", numeric("size", nil, gt, nil, nil), "9", true},
		{"GreaterThan, equal", numeric("size", nil, gt, nil, nil), "8", false},
		{"GreaterThanOrEqual, equal", numeric("size", nil, ge, nil, nil), "8", true},
		{"GreaterThanOrEqual, lower", numeric("size", nil, ge, nil, nil), "7", false},
		{"no comparison: any value", numeric("size", nil, "", nil, nil), "1000", true},
		{"minValue, at the bound", numeric("size", nil, "", i32(4), nil), "4", true},
		{"minValue, below", numeric("size", nil, "", i32(4), nil), "3", false},
		{"maxValue, at the bound", numeric("size", nil, "", nil, i32(4)), "4", true},
		{"maxValue, above", numeric("size", nil, "", nil, i32(4)), "5", false},
		{"no minValue: no lower bound", numeric("size", nil, "", nil, i32(4)), "0", true},
		{"no maxValue: no upper bound", numeric("size", nil, "", i32(4), nil), "2147483648", true},
		{"bounds apply to the fallback", numeric("size", i32(2), "", i32(4), nil), "-", false},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.NumericLabels = []kueuev1alpha1.NumericLabelConstraint{tc.c}
		var lbls map[string]string
		if tc.value != "-" {
			lbls = map[string]string{"size": tc.value}
		}
		c := subj("sib", "team", "root", "sib/lq", 1, lbls)
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, c); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "comparison defines how the candidate's label value compares to the
// preemptor's." A preemptor without the label compares through the fallback,
// and without one it is incomparable: no candidate passes the comparison.
func TestRuleNumericLabelPreemptorValue(t *testing.T) {
	t.Parallel()
	c := subj("sib", "team", "root", "sib/lq", 1, map[string]string{"size": "2"})
	p := subj("hero", "team", "root", "hero/lq", 100, nil)
	for _, tc := range []struct {
		name     string
		fallback *int32
		want     bool
	}{
		{"no fallback: incomparable", nil, false},
		{"fallback 4: 2 < 4", i32(4), true},
		{"fallback 1: 2 < 1 fails", i32(1), false},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.NumericLabels = []kueuev1alpha1.NumericLabelConstraint{numeric("size", tc.fallback, kueuev1alpha1.LessThan, nil, nil)}
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), p, c); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "numericLabels defines rules for filtering candidates using custom
// numeric labels on the Workload resource. Multiple numeric labels are joined
// using AND-rule (all have to be satisfied). Accepts all if not set."
func TestRuleNumericLabelsAreJoinedWithAnd(t *testing.T) {
	t.Parallel()
	both := []kueuev1alpha1.NumericLabelConstraint{
		numeric("size", nil, kueuev1alpha1.LessThan, nil, nil),
		numeric("tier", nil, "", nil, i32(2)),
	}
	for _, tc := range []struct {
		name    string
		numeric []kueuev1alpha1.NumericLabelConstraint
		labels  map[string]string
		want    bool
	}{
		{"both satisfied", both, map[string]string{"size": "4", "tier": "1"}, true},
		{"first fails", both, map[string]string{"size": "9", "tier": "1"}, false},
		{"second fails", both, map[string]string{"size": "4", "tier": "3"}, false},
		{"second missing", both, map[string]string{"size": "4"}, false},
		{"not set accepts all", nil, nil, true},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.NumericLabels = tc.numeric
		c := subj("sib", "team", "root", "sib/lq", 1, tc.labels)
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, c); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "priority defines the requirements for the priority of candidates.
// Workloads not matching those requirements will not be considered as
// preemption candidates. If nil, no priority requirements are enforced." /
// "comparison defines how the candidate's priority compares to the preemptor's
// priority. For example, "LessThan" means that only workloads with lower
// priority will be allowed as preemption candidates." The preemptor has
// priority 100.
func TestRulePriority(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cmp  kueuev1alpha1.NumericComparison // "" for nil
		prio int32
		want bool
	}{
		{"nil: a higher priority too", "", 1000, true},
		{"LessThan: lower", kueuev1alpha1.LessThan, 99, true},
		{"LessThan: equal", kueuev1alpha1.LessThan, 100, false},
		{"LessThan: higher", kueuev1alpha1.LessThan, 101, false},
		{"LessThanOrEqual: equal", kueuev1alpha1.LessThanOrEqual, 100, true},
		{"LessThanOrEqual: higher", kueuev1alpha1.LessThanOrEqual, 101, false},
		{"GreaterThan: higher", kueuev1alpha1.GreaterThan, 101, true},
		{"GreaterThan: equal", kueuev1alpha1.GreaterThan, 100, false},
		{"GreaterThanOrEqual: equal", kueuev1alpha1.GreaterThanOrEqual, 100, true},
		{"GreaterThanOrEqual: lower", kueuev1alpha1.GreaterThanOrEqual, 99, false},
		{"negative priorities compare as numbers", kueuev1alpha1.LessThan, -5, true},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		if tc.cmp != "" {
			s.Priority = &kueuev1alpha1.PriorityConstraint{Comparison: tc.cmp}
		}
		c := subj("sib", "team", "root", "sib/lq", tc.prio, nil)
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, c); got != tc.want {
			t.Errorf("%s: selected %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "mode specifies whether priority comparison uses base or boosted
// (effective) priority." Base (the default) compares the priorities without
// Kueue's priority boost, Boosted the effective ones. The preemptor has
// priority 100; the candidate a base priority of 90 and, boosted by 20, an
// effective one of 110: LessThan selects it in Base mode only. Without a
// boost (the PriorityBoost gate off) the two modes decide alike.
func TestRulePriorityMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode          kueuev1alpha1.PriorityMode
		base, boosted int32
		want          bool
	}{
		{"", 90, 110, true},
		{kueuev1alpha1.BasePriority, 90, 110, true},
		{kueuev1alpha1.BoostedPriority, 90, 110, false},
		{kueuev1alpha1.BoostedPriority, 110, 90, true},
		{kueuev1alpha1.BasePriority, 110, 90, false},
		{kueuev1alpha1.BasePriority, 99, 99, true},
		{kueuev1alpha1.BoostedPriority, 99, 99, true},
		{kueuev1alpha1.BoostedPriority, 101, 101, false},
	} {
		s := sel(kueuev1alpha1.AnyClusterQueue)
		s.Priority = &kueuev1alpha1.PriorityConstraint{Mode: tc.mode, Comparison: kueuev1alpha1.LessThan}
		c := subj("sib", "team", "root", "sib/lq", tc.boosted, nil)
		c.BasePriority = tc.base
		if got := selects(t, config(rule("r", kueuev1alpha1.Always, s)), preemptor, c); got != tc.want {
			t.Errorf("mode %q, base %d, effective %d: selected %v, want %v", tc.mode, tc.base, tc.boosted, got, tc.want)
		}
	}
}

// 001: "candidateSelectors specifies the selection rules for workloads that are
// candidates for preemption. Candidates resulting from multiple selectors are
// summed into one set. No selectors result in an empty candidate set, thereby
// disallowing any preemptions with this rule."
func TestRuleCandidateSelectorsAreSummed(t *testing.T) {
	t.Parallel()
	inCQ := sel(kueuev1alpha1.WithinClusterQueue)
	labelled := sel(kueuev1alpha1.AnyClusterQueue)
	labelled.LabelSelector = match("preemptible", "true")
	own := subj("hero", "team", "root", "hero/lq", 1, nil)
	marked := subj("far", "x", "y", "far/lq", 1, map[string]string{"preemptible": "true"})
	other := subj("far", "x", "y", "far/lq", 1, nil)
	for _, tc := range []struct {
		name string
		sels []kueuev1alpha1.CandidateSelector
		want [3]bool // own, marked, other
	}{
		{"two selectors: union", []kueuev1alpha1.CandidateSelector{inCQ, labelled}, [3]bool{true, true, false}},
		{"first only", []kueuev1alpha1.CandidateSelector{inCQ}, [3]bool{true, false, false}},
		{"second only", []kueuev1alpha1.CandidateSelector{labelled}, [3]bool{false, true, false}},
		{"no selectors: nothing", nil, [3]bool{false, false, false}},
	} {
		pc := config(rule("r", kueuev1alpha1.Always, tc.sels...))
		got := [3]bool{selects(t, pc, preemptor, own), selects(t, pc, preemptor, marked), selects(t, pc, preemptor, other)}
		if got != tc.want {
			t.Errorf("%s: selected (own, marked, other) %v, want %v", tc.name, got, tc.want)
		}
	}
	if rs := mustCompile(t, config(rule("r", kueuev1alpha1.Always))); rs.MaySelect() {
		t.Error("a config whose only rule has no selectors may select: it must not let the queue preempt")
	}
}

// 001: "preemptorSelector is a label selector indicating which workloads can
// trigger preemptions using this rule. Accepts all workloads if not set." /
// "trigger specifies the prerequisite for contributing candidates." /
// "activationPolicy determines when this rule contributes matching candidates
// to preemption evaluation."
func TestRuleActiveByPreemptorSelectorAndTrigger(t *testing.T) {
	t.Parallel()
	heroOnly := rule("hero-only", kueuev1alpha1.Always, sel(kueuev1alpha1.AnyClusterQueue))
	heroOnly.PreemptorSelector = match("role", "hero")
	anyone := rule("anyone", kueuev1alpha1.Always, sel(kueuev1alpha1.AnyClusterQueue))
	later := rule("later", kueuev1alpha1.InsufficientQuota, sel(kueuev1alpha1.AnyClusterQueue))
	topo := rule("topology", kueuev1alpha1.QuotaFeasibleAndInsufficientTopology, sel(kueuev1alpha1.AnyClusterQueue))
	rs := mustCompile(t, config(heroOnly, anyone, later, topo))
	names := func(rules []*Rule) string {
		var out []string
		for _, r := range rules {
			out = append(out, r.Name)
		}
		return strings.Join(out, ",")
	}
	hero := subj("hero", "team", "root", "hero/lq", 1, map[string]string{"role": "hero"})
	plain := subj("hero", "team", "root", "hero/lq", 1, map[string]string{"role": "batch"})
	for _, tc := range []struct {
		p       Subject
		trigger kueuev1alpha1.ActivationTrigger
		want    string
	}{
		{hero, kueuev1alpha1.Always, "hero-only,anyone"},
		{plain, kueuev1alpha1.Always, "anyone"},
		{plain, kueuev1alpha1.InsufficientQuota, "later"},
		{hero, kueuev1alpha1.QuotaFeasibleAndInsufficientTopology, "topology"},
	} {
		if got := names(rs.Active(tc.trigger, tc.p)); got != tc.want {
			t.Errorf("preemptor %v, trigger %s: active rules %q, want %q", tc.p.Labels, tc.trigger, got, tc.want)
		}
	}
	if !rs.ReadsPreemptor() {
		t.Error("a preemptorSelector reads the preemptor, ReadsPreemptor is false")
	}
	if mustCompile(t, config(anyone)).ReadsPreemptor() {
		t.Error("a rule with no preemptor-dependent field reads the preemptor")
	}
	if mustCompile(t, config(topo)).MaySelect() {
		t.Error("a config with only a QuotaFeasibleAndInsufficientTopology rule may select; it can never fire")
	}
}

// 001: "rules specifies preemption candidate selection rules." / "name is the
// identifier of the preemption rule." Compiling rejects what the CRD rejects,
// naming the field, since the simulator applies objects without an API server.
func TestCompileErrorsNameTheField(t *testing.T) {
	t.Parallel()
	badSel := sel(kueuev1alpha1.AnyClusterQueue)
	badSel.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
	badCQ := sel(kueuev1alpha1.AnyClusterQueue)
	badCQ.ClusterQueueSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"-bad key": "x"}}
	bounds := sel(kueuev1alpha1.AnyClusterQueue)
	bounds.NumericLabels = []kueuev1alpha1.NumericLabelConstraint{numeric("size", nil, "", i32(5), i32(4))}
	badCmp := sel(kueuev1alpha1.AnyClusterQueue)
	badCmp.Priority = &kueuev1alpha1.PriorityConstraint{Mode: "Turbo", Comparison: "Equal"}
	badPreemptor := rule("p", kueuev1alpha1.Always)
	badPreemptor.PreemptorSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}}}
	for _, tc := range []struct {
		pc   *kueuev1alpha1.PreemptionConfig
		want []string
	}{
		{config(rule("a", kueuev1alpha1.Always, badSel)), []string{"spec.rules[0].candidateSelectors[0].labelSelector"}},
		{config(rule("a", kueuev1alpha1.Always), rule("b", kueuev1alpha1.Always, badCQ)), []string{"spec.rules[1].candidateSelectors[0].clusterQueueSelector"}},
		{config(rule("a", kueuev1alpha1.Always, bounds)), []string{"spec.rules[0].candidateSelectors[0].numericLabels[0].minValue"}},
		{config(rule("a", kueuev1alpha1.Always, badCmp)), []string{"spec.rules[0].candidateSelectors[0].priority.mode", "spec.rules[0].candidateSelectors[0].priority.comparison"}},
		{config(rule("a", "Sometimes", sel("Nearby"))), []string{"spec.rules[0].activationPolicy.trigger", "spec.rules[0].candidateSelectors[0].scope"}},
		{config(rule("a", kueuev1alpha1.Always), rule("a", kueuev1alpha1.Always)), []string{"spec.rules[1].name: Duplicate value"}},
		{config(badPreemptor), []string{"spec.rules[0].preemptorSelector"}},
	} {
		_, err := Compile(tc.pc)
		if err == nil {
			t.Errorf("%v: compiled, want errors naming %v", tc.want, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not name %s", err, w)
			}
		}
		if !strings.HasPrefix(err.Error(), "PreemptionConfig pc: ") {
			t.Errorf("error %q does not name the object", err)
		}
	}
	if _, err := Compile(config()); err != nil {
		t.Errorf("an empty config: %v", err)
	}
}
