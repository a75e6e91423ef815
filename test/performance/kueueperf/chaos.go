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

// chaosPlan runs the quokka side as two replicas with leader election, kills
// the leader with SIGKILL at random moments and restarts it; at every kill it
// checks that no ClusterQueue holds more than its quota and borrowing limit
// allow. (Restarting the API server is not done: envtest gives a restarted
// kube-apiserver new serving certificates, which every client then refuses.)
type chaosPlan struct {
	seed   int64
	quokka string
}

// chaosReport is what the chaos run saw.
type chaosReport struct {
	kills int
	// maxRecover is the longest time from a kill to the lease held by
	// another replica.
	maxRecover time.Duration
	// lost counts workloads the runner saw but never saw finish.
	lost int
	// overAdmissions counts ClusterQueues found over quota + borrowing limit,
	// at a kill or in the runner's per-ClusterQueue maximum.
	overAdmissions int
	cpu            time.Duration
	errors         []string
}

// Lease timings of the chaos replicas: short, so that a kill costs seconds.
const chaosConfig = `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
leaderElection:
  leaderElect: true
  leaseDuration: 6s
  renewDeadline: 4s
  retryPeriod: 1s
webhook:
  port: %d
`

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

func (c *chaosPlan) run(ctx context.Context, s *side, kubeconfig string) *chaosReport {
	rep := &chaosReport{}
	rng := rand.New(rand.NewSource(c.seed))
	k8s, err := kubeClient(kubeconfig)
	if err != nil {
		rep.errors = append(rep.errors, err.Error())
		return rep
	}
	var replicas []*replica
	for i, port := range []int{9443, 9444} {
		cfg := filepath.Join(s.dir, fmt.Sprintf("replica-%d.yaml", i))
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(chaosConfig, port)), 0o644); err != nil {
			rep.errors = append(rep.errors, err.Error())
			return rep
		}
		r := &replica{
			name: fmt.Sprintf("replica-%d", i),
			args: []string{c.quokka, "manager", "--kubeconfig", kubeconfig, "--config", cfg,
				"--metrics-bind-address=0", "--health-probe-bind-address=0"},
			log: filepath.Join(s.dir, fmt.Sprintf("replica-%d.log", i)),
		}
		if err := r.start(); err != nil {
			rep.errors = append(rep.errors, err.Error())
			return rep
		}
		replicas = append(replicas, r)
	}
	for {
		wait := time.Duration(10+rng.Intn(30)) * time.Second
		select {
		case <-ctx.Done():
			rep.overAdmissions += overAdmitted(context.Background(), k8s, rep)
			for _, r := range replicas {
				rep.cpu += r.proc.cpu()
				r.proc.stop()
			}
			rep.overAdmissions += cqMaxOverLimit(filepath.Join(s.dir, "cqStates.csv"), s.config, rep)
			rep.lost = unfinished(filepath.Join(s.dir, "wlStates.csv"), rep)
			return rep
		case <-time.After(wait):
		}
		rep.overAdmissions += overAdmitted(ctx, k8s, rep)
		holder := leaseHolder(ctx, k8s)
		leader := leaderOf(replicas, holder)
		if leader == nil {
			continue // no leader yet (just restarted)
		}
		killed := time.Now()
		rep.cpu += leader.proc.cpu()
		leader.proc.kill()
		rep.kills++
		if err := leader.start(); err != nil {
			rep.errors = append(rep.errors, err.Error())
		}
		for ctx.Err() == nil {
			if h := leaseHolder(ctx, k8s); h != "" && h != holder {
				rep.maxRecover = max(rep.maxRecover, time.Since(killed))
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func kubeClient(kubeconfig string) (client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme.New()})
}

// leaseHolder is the holder of the manager's leader election Lease.
func leaseHolder(ctx context.Context, c client.Client) string {
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases); err != nil {
		return ""
	}
	for _, l := range leases.Items {
		if l.Spec.HolderIdentity != nil && strings.Contains(l.Name, "kueue") {
			return *l.Spec.HolderIdentity
		}
	}
	return ""
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

// unfinished counts the workloads of the runner's timeline that never
// finished.
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
