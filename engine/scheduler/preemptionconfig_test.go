package scheduler

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
	. "quokka.dev/quokka/engine/enginetest"
)

// heroConfig is KEP-13396's hero rule: Always, any lower-priority workload of
// any ClusterQueue, for preemptors that preemptorSelector accepts (nil: all).
func heroConfig(name string, preemptor *metav1.LabelSelector) *kueuev1alpha1.PreemptionConfig {
	pc := &kueuev1alpha1.PreemptionConfig{}
	pc.Name = name
	pc.Spec.Rules = []kueuev1alpha1.PreemptionRule{{
		Name:              "hero-preemption",
		PreemptorSelector: preemptor,
		ActivationPolicy:  kueuev1alpha1.ActivationPolicy{Trigger: kueuev1alpha1.Always},
		CandidateSelectors: []kueuev1alpha1.CandidateSelector{{
			Scope:    kueuev1alpha1.AnyClusterQueue,
			Priority: &kueuev1alpha1.PriorityConstraint{Mode: kueuev1alpha1.BoostedPriority, Comparison: kueuev1alpha1.LessThan},
		}},
	}}
	return pc
}

// heroPair: queue a (nominal 2, every policy Never, referencing PreemptionConfig
// hero) and queue b (nominal 4, full with two 2-CPU priority-1 workloads, not
// borrowing) in cohort c; a 4-CPU priority-10 workload waits in a.
func heroPair(t *testing.T) *Scheduler {
	s := pair(t, Options{},
		MakeClusterQueue("a").Quota("default", "cpu", "2").Preemption(never, never).PreemptionConfig("hero"),
		MakeClusterQueue("b").Quota("default", "cpu", "4"))
	admitted(t, s, "b", job("b", "b1", 2, 1), job("b", "b2", 2, 1))
	apply(t, s, job("a", "hero", 4, 10).Obj())
	return s
}

// 001: "Baseline candidates are the deduplicated union of: ... candidates
// selected by applicable rules in the referenced PreemptionConfig whose
// activationPolicy.trigger is Always." A ClusterQueue references its
// PreemptionConfig by the kueue.x-k8s.io/preemption-config-name annotation
// (KEP-13396); with every policy Never it still preempts through the rule, and
// takes quota within another queue's nominal quota.
func TestPreemptionConfigHeroPreemptsThroughARule(t *testing.T) {
	t.Parallel()
	s := heroPair(t)
	ds := s.Cycle(now)
	if got := victimNames(ds); got != "" {
		t.Fatalf("without the PreemptionConfig: victims %q, want none", got)
	}
	if err := s.UpsertPreemptionConfig(heroConfig("hero", nil)); err != nil {
		t.Fatal(err)
	}
	// The config arrives while the hero's failed flavor assignment is
	// remembered: turning preemption on must not reuse it.
	ds = s.Cycle(now.Add(time.Minute))
	if got, want := victimNames(ds), "b2:InCohortReclaimWhileBorrowing"; got != want {
		t.Fatalf("victims %q, want %q; decisions %v", got, want, ds)
	}
	confirm(s, ds)
	ds = s.Cycle(now.Add(2 * time.Minute))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "hero" {
		t.Fatalf("admitted %v after the eviction, want [hero]", got)
	}
	if a, b := usage(t, s, "a", "default", "cpu"), usage(t, s, "b", "default", "cpu"); a != 4000 || b != 2000 {
		t.Errorf("usage a=%d b=%d, want 4000 and 2000", a, b)
	}
}

// A ClusterQueue that references a missing PreemptionConfig, or one that was
// deleted, preempts by its spec.preemption alone (here: not at all).
func TestPreemptionConfigDeletedOrMissing(t *testing.T) {
	t.Parallel()
	s := heroPair(t)
	if err := s.UpsertPreemptionConfig(heroConfig("other", nil)); err != nil {
		t.Fatal(err)
	}
	if got := victimNames(s.Cycle(now)); got != "" {
		t.Errorf("referencing a missing config: victims %q, want none", got)
	}
	if err := s.UpsertPreemptionConfig(heroConfig("hero", nil)); err != nil {
		t.Fatal(err)
	}
	s.DeletePreemptionConfig("hero")
	if got := victimNames(s.Cycle(now.Add(time.Minute))); got != "" {
		t.Errorf("after DeletePreemptionConfig: victims %q, want none", got)
	}
}

// 001: "preemptorSelector is a label selector indicating which workloads can
// trigger preemptions using this rule." Two waiting workloads of equal priority
// and size: the older one is not selected and finds no victims; the newer one
// is, and must not be skipped as "an equal workload that already failed".
func TestPreemptionConfigPreemptorSelectorPerWorkload(t *testing.T) {
	t.Parallel()
	s := pair(t, Options{},
		MakeClusterQueue("a").Quota("default", "cpu", "2").Preemption(never, never).PreemptionConfig("hero"),
		MakeClusterQueue("b").Quota("default", "cpu", "4"))
	admitted(t, s, "b", job("b", "b1", 2, 1), job("b", "b2", 2, 1))
	apply(t, s, job("a", "plain", 4, 10).Obj())
	apply(t, s, job("a", "hero", 4, 10).Created(time.Second).Label("role", "hero").Obj())
	if err := s.UpsertPreemptionConfig(heroConfig("hero", &metav1.LabelSelector{MatchLabels: map[string]string{"role": "hero"}})); err != nil {
		t.Fatal(err)
	}
	ds := s.Cycle(now)
	ps := preempts(ds)
	if len(ps) != 1 || ps[0].Preemptor.Name != "hero" {
		t.Fatalf("preemptions %v, want one by a/hero", ps)
	}
}

// UpsertPreemptionConfig compiles the object; an error names the field and
// keeps the previous config.
func TestUpsertPreemptionConfigRejectsInvalid(t *testing.T) {
	t.Parallel()
	s := heroPair(t)
	if err := s.UpsertPreemptionConfig(heroConfig("hero", nil)); err != nil {
		t.Fatal(err)
	}
	bad := heroConfig("hero", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "role", Operator: "Like"}}})
	err := s.UpsertPreemptionConfig(bad)
	if err == nil || !strings.Contains(err.Error(), "spec.rules[0].preemptorSelector") {
		t.Fatalf("error %v, want one naming spec.rules[0].preemptorSelector", err)
	}
	if got := victimNames(s.Cycle(now)); got != "b2:InCohortReclaimWhileBorrowing" {
		t.Errorf("after a rejected update: victims %q, want the previous config's", got)
	}
}
