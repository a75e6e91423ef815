package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

// chaosPlan runs the quokka side as two replicas with leader election, as a
// Deployment with two replicas and restartPolicy Always would: it kills the
// leader with SIGKILL at random moments, restarts every replica that exits
// (a replica that loses its lease while the API server is down exits), and
// once all workloads exist it kills the API server with SIGKILL and starts it
// again (apiserver.go). At every kill it checks that no ClusterQueue holds
// more than its quota and borrowing limit allow.
type chaosPlan struct {
	seed   int64
	quokka string
}

// chaosReport is what the chaos run saw.
type chaosReport struct {
	kills int
	// maxRecover is the longest time from a kill of the leader to the lease
	// held by another replica; maxAfterExpiry the longest time from the
	// killed leader's lease expiring (its last renewal + leaseDuration) to
	// the lease held by another replica: the follower's part of the
	// takeover, which must stay within the lease duration.
	maxRecover     time.Duration
	maxAfterExpiry time.Duration
	// apiRestarts counts API server restarts; apiDown is how long the API
	// server was away, and apiRecover the time from its kill to a replica
	// holding a renewed lease again.
	apiRestarts int
	apiDown     time.Duration
	apiRecover  time.Duration
	// exits counts replicas that exited on their own and were restarted.
	exits int
	// lost counts the Workloads not Finished in the API server at the end.
	lost int
	// timelineGaps counts the workloads of the runner's timeline with no
	// recorded finish, and dropped the workload events its recorder dropped
	// (its channel full, as when the API server's restart makes every
	// informer list again): gaps without drops are lost workloads too.
	timelineGaps int
	dropped      int64
	// overAdmissions counts ClusterQueues found over quota + borrowing limit,
	// at a kill or in the runner's per-ClusterQueue maximum.
	overAdmissions int
	cpu            time.Duration
	errors         []string
}

// Lease timings of the chaos replicas: short, so that a kill costs seconds.
const (
	chaosLease  = 6 * time.Second
	chaosConfig = `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
leaderElection:
  leaderElect: true
  leaseDuration: 6s
  renewDeadline: 4s
  retryPeriod: 1s
webhook:
  port: %d
`
)

type replica struct {
	name string
	args []string
	log  string
	proc *process
	// logStart is the log's size when the current process started: only what
	// it wrote says whether it leads.
	logStart int64
}

// start starts (or restarts) the replica's process, appending to its log.
func (r *replica) start() error {
	if st, err := os.Stat(r.log); err == nil {
		r.logStart = st.Size()
	}
	p, err := startProcess(r.args, r.log)
	if err != nil {
		return err
	}
	r.proc = p
	return nil
}

// exited tells whether the replica's process has ended.
func (r *replica) exited() bool { return r.proc.exited() }

// chaosRun is the state of one chaos run.
type chaosRun struct {
	plan      *chaosPlan
	side      *side
	k8s       client.Client
	kc        string
	rep       *chaosReport
	replicas  []*replica
	apiServer *process // the restarted kube-apiserver, once restarted
}

func (c *chaosPlan) run(ctx context.Context, s *side, kubeconfig string) *chaosReport {
	cr := &chaosRun{plan: c, side: s, kc: kubeconfig, rep: &chaosReport{}}
	rng := rand.New(rand.NewSource(c.seed))
	var err error
	if cr.k8s, err = kubeClient(kubeconfig); err != nil {
		cr.fail(err)
		return cr.rep
	}
	for i, port := range []int{9443, 9444} {
		cfg := filepath.Join(s.dir, fmt.Sprintf("replica-%d.yaml", i))
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(chaosConfig, port)), 0o644); err != nil {
			cr.fail(err)
			return cr.rep
		}
		r := &replica{
			name: fmt.Sprintf("replica-%d", i),
			args: []string{c.quokka, "manager", "--kubeconfig", kubeconfig, "--config", cfg,
				"--metrics-bind-address=0", "--health-probe-bind-address=0"},
			log: filepath.Join(s.dir, fmt.Sprintf("replica-%d.log", i)),
		}
		if err := r.start(); err != nil {
			cr.fail(err)
			return cr.rep
		}
		cr.replicas = append(cr.replicas, r)
	}
	next := time.Now().Add(time.Duration(10+rng.Intn(30)) * time.Second)
	for {
		select {
		case <-ctx.Done():
			cr.finish()
			return cr.rep
		case <-time.After(250 * time.Millisecond):
		}
		cr.superviseReplicas()
		if time.Now().Before(next) {
			continue
		}
		if cr.rep.apiRestarts == 0 && cr.generatorDone() {
			cr.restartAPIServer(ctx)
		} else {
			cr.killLeader(ctx)
		}
		next = time.Now().Add(time.Duration(10+rng.Intn(30)) * time.Second)
	}
}

func (cr *chaosRun) fail(err error) {
	cr.rep.errors = append(cr.rep.errors, err.Error())
}

// superviseReplicas restarts the replicas that exited on their own.
func (cr *chaosRun) superviseReplicas() {
	for _, r := range cr.replicas {
		if !r.exited() {
			continue
		}
		cr.rep.exits++
		cr.rep.cpu += r.proc.cpu()
		if err := r.start(); err != nil {
			cr.fail(fmt.Errorf("restarting %s: %w", r.name, err))
		}
	}
}

// generatorDone tells whether the runner has created every workload: until
// then an unreachable API server would fail the runner's creates, which it
// does not retry.
func (cr *chaosRun) generatorDone() bool {
	data, err := os.ReadFile(filepath.Join(cr.side.dir, "runner.log"))
	return err == nil && strings.Contains(string(data), "Generator done")
}

// killLeader kills the replica that holds the lease, restarts it, and waits
// for another holder.
func (cr *chaosRun) killLeader(ctx context.Context) {
	cr.rep.overAdmissions += overAdmitted(ctx, cr.k8s, cr.rep)
	lease, ok := managerLease(ctx, cr.k8s)
	if !ok {
		return
	}
	leader := leaderOf(cr.replicas, lease.holder)
	if leader == nil {
		return // no leader yet (just restarted)
	}
	killed := time.Now()
	cr.rep.cpu += leader.proc.cpu()
	leader.proc.kill()
	cr.rep.kills++
	if err := leader.start(); err != nil {
		cr.fail(err)
	}
	for ctx.Err() == nil {
		if l, ok := managerLease(ctx, cr.k8s); ok && l.holder != "" && l.holder != lease.holder {
			now := time.Now()
			cr.rep.maxRecover = max(cr.rep.maxRecover, now.Sub(killed))
			cr.rep.maxAfterExpiry = max(cr.rep.maxAfterExpiry, now.Sub(lease.renewed.Add(chaosLease)))
			return
		}
		cr.superviseReplicas()
		time.Sleep(100 * time.Millisecond)
	}
}

// restartAPIServer kills the API server and starts it again, then waits
// for a replica to hold a lease renewed after the kill.
func (cr *chaosRun) restartAPIServer(ctx context.Context) {
	cr.rep.overAdmissions += overAdmitted(ctx, cr.k8s, cr.rep)
	killed := time.Now()
	p, down, err := killAndStartAPIServer(ctx, cr.kc, filepath.Join(cr.side.dir, "apiserver-restarted.log"))
	if p != nil {
		cr.apiServer = p
	}
	cr.rep.apiRestarts++
	if err != nil {
		cr.fail(fmt.Errorf("restarting the API server: %w", err))
		return
	}
	cr.rep.apiDown = down
	for ctx.Err() == nil {
		if l, ok := managerLease(ctx, cr.k8s); ok && l.holder != "" && l.renewed.After(killed.Add(down)) {
			cr.rep.apiRecover = time.Since(killed)
			return
		}
		cr.superviseReplicas()
		time.Sleep(100 * time.Millisecond)
	}
}

// finish checks the final state, stops the replicas and the restarted API
// server (before envtest stops the rest), and reads the runner's timelines.
func (cr *chaosRun) finish() {
	cr.rep.overAdmissions += overAdmitted(context.Background(), cr.k8s, cr.rep)
	cr.rep.lost = unfinishedInAPI(context.Background(), cr.k8s, cr.rep)
	for _, r := range cr.replicas {
		cr.rep.cpu += r.proc.cpu()
		r.proc.stop()
	}
	if cr.apiServer != nil {
		cr.apiServer.stop()
	}
	dir := cr.side.dir
	cr.rep.overAdmissions += cqMaxOverLimit(filepath.Join(dir, "cqStates.csv"), cr.side.config, cr.rep)
	cr.rep.timelineGaps = unfinished(filepath.Join(dir, "wlStates.csv"), cr.rep)
	if sum, err := readSummary(filepath.Join(dir, "summary.yaml")); err == nil {
		cr.rep.dropped = sum.DroppedWorkloadEvents
	}
	if cr.rep.timelineGaps > 0 && cr.rep.dropped == 0 {
		cr.fail(fmt.Errorf("the runner never saw %d workloads finish, and its recorder dropped no event", cr.rep.timelineGaps))
	}
}

// unfinishedInAPI counts the Workloads that are not Finished in the API
// server: the runner marks every workload it plays Finished, so any other is
// lost or stuck.
func unfinishedInAPI(ctx context.Context, c client.Client, rep *chaosReport) int {
	var wls kueue.WorkloadList
	if err := c.List(ctx, &wls); err != nil {
		rep.errors = append(rep.errors, fmt.Sprintf("listing Workloads at the end: %v", err))
		return 0
	}
	n := 0
	for _, wl := range wls.Items {
		if !meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			n++
			if n <= 10 {
				rep.errors = append(rep.errors, fmt.Sprintf("Workload %s/%s is not Finished at the end", wl.Namespace, wl.Name))
			}
		}
	}
	if len(wls.Items) == 0 {
		rep.errors = append(rep.errors, "no Workload left in the API server to check at the end")
	}
	return n
}

func kubeClient(kubeconfig string) (client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme.New()})
}

// lease is the manager's leader election Lease: its holder and last renewal.
type lease struct {
	holder  string
	renewed time.Time
}

// managerLease reads the manager's leader election Lease.
func managerLease(ctx context.Context, c client.Client) (lease, bool) {
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases); err != nil {
		return lease{}, false
	}
	for _, l := range leases.Items {
		if !strings.Contains(l.Name, "kueue") {
			continue
		}
		var out lease
		if l.Spec.HolderIdentity != nil {
			out.holder = *l.Spec.HolderIdentity
		}
		if l.Spec.RenewTime != nil {
			out.renewed = l.Spec.RenewTime.Time
		}
		return out, true
	}
	return lease{}, false
}

// leaderOf finds the replica that holds the lease: the one whose current
// process logged that it acquired it. The holder identity (hostname_uuid)
// names no process.
func leaderOf(replicas []*replica, holder string) *replica {
	if holder == "" {
		return nil
	}
	for _, r := range replicas {
		data, err := os.ReadFile(r.log)
		if err != nil || int64(len(data)) < r.logStart {
			continue
		}
		if strings.Contains(strings.ToLower(string(data[r.logStart:])), "successfully acquired lease") {
			return r
		}
	}
	return nil
}

// overAdmitted counts the ClusterQueues whose admitted, unfinished Workloads
// hold more cpu than nominal quota + borrowing limit.
func overAdmitted(ctx context.Context, c client.Client, rep *chaosReport) int {
	var cqs kueue.ClusterQueueList
	var wls kueue.WorkloadList
	if err := c.List(ctx, &cqs); err != nil {
		return 0
	}
	if err := c.List(ctx, &wls); err != nil {
		return 0
	}
	used := map[string]int64{}
	for _, wl := range wls.Items {
		a := wl.Status.Admission
		// A finished Workload keeps its admission but holds no quota.
		if a == nil || meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			continue
		}
		for _, ps := range a.PodSetAssignments {
			if q, ok := ps.ResourceUsage["cpu"]; ok {
				used[string(a.ClusterQueue)] += q.MilliValue()
			}
		}
	}
	n := 0
	for _, cq := range cqs.Items {
		var limit int64
		for _, rg := range cq.Spec.ResourceGroups {
			for _, f := range rg.Flavors {
				for _, r := range f.Resources {
					if r.Name != "cpu" {
						continue
					}
					limit += r.NominalQuota.MilliValue()
					if r.BorrowingLimit != nil {
						limit += r.BorrowingLimit.MilliValue()
					} else {
						limit = 1 << 62
					}
				}
			}
		}
		if used[cq.Name] > limit {
			n++
			rep.errors = append(rep.errors, fmt.Sprintf("ClusterQueue %s holds %dm cpu, more than %dm", cq.Name, used[cq.Name], limit))
		}
	}
	return n
}

// cqMaxOverLimit reads the runner's per-ClusterQueue maximum usage and counts
// ClusterQueues above nominal + borrowing limit of the generator config.
func cqMaxOverLimit(csvPath, config string, rep *chaosReport) int {
	limits, err := generatorLimits(config)
	if err != nil {
		rep.errors = append(rep.errors, err.Error())
		return 0
	}
	rows, err := readCSV(csvPath)
	if err != nil {
		rep.errors = append(rep.errors, err.Error())
		return 0
	}
	n := 0
	for _, row := range rows {
		// name, cohort, class name, CPU quota, CPU used, CPU max usage, monitor time
		if len(row) < 6 {
			continue
		}
		maxUsage, _ := strconv.ParseInt(row[5], 10, 64)
		if limit, ok := limits[row[2]]; ok && maxUsage > limit {
			n++
			rep.errors = append(rep.errors, fmt.Sprintf("ClusterQueue %s reached %dm cpu, more than %dm", row[0], maxUsage, limit))
		}
	}
	return n
}

// unfinished counts the workloads of the runner's timeline with no recorded
// finish.
func unfinished(csvPath string, rep *chaosReport) int {
	rows, err := readCSV(csvPath)
	if err != nil {
		rep.errors = append(rep.errors, err.Error())
		return 0
	}
	n := 0
	for _, row := range rows {
		// id, class name, namespace, name, ms to admitted, ms to finish, evictions
		if len(row) >= 6 && row[5] == "0" {
			n++
		}
	}
	return n
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[1:], nil
}
