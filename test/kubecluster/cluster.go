// Package kubecluster runs the rest of a cluster around an API server for
// tests and benchmarks: the Job and garbage-collector controllers of
// kube-controller-manager, kube-scheduler, and KWOK (fake kubelets). The
// binaries are hack/envtest.sh's, built with `hack/envtest.sh --cluster`.
package kubecluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Cluster is the rest of a cluster around an API server: the Job and
// garbage-collector controllers of kube-controller-manager, kube-scheduler,
// and KWOK, which plays the kubelet of every Node annotated
// kwok.x-k8s.io/node=fake (it marks them Ready and runs the pods bound to
// them through the stages of stagesFile). Jobs admitted by a manager then get
// real pods, placed by the real scheduler on the nodes of their flavors.
type Cluster struct {
	cancel context.CancelFunc
	// dir holds the components' kubeconfig.
	dir string
	wg  sync.WaitGroup

	mu    sync.Mutex
	procs []*clusterProc
}

type clusterProc struct {
	name string
	out  *bytes.Buffer
	err  error
	done bool
	// cpu is the process's user and system time, once it has exited.
	cpu time.Duration
}

// FakeNodeAnnotation marks the Nodes KWOK plays.
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// binaries are the files Start needs in the assets directory.
var binaries = []string{"kube-controller-manager", "kube-scheduler", "kwok"}

// Start starts kube-controller-manager, kube-scheduler and KWOK from the
// assets directory (hack/envtest.sh --cluster) against the API server of
// kubeconfig (the file's contents), whose user must be an administrator.
// stagesFile holds KWOK's Stages (how nodes and pods move through their
// lifecycle).
func Start(assets string, kubeconfig []byte, stagesFile string) (*Cluster, error) {
	for _, bin := range binaries {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return nil, fmt.Errorf("%s is missing from %s: build it with `hack/envtest.sh --cluster`: %w", bin, assets, err)
		}
	}
	dir, err := os.MkdirTemp("", "quokka-cluster-")
	if err != nil {
		return nil, fmt.Errorf("creating the cluster's directory: %w", err)
	}
	kcfg := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kcfg, kubeconfig, 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("writing %s: %w", kcfg, err)
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = FreePort(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cluster{cancel: cancel, dir: dir}
	// The job controller creates and deletes the pods of unsuspended and
	// suspended Jobs; the garbage collector deletes a Job's pods and Workload
	// with the Job. Nothing else runs: no node lifecycle controller taints the
	// fake nodes, and no service account tokens are needed (envtest's API
	// server does not require them).
	c.start(ctx, filepath.Join(assets, "kube-controller-manager"),
		"--kubeconfig="+kcfg, "--controllers=job,garbagecollector", "--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[0]),
		"--concurrent-job-syncs=5", "--v=1")
	c.start(ctx, filepath.Join(assets, "kube-scheduler"),
		"--kubeconfig="+kcfg, "--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[1]), "--v=1")
	c.start(ctx, filepath.Join(assets, "kwok"),
		"--kubeconfig="+kcfg, "--config="+stagesFile,
		"--manage-nodes-with-annotation-selector="+FakeNodeAnnotation+"=fake",
		"--server-address=127.0.0.1:"+strconv.Itoa(ports[2]), "--node-lease-duration-seconds=0")
	time.Sleep(time.Second)
	if err := c.Alive(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, bin string, args ...string) {
	p := &clusterProc{name: filepath.Base(bin), out: &bytes.Buffer{}}
	cmd := exec.CommandContext(ctx, bin, args...)
	w := &lockedWriter{mu: &c.mu, buf: p.out}
	cmd.Stdout, cmd.Stderr = w, w
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := cmd.Run()
		c.mu.Lock()
		p.err, p.done = err, true
		if cmd.ProcessState != nil {
			p.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		c.mu.Unlock()
	}()
}

// Alive returns an error naming the first component that exited, with the
// end of its output.
func (c *Cluster) Alive() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		if p.done {
			return fmt.Errorf("%s exited (%v): %s", p.name, p.err, tail(p.out.Bytes(), 4000))
		}
	}
	return nil
}

// Logs returns the end of every component's output, for a failing test.
func (c *Cluster) Logs() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b bytes.Buffer
	for _, p := range c.procs {
		fmt.Fprintf(&b, "==== %s\n%s\n", p.name, tail(p.out.Bytes(), 6000))
	}
	return b.String()
}

// Stop ends the components and removes their directory.
func (c *Cluster) Stop() {
	c.cancel()
	c.wg.Wait()
	_ = os.RemoveAll(c.dir)
}

// CPU is the user and system time the components used, by name; call it
// after Stop (a running component counts as zero).
func (c *Cluster) CPU() map[string]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]time.Duration, len(c.procs))
	for _, p := range c.procs {
		m[p.name] += p.cpu
	}
	return m
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// FreePort asks the kernel for a local TCP port that is free at the moment.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("finding a free port: not a TCP address")
	}
	return addr.Port, nil
}
