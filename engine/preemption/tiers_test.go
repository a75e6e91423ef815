package preemption

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/fairsharing"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

type fixture struct {
	t   *testing.T
	c   *quota.Cache
	src listSource
	n   int
}

func newFixture(t *testing.T, cqs ...*kueue.ClusterQueue) *fixture {
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	for _, cq := range cqs {
		if err := c.UpsertClusterQueue(cq); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{t: t, c: c, src: listSource{}}
}

// admit charges an admitted workload cq/name of cpu CPUs; later calls are
// admitted later.
func (f *fixture) admit(cq, name string, prio int32, cpus int64, lbls map[string]string) {
	f.n++
	k := types.NamespacedName{Namespace: cq, Name: name}
	cand := &Candidate{Key: k, UID: types.UID(k.String()), ClusterQueue: cq, Priority: prio, BasePriority: prio, AdmittedAt: time.Unix(int64(f.n), 0),
		Usage: resources.Amounts{cpu: cpus * 1000}, Labels: lbls, LocalQueue: types.NamespacedName{Namespace: cq, Name: "lq"}}
	f.c.Charge(k, cq, cand.Usage)
	f.src[cq] = append(f.src[cq], cand)
}

// find runs Find for a preemptor of cq needing cpus CPUs and returns the
// victims' keys, checking that the cache is left as it was.
func (f *fixture) find(cq string, cpus int64, prio int32, lbls map[string]string, opts Options) []string {
	f.t.Helper()
	return f.findFor(cq, f.preemptor(cq, cpus, prio, lbls), opts)
}

// preemptor is a workload of cq needing cpus CPUs, created at the zero time.
func (f *fixture) preemptor(cq string, cpus int64, prio int32, lbls map[string]string) *Preemptor {
	return &Preemptor{Key: types.NamespacedName{Namespace: cq, Name: "preemptor"}, UID: "preemptor", Priority: prio, BasePriority: prio, Labels: lbls,
		LocalQueue: types.NamespacedName{Namespace: cq, Name: "lq"},
		Assignment: &flavorassigner.Assignment{Usage: resources.Amounts{cpu: cpus * 1000}}}
}

// findFor is find for a preemptor the caller built.
func (f *fixture) findFor(cq string, p *Preemptor, opts Options) []string {
	f.t.Helper()
	q, _ := f.c.ClusterQueue(cq)
	before := map[string]int64{}
	for _, n := range f.c.ClusterQueueNames() {
		o, _ := f.c.ClusterQueue(n)
		before[n] = o.Usage(cpu)
	}
	targets := Find(f.c, q, p, f.src, opts)
	for n, u := range before {
		if o, _ := f.c.ClusterQueue(n); o.Usage(cpu) != u {
			f.t.Fatalf("Find left %s using %d, want %d", n, o.Usage(cpu), u)
		}
	}
	out := []string{}
	for _, tg := range targets {
		out = append(out, tg.Key.String())
	}
	sort.Strings(out)
	return out
}

func compiled(t *testing.T, rules ...kueuev1alpha1.PreemptionRule) *Rules {
	t.Helper()
	if len(rules) == 0 {
		return nil
	}
	return mustCompile(t, config(rules...))
}

var never = kueue.PreemptionPolicyNever

// heroCohort: hero (nominal 2 CPUs, every policy Never) and team-a (nominal 4,
// using all 4 in two 2-CPU workloads of priority 1, so not borrowing) share
// cohort c. The hero needs 4 CPUs: it can only get them from team-a's
// guaranteed quota, which no classic policy allows.
func heroCohort(t *testing.T) *fixture {
	f := newFixture(t,
		MakeClusterQueue("hero").Cohort("c").Quota("default", "cpu", "2").Preemption(never, never).Obj(),
		MakeClusterQueue("team-a").Cohort("c").Quota("default", "cpu", "4").Obj(),
	)
	f.admit("team-a", "w1", 1, 2, nil)
	f.admit("team-a", "w2", 1, 2, map[string]string{"preemptible": "true"})
	return f
}

var anyLower = kueuev1alpha1.CandidateSelector{Scope: kueuev1alpha1.AnyClusterQueue,
	Priority: &kueuev1alpha1.PriorityConstraint{Comparison: kueuev1alpha1.LessThan}}

// 001: "Always: contributes matching candidates unconditionally." /
// "InsufficientQuota: contributes matching candidates only if preempting
// baseline candidates does not yield sufficient quota to admit the preemptor
// workload." / "QuotaFeasibleAndInsufficientTopology: contributes matching
// candidates only if quota is feasible for the entire preemptor under at least
// one eligible flavor assignment (after preempting baseline candidates and any
// candidates from InsufficientQuota rules), but the workload cannot be admitted
// because no eligible flavor assignment satisfies its topology requirements."
// Quokka has no topology-aware scheduling, so the last trigger never fires.
func TestRuleTriggersInTheHeroCohort(t *testing.T) {
	t.Parallel()
	heroOnly := rule("hero", kueuev1alpha1.Always, anyLower)
	heroOnly.PreemptorSelector = match("role", "hero")
	markedOnly := rule("marked", kueuev1alpha1.Always, kueuev1alpha1.CandidateSelector{Scope: kueuev1alpha1.WithinCohortTree, LabelSelector: match("preemptible", "true")})
	for _, tc := range []struct {
		name  string
		rules []kueuev1alpha1.PreemptionRule
		prio  int32
		want  []string
	}{
		{"no PreemptionConfig: guaranteed quota is safe", nil, 10, []string{}},
		{"Always rule takes the newest lower-priority workload", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.Always, anyLower)}, 10, []string{"team-a/w2"}},
		{"Always rule, but no candidate has lower priority", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.Always, anyLower)}, 1, []string{}},
		{"InsufficientQuota rule: the baseline is empty", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.InsufficientQuota, anyLower)}, 10, []string{"team-a/w2"}},
		{"QuotaFeasibleAndInsufficientTopology rule contributes nothing", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.QuotaFeasibleAndInsufficientTopology, anyLower)}, 10, []string{}},
		{"preemptorSelector does not select the preemptor", []kueuev1alpha1.PreemptionRule{heroOnly}, 10, []string{}},
		{"labelSelector picks the older workload", []kueuev1alpha1.PreemptionRule{markedOnly}, 0, []string{"team-a/w2"}},
	} {
		f := heroCohort(t)
		got := f.find("hero", 4, tc.prio, map[string]string{"role": "batch"}, Options{Rules: compiled(t, tc.rules...)})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: victims %v, want %v", tc.name, got, tc.want)
		}
	}
	f := heroCohort(t)
	got := f.find("hero", 4, 10, map[string]string{"role": "hero"}, Options{Rules: compiled(t, heroOnly)})
	if want := []string{"team-a/w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("preemptorSelector selects the preemptor: victims %v, want %v", got, want)
	}
}

// KEP-13396's hero workloads: a rule's candidates are taken although their
// queue is within its nominal quota; the same queue's reclaimWithinCohort alone
// may not touch them.
func TestRuleCandidatesIgnoreTheBorrowingCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		MakeClusterQueue("hero").Cohort("c").Quota("default", "cpu", "2").Preemption(kueue.PreemptionPolicyAny, never).Obj(),
		MakeClusterQueue("team-a").Cohort("c").Quota("default", "cpu", "4").Obj(),
	)
	f.admit("team-a", "w1", 1, 2, nil)
	f.admit("team-a", "w2", 1, 2, nil)
	if got := f.find("hero", 4, 10, nil, Options{}); len(got) != 0 {
		t.Errorf("reclaimWithinCohort took %v from a queue that does not borrow", got)
	}
	if got, want := f.find("hero", 4, 10, nil, Options{Rules: compiled(t, rule("r", kueuev1alpha1.Always, anyLower))}), []string{"team-a/w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with a rule: victims %v, want %v", got, want)
	}
}

// 001: "Baseline candidates are the deduplicated union of: candidates selected
// by the preemptor's ClusterQueue.spec.preemption policy; candidates selected by
// applicable rules in the referenced PreemptionConfig whose
// activationPolicy.trigger is Always." The hero queue's own low-priority
// workload (withinClusterQueue: LowerPriority) is enough: an InsufficientQuota
// rule never adds team-a's workloads, while an Always rule puts them in the
// baseline, where Kueue's order takes other queues' workloads first.
func TestRuleBaselineIsPolicyPlusAlways(t *testing.T) {
	t.Parallel()
	setup := func() *fixture {
		f := newFixture(t,
			MakeClusterQueue("hero").Cohort("c").Quota("default", "cpu", "4").Preemption(never, kueue.PreemptionPolicyLowerPriority).Obj(),
			MakeClusterQueue("team-a").Cohort("c").Quota("default", "cpu", "4").Obj(),
		)
		f.admit("hero", "h1", 0, 2, nil)
		f.admit("team-a", "w1", 0, 2, nil)
		f.admit("team-a", "w2", 0, 2, nil)
		return f
	}
	for _, tc := range []struct {
		name    string
		trigger kueuev1alpha1.ActivationTrigger
		want    []string
	}{
		{"InsufficientQuota: the baseline suffices", kueuev1alpha1.InsufficientQuota, []string{"hero/h1"}},
		{"Always: in the baseline, other queues first", kueuev1alpha1.Always, []string{"team-a/w2"}},
	} {
		got := setup().find("hero", 4, 5, nil, Options{Rules: compiled(t, rule("r", tc.trigger, anyLower))})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: victims %v, want %v", tc.name, got, tc.want)
		}
	}
}

// 001: "Baseline candidates are the deduplicated union ...": a workload that
// both the policy (reclaimWithinCohort) and a rule select is one candidate,
// evicted once.
func TestRuleBaselineIsDeduplicated(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		MakeClusterQueue("hero").Cohort("c").Quota("default", "cpu", "4").Preemption(kueue.PreemptionPolicyAny, never).Obj(),
		MakeClusterQueue("team-a").Cohort("c").Quota("default", "cpu", "2").Obj(),
	)
	f.admit("team-a", "w1", 0, 2, nil)
	f.admit("team-a", "w2", 0, 2, nil) // borrows 2 of hero's quota
	got := f.find("hero", 4, 5, nil, Options{Rules: compiled(t, rule("r", kueuev1alpha1.Always, anyLower))})
	if want := []string{"team-a/w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("victims %v, want %v", got, want)
	}
	ruled := map[types.UID]*Candidate{}
	for _, c := range f.src["team-a"] {
		ruled[c.UID] = c
	}
	if m := merge(f.src["team-a"], ruled, "hero"); len(m) != 2 {
		t.Errorf("merge of the same two candidates from both sources has %d entries, want 2", len(m))
	}
}

// 001: "InsufficientQuota: contributes matching candidates only if preempting
// baseline candidates does not yield sufficient quota": when the baseline (here
// an Always rule limited to marked workloads) falls short, the InsufficientQuota
// rule's candidates join it, and together they suffice.
func TestRuleInsufficientQuotaExtendsAShortBaseline(t *testing.T) {
	t.Parallel()
	f := newFixture(t,
		MakeClusterQueue("hero").Cohort("c").Quota("default", "cpu", "0").Preemption(never, never).Obj(),
		MakeClusterQueue("team-a").Cohort("c").Quota("default", "cpu", "4").Obj(),
	)
	f.admit("team-a", "w1", 0, 2, nil)
	f.admit("team-a", "w2", 0, 2, map[string]string{"preemptible": "true"})
	marked := rule("marked", kueuev1alpha1.Always, kueuev1alpha1.CandidateSelector{Scope: kueuev1alpha1.AnyClusterQueue, LabelSelector: match("preemptible", "true")})
	rest := rule("rest", kueuev1alpha1.InsufficientQuota, anyLower)
	if got := f.find("hero", 4, 5, nil, Options{Rules: compiled(t, marked)}); len(got) != 0 {
		t.Errorf("the marked workload alone frees 2 of 4 CPUs, yet victims %v", got)
	}
	got := f.find("hero", 4, 5, nil, Options{Rules: compiled(t, marked, rest)})
	if want := []string{"team-a/w1", "team-a/w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("victims %v, want %v", got, want)
	}
	if got := f.find("hero", 2, 5, nil, Options{Rules: compiled(t, marked, rest)}); !reflect.DeepEqual(got, []string{"team-a/w2"}) {
		t.Errorf("needing 2 CPUs, the baseline suffices: victims %v, want [team-a/w2]", got)
	}
}

// Under fair sharing, a rule's candidates that the strategies do not take are
// offered after them, without a share test (docs/preemption-config.md).
func TestRuleCandidatesUnderFairSharing(t *testing.T) {
	t.Parallel()
	fs := []fairsharing.Strategy{fairsharing.LessThanOrEqualToFinalShare, fairsharing.LessThanInitialShare}
	for _, tc := range []struct {
		name  string
		rules []kueuev1alpha1.PreemptionRule
		want  []string
	}{
		{"no rules: team-a is within its share", nil, []string{}},
		{"an Always rule", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.Always, anyLower)}, []string{"team-a/w2"}},
		{"a topology rule", []kueuev1alpha1.PreemptionRule{rule("r", kueuev1alpha1.QuotaFeasibleAndInsufficientTopology, anyLower)}, []string{}},
	} {
		got := heroCohort(t).find("hero", 4, 10, nil, Options{FairSharing: fs, Rules: compiled(t, tc.rules...)})
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: victims %v, want %v", tc.name, got, tc.want)
		}
	}
}
