// Package explain answers "why is this workload not admitted, and what would
// admit it" from the cluster's objects. It builds a private engine exactly as
// the manager does (feed.List, feed.Objects.Into, the Configuration's options)
// and asks it through DryRun; it never writes anything anywhere.
package explain

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/engine/workload"
	"quokka.dev/quokka/internal/feed"
)

// Explainer holds a private engine built from one listing of the cluster.
type Explainer struct {
	s    *scheduler.Scheduler
	objs *feed.Objects
	wls  map[types.NamespacedName]*kueue.Workload
	cqs  map[string]*kueue.ClusterQueue
	// tieredReasons is the UnadmittedWorkloadsObservability gate, for
	// WorkloadReport.ConditionReason.
	tieredReasons bool
	// Refused lists the objects the engine refused, as the manager would log them.
	Refused []string
}

// Load lists the cluster through r (reads only) and builds the engine with the
// options the manager derives from cfg.
func Load(ctx context.Context, r client.Reader, cfg *configapi.Configuration) (*Explainer, error) {
	objs, err := feed.List(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	return New(objs, cfg), nil
}

// New builds the engine from objects already listed.
func New(objs *feed.Objects, cfg *configapi.Configuration) *Explainer {
	e := &Explainer{s: scheduler.New(scheduler.OptionsFromConfiguration(cfg)), objs: objs,
		wls: map[types.NamespacedName]*kueue.Workload{}, cqs: map[string]*kueue.ClusterQueue{},
		tieredReasons: cfg.FeatureGate(configapi.FeatureUnadmittedWorkloadsObservability)}
	for _, err := range objs.Into(e.s) {
		e.Refused = append(e.Refused, err.Error())
	}
	for i := range objs.Workloads.Items {
		wl := &objs.Workloads.Items[i]
		e.wls[client.ObjectKeyFromObject(wl)] = wl
	}
	for i := range objs.ClusterQueues.Items {
		e.cqs[objs.ClusterQueues.Items[i].Name] = &objs.ClusterQueues.Items[i]
	}
	return e
}

// WorkloadReport is the answer for one workload; -o json prints it as is.
type WorkloadReport struct {
	Workload         string `json:"workload"`
	State            string `json:"state"`
	LocalQueue       string `json:"localQueue"`
	ClusterQueue     string `json:"clusterQueue,omitempty"`
	Cohort           string `json:"cohort,omitempty"`
	QueueingStrategy string `json:"queueingStrategy,omitempty"`
	// Position is 1 for the head of the ClusterQueue; Ahead counts the pending
	// workloads ordered before it, Pending all pending workloads of the queue.
	Position int  `json:"position,omitempty"`
	Ahead    int  `json:"ahead"`
	Pending  int  `json:"pending"`
	Fits     bool `json:"fits"`
	// LocalQueueUsage, when its ClusterQueue orders by admission fair
	// sharing, is its LocalQueue's usage, the first key of that order
	// (lower goes first; "+Inf" at weight 0).
	LocalQueueUsage string `json:"localQueueUsage,omitempty"`
	// PodCounts, set when it holds or would get fewer pods than it asks for
	// (partial admission), are every pod set's admitted count.
	PodCounts map[string]int32 `json:"podCounts,omitempty"`
	// Reason and Message are the engine's: finer than Kueue's.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ConditionReason is the Kueue reason its QuotaReserved=False condition
	// carries for Reason (decision.KueueQuotaReservedReason, under the
	// Configuration's UnadmittedWorkloadsObservability gate); empty when the
	// manager writes none for it.
	ConditionReason string `json:"conditionReason,omitempty"`
	// Blocked says what keeps it out besides quota (StrictFIFO head, inactive
	// or stopped queue, missing LocalQueue, namespace not selected).
	Blocked    []string        `json:"blocked,omitempty"`
	Flavors    []FlavorReport  `json:"flavors,omitempty"`
	Preemption *Preemption     `json:"preemption,omitempty"`
	Changes    []Change        `json:"changes,omitempty"`
	Admission  *AdmissionBrief `json:"admission,omitempty"`
}

// AdmissionBrief is where an admitted workload holds quota.
type AdmissionBrief struct {
	ClusterQueue string              `json:"clusterQueue"`
	Flavors      []map[string]string `json:"flavors"`
	Borrowing    bool                `json:"borrowing"`
}

// FlavorReport is how one flavor fared for one pod set's resource group.
type FlavorReport struct {
	PodSet string `json:"podSet"`
	Flavor string `json:"flavor"`
	// Outcome is Fit, Preempt (fits if quota in use were freed), NoFit
	// (more than the queue can ever get) or Skipped.
	Outcome   string           `json:"outcome"`
	Borrow    bool             `json:"borrow,omitempty"`
	Skipped   string           `json:"skipped,omitempty"`
	Best      bool             `json:"best,omitempty"`
	Resources []ResourceReport `json:"resources,omitempty"`
}

// ResourceReport gives the numbers behind a flavor's outcome, as quantities.
type ResourceReport struct {
	Resource  string `json:"resource"`
	Requested string `json:"requested"`
	Available string `json:"available"`
	// Potential is the most the queue could get with every other queue idle.
	Potential string `json:"potential"`
	Outcome   string `json:"outcome"`
	LimitedBy string `json:"limitedBy,omitempty"`
}

// Preemption is what preemption would take, or why it cannot help.
type Preemption struct {
	Victims []VictimReport `json:"victims,omitempty"`
	// Impossible says why there are no victims, when there are none.
	Impossible string `json:"impossible,omitempty"`
}

// VictimReport is one workload preemption would evict.
type VictimReport struct {
	Workload     string `json:"workload"`
	ClusterQueue string `json:"clusterQueue"`
	Reason       string `json:"reason"`
}

// Change is one quota change that would let the workload fit now.
type Change struct {
	ClusterQueue string `json:"clusterQueue"`
	Flavor       string `json:"flavor"`
	Resource     string `json:"resource"`
	// MoreNominalQuota is the shortfall: request minus what is available.
	MoreNominalQuota string `json:"moreNominalQuota"`
	// BorrowingLimit, when set, is the borrowingLimit that would do as well.
	BorrowingLimit string `json:"borrowingLimit,omitempty"`
	// CohortShortfall is what the cohort lacks besides, when the
	// borrowingLimit alone is not enough.
	CohortShortfall string `json:"cohortShortfall,omitempty"`
	Text            string `json:"text"`
}

// Workload explains one workload.
func (e *Explainer) Workload(key types.NamespacedName) (*WorkloadReport, error) {
	wl, ok := e.wls[key]
	if !ok {
		return nil, fmt.Errorf("workload %s not found", key)
	}
	rep := &WorkloadReport{Workload: key.String(), State: "Unknown",
		LocalQueue: types.NamespacedName{Namespace: key.Namespace, Name: string(wl.Spec.QueueName)}.String()}
	if v, ok := e.s.WorkloadState(key); ok {
		rep.State, rep.ClusterQueue = string(v.State), v.ClusterQueue
		if v.State == scheduler.StateAdmitted || v.State == scheduler.StateAssumed {
			a := &AdmissionBrief{ClusterQueue: v.ClusterQueue, Borrowing: v.Borrowing}
			for _, ps := range v.PodSets {
				m := map[string]string{}
				for r, f := range ps.Flavors {
					m[string(r)] = f
				}
				a.Flavors = append(a.Flavors, m)
			}
			rep.Admission = a
			rep.PodCounts = workload.ReducedCounts(wl, v.PodSets)
			e.describeQueue(rep)
			return rep, nil
		}
		if v.State == scheduler.StateFinished {
			return rep, nil
		}
	}
	d := e.s.DryRun(wl)
	if d.ClusterQueue != "" {
		rep.ClusterQueue = d.ClusterQueue
	}
	e.describeQueue(rep)
	rep.Fits, rep.Reason, rep.Message = d.Fits, d.Reason, d.Message
	if !d.Fits && d.Reason != "" {
		rep.ConditionReason, _ = decision.KueueQuotaReservedReason(d.Reason, e.tieredReasons)
	}
	if d.Fits {
		rep.PodCounts = workload.ReducedCounts(wl, d.PodSets)
	}
	if rep.ClusterQueue != "" {
		rep.Pending = len(e.pendingOf(rep.ClusterQueue))
	}
	switch d.Reason {
	case decision.ReasonInvalid, decision.ReasonInactive, decision.ReasonLocalQueueNotFound,
		decision.ReasonClusterQueueNotFound, decision.ReasonClusterQueueInactive, decision.ReasonStopped,
		decision.ReasonNamespaceNotSelected:
		rep.Blocked = append(rep.Blocked, blockedText(d))
		return rep, nil
	}
	rep.Ahead, rep.Position = d.Ahead, d.Ahead+1
	rep.LocalQueueUsage = e.localQueueUsage(key.Namespace, string(wl.Spec.QueueName))
	if rep.QueueingStrategy == string(kueue.StrictFIFO) && d.Ahead > 0 {
		rep.Blocked = append(rep.Blocked, e.strictFIFOBlock(rep.ClusterQueue, key, d.Ahead))
	} else if d.Fits && d.Ahead > 0 {
		rep.Blocked = append(rep.Blocked, fmt.Sprintf(
			"it fits now; %d pending workload(s) of ClusterQueue %s come first and may take the room in the next cycle",
			d.Ahead, rep.ClusterQueue))
	}
	rep.Flavors = flavorReports(d.Flavors)
	if !d.Fits {
		rep.Preemption = e.preemption(rep.ClusterQueue, d)
		rep.Changes = e.changes(rep.ClusterQueue, d.Flavors)
	}
	return rep, nil
}

func blockedText(d scheduler.DryRunResult) string {
	switch d.Reason {
	case decision.ReasonStopped:
		return "ClusterQueue " + d.ClusterQueue + " is stopped (spec.stopPolicy): " + d.Message
	case decision.ReasonClusterQueueInactive:
		return "ClusterQueue " + d.ClusterQueue + " is inactive: " + d.Message
	}
	return d.Message
}

func (e *Explainer) describeQueue(rep *WorkloadReport) {
	if cq, ok := e.cqs[rep.ClusterQueue]; ok {
		rep.QueueingStrategy = string(cmp.Or(cq.Spec.QueueingStrategy, kueue.BestEffortFIFO))
	}
	if v, ok := e.s.ClusterQueueSnapshot(rep.ClusterQueue); ok {
		rep.Cohort = v.Cohort
	}
}

// localQueueUsage is a LocalQueue's admission fair sharing usage when its
// ClusterQueue orders by it (the engine says), "" otherwise.
func (e *Explainer) localQueueUsage(ns, lq string) string {
	v, ok := e.s.LocalQueueSnapshot(ns, lq)
	if !ok || !v.OrderedByUsage {
		return ""
	}
	return strconv.FormatFloat(v.WeightedUsage, 'g', 6, 64)
}

// queued is a pending workload with its dry run, in queue order.
type queued struct {
	key types.NamespacedName
	lq  string
	d   scheduler.DryRunResult
}

// pendingOf returns the pending workloads of a ClusterQueue in queue order
// (the engine's order: by how many are ahead of each).
func (e *Explainer) pendingOf(cq string) []queued {
	var out []queued
	for key, wl := range e.wls {
		v, ok := e.s.WorkloadState(key)
		if !ok || v.State != scheduler.StatePending || v.ClusterQueue != cq {
			continue
		}
		out = append(out, queued{key: key, lq: string(wl.Spec.QueueName), d: e.s.DryRun(wl)})
	}
	slices.SortFunc(out, func(a, b queued) int {
		return cmp.Or(cmp.Compare(a.d.Ahead, b.d.Ahead), cmp.Compare(a.key.String(), b.key.String()))
	})
	return out
}

func (e *Explainer) strictFIFOBlock(cq string, self types.NamespacedName, ahead int) string {
	for _, q := range e.pendingOf(cq) {
		if q.key == self {
			continue
		}
		why := "it fits and is admitted next"
		if !q.d.Fits {
			why = "it does not fit (" + q.d.Reason + ")"
		}
		return fmt.Sprintf("ClusterQueue %s is StrictFIFO and %d pending workload(s) come first; the head %s blocks the queue: %s",
			cq, ahead, q.key, why)
	}
	return fmt.Sprintf("ClusterQueue %s is StrictFIFO and %d pending workload(s) come first", cq, ahead)
}

func flavorReports(groups []flavorassigner.GroupOutcome) []FlavorReport {
	var out []FlavorReport
	for gi := range groups {
		g := &groups[gi]
		best := bestFlavor(g)
		for fi := range g.Flavors {
			fo := &g.Flavors[fi]
			fr := FlavorReport{PodSet: g.PodSet, Flavor: fo.Flavor, Outcome: fo.Mode.String(), Borrow: fo.Borrow,
				Skipped: fo.Skipped, Best: fo == best}
			if fo.Skipped != "" {
				fr.Outcome = "Skipped"
			}
			for _, ro := range fo.Resources {
				rr := ResourceReport{Resource: string(ro.Resource), Requested: qty(ro.Resource, ro.Requested),
					Available: qty(ro.Resource, max(0, ro.Available)), Potential: qty(ro.Resource, ro.Potential),
					Outcome: ro.Mode.String(), LimitedBy: ro.LimitedBy}
				if ro.LimitedBy != "" && ro.LimitedByCohort {
					rr.LimitedBy = "cohort " + ro.LimitedBy
				}
				fr.Resources = append(fr.Resources, rr)
			}
			out = append(out, fr)
		}
	}
	return out
}

// bestFlavor is the flavor a change should aim at: the chosen one, else the one
// preemption would use, else the most hopeful one tried (first on ties).
func bestFlavor(g *flavorassigner.GroupOutcome) *flavorassigner.FlavorOutcome {
	name := cmp.Or(g.Chosen, g.PreemptFlavor)
	var best *flavorassigner.FlavorOutcome
	for i := range g.Flavors {
		fo := &g.Flavors[i]
		if fo.Skipped != "" {
			continue
		}
		if name != "" && fo.Flavor == name {
			return fo
		}
		if name == "" && (best == nil || fo.Mode > best.Mode) {
			best = fo
		}
	}
	return best
}

func (e *Explainer) preemption(cqName string, d scheduler.DryRunResult) *Preemption {
	p := &Preemption{}
	for _, v := range d.Victims {
		p.Victims = append(p.Victims, VictimReport{Workload: v.Workload.String(), ClusterQueue: v.ClusterQueue, Reason: v.Reason})
	}
	if len(p.Victims) > 0 {
		return p
	}
	policy := "withinClusterQueue: Never, reclaimWithinCohort: Never"
	if cq, ok := e.cqs[cqName]; ok && cq.Spec.Preemption != nil {
		pp := cq.Spec.Preemption
		policy = fmt.Sprintf("withinClusterQueue: %s, reclaimWithinCohort: %s",
			cmp.Or(pp.WithinClusterQueue, kueue.PreemptionPolicyNever), cmp.Or(pp.ReclaimWithinCohort, kueue.PreemptionPolicyNever))
		if pp.BorrowWithinCohort != nil {
			policy += ", borrowWithinCohort: " + string(pp.BorrowWithinCohort.Policy)
		}
	}
	allNoFit, notPreemptible := true, false
	for gi := range d.Flavors {
		g := &d.Flavors[gi]
		if g.Chosen != "" {
			continue
		}
		if b := bestFlavor(g); b != nil && b.Mode != flavorassigner.NoFit {
			allNoFit = false
			notPreemptible = notPreemptible || b.NotPreemptible
		}
	}
	switch {
	case allNoFit:
		p.Impossible = "preemption cannot help: the request is more than ClusterQueue " + cqName + " can ever get in any flavor it tried"
	case notPreemptible:
		p.Impossible = "ClusterQueue " + cqName + " may not preempt for a request above its nominal quota while borrowing (" + policy + ")"
	default:
		p.Impossible = "no admitted workload can be preempted for it under ClusterQueue " + cqName + "'s policy (" + policy +
			"); it waits for quota to be released"
	}
	return p
}

// changes lists, for every resource of each failing group's best flavor that
// does not fit now, the nominal quota the queue would need on top of what it has
// and, when the queue's own borrowingLimit is what holds it back and its cohort
// has the room, the borrowingLimit that would do as well.
func (e *Explainer) changes(cqName string, groups []flavorassigner.GroupOutcome) []Change {
	q, ok := e.s.Cache().ClusterQueue(cqName)
	if !ok {
		return nil
	}
	var out []Change
	for gi := range groups {
		g := &groups[gi]
		if g.Chosen != "" {
			continue
		}
		fo := bestFlavor(g)
		if fo == nil {
			continue
		}
		for _, ro := range fo.Resources {
			if ro.Mode == flavorassigner.Fit {
				continue
			}
			short := ro.Requested - max(0, ro.Available)
			if short <= 0 {
				continue
			}
			r := ro.Resource
			c := Change{ClusterQueue: cqName, Flavor: fo.Flavor, Resource: string(r), MoreNominalQuota: qty(r, short)}
			c.Text = fmt.Sprintf("%s more %s of nominal quota in ClusterQueue %s (flavor %s)", qty(r, short), r, cqName, fo.Flavor)
			fr := resources.FlavorResource{Flavor: fo.Flavor, Resource: r}
			quo, _ := q.Quota(fr)
			if cohort := q.CohortName(); cohort != "" && quo.BorrowingLimit != resources.Unlimited &&
				ro.LimitedBy == cqName && !ro.LimitedByCohort {
				// The queue's own limit holds it back: raised to what it would
				// borrow with the request admitted, the queue gets as much as its
				// cohort has unused, which may not be enough by itself.
				c.BorrowingLimit = qty(r, q.Usage(fr)+ro.Requested-quo.Nominal)
				c.Text += fmt.Sprintf(", or %s's borrowingLimit raised to %s", cqName, c.BorrowingLimit)
				if cohortShort := ro.Requested - max(0, e.s.Cache().CohortAvailable(q, fr)); cohortShort > 0 {
					c.CohortShortfall = qty(r, cohortShort)
					c.Text += fmt.Sprintf(" together with %s more %s unused in cohort %s", c.CohortShortfall, r, cohort)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

func qty(r corev1.ResourceName, v int64) string {
	if v == resources.Unlimited {
		return "unlimited"
	}
	q := resources.ToQuantity(r, v)
	return q.String()
}
