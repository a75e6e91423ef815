package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/test/kubecluster"
)

// clusterUser runs kube-controller-manager, kube-scheduler and KWOK.
const clusterUser = "perf-cluster"

// jobsSide is one manager under the Jobs load: its own API server and etcd,
// the cluster's components, the same nodes and queues, the same Jobs.
type jobsSide struct {
	name, dir, crds string
	assets, stages  string
	load            *jobsLoad
	timeout         time.Duration
	// manager returns the manager's command line for a kubeconfig.
	manager func(kubeconfig string) ([]string, error)
}

// jobsResult is what one side measured.
type jobsResult struct {
	name string
	jobs int
	// wall is the first Job created to the last complete.
	wall                       time.Duration
	cpu, apiServerCPU, etcdCPU time.Duration
	// clusterCPU is each cluster component's CPU, start-up included.
	clusterCPU    map[string]time.Duration
	otherCPU      time.Duration
	otherMeasured bool
	classes       map[string]classTimes
	writes        *auditCounts
}

func (s *jobsSide) run(ctx context.Context) (*jobsResult, error) {
	sd := &side{dir: s.dir, crds: s.crds}
	env, err := sd.startAPIServer()
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Stop() }()
	kubeconfigs := map[string]string{}
	for _, u := range []string{managerUser, runnerUser, clusterUser} {
		if kubeconfigs[u], err = writeKubeconfig(env, u, filepath.Join(s.dir, u+".kubeconfig")); err != nil {
			return nil, err
		}
	}
	admin, err := os.ReadFile(kubeconfigs[clusterUser])
	if err != nil {
		return nil, err
	}
	cluster, err := kubecluster.Start(s.assets, admin, s.stages)
	if err != nil {
		return nil, fmt.Errorf("starting the cluster's components: %w", err)
	}
	clusterStopped := false
	defer func() {
		if !clusterStopped {
			cluster.Stop()
		}
	}()

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigs[runnerUser])
	if err != nil {
		return nil, err
	}
	// The load's client must not pace itself: both sides get the same
	// unthrottled creates.
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, err
	}
	if err := applyManifests(ctx, c, s.load.setupManifests()); err != nil {
		return nil, err
	}
	args, err := s.manager(kubeconfigs[managerUser])
	if err != nil {
		return nil, err
	}
	mgr, err := startProcess(args, filepath.Join(s.dir, "manager.log"))
	if err != nil {
		return nil, fmt.Errorf("starting the manager: %w", err)
	}
	defer mgr.stop()

	runCtx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rec := newJobRecorder(s.load.jobs())
	if err := rec.watch(runCtx, cfg); err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	control := startControlPlaneCPU()
	busyStart, busyErr := machineBusy()
	mgrStart := mgr.cpu()
	if err := s.load.generate(runCtx, cs, rec); err != nil {
		return nil, err
	}
	if err := s.wait(runCtx, rec, mgr, cluster); err != nil {
		_ = rec.writeCSV(filepath.Join(s.dir, "jobs.csv"))
		logs := filepath.Join(s.dir, "cluster.log")
		_ = os.WriteFile(logs, []byte(cluster.Logs()), 0o644)
		return nil, fmt.Errorf("%w: %s (see %s and %s)", err, rec.progress(), filepath.Join(s.dir, "manager.log"), logs)
	}
	if err := rec.writeCSV(filepath.Join(s.dir, "jobs.csv")); err != nil {
		return nil, err
	}
	res := &jobsResult{name: s.name, jobs: s.load.jobs()}
	res.apiServerCPU, res.etcdCPU = control.since()
	res.cpu = mgr.cpu() - mgrStart
	if busyEnd, err := machineBusy(); err == nil && busyErr == nil {
		res.otherMeasured = true
		// The cluster's components count as other processes here: they
		// are shown on their own from their whole lifetime.
		res.otherCPU = otherCPU(busyEnd-busyStart, res.apiServerCPU, res.etcdCPU, res.cpu)
	}
	cancel()
	mgr.stop()
	cluster.Stop()
	clusterStopped = true
	res.clusterCPU = cluster.CPU()
	if res.classes, res.wall, err = rec.summarize(); err != nil {
		return nil, err
	}
	counts, err := countAudit(filepath.Join(s.dir, "audit.log"), nil, managerUser)
	if err != nil {
		return nil, err
	}
	res.writes = counts[managerUser]
	return res, nil
}

// wait returns when every Job has completed, or with an error as soon as the
// manager or a cluster component exits, or the run times out.
func (s *jobsSide) wait(ctx context.Context, rec *jobRecorder, mgr *process, cluster *kubecluster.Cluster) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-rec.done:
			return nil
		case <-mgr.done:
			return errors.New("the manager exited")
		case <-ctx.Done():
			return fmt.Errorf("not every Job completed within %s", s.timeout)
		case <-tick.C:
			if err := cluster.Alive(); err != nil {
				return err
			}
		}
	}
}

// kueueManager is the command line of Kueue's own manager (cmd/kueue) with
// the configuration Kueue ships (config/components/manager: client QPS 50 and
// burst 100, the same controller concurrency; without them Kueue's defaults
// are QPS 20 and burst 30; --kueue-qps changes the QPS, the burst following), but only the batch/job integration, no leader
// election, no internal certificate management and no visibility API server. Kueue's webhooks are not registered with the API server (the
// load creates its Jobs suspended, as Kueue's webhook would), but its webhook
// server still needs a certificate, and its metrics server reads one from the
// fixed path /etc/kueue/metrics/certs: both get a self-signed one. extra is
// appended to the Configuration (YAML of top-level fields).
func kueueManager(bin, dir string, qps int, extra string) func(kubeconfig string) ([]string, error) {
	return func(kubeconfig string) ([]string, error) {
		certDir := filepath.Join(dir, "webhook-certs")
		if err := writeSelfSignedCert(certDir); err != nil {
			return nil, err
		}
		const metricsCerts = "/etc/kueue/metrics/certs"
		if _, err := os.Stat(filepath.Join(metricsCerts, "tls.crt")); err != nil {
			if err := writeSelfSignedCert(metricsCerts); err != nil {
				return nil, fmt.Errorf("Kueue's manager reads its metrics certificate from %s: %w", metricsCerts, err)
			}
		}
		webhookPort, err := kubecluster.FreePort()
		if err != nil {
			return nil, err
		}
		config := fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health:
  healthProbeBindAddress: "0"
metrics:
  bindAddress: "0"
webhook:
  port: %d
  certDir: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: %d
  burst: %d
integrations:
  frameworks: ["batch/job"]
`, webhookPort, certDir, qps, 2*qps) + extra
		path := filepath.Join(dir, "kueue-config.yaml")
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			return nil, err
		}
		// The visibility API server (on by default) would need its own
		// certificate in /visibility; the load does not read it.
		return []string{bin, "--config", path, "--kubeconfig", kubeconfig, "--feature-gates=VisibilityOnDemand=false"}, nil
	}
}

// writeSelfSignedCert writes tls.crt and tls.key for 127.0.0.1 into dir.
func writeSelfSignedCert(dir string) error {
	crt, key, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", nil, nil)
	if err != nil {
		return fmt.Errorf("generating a certificate: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), key, 0o600)
}
