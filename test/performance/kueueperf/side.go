package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The API server's in-flight limits for both sides: what Kueue's harness issue
// asks for (the runner itself uses 800/400 when it starts its own server).
const (
	maxRequestsInflight         = "5000"
	maxMutatingRequestsInflight = "2500"
)

// Users the API server tells apart in its audit log.
const (
	managerUser = "perf-manager"
	runnerUser  = "perf-runner"
)

// side is one manager under the harness.
type side struct {
	name    string
	dir     string
	crds    string
	runner  string
	config  string
	timeout time.Duration
	// manager returns the manager's command line for a kubeconfig.
	manager func(kubeconfig string) []string
	chaos   *chaosPlan
}

// sideResult is what one side measured.
type sideResult struct {
	name string
	// wall is the runner's run: first workload created to last finished.
	wall time.Duration
	// cpu is the manager's user+system CPU time (all its processes, under chaos).
	cpu time.Duration
	// The other processes sharing the machine, over the runner's run: they
	// compete with the manager for the same cores, so their CPU time shows
	// where the run's time goes. Zero when not measured (under chaos the API
	// server is restarted).
	apiServerCPU, etcdCPU, runnerCPU time.Duration
	// otherCPU is what every other process on the machine used over the
	// runner's run (see machineBusy), when otherMeasured.
	otherCPU      time.Duration
	otherMeasured bool
	// apiServerGC is the API server's collections and allocations over the
	// runner's run; gcMeasured tells whether they were read (not under chaos,
	// which restarts the API server).
	apiServerGC apiServerGC
	gcMeasured  bool

	summary *summary
	writes  *auditCounts
	// runnerWrites are the runner's: its Finished patches' latency is what
	// holds quota beyond each workload's runtime.
	runnerWrites *auditCounts
	// phases are each class's admission phase (see phaseLog).
	phases map[string]classPhase
	// floors are each class's order floor (see classFloor).
	floors map[string]classFloor
	chaos  *chaosReport
}

func (s *side) run(ctx context.Context) (*sideResult, error) {
	env, err := s.startAPIServer()
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Stop() }()
	managerKC, err := writeKubeconfig(env, managerUser, filepath.Join(s.dir, "manager.kubeconfig"))
	if err != nil {
		return nil, err
	}
	runnerKC, err := writeKubeconfig(env, runnerUser, filepath.Join(s.dir, "runner.kubeconfig"))
	if err != nil {
		return nil, err
	}

	res := &sideResult{name: s.name}
	var mgr *process
	if s.chaos == nil {
		if mgr, err = startProcess(s.manager(managerKC), filepath.Join(s.dir, "manager.log")); err != nil {
			return nil, fmt.Errorf("starting the manager: %w", err)
		}
	}
	var chaosDone chan *chaosReport
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	if s.chaos != nil {
		chaosDone = make(chan *chaosReport, 1)
		go func() { chaosDone <- s.chaos.run(runCtx, s, managerKC) }()
	}

	control := startControlPlaneCPU()
	gcStart, gcErr := readAPIServerGC(ctx, env.Config)
	busyStart, busyErr := machineBusy()
	var mgrStart time.Duration
	if mgr != nil {
		mgrStart = mgr.cpu()
	}
	start := time.Now()
	runner := exec.CommandContext(ctx, s.runner, "--generatorConfig", s.config, "-o", s.dir, "--timeout", s.timeout.String())
	runner.Env = append(os.Environ(), "KUBECONFIG="+runnerKC)
	logf, err := os.Create(filepath.Join(s.dir, "runner.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	runner.Stdout, runner.Stderr = logf, logf
	runErr := runner.Run()
	res.wall = time.Since(start)
	if runner.ProcessState != nil {
		res.runnerCPU = runner.ProcessState.UserTime() + runner.ProcessState.SystemTime()
	}
	if s.chaos == nil {
		res.apiServerCPU, res.etcdCPU = control.since()
		if gcEnd, err := readAPIServerGC(ctx, env.Config); err == nil && gcErr == nil {
			res.apiServerGC, res.gcMeasured = gcEnd.since(gcStart), true
		} else {
			fmt.Fprintf(os.Stderr, "kueueperf: no API server garbage figures in the table: %v\n", errors.Join(gcErr, err))
		}
		if busyEnd, err := machineBusy(); err == nil && busyErr == nil {
			res.otherMeasured = true
			res.otherCPU = otherCPU(busyEnd-busyStart, res.apiServerCPU, res.etcdCPU, res.runnerCPU, mgr.cpu()-mgrStart)
		}
	}
	cancelRun()
	if chaosDone != nil {
		res.chaos = <-chaosDone
		res.cpu = res.chaos.cpu
	} else {
		res.cpu = mgr.cpu()
		mgr.stop()
	}
	if runErr != nil {
		return nil, fmt.Errorf("runner failed (see %s): %w", logf.Name(), runErr)
	}
	if res.summary, err = readSummary(filepath.Join(s.dir, "summary.yaml")); err != nil {
		return nil, err
	}
	phases := newPhaseLog(managerUser, runnerUser)
	counts, err := countAudit(filepath.Join(s.dir, "audit.log"), phases, managerUser, runnerUser)
	if err != nil {
		return nil, err
	}
	res.writes, res.runnerWrites = counts[managerUser], counts[runnerUser]
	res.phases, res.floors = classFigures(phases, s.config)
	return res, nil
}

// classFigures works out each class's phase and order floor from the audit
// log. Without the generator config's classes the table only loses the
// runner's lag and the floors, not the run: the config has already been read
// by the runner.
func classFigures(phases *phaseLog, config string) (map[string]classPhase, map[string]classFloor) {
	runtimes, err := generatorRuntimes(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kueueperf: no runner's lag in the table: reading the workloads' runtimes: %v\n", err)
	}
	classes, cohortQuota, err := generatorShapes(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kueueperf: no order floor in the table: reading the workload classes: %v\n", err)
	}
	return phases.phases(runtimes), phases.floors(classes, cohortQuota)
}

// startAPIServer starts etcd and kube-apiserver with the side's CRDs, the
// in-flight limits and an audit log of every write.
func (s *side) startAPIServer() (*envtest.Environment, error) {
	policy := filepath.Join(s.dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{s.crds}, ErrorIfCRDPathMissing: true}
	env.ControlPlane.GetAPIServer().Configure().
		Set("max-requests-inflight", maxRequestsInflight).
		Set("max-mutating-requests-inflight", maxMutatingRequestsInflight).
		Set("audit-policy-file", policy).
		Set("audit-log-path", filepath.Join(s.dir, "audit.log")).
		Set("audit-log-format", "json").
		Set("audit-log-mode", "batch")
	if _, err := env.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	return env, nil
}

func writeKubeconfig(env *envtest.Environment, user, path string) (string, error) {
	u, err := env.ControlPlane.AddUser(envtest.User{Name: user, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", fmt.Errorf("adding user %s: %w", user, err)
	}
	data, err := u.KubeConfig()
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o600)
}

// process is a child process whose CPU time is read before it is stopped.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startProcess(args []string, logPath string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// cpu reads the process's user and system time from /proc while it runs; after
// it has exited, from its rusage.
func (p *process) cpu() time.Duration {
	select {
	case <-p.done:
		return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	default:
	}
	d, err := procCPU(p.cmd.Process.Pid)
	if err != nil {
		return 0
	}
	return d
}

// stop sends SIGTERM and waits (SIGKILL after 30 s).
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// exited tells whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits: kill -9, for the chaos run.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// controlPlaneCPU is the CPU time kube-apiserver and etcd had used when the
// runner started, so that their start-up (CRDs, RBAC bootstrap) is not counted.
type controlPlaneCPU struct {
	apiServer, etcd time.Duration
}

func startControlPlaneCPU() controlPlaneCPU {
	return controlPlaneCPU{apiServer: childCPU("kube-apiserver"), etcd: childCPU("etcd")}
}

// since is the CPU time each used from the start until now.
func (c controlPlaneCPU) since() (apiServer, etcd time.Duration) {
	return childCPU("kube-apiserver") - c.apiServer, childCPU("etcd") - c.etcd
}

// childCPU is a child process's CPU time by command name, zero if it is not
// found (the table then shows the measurement as missing, not as free).
func childCPU(name string) time.Duration {
	pid, _, err := childProcess(name)
	if err != nil {
		return 0
	}
	d, err := procCPU(pid)
	if err != nil {
		return 0
	}
	return d
}

// procCPU is utime+stime of /proc/PID/stat, in clock ticks of 10 ms (Linux's
// USER_HZ is 100 on every architecture Go supports).
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var state string
	var f [13]int64
	_, err = fmt.Sscan(s[i+1:], &state, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12])
	if err != nil {
		return 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
	}
	// After the state come ppid, pgrp, session, tty_nr, tpgid, flags, minflt,
	// cminflt, majflt, cmajflt, utime, stime.
	return time.Duration(f[10]+f[11]) * 10 * time.Millisecond, nil
}
