package preemption

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kueuev1alpha1 "quokka.dev/quokka/apis/kueue/v1alpha1"
)

// Rules is a PreemptionConfig compiled once: selectors parsed, enums checked.
// It answers which candidates a rule selects for a preemptor; it holds no
// state of the cluster, so one value serves every ClusterQueue that references
// the config. See docs/preemption-config.md.
type Rules struct {
	name  string
	rules []*Rule
	// readsPreemptor: some rule looks at more of the preemptor than its
	// priority (its labels or its LocalQueue).
	readsPreemptor bool
}

// Rule is one compiled rule of a PreemptionConfig.
type Rule struct {
	Name    string
	Trigger kueuev1alpha1.ActivationTrigger
	// preemptor is preemptorSelector; nil accepts every workload.
	preemptor labels.Selector
	selectors []candidateSelector
}

type candidateSelector struct {
	scope kueuev1alpha1.QueueScope
	// clusterQueues and workloads are nil when unset (accept all).
	clusterQueues labels.Selector
	workloads     labels.Selector
	numeric       []numericLabel
	// priority is the comparison of priorities, "" when unset; boosted
	// compares effective priorities (mode Boosted), else base ones.
	priority kueuev1alpha1.NumericComparison
	boosted  bool
}

type numericLabel struct {
	key        string
	fallback   *int64
	comparison kueuev1alpha1.NumericComparison // "" when unset
	min, max   *int64
}

// Place is what a rule sees of a ClusterQueue: its name, its labels and where
// it sits in the cohort tree ("" for no cohort; RootCohort is also "" when the
// cohort chain has a cycle).
type Place struct {
	ClusterQueue string
	Labels       labels.Set
	ParentCohort string
	RootCohort   string
}

// Subject is what a rule sees of a workload, the preemptor or a candidate.
type Subject struct {
	Labels labels.Set
	// Priority is the effective priority, BasePriority the one without
	// Kueue's priority boost (a rule's priority mode picks one).
	Priority, BasePriority int32
	LocalQueue             types.NamespacedName
	Place
}

var (
	triggers    = []kueuev1alpha1.ActivationTrigger{kueuev1alpha1.Always, kueuev1alpha1.InsufficientQuota, kueuev1alpha1.QuotaFeasibleAndInsufficientTopology}
	scopes      = []kueuev1alpha1.QueueScope{kueuev1alpha1.WithinLocalQueue, kueuev1alpha1.WithinClusterQueue, kueuev1alpha1.WithinParentCohort, kueuev1alpha1.WithinCohortTree, kueuev1alpha1.AnyClusterQueue}
	comparisons = []kueuev1alpha1.NumericComparison{kueuev1alpha1.LessThan, kueuev1alpha1.GreaterThan, kueuev1alpha1.LessThanOrEqual, kueuev1alpha1.GreaterThanOrEqual}
)

// Compile checks and compiles a PreemptionConfig. Errors name the field path
// (spec.rules[0].candidateSelectors[1].labelSelector: ...): the CRD validates
// the same, but the simulator and tests hand objects over without an API server.
func Compile(pc *kueuev1alpha1.PreemptionConfig) (*Rules, error) {
	out := &Rules{name: pc.Name}
	var errs field.ErrorList
	base := field.NewPath("spec", "rules")
	seen := map[string]bool{}
	for i := range pc.Spec.Rules {
		r := &pc.Spec.Rules[i]
		p := base.Index(i)
		if r.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if seen[r.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		}
		seen[r.Name] = true
		cr := &Rule{Name: r.Name, Trigger: r.ActivationPolicy.Trigger}
		errs = append(errs, enum(cr.Trigger, p.Child("activationPolicy", "trigger"), triggers)...)
		var err *field.Error
		if cr.preemptor, err = selector(r.PreemptorSelector, p.Child("preemptorSelector")); err != nil {
			errs = append(errs, err)
		}
		if cr.preemptor != nil {
			out.readsPreemptor = true
		}
		for j := range r.CandidateSelectors {
			cs, serrs := compileSelector(&r.CandidateSelectors[j], p.Child("candidateSelectors").Index(j))
			errs = append(errs, serrs...)
			if cs.scope == kueuev1alpha1.WithinLocalQueue {
				out.readsPreemptor = true
			}
			for _, n := range cs.numeric {
				if n.comparison != "" {
					out.readsPreemptor = true
				}
			}
			cr.selectors = append(cr.selectors, cs)
		}
		out.rules = append(out.rules, cr)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("PreemptionConfig %s: %w", pc.Name, errs.ToAggregate())
	}
	return out, nil
}

func compileSelector(cs *kueuev1alpha1.CandidateSelector, p *field.Path) (candidateSelector, field.ErrorList) {
	out := candidateSelector{scope: cs.Scope}
	errs := enum(cs.Scope, p.Child("scope"), scopes)
	var err *field.Error
	if out.clusterQueues, err = selector(cs.ClusterQueueSelector, p.Child("clusterQueueSelector")); err != nil {
		errs = append(errs, err)
	}
	if out.workloads, err = selector(cs.LabelSelector, p.Child("labelSelector")); err != nil {
		errs = append(errs, err)
	}
	for k := range cs.NumericLabels {
		nl := &cs.NumericLabels[k]
		np := p.Child("numericLabels").Index(k)
		if nl.Key == "" {
			errs = append(errs, field.Required(np.Child("key"), ""))
		}
		n := numericLabel{key: nl.Key, fallback: widen(nl.FallbackValue), min: widen(nl.MinValue), max: widen(nl.MaxValue)}
		if nl.Comparison != nil {
			n.comparison = *nl.Comparison
			errs = append(errs, enum(n.comparison, np.Child("comparison"), comparisons)...)
		}
		if n.min != nil && n.max != nil && *n.min > *n.max {
			errs = append(errs, field.Invalid(np.Child("minValue"), *n.min, fmt.Sprintf("must be less than or equal to maxValue (%d)", *n.max)))
		}
		out.numeric = append(out.numeric, n)
	}
	if pr := cs.Priority; pr != nil {
		pp := p.Child("priority")
		if pr.Mode != "" {
			errs = append(errs, enum(pr.Mode, pp.Child("mode"), []kueuev1alpha1.PriorityMode{kueuev1alpha1.BasePriority, kueuev1alpha1.BoostedPriority})...)
		}
		errs = append(errs, enum(pr.Comparison, pp.Child("comparison"), comparisons)...)
		// Base (the default) compares the priorities without Kueue's
		// priority boost, Boosted the effective ones; without the
		// PriorityBoost gate they are the same number.
		out.priority = pr.Comparison
		out.boosted = pr.Mode == kueuev1alpha1.BoostedPriority
	}
	return out, errs
}

func selector(ls *metav1.LabelSelector, p *field.Path) (labels.Selector, *field.Error) {
	if ls == nil {
		return nil, nil
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, field.Invalid(p, ls.String(), err.Error())
	}
	return s, nil
}

func enum[T ~string](v T, p *field.Path, allowed []T) field.ErrorList {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return field.ErrorList{field.NotSupported(p, v, names)}
}

func widen(v *int32) *int64 {
	if v == nil {
		return nil
	}
	w := int64(*v)
	return &w
}

// Name is the PreemptionConfig's name.
func (rs *Rules) Name() string { return rs.name }

// Len is the number of rules.
func (rs *Rules) Len() int { return len(rs.rules) }

// ReadsPreemptor tells whether a rule looks at the preemptor's labels or
// LocalQueue (preemptorSelector, scope WithinLocalQueue, a numeric label
// comparison): then two preemptors of equal priority and need may get
// different candidates. False for nil.
func (rs *Rules) ReadsPreemptor() bool { return rs != nil && rs.readsPreemptor }

// MaySelect tells whether some rule can ever contribute a candidate: one with
// a candidate selector and a trigger that can fire in Quokka (Always or
// InsufficientQuota; QuotaFeasibleAndInsufficientTopology never fires, since
// there is no topology-aware scheduling). False for nil.
func (rs *Rules) MaySelect() bool {
	if rs == nil {
		return false
	}
	for _, r := range rs.rules {
		if len(r.selectors) > 0 && (r.Trigger == kueuev1alpha1.Always || r.Trigger == kueuev1alpha1.InsufficientQuota) {
			return true
		}
	}
	return false
}

// Active returns, in the config's order, the rules with trigger t whose
// preemptorSelector accepts p.
func (rs *Rules) Active(t kueuev1alpha1.ActivationTrigger, p Subject) []*Rule {
	if rs == nil {
		return nil
	}
	var out []*Rule
	for _, r := range rs.rules {
		if r.Trigger == t && (r.preemptor == nil || r.preemptor.Matches(p.Labels)) {
			out = append(out, r)
		}
	}
	return out
}

// Selects tells whether one of the rule's candidate selectors accepts c as a
// candidate of p: candidates of several selectors are summed, and a rule
// without selectors selects nothing.
func (r *Rule) Selects(p, c Subject) bool {
	for i := range r.selectors {
		if r.selectors[i].accepts(p, c) {
			return true
		}
	}
	return false
}

// accepts applies every constraint of the selector: scope, clusterQueueSelector,
// labelSelector, numericLabels (all of them) and priority.
func (cs *candidateSelector) accepts(p, c Subject) bool {
	if !inScope(cs.scope, p, c) {
		return false
	}
	if cs.clusterQueues != nil && !cs.clusterQueues.Matches(c.Place.Labels) {
		return false
	}
	if cs.workloads != nil && !cs.workloads.Matches(c.Labels) {
		return false
	}
	for i := range cs.numeric {
		if !cs.numeric[i].accepts(p, c) {
			return false
		}
	}
	if cs.priority == "" {
		return true
	}
	if cs.boosted {
		return compare(cs.priority, int64(c.Priority), int64(p.Priority))
	}
	return compare(cs.priority, int64(c.BasePriority), int64(p.BasePriority))
}

// inScope is the queue relation of c to p. WithinParentCohort and
// WithinCohortTree include the preemptor's own ClusterQueue, also when it has
// no cohort (KEP-13396).
func inScope(scope kueuev1alpha1.QueueScope, p, c Subject) bool {
	sameCQ := c.ClusterQueue == p.ClusterQueue
	switch scope {
	case kueuev1alpha1.WithinLocalQueue:
		return sameCQ && c.LocalQueue == p.LocalQueue
	case kueuev1alpha1.WithinClusterQueue:
		return sameCQ
	case kueuev1alpha1.WithinParentCohort:
		return sameCQ || (p.ParentCohort != "" && c.ParentCohort == p.ParentCohort)
	case kueuev1alpha1.WithinCohortTree:
		return sameCQ || (p.RootCohort != "" && c.RootCohort == p.RootCohort)
	case kueuev1alpha1.AnyClusterQueue:
		return true
	}
	return false
}

func (n *numericLabel) accepts(p, c Subject) bool {
	v, ok := n.value(c.Labels)
	if !ok {
		return false // incomparable: excluded
	}
	if (n.min != nil && v < *n.min) || (n.max != nil && v > *n.max) {
		return false
	}
	if n.comparison == "" {
		return true
	}
	pv, ok := n.value(p.Labels)
	return ok && compare(n.comparison, v, pv)
}

// value is the label's integer value, the fallback when the label is missing
// or not an integer, and false when there is neither.
func (n *numericLabel) value(ls labels.Set) (int64, bool) {
	if s, ok := ls[n.key]; ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v, true
		}
	}
	if n.fallback != nil {
		return *n.fallback, true
	}
	return 0, false
}

// compare tells whether the candidate's value c stands in relation cmp to the
// preemptor's value p.
func compare(cmp kueuev1alpha1.NumericComparison, c, p int64) bool {
	switch cmp {
	case kueuev1alpha1.LessThan:
		return c < p
	case kueuev1alpha1.LessThanOrEqual:
		return c <= p
	case kueuev1alpha1.GreaterThan:
		return c > p
	case kueuev1alpha1.GreaterThanOrEqual:
		return c >= p
	}
	return false
}
