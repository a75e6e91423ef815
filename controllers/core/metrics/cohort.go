package metrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Cohort is one Cohort of the Cohort families, explicit or implicit, as the
// engine holds it at scrape time.
type Cohort struct {
	Name string
	// InCycle tells that the Cohort is in or below a cycle of parents: Kueue
	// reports none of its gauges, but it still exists, so its counter stays.
	InCycle bool
	// Parent is its parent's name, "" for a root; Root is its tree's root,
	// itself for a root.
	Parent, Root string
	Cells        []CohortCell
	// ClusterQueues counts the ClusterQueues of its subtree and
	// AdmittedWorkloads the workloads holding quota in them.
	ClusterQueues     int
	AdmittedWorkloads int
	// WeightedShare is its precise share in its parent (0 for a root, +Inf
	// when it borrows with weight 0), reported with Options.FairSharing.
	WeightedShare float64
}

// CohortCell is one flavor and resource of a Cohort's subtree, in the
// resource's usual unit (+Inf for an unlimited amount): the quota the
// subtree holds, and what its ClusterQueues reserve.
type CohortCell struct {
	Flavor, Resource    string
	Quota, Reservations float64
}

// CohortPath names the Cohorts an admission counts in: a ClusterQueue's
// Cohort and that Cohort's ancestors, the root last. The names are joined by
// "/", which no Cohort name has (they are DNS subdomains), so that Workload
// stays a comparable value.
type CohortPath string

// NewCohortPath joins the names, the ClusterQueue's Cohort first.
func NewCohortPath(names []string) CohortPath { return CohortPath(strings.Join(names, "/")) }

// Names splits the path, nil when empty.
func (p CohortPath) Names() []string {
	if p == "" {
		return nil
	}
	return strings.Split(string(p), "/")
}

// cohortFamilies are Kueue's Cohort families: the gauges are read from the
// gauge collector's snapshot at each scrape (one snapshot serves both), so a
// deleted Cohort or ClusterQueue has no series; the admitted workloads
// counter counts each admission in every Cohort above the admitting
// ClusterQueue, and forgets a Cohort once a scrape finds it gone, as Kueue
// clears it on deletion. Kueue's MetricsForCohorts gate (Options.Cohorts)
// turns off kueue_cohort_info and kueue_cluster_queue_info only: Kueue
// reports the other five whatever the gate says (pkg/cache/scheduler,
// recordCohortInfo and recordCQInfo are the gated ones).
type cohortFamilies struct {
	opts Options

	info, clusterQueueInfo, subtreeQuota, reservations *prometheus.Desc
	admittedActive, weightedShare, admittedTotal       *prometheus.Desc
	admitted                                           cohortCounter
}

func newCohortFamilies(opts Options) *cohortFamilies {
	cells := []string{"cohort", "flavor", "resource", "replica_role"}
	return &cohortFamilies{
		opts: opts,
		info: prometheus.NewDesc("kueue_cohort_info",
			"Reports a Cohort with its parent Cohort (empty for a root) and the root of its tree; always 1, for joins on these labels",
			[]string{"cohort", "parent_cohort", "root_cohort", "replica_role"}, nil),
		clusterQueueInfo: prometheus.NewDesc("kueue_cluster_queue_info",
			"Reports a ClusterQueue with its Cohort and the root of that Cohort's tree (both empty without a Cohort); always 1, for joins on these labels",
			[]string{"cluster_queue", "parent_cohort", "root_cohort", "replica_role"}, nil),
		subtreeQuota: prometheus.NewDesc("kueue_cohort_subtree_quota",
			"The nominal quota of a Cohort's subtree (its own plus what its children lend it), per flavor and resource",
			cells, nil),
		reservations: prometheus.NewDesc("kueue_cohort_subtree_resource_reservations",
			"The quota reserved by the workloads of the ClusterQueues of a Cohort's subtree, per flavor and resource",
			cells, nil),
		admittedActive: prometheus.NewDesc("kueue_cohort_subtree_admitted_active_workloads",
			"The number of admitted workloads that have not finished in the ClusterQueues of a Cohort's subtree",
			[]string{"cohort", "replica_role"}, nil),
		weightedShare: prometheus.NewDesc("kueue_cohort_weighted_share",
			"The Cohort's dominant resource share in its parent (usage above its subtree quota over what the parent could lend, per thousand) divided by its fair sharing weight: 0 within quota, +Inf when it borrows with weight 0",
			[]string{"cohort", "replica_role"}, nil),
		admittedTotal: prometheus.NewDesc("kueue_cohort_subtree_admitted_workloads_total",
			"The total number of workloads admitted in the ClusterQueues of a Cohort's subtree, per priority_class",
			[]string{"cohort", "priority_class", "replica_role"}, nil),
		admitted: cohortCounter{counts: map[cohortCount]*cohortTally{}},
	}
}

// countAdmitted counts an admission in each of the workload's Cohorts.
func (c *cohortFamilies) countAdmitted(w Workload, role string) {
	for _, co := range w.Cohorts.Names() {
		c.admitted.inc(cohortCount{cohort: co, priorityClass: w.PriorityClass, role: role})
	}
}

// describe and collect are called by the gauge collector, with its
// snapshot; since is the counter's mark taken before the snapshot.
func (c *cohortFamilies) describe(ch chan<- *prometheus.Desc) {
	if c.opts.Cohorts {
		ch <- c.info
		ch <- c.clusterQueueInfo
	}
	ch <- c.subtreeQuota
	ch <- c.reservations
	ch <- c.admittedActive
	ch <- c.admittedTotal
	if c.opts.FairSharing {
		ch <- c.weightedShare
	}
}

func (c *cohortFamilies) collect(ch chan<- prometheus.Metric, snap Snapshot, since uint64) {
	role := snap.ReplicaRole
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	exists := make(map[string]bool, len(snap.Cohorts))
	for _, co := range snap.Cohorts {
		exists[co.Name] = true
		if co.InCycle {
			continue
		}
		if c.opts.Cohorts {
			gauge(c.info, 1, co.Name, co.Parent, co.Root, role)
		}
		// Kueue clears a cell's series when it is 0 rather than report 0.
		for _, cell := range co.Cells {
			if cell.Quota > 0 {
				gauge(c.subtreeQuota, cell.Quota, co.Name, cell.Flavor, cell.Resource, role)
			}
			if cell.Reservations > 0 {
				gauge(c.reservations, cell.Reservations, co.Name, cell.Flavor, cell.Resource, role)
			}
		}
		// Kueue reports the count for the Cohorts above a ClusterQueue,
		// 0 included, and for no other.
		if co.ClusterQueues > 0 {
			gauge(c.admittedActive, float64(co.AdmittedWorkloads), co.Name, role)
		}
		if c.opts.FairSharing {
			gauge(c.weightedShare, co.WeightedShare, co.Name, role)
		}
	}
	for _, cq := range snap.ClusterQueues {
		if c.opts.Cohorts {
			gauge(c.clusterQueueInfo, 1, cq.Name, cq.ParentCohort, cq.RootCohort, role)
		}
	}
	c.admitted.collect(ch, c.admittedTotal, exists, since)
}

// cohortCount names one series of kueue_cohort_subtree_admitted_workloads_total.
type cohortCount struct{ cohort, priorityClass, role string }

// cohortTally is a series' count and the sequence number of its last
// increment.
type cohortTally struct {
	n   float64
	seq uint64
}

// cohortCounter is kueue_cohort_subtree_admitted_workloads_total. A scrape
// forgets the series of Cohorts its snapshot no longer has, but only those
// last counted before the snapshot was taken: a later admission may be in a
// Cohort created after it.
type cohortCounter struct {
	mu     sync.Mutex
	seq    uint64
	counts map[cohortCount]*cohortTally
}

func (c *cohortCounter) inc(k cohortCount) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t, ok := c.counts[k]
	if !ok {
		t = &cohortTally{}
		c.counts[k] = t
	}
	t.n++
	t.seq = c.seq
}

// mark returns the sequence number of the last increment so far.
func (c *cohortCounter) mark() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// collect reports the series, forgetting those of Cohorts that no longer
// exist and were last counted at or before since.
func (c *cohortCounter) collect(ch chan<- prometheus.Metric, d *prometheus.Desc, exists map[string]bool, since uint64) {
	var out []prometheus.Metric
	c.mu.Lock()
	for k, t := range c.counts {
		if !exists[k.cohort] && t.seq <= since {
			delete(c.counts, k)
			continue
		}
		out = append(out, prometheus.MustNewConstMetric(d, prometheus.CounterValue, t.n, k.cohort, k.priorityClass, k.role))
	}
	c.mu.Unlock()
	// Sent unlocked: a slow scrape must not hold up admissions.
	for _, m := range out {
		ch <- m
	}
}
