package flavorassigner

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// Mode is how well a request fits a flavor. Higher is better.
type Mode int

const (
	// NoFit: more than the queue could ever get in this flavor.
	NoFit Mode = iota
	// Preempt: would fit if quota now in use were free: preemption or waiting.
	Preempt
	// Fit: fits now (see Borrow).
	Fit
)

func (m Mode) String() string {
	switch m {
	case Fit:
		return "Fit"
	case Preempt:
		return "Preempt"
	}
	return "NoFit"
}

// ResourceOutcome is how one resource of a pod set fits one flavor.
type ResourceOutcome struct {
	Resource corev1.ResourceName
	// Requested counts the earlier pod sets of the workload in the same flavor too.
	Requested int64
	// Available and Potential are from quota.Cache.Available/PotentialAvailable.
	Available int64
	Potential int64
	Mode      Mode
	// Borrow is true when the queue would exceed its nominal quota.
	Borrow bool
	// LimitedBy names the node whose borrowingLimit bounds Available.
	LimitedBy       string
	LimitedByCohort bool
}

// FlavorOutcome is how a pod set's resource group fits one flavor.
type FlavorOutcome struct {
	Flavor string
	// Skipped says why the flavor was not considered (taints, node labels).
	Skipped string
	// Mode is the worst of the resources' modes, by quota alone.
	Mode   Mode
	Borrow bool
	// BorrowLevel is how far up the Cohort tree the flavor's request
	// borrows: 0 within the queue's nominal quota, else the height of the
	// lowest Cohort whose subtree quota holds it (after preemption, for a
	// flavor that needs it).
	BorrowLevel int
	// NotPreemptible is set on a flavor whose request would fit only if quota
	// now in use were freed, when the queue may not preempt for it: the
	// request exceeds the queue's nominal quota, no Cohort below the root
	// could hold it (no hierarchical reclaim), and the queue may not preempt
	// while borrowing.
	NotPreemptible bool
	// NoCandidates is set on a flavor where preemption was considered and
	// would find no victims.
	NoCandidates bool
	Resources    []ResourceOutcome
	// g is the flavor's preemption mode and borrowing level, which decide.
	g granular
}

// GroupOutcome is the search over the flavors of one resource group for one pod
// set. Flavors lists the flavors in the order tried; Chosen is "" on failure.
type GroupOutcome struct {
	PodSet    string
	Resources []corev1.ResourceName
	Chosen    string
	// PreemptFlavor, when Chosen is "", is the flavor where the pod set would
	// fit after preemption (the best flavor by Kueue's rules when none fits
	// now), or "" when there is none.
	PreemptFlavor string
	Flavors       []FlavorOutcome
	// g is the chosen (or preemption) flavor's mode and borrowing level, and
	// level the highest borrowing level of its resources.
	g     granular
	level int
}

// Result is the assignment of a whole workload.
type Result struct {
	// Fits is true when every pod set got a flavor that fits now.
	Fits bool
	// PodSets, Usage and Borrowing are set when Fits.
	PodSets   []decision.PodSetAssignment
	Usage     resources.Amounts
	Borrowing bool
	// BorrowLevel is the highest borrowing level of the chosen flavors (see
	// FlavorOutcome.BorrowLevel): Kueue admits the heads of a Cohort tree
	// that borrow less first.
	BorrowLevel int
	// Reason and Message are set when not Fits.
	Reason  string
	Message string
	// Groups holds per-flavor outcomes; filled when not Fits or when Explain is set.
	Groups []GroupOutcome
	// Preemption is set, when not Fits, if every pod set has a flavor that
	// could take it after preemption (whether or not the oracle found victims
	// there): the assignment that preemption should make room for.
	Preemption *Assignment
	// Oracled tells that the oracle was consulted: the result then depends
	// on the admitted workloads preemption could take, not only on usage.
	Oracled bool
	// OracleChose tells that the oracle was consulted for a resource group
	// with more than one flavor: its answers may have decided which flavor
	// the workload gets. With one flavor per group they decide only the
	// preemption mode and the borrowing level of the one assignment there
	// is, which the preemption search itself settles.
	OracleChose bool
}

// Assignment is a complete flavor assignment that does not fit yet.
type Assignment struct {
	PodSets []decision.PodSetAssignment
	Usage   resources.Amounts
	// Borrowing is true when, admitted, the workload would take its queue above
	// nominal quota in some cell; BorrowLevel is how far up (see
	// Result.BorrowLevel).
	Borrowing   bool
	BorrowLevel int
}

// Options tune an assignment.
type Options struct {
	// Explain records per-flavor outcomes even when the workload fits (the fast
	// path skips them).
	Explain bool
	// Oracle judges the flavors that need preemption: whether victims exist
	// there. nil answers NoCandidates everywhere, for a queue that may not
	// preempt at all.
	Oracle Oracle
	// FairSharing tells that fair sharing is on: then a queue that may
	// reclaim within its Cohort may also preempt while it borrows.
	FairSharing bool
	// RulesMayPreempt tells that PreemptionConfig rules may select victims
	// for the queue: its workloads may then preempt for any request within
	// what the queue could ever get, borrowing or not (rules widen Kueue's
	// candidates; see docs/preemption-config.md).
	RulesMayPreempt bool
	// Quiet skips the explaining pass on failure: Reason, Message and Groups
	// stay empty, while Fits and Preemption are what they would be. For a
	// caller that will not show why the workload does not fit; explaining
	// costs more than deciding.
	Quiet bool
	// IgnoreUndeclared is Kueue's quotaCheckStrategy IgnoreUndeclared:
	// requests of a resource no resource group of the queue covers are
	// left out of the assignment and of the usage, instead of making the
	// workload inadmissible there (ResourceNotCovered).
	IgnoreUndeclared bool
}

// Assign finds flavors for the pod sets in queue cq, as Kueue's flavor
// assigner does. Flavors are tried in list order and all resources of one
// group get the same flavor. Each flavor gets a preemption mode (fits; needs
// preemption that reclaims, preempts within the queue, or finds no victims;
// cannot take the request) and a borrowing level; the search stops at the
// first flavor that fits without borrowing, at one that borrows under
// whenCanBorrow MayStopSearch, and at one whose preemption finds victims under
// whenCanPreempt MayStopSearch; otherwise the best flavor tried wins (see
// preferred). Earlier pod sets' assignments count against later ones.
func Assign(c *quota.Cache, cq *quota.ClusterQueue, podSets []workload.PodSet, opts Options) Result {
	a := assigner{cache: c, cq: cq, explain: opts.Explain, opts: opts}
	res := a.run(podSets)
	if !res.Fits && !opts.Explain && !opts.Quiet {
		// Rerun, recording outcomes, only on failure: the message needs them and
		// the admission fast path does not. The oracle's answers carry over.
		a = assigner{cache: c, cq: cq, explain: true, opts: opts, judged: a.judged, oracled: a.oracled, chose: a.chose}
		res = a.run(podSets)
	}
	return res
}

type assigner struct {
	cache   *quota.Cache
	cq      *quota.ClusterQueue
	explain bool
	opts    Options
	// judged remembers the oracle's answers within one Assign, and oracled
	// tells whether the oracle was consulted at all.
	judged  map[judgement]granular
	oracled bool
	// choosing is set while a group with more than one flavor is searched,
	// and chose once the oracle was asked there (Result.OracleChose).
	choosing, chose bool
}

type judgement struct {
	fr  resources.FlavorResource
	val int64
}

func (a *assigner) run(podSets []workload.PodSet) Result {
	res := Result{Fits: true, PodSets: make([]decision.PodSetAssignment, 0, len(podSets)), Usage: resources.Amounts{}}
	for pi := range podSets {
		ps := WithPods(a.cq, &podSets[pi])
		psa := decision.PodSetAssignment{Name: ps.Name, Count: ps.Count,
			Flavors: make(map[corev1.ResourceName]string, len(ps.Total)), Usage: make(resources.Requests, len(ps.Total))}
		for r, v := range ps.Total {
			psa.Usage[r] = v
		}
		// The smallest uncovered name, so that the message is deterministic
		// without sorting on the hot path.
		var uncovered corev1.ResourceName
		for r := range ps.Total {
			if a.cq.GroupOf(r) < 0 && (uncovered == "" || r < uncovered) {
				uncovered = r
			}
		}
		if uncovered != "" && !a.opts.IgnoreUndeclared {
			return notCovered(a.cq, ps, uncovered, len(podSets) > 1)
		}
		var buf [8]corev1.ResourceName
		for gi := range a.cq.Groups {
			g := &a.cq.Groups[gi]
			reqs := requested(g, ps, buf[:0])
			if len(reqs) == 0 {
				// Resources named with no request get the group's first
				// usable flavor, as in Kueue (a zero request fits anywhere).
				if f := a.zeroFlavor(g, ps); f != "" {
					for _, r := range ps.Zero {
						if slices.Contains(g.Covered, r) {
							psa.Flavors[r] = f
						}
					}
				}
				continue
			}
			out := a.group(g, ps, reqs, res.Usage)
			if a.explain {
				res.Groups = append(res.Groups, out)
			}
			chosen := out.Chosen
			if chosen == "" {
				switch {
				case res.Fits:
					res.Fits = false
					// Only the explaining pass has the outcomes a message needs.
					if a.explain {
						res.Reason, res.Message = explain(a.cache, a.cq, &out, len(podSets) > 1)
					}
				case a.explain && out.PreemptFlavor == "":
					// An earlier group would have taken preemption; this one
					// takes no flavor at all, which is what decides: its
					// reason comes first (Kueue reports the most severe).
					reason, msg := explain(a.cache, a.cq, &out, len(podSets) > 1)
					res.Reason, res.Message = reason, msg+"; "+res.Message
				}
				if out.PreemptFlavor == "" {
					res.PodSets, res.Usage, res.Borrowing, res.BorrowLevel = nil, nil, false, 0
					res.Oracled, res.OracleChose = a.oracled, a.chose
					return res
				}
				// Keep going with the flavor preemption could free, so that the
				// caller gets a whole assignment to preempt for.
				chosen = out.PreemptFlavor
			}
			res.BorrowLevel = max(res.BorrowLevel, out.level)
			for _, r := range ps.Zero {
				if slices.Contains(g.Covered, r) {
					psa.Flavors[r] = chosen
				}
			}
			for _, r := range reqs {
				psa.Flavors[r] = chosen
				fr := resources.FlavorResource{Flavor: chosen, Resource: r}
				res.Usage[fr] = resources.Add(res.Usage[fr], ps.Total[r])
				if a.cq.Usage(fr)+res.Usage[fr] > nominal(a.cq, fr) {
					res.Borrowing = true
				}
			}
		}
		res.PodSets = append(res.PodSets, psa)
	}
	res.Oracled, res.OracleChose = a.oracled, a.chose
	if !res.Fits {
		res.Preemption = &Assignment{PodSets: res.PodSets, Usage: res.Usage, Borrowing: res.Borrowing, BorrowLevel: res.BorrowLevel}
		res.PodSets, res.Usage, res.Borrowing, res.BorrowLevel = nil, nil, false, 0
	}
	return res
}

// group searches the flavors of one resource group for one pod set (Kueue's
// findFlavorForPodSets).
func (a *assigner) group(g *quota.ResourceGroup, ps *workload.PodSet, reqs []corev1.ResourceName, assigned resources.Amounts) GroupOutcome {
	out := GroupOutcome{PodSet: ps.Name, g: worstGranular()}
	if a.explain {
		out.Resources = append([]corev1.ResourceName(nil), reqs...)
	}
	best := ""
	a.choosing = len(g.Flavors) > 1
	for _, f := range g.Flavors {
		fo := a.flavor(f, ps, reqs, assigned)
		if a.explain {
			out.Flavors = append(out.Flavors, fo)
		}
		if fo.Skipped != "" {
			continue
		}
		if !tryNext(fo.g, a.cq) {
			best, out.g, out.level = f, fo.g, fo.BorrowLevel
			break
		}
		if preferred(fo.g, out.g, a.cq.Preference) {
			best, out.g, out.level = f, fo.g, fo.BorrowLevel
		}
	}
	a.choosing = false
	switch {
	case best == "" || out.g.mode == modeNoFit:
		out.g = worstGranular()
	case out.g.mode == modeFit:
		out.Chosen = best
	default:
		out.PreemptFlavor = best
	}
	return out
}

// flavor judges one flavor for the pod set's requests of a group: each
// resource's mode and borrowing level, and the flavor's (the worst of them by
// preferred).
func (a *assigner) flavor(f string, ps *workload.PodSet, reqs []corev1.ResourceName, assigned resources.Amounts) FlavorOutcome {
	fo := FlavorOutcome{Flavor: f, Mode: Fit, g: bestGranular()}
	rf, ok := a.cache.Flavor(f)
	if !ok {
		fo.Skipped = "ResourceFlavor " + f + " not found"
		return fo
	}
	if why := skipReason(rf, ps); why != "" {
		fo.Skipped = why
		return fo
	}
	for _, r := range reqs {
		fr := resources.FlavorResource{Flavor: f, Resource: r}
		ro := ResourceOutcome{Resource: r, Requested: resources.Add(assigned[fr], ps.Total[r]), Mode: Fit}
		av := a.cache.Available(a.cq, fr)
		ro.Available, ro.LimitedBy, ro.LimitedByCohort = av.Available, av.LimitedBy, av.LimitedByCohort
		cell := a.cell(fr, &ro, &fo)
		fo.Mode = min(fo.Mode, ro.Mode)
		fo.Borrow = fo.Borrow || ro.Borrow
		fo.BorrowLevel = max(fo.BorrowLevel, cell.borrow)
		if preferred(fo.g, cell, a.cq.Preference) {
			fo.g = cell
		}
		if a.explain {
			if ro.Potential == 0 && ro.Mode == Fit {
				ro.Potential = a.cache.PotentialAvailable(a.cq, fr)
			}
			fo.Resources = append(fo.Resources, ro)
		} else if fo.g.mode == modeNoFit {
			// A flavor that cannot take one resource cannot take the group:
			// the other resources change nothing.
			return fo
		}
	}
	return fo
}

// cell judges one resource of a flavor (Kueue's fitsResourceQuota): NoFit
// above what the queue could ever get; Fit within what it can take now, at
// the level it borrows from; otherwise preemption, which the queue may
// attempt only when the request is within its nominal quota, when a Cohort
// below the root could hold it (hierarchical reclaim), or when it may preempt
// while borrowing, and which the oracle judges.
func (a *assigner) cell(fr resources.FlavorResource, ro *ResourceOutcome, fo *FlavorOutcome) granular {
	val := ro.Requested
	if val > ro.Available {
		ro.Potential = a.cache.PotentialAvailable(a.cq, fr)
		ro.Mode = Preempt
		if val > ro.Potential {
			ro.Mode = NoFit
			return granular{mode: modeNoFit}
		}
	} else {
		ro.Borrow = a.cq.Usage(fr)+val > nominal(a.cq, fr)
	}
	borrow, inSubtree := quota.BorrowHeight(a.cq, fr, val)
	if ro.Mode == Fit {
		return granular{mode: modeFit, borrow: borrow}
	}
	if nominal(a.cq, fr) < val && !inSubtree && !a.preemptsWhileBorrowing() {
		fo.NotPreemptible = true
		return granular{mode: modeNoFit, borrow: borrow}
	}
	j := judgement{fr: fr, val: val}
	if a.opts.Oracle != nil && a.choosing {
		a.chose = true
	}
	if g, ok := a.judged[j]; ok {
		fo.NoCandidates = fo.NoCandidates || g.mode == modeNoCandidates
		return g
	}
	g := granular{mode: modeNoCandidates, borrow: borrow}
	if a.opts.Oracle != nil {
		p, after := a.opts.Oracle.SimulatePreemption(a.cq, fr, val)
		g = granular{mode: fromPossibility(p), borrow: after}
		a.oracled = true
	}
	if a.judged == nil {
		a.judged = map[judgement]granular{}
	}
	a.judged[j] = g
	fo.NoCandidates = fo.NoCandidates || g.mode == modeNoCandidates
	return g
}

// zeroFlavor is the first flavor of a group that the pod set may use, for
// the resources it names without requesting any: "" when none.
func (a *assigner) zeroFlavor(g *quota.ResourceGroup, ps *workload.PodSet) string {
	covered := false
	for _, r := range ps.Zero {
		covered = covered || slices.Contains(g.Covered, r)
	}
	if !covered {
		return ""
	}
	for _, f := range g.Flavors {
		if rf, ok := a.cache.Flavor(f); ok && skipReason(rf, ps) == "" {
			return f
		}
	}
	return ""
}

// preemptsWhileBorrowing tells whether the queue may preempt for a request
// that takes it above its nominal quota: under borrowWithinCohort, or under
// fair sharing when it may reclaim within its Cohort.
func (a *assigner) preemptsWhileBorrowing() bool {
	if a.opts.RulesMayPreempt {
		return true
	}
	p := a.cq.Preemption
	if p.BorrowWithinCohort != nil && p.BorrowWithinCohort.Policy != "" && p.BorrowWithinCohort.Policy != kueue.BorrowWithinCohortPolicyNever {
		return true
	}
	return a.opts.FairSharing && p.ReclaimWithinCohort != "" && p.ReclaimWithinCohort != kueue.PreemptionPolicyNever
}

func nominal(cq *quota.ClusterQueue, fr resources.FlavorResource) int64 {
	q, _ := cq.Quota(fr)
	return q.Nominal
}

// Blocker is a resource that keeps a flavor from a pod set: it does not fit
// and the queue may not preempt for it.
type Blocker struct {
	Resource corev1.ResourceName
	Amount   int64
}

// NoFlavor tells, with the queue's options (the oracle is not consulted),
// that the pod set gets no flavor in q as the cache stands: for some resource
// group it requests, every flavor is skipped or has a resource that does not
// fit now and that the queue could never get, or may not preempt for (above
// its nominal quota, with no subtree below the root that could hold it, and
// no preemption while borrowing; see cell). The assignment is then NoFit: the
// workload neither fits, nor preempts, nor holds quota. More usage never
// changes that (a cell that does not fit never fits again, and a subtree only
// fills up), which the scheduler's shortcuts rely on for the rest of a cycle.
//
// blockers lists, with the requested amount, every resource that blocks a
// flavor the queue could otherwise use (one not skipped, asking for nothing
// beyond what the queue could ever get): the outcome can change only once
// one of them fits, or a subtree below the root has room for it.
func NoFlavor(c *quota.Cache, q *quota.ClusterQueue, ps *workload.PodSet, opts Options) (none bool, blockers []Blocker) {
	a := assigner{cache: c, cq: q, opts: opts}
	ps = WithPods(q, ps)
	var buf [8]corev1.ResourceName
	for gi := range q.Groups {
		g := &q.Groups[gi]
		reqs := requested(g, ps, buf[:0])
		if len(reqs) == 0 {
			continue
		}
		groupNone := true
		var groupBlockers []Blocker
		for _, f := range g.Flavors {
			var noFit bool
			if noFit, groupBlockers = a.noFit(f, ps, reqs, groupBlockers); !noFit {
				groupNone = false
				break
			}
		}
		if groupNone {
			none = true
			blockers = append(blockers, groupBlockers...)
		}
	}
	if !none {
		return false, nil
	}
	return true, blockers
}

// noFit tells whether a flavor is NoFit for the pod set's requests of a
// group by quota alone: skipped, or some resource does not fit now and is
// beyond what the queue could ever get or may preempt for. It adds to
// blockers the resources that block a flavor the queue could otherwise use.
func (a *assigner) noFit(f string, ps *workload.PodSet, reqs []corev1.ResourceName, blockers []Blocker) (bool, []Blocker) {
	rf, ok := a.cache.Flavor(f)
	if !ok || skipReason(rf, ps) != "" {
		return true, blockers
	}
	pwb := a.preemptsWhileBorrowing()
	var buf [8]corev1.ResourceName
	blocking := buf[:0]
	for _, r := range reqs {
		fr := resources.FlavorResource{Flavor: f, Resource: r}
		val := ps.Total[r]
		if val <= a.cache.Available(a.cq, fr).Available {
			continue
		}
		if val > a.cache.PotentialAvailable(a.cq, fr) {
			return true, blockers // never usable: nothing to wait for
		}
		if pwb || nominal(a.cq, fr) >= val {
			continue
		}
		if _, inSubtree := quota.BorrowHeight(a.cq, fr, val); !inSubtree {
			blocking = append(blocking, r)
		}
	}
	for _, r := range blocking {
		i := slices.IndexFunc(blockers, func(b Blocker) bool { return b.Resource == r })
		if i < 0 {
			blockers = append(blockers, Blocker{Resource: r, Amount: ps.Total[r]})
		} else {
			blockers[i].Amount = min(blockers[i].Amount, ps.Total[r])
		}
	}
	return len(blocking) > 0, blockers
}

// NeverPreempts tells, with the queue's options (the oracle is not
// consulted), that the pod set cannot get a flavor by preemption in q for
// the rest of a cycle, whatever is admitted meanwhile: for some resource group
// it requests, every flavor is skipped, asks for more than the queue could
// ever get of some resource, has a resource it does not fit now and may not
// preempt for, or has only resources it may not preempt for (above the
// queue's nominal quota, with no subtree below the root that could hold them,
// and no preemption while borrowing; see cell). Such a flavor may fit, but is
// never a flavor to preempt in: the workload neither preempts nor holds
// quota. A cell that does not fit never fits again within a cycle, and a
// subtree only fills up.
func NeverPreempts(c *quota.Cache, q *quota.ClusterQueue, ps *workload.PodSet, opts Options) bool {
	a := assigner{cache: c, cq: q, opts: opts}
	ps = WithPods(q, ps)
	pwb := a.preemptsWhileBorrowing()
	var buf [8]corev1.ResourceName
	for gi := range q.Groups {
		g := &q.Groups[gi]
		reqs := requested(g, ps, buf[:0])
		if len(reqs) == 0 {
			continue
		}
		never := true
		for _, f := range g.Flavors {
			if !a.neverPreemptsIn(f, ps, reqs, pwb) {
				never = false
				break
			}
		}
		if never {
			return true
		}
	}
	return false
}

// neverPreemptsIn is NeverPreempts's condition on one flavor.
func (a *assigner) neverPreemptsIn(f string, ps *workload.PodSet, reqs []corev1.ResourceName, pwb bool) bool {
	rf, ok := a.cache.Flavor(f)
	if !ok || skipReason(rf, ps) != "" {
		return true
	}
	allIneligible := true
	for _, r := range reqs {
		fr := resources.FlavorResource{Flavor: f, Resource: r}
		val := ps.Total[r]
		if val > a.cache.PotentialAvailable(a.cq, fr) {
			return true
		}
		eligible := pwb || nominal(a.cq, fr) >= val
		if !eligible {
			_, eligible = quota.BorrowHeight(a.cq, fr, val)
		}
		if !eligible && val > a.cache.Available(a.cq, fr).Available {
			return true
		}
		allIneligible = allIneligible && !eligible
	}
	return allIneligible
}

// WithPods is the pod set as queue q counts it: when one of q's resource
// groups covers the "pods" resource, every pod counts one of it, as in Kueue;
// otherwise the pod set itself.
func WithPods(q *quota.ClusterQueue, ps *workload.PodSet) *workload.PodSet {
	if q.GroupOf(corev1.ResourcePods) < 0 || ps.Count <= 0 {
		return ps
	}
	out := *ps
	out.PerPod = ps.PerPod.Clone()
	out.PerPod[corev1.ResourcePods] = 1
	out.Total = ps.Total.Clone()
	out.Total[corev1.ResourcePods] = int64(ps.Count)
	return &out
}

// requested appends to reqs the resources of group g that the pod set asks
// for a non-zero amount of.
func requested(g *quota.ResourceGroup, ps *workload.PodSet, reqs []corev1.ResourceName) []corev1.ResourceName {
	for _, r := range g.Covered {
		if ps.Total[r] > 0 {
			reqs = append(reqs, r)
		}
	}
	return reqs
}
