package flavorassigner

import (
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
	Skipped   string
	Mode      Mode
	Borrow    bool
	Resources []ResourceOutcome
}

// GroupOutcome is the search over the flavors of one resource group for one pod
// set. Flavors lists the flavors in the order tried; Chosen is "" on failure.
type GroupOutcome struct {
	PodSet    string
	Resources []corev1.ResourceName
	Chosen    string
	// PreemptFlavor, when Chosen is "", is the flavor where the pod set would
	// fit after preemption (per whenCanPreempt), or "" when there is none.
	PreemptFlavor string
	Flavors       []FlavorOutcome
}

// Result is the assignment of a whole workload.
type Result struct {
	// Fits is true when every pod set got a flavor that fits now.
	Fits bool
	// PodSets, Usage and Borrowing are set when Fits.
	PodSets   []decision.PodSetAssignment
	Usage     resources.Amounts
	Borrowing bool
	// Reason and Message are set when not Fits.
	Reason  string
	Message string
	// Groups holds per-flavor outcomes; filled when not Fits or when Explain is set.
	Groups []GroupOutcome
	// Preemption is set, when Options.CanPreempt, if not Fits but every pod set
	// has flavors where it would fit if quota now in use were freed: the
	// assignment that preemption should make room for.
	Preemption *Assignment
}

// Assignment is a complete flavor assignment that does not fit yet.
type Assignment struct {
	PodSets []decision.PodSetAssignment
	Usage   resources.Amounts
	// Borrowing is true when, admitted, the workload would take its queue above
	// nominal quota in some cell.
	Borrowing bool
}

// Options tune an assignment.
type Options struct {
	// Explain records per-flavor outcomes even when the workload fits (the fast
	// path skips them).
	Explain bool
	// CanPreempt tells that the queue may preempt at all. Only then does
	// whenCanPreempt: MayStopSearch stop the search at a flavor where the
	// workload would fit after preemption; otherwise such a flavor is only a
	// fallback, as with TryNextFlavor.
	CanPreempt bool
	// Quiet skips the explaining pass on failure: Reason, Message and Groups
	// stay empty, while Fits and Preemption are what they would be. For a
	// caller that will not show why the workload does not fit; explaining
	// costs more than deciding.
	Quiet bool
}

// Assign finds flavors for the pod sets in queue cq. Flavors are tried in list
// order; all resources of one group get the same flavor. With whenCanBorrow
// MayStopSearch the first flavor that fits, with or without borrowing, wins; with
// TryNextFlavor a later flavor that fits without borrowing is preferred and the
// first borrowing fit is the fallback. Earlier pod sets' assignments count against
// later ones.
func Assign(c *quota.Cache, cq *quota.ClusterQueue, podSets []workload.PodSet, opts Options) Result {
	a := assigner{cache: c, cq: cq, explain: opts.Explain, canPreempt: opts.CanPreempt}
	res := a.run(podSets)
	if !res.Fits && !opts.Explain && !opts.Quiet {
		// Rerun, recording outcomes, only on failure: the message needs them and
		// the admission fast path does not.
		a = assigner{cache: c, cq: cq, explain: true, canPreempt: opts.CanPreempt}
		res = a.run(podSets)
	}
	return res
}

type assigner struct {
	cache      *quota.Cache
	cq         *quota.ClusterQueue
	explain    bool
	canPreempt bool
}

func (a *assigner) run(podSets []workload.PodSet) Result {
	res := Result{Fits: true, PodSets: make([]decision.PodSetAssignment, 0, len(podSets)), Usage: resources.Amounts{}}
	for pi := range podSets {
		ps := &podSets[pi]
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
		if uncovered != "" {
			return notCovered(a.cq, ps, uncovered, len(podSets) > 1)
		}
		var buf [8]corev1.ResourceName
		for gi := range a.cq.Groups {
			g := &a.cq.Groups[gi]
			reqs := buf[:0]
			for _, r := range g.Covered {
				if ps.Total[r] > 0 {
					reqs = append(reqs, r)
				}
			}
			if len(reqs) == 0 {
				continue
			}
			out := a.group(g, ps, reqs, res.Usage)
			if a.explain {
				res.Groups = append(res.Groups, out)
			}
			chosen := out.Chosen
			if chosen == "" {
				if res.Fits {
					res.Fits = false
					// Only the explaining pass has the outcomes a message needs.
					if a.explain {
						res.Reason, res.Message = explain(a.cache, a.cq, &out, len(podSets) > 1)
					}
				}
				if out.PreemptFlavor == "" || !a.canPreempt {
					res.PodSets, res.Usage, res.Borrowing = nil, nil, false
					return res
				}
				// Keep going with the flavor preemption could free, so that the
				// caller gets a whole assignment to preempt for.
				chosen = out.PreemptFlavor
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
	if !res.Fits {
		res.Preemption = &Assignment{PodSets: res.PodSets, Usage: res.Usage, Borrowing: res.Borrowing}
		res.PodSets, res.Usage, res.Borrowing = nil, nil, false
	}
	return res
}

// group searches the flavors of one resource group for one pod set.
func (a *assigner) group(g *quota.ResourceGroup, ps *workload.PodSet, reqs []corev1.ResourceName, assigned resources.Amounts) GroupOutcome {
	out := GroupOutcome{PodSet: ps.Name}
	if a.explain {
		out.Resources = append([]corev1.ResourceName(nil), reqs...)
	}
	fallback := ""
	for _, f := range g.Flavors {
		fo := a.flavor(f, ps, reqs, assigned)
		if a.explain {
			out.Flavors = append(out.Flavors, fo)
		}
		if fo.Skipped != "" {
			continue
		}
		if fo.Mode == Preempt && out.PreemptFlavor == "" {
			out.PreemptFlavor = f
			// whenCanPreempt: MayStopSearch takes the first flavor where
			// preemption would make room, unless an earlier flavor already fits
			// by borrowing; TryNextFlavor (the default) keeps looking for a
			// flavor that fits as it is.
			if a.canPreempt && fallback == "" && a.cq.WhenCanPreempt == kueue.MayStopSearch {
				return out
			}
		}
		if fo.Mode != Fit {
			continue
		}
		if !fo.Borrow || a.cq.WhenCanBorrow != kueue.TryNextFlavor {
			out.Chosen = f
			return out
		}
		if fallback == "" {
			fallback = f
		}
	}
	out.Chosen = fallback
	if out.Chosen != "" {
		out.PreemptFlavor = ""
	}
	return out
}

func (a *assigner) flavor(f string, ps *workload.PodSet, reqs []corev1.ResourceName, assigned resources.Amounts) FlavorOutcome {
	fo := FlavorOutcome{Flavor: f, Mode: Fit}
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
		if ro.Requested > ro.Available {
			ro.Potential = a.cache.PotentialAvailable(a.cq, fr)
			ro.Mode = Preempt
			if ro.Requested > ro.Potential {
				ro.Mode = NoFit
			}
		} else {
			ro.Borrow = a.cq.Usage(fr)+ro.Requested > nominal(a.cq, fr)
		}
		fo.Mode = min(fo.Mode, ro.Mode)
		fo.Borrow = fo.Borrow || ro.Borrow
		if a.explain {
			if ro.Potential == 0 && ro.Mode == Fit {
				ro.Potential = a.cache.PotentialAvailable(a.cq, fr)
			}
			fo.Resources = append(fo.Resources, ro)
		} else if fo.Mode == NoFit {
			// A Preempt resource keeps the loop going: a later resource may
			// never fit, which makes the whole flavor NoFit.
			return fo
		}
	}
	return fo
}

func nominal(cq *quota.ClusterQueue, fr resources.FlavorResource) int64 {
	q, _ := cq.Quota(fr)
	return q.Nominal
}
