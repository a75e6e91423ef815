package metrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
)

// Snapshot is what the gauges report, taken from the engine at scrape time.
type Snapshot struct {
	// ReplicaRole is leader, follower or standalone.
	ReplicaRole   string
	ClusterQueues []ClusterQueue
	LocalQueues   []LocalQueue
	// Unadmitted counts the unadmitted workloads by their conditions'
	// reasons (Options.Unadmitted).
	Unadmitted []Unadmitted
	// Cohorts are every Cohort, explicit and implicit, for the Cohort
	// families (cohort.go; the two info families with Options.Cohorts).
	Cohorts []Cohort
	// Finished counts the finished Workloads per LocalQueue for
	// kueue_finished_workloads (lifecycle.go); nil leaves those gauges out.
	Finished FinishedWorkloads
}

// Unadmitted is how many unadmitted workloads of one ClusterQueue, through
// one LocalQueue, have one pair of reasons: Reason is their Admitted
// condition's (NoReservation), UnderlyingCause their QuotaReserved
// condition's (PendingEvaluation before any), as Kueue's
// kueue_unadmitted_workloads labels them. LocalQueue is empty for a workload
// whose LocalQueue does not exist, and ClusterQueue when its ClusterQueue is
// unknown.
type Unadmitted struct {
	ClusterQueue            string
	Namespace, LocalQueue   string
	LocalQueueLabels        map[string]string
	Reason, UnderlyingCause string
	Count                   int
}

// ClusterQueue is one queue's gauges.
type ClusterQueue struct {
	Name, Cohort string
	// ParentCohort and RootCohort are kueue_cluster_queue_info's: its
	// Cohort and that Cohort's root, both empty without a Cohort or when
	// its chain has a cycle.
	ParentCohort, RootCohort string
	// Status is kueue_cluster_queue_status's: StatusPending (inactive),
	// StatusActive or StatusTerminating (being deleted).
	Status              string
	PendingActive       int
	PendingInadmissible int
	// AdmittedWorkloads counts the workloads holding quota in it: the
	// reserving and the admitted ones, which are the same without admission
	// checks.
	AdmittedWorkloads int
	// WeightedShare is reported when fair sharing is on: Kueue's precise
	// share (not the status's rounded one), +Inf for a borrower of weight 0,
	// which the gauge reports as NaN, as Kueue's does.
	WeightedShare *float64
	Cells         []Cell
	// Pending is what its pending workloads ask for, per resource, in the
	// resource's usual unit, before flavors (with ClusterQueueResources).
	Pending []PendingResource
	// ActiveHashes and InadmissibleHashes count the distinct scheduling
	// equivalence classes of its pending workloads, not parked and parked
	// (with Options.SchedulingHashes).
	ActiveHashes, InadmissibleHashes int
}

// PendingResource is one resource of kueue_cluster_queue_resource_pending.
type PendingResource struct {
	Resource string
	Amount   float64
}

// Cell is one flavor and resource of a queue, in the resource's usual unit
// (cores for CPU, bytes for memory, whole units otherwise).
type Cell struct {
	Flavor, Resource string
	Usage            float64
	// Nominal, BorrowingLimit and LendingLimit are reported when not nil;
	// the engine's snapshot gives +Inf for a limit the queue does not set.
	Nominal, BorrowingLimit, LendingLimit *float64
}

// LocalQueue is one LocalQueue's gauges.
type LocalQueue struct {
	Namespace, Name string
	// Labels are the LocalQueue's, read only when Options.LocalQueueSelector
	// is set.
	Labels              map[string]string
	PendingActive       int
	PendingInadmissible int
	// AdmittedWorkloads counts its workloads holding quota.
	AdmittedWorkloads int
	// Active is its Active condition's status: ActiveTrue, ActiveFalse or
	// ActiveUnknown (empty is unknown).
	Active string
	Cells  []Cell
	// ClusterQueue is the one it feeds; AFSUsage, its admission fair sharing
	// usage, is nil unless admission fair sharing is configured.
	ClusterQueue string
	AFSUsage     *float64
}

type gaugeCollector struct {
	opts     Options
	snapshot func() Snapshot
	// cohorts reports the Cohort families from the same snapshot: one
	// engine read and one Workload list per scrape.
	cohorts *cohortFamilies
	// skips is kueue_admission_cycle_preemption_skips, reported for the
	// snapshot's ClusterQueues.
	skips *preemptionSkips

	pending, weightedShare, cqStatus              *prometheus.Desc
	pendingHashes                                 *prometheus.Desc
	reservingActive, admittedActive               *prometheus.Desc
	usage, reservation, pendingResources          *prometheus.Desc
	nominal, borrowingLimit, lendingLimit         *prometheus.Desc
	lqUsage, lqReservation, lqPending, lqAFSUsage *prometheus.Desc
	lqReservingActive, lqAdmittedActive, lqStatus *prometheus.Desc
	unadmitted, lqUnadmitted                      *prometheus.Desc
	finished                                      finishedGauges
}

// Label values of kueue_local_queue_status{active}: the status of the
// LocalQueue's Active condition.
const (
	ActiveTrue    = "True"
	ActiveFalse   = "False"
	ActiveUnknown = "Unknown"
)

var localQueueActiveValues = []string{ActiveTrue, ActiveFalse, ActiveUnknown}

func newGaugeCollector(opts Options, snapshot func() Snapshot) *gaugeCollector {
	cqLabels := []string{"cohort", "cluster_queue", "flavor", "resource", "replica_role"}
	lqCells := []string{"name", "namespace", "flavor", "resource", "replica_role"}
	return &gaugeCollector{
		opts:     opts,
		snapshot: snapshot,
		finished: newFinishedGauges(),
		pending: prometheus.NewDesc("kueue_pending_workloads",
			"The number of pending workloads, per cluster_queue and status (active: waiting for a cycle; inadmissible: the last cycle could not admit it)",
			[]string{"cluster_queue", "status", "replica_role"}, nil),
		pendingHashes: prometheus.NewDesc("kueue_pending_scheduling_hashes",
			"The number of distinct scheduling equivalence hashes of the pending workloads, per cluster_queue and status (active: not parked; inadmissible: parked until a requeue event)",
			[]string{"cluster_queue", "status", "replica_role"}, nil),
		reservingActive: prometheus.NewDesc("kueue_reserving_active_workloads",
			"The number of workloads holding quota reserved in a ClusterQueue",
			[]string{"cluster_queue", "replica_role"}, nil),
		admittedActive: prometheus.NewDesc("kueue_admitted_active_workloads",
			"The number of admitted workloads of a ClusterQueue that have not finished",
			[]string{"cluster_queue", "replica_role"}, nil),
		cqStatus: prometheus.NewDesc("kueue_cluster_queue_status",
			"Reports cluster_queue with its status (pending, active or terminating): 1 for the one it has, 0 for the others",
			[]string{"cluster_queue", "status", "replica_role"}, nil),
		weightedShare: prometheus.NewDesc("kueue_cluster_queue_weighted_share",
			"The ClusterQueue's dominant resource share divided by its fair sharing weight, per thousand",
			[]string{"cluster_queue", "cohort", "replica_role"}, nil),
		usage: prometheus.NewDesc("kueue_cluster_queue_resource_usage",
			"The quota a ClusterQueue's admitted workloads hold, per flavor and resource", cqLabels, nil),
		reservation: prometheus.NewDesc("kueue_cluster_queue_resource_reservation",
			"The quota reserved by a ClusterQueue's workloads, per flavor and resource (its usage, without admission checks)", cqLabels, nil),
		pendingResources: prometheus.NewDesc("kueue_cluster_queue_resource_pending",
			"What a ClusterQueue's pending workloads ask for, per resource, before flavors are assigned",
			[]string{"cluster_queue", "resource", "replica_role"}, nil),
		nominal: prometheus.NewDesc("kueue_cluster_queue_nominal_quota",
			"The nominal quota of a ClusterQueue, per flavor and resource", cqLabels, nil),
		borrowingLimit: prometheus.NewDesc("kueue_cluster_queue_borrowing_limit",
			"The borrowing limit of a ClusterQueue, per flavor and resource", cqLabels, nil),
		lendingLimit: prometheus.NewDesc("kueue_cluster_queue_lending_limit",
			"The lending limit of a ClusterQueue, per flavor and resource", cqLabels, nil),
		lqUsage: prometheus.NewDesc("kueue_local_queue_resource_usage",
			"The quota a LocalQueue's admitted workloads hold, per flavor and resource",
			lqCells, nil),
		lqReservation: prometheus.NewDesc("kueue_local_queue_resource_reservation",
			"The quota reserved by a LocalQueue's workloads, per flavor and resource (its usage, without admission checks)",
			lqCells, nil),
		lqPending: prometheus.NewDesc("kueue_local_queue_pending_workloads",
			"The number of pending workloads of a LocalQueue, per status",
			[]string{"name", "namespace", "status", "replica_role"}, nil),
		lqReservingActive: prometheus.NewDesc("kueue_local_queue_reserving_active_workloads",
			"The number of workloads of a LocalQueue holding quota reserved",
			[]string{"name", "namespace", "replica_role"}, nil),
		lqAdmittedActive: prometheus.NewDesc("kueue_local_queue_admitted_active_workloads",
			"The number of admitted workloads of a LocalQueue that have not finished",
			[]string{"name", "namespace", "replica_role"}, nil),
		lqStatus: prometheus.NewDesc("kueue_local_queue_status",
			"Reports a LocalQueue with the status of its Active condition (True, False or Unknown): 1 for the one it has, 0 for the others",
			[]string{"name", "namespace", "active", "replica_role"}, nil),
		lqAFSUsage: prometheus.NewDesc("kueue_local_queue_admission_fair_sharing_usage",
			"The LocalQueue's admission fair sharing usage: the resource-weighted sum of its decayed consumed resources, divided by its fair sharing weight",
			[]string{"name", "namespace", "cluster_queue", "replica_role"}, nil),
		unadmitted: prometheus.NewDesc("kueue_unadmitted_workloads",
			"The number of unadmitted workloads, per cluster_queue, reason (their Admitted condition's) and underlying_cause (their QuotaReserved condition's)",
			[]string{"cluster_queue", "reason", "underlying_cause", "replica_role"}, nil),
		lqUnadmitted: prometheus.NewDesc("kueue_local_queue_unadmitted_workloads",
			"The number of unadmitted workloads of a LocalQueue, per cluster_queue, reason and underlying_cause",
			[]string{"name", "namespace", "cluster_queue", "reason", "underlying_cause", "replica_role"}, nil),
	}
}

func (g *gaugeCollector) Describe(ch chan<- *prometheus.Desc) {
	if g.cohorts != nil {
		g.cohorts.describe(ch)
	}
	if g.skips != nil {
		ch <- g.skips.desc
	}
	ch <- g.pending
	if g.opts.SchedulingHashes {
		ch <- g.pendingHashes
	}
	ch <- g.cqStatus
	ch <- g.reservingActive
	ch <- g.admittedActive
	if g.opts.FairSharing {
		ch <- g.weightedShare
	}
	if g.opts.ClusterQueueResources {
		ch <- g.usage
		ch <- g.reservation
		ch <- g.pendingResources
		ch <- g.nominal
		ch <- g.borrowingLimit
		ch <- g.lendingLimit
	}
	if g.opts.LocalQueue {
		ch <- g.lqUsage
		ch <- g.lqReservation
		ch <- g.lqPending
		ch <- g.lqAFSUsage
		ch <- g.lqReservingActive
		ch <- g.lqAdmittedActive
		ch <- g.lqStatus
	}
	if g.opts.Unadmitted {
		ch <- g.unadmitted
		if g.opts.LocalQueue {
			ch <- g.lqUnadmitted
		}
	}
	g.finished.describe(ch, g.opts)
}

func (g *gaugeCollector) Collect(ch chan<- prometheus.Metric) {
	// The Cohort counter's mark comes before the snapshot: an admission in
	// a Cohort the snapshot misses is then newer than the mark and kept.
	var since uint64
	if g.cohorts != nil {
		since = g.cohorts.admitted.mark()
	}
	snap := g.snapshot()
	if g.cohorts != nil {
		g.cohorts.collect(ch, snap, since)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if g.skips != nil {
		g.skips.collect(snap, gauge)
	}
	role := snap.ReplicaRole
	for _, cq := range snap.ClusterQueues {
		gauge(g.pending, float64(cq.PendingActive), cq.Name, StatusActive, role)
		gauge(g.pending, float64(cq.PendingInadmissible), cq.Name, StatusInadmissible, role)
		if g.opts.SchedulingHashes {
			gauge(g.pendingHashes, float64(cq.ActiveHashes), cq.Name, StatusActive, role)
			gauge(g.pendingHashes, float64(cq.InadmissibleHashes), cq.Name, StatusInadmissible, role)
		}
		gauge(g.reservingActive, float64(cq.AdmittedWorkloads), cq.Name, role)
		gauge(g.admittedActive, float64(cq.AdmittedWorkloads), cq.Name, role)
		for _, st := range clusterQueueStatuses {
			v := 0.0
			if st == cq.Status {
				v = 1
			}
			gauge(g.cqStatus, v, cq.Name, st, role)
		}
		if g.opts.FairSharing && cq.WeightedShare != nil {
			share := *cq.WeightedShare
			if math.IsInf(share, 1) {
				share = math.NaN()
			}
			gauge(g.weightedShare, share, cq.Name, cq.Cohort, role)
		}
		if !g.opts.ClusterQueueResources {
			continue
		}
		for _, p := range cq.Pending {
			gauge(g.pendingResources, p.Amount, cq.Name, p.Resource, role)
		}
		for _, c := range cq.Cells {
			labels := []string{cq.Cohort, cq.Name, c.Flavor, c.Resource, role}
			gauge(g.usage, c.Usage, labels...)
			gauge(g.reservation, c.Usage, labels...)
			for _, q := range []struct {
				d *prometheus.Desc
				v *float64
			}{{g.nominal, c.Nominal}, {g.borrowingLimit, c.BorrowingLimit}, {g.lendingLimit, c.LendingLimit}} {
				if q.v != nil {
					gauge(q.d, *q.v, labels...)
				}
			}
		}
	}
	if g.opts.Unadmitted {
		g.collectUnadmitted(snap, gauge)
	}
	g.finished.collect(snap, g.opts, gauge)
	if !g.opts.LocalQueue {
		return
	}
	for _, lq := range snap.LocalQueues {
		if sel := g.opts.LocalQueueSelector; sel != nil && !sel.Matches(labels.Set(lq.Labels)) {
			continue
		}
		gauge(g.lqPending, float64(lq.PendingActive), lq.Name, lq.Namespace, StatusActive, role)
		gauge(g.lqPending, float64(lq.PendingInadmissible), lq.Name, lq.Namespace, StatusInadmissible, role)
		gauge(g.lqReservingActive, float64(lq.AdmittedWorkloads), lq.Name, lq.Namespace, role)
		gauge(g.lqAdmittedActive, float64(lq.AdmittedWorkloads), lq.Name, lq.Namespace, role)
		active := lq.Active
		if active == "" {
			active = ActiveUnknown
		}
		for _, st := range localQueueActiveValues {
			v := 0.0
			if st == active {
				v = 1
			}
			gauge(g.lqStatus, v, lq.Name, lq.Namespace, st, role)
		}
		for _, c := range lq.Cells {
			gauge(g.lqUsage, c.Usage, lq.Name, lq.Namespace, c.Flavor, c.Resource, role)
			gauge(g.lqReservation, c.Usage, lq.Name, lq.Namespace, c.Flavor, c.Resource, role)
		}
		if lq.AFSUsage != nil {
			gauge(g.lqAFSUsage, *lq.AFSUsage, lq.Name, lq.Namespace, lq.ClusterQueue, role)
		}
	}
}

// collectUnadmitted sums the counts per ClusterQueue for kueue_unadmitted_workloads
// and reports them per LocalQueue, for the LocalQueues the selector keeps, in
// kueue_local_queue_unadmitted_workloads. A workload whose ClusterQueue is
// unknown is in neither, as in Kueue.
func (g *gaugeCollector) collectUnadmitted(snap Snapshot, gauge func(*prometheus.Desc, float64, ...string)) {
	type cqKey struct{ cq, reason, cause string }
	perCQ := map[cqKey]int{}
	var order []cqKey
	for _, u := range snap.Unadmitted {
		if u.ClusterQueue == "" {
			continue
		}
		k := cqKey{u.ClusterQueue, u.Reason, u.UnderlyingCause}
		if _, ok := perCQ[k]; !ok {
			order = append(order, k)
		}
		perCQ[k] += u.Count
		if !g.opts.LocalQueue || u.LocalQueue == "" {
			continue
		}
		if sel := g.opts.LocalQueueSelector; sel != nil && !sel.Matches(labels.Set(u.LocalQueueLabels)) {
			continue
		}
		gauge(g.lqUnadmitted, float64(u.Count), u.LocalQueue, u.Namespace, u.ClusterQueue, u.Reason, u.UnderlyingCause, snap.ReplicaRole)
	}
	for _, k := range order {
		gauge(g.unadmitted, float64(perCQ[k]), k.cq, k.reason, k.cause, snap.ReplicaRole)
	}
}
