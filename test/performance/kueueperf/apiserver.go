package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// A restart of the API server must keep what its clients trust: envtest's
// own Stop and Start would issue new serving certificates (a new CA), which
// every running client, the runner among them, would then refuse. So the
// chaos run restarts the process itself: it kills envtest's kube-apiserver
// (kill -9, as a node failure would) and starts the same binary with the same
// command line, whose certificate files are still on disk. etcd keeps running
// and keeps every object.

// apiServerProcess finds the kube-apiserver this process started through
// envtest.
func apiServerProcess() (pid int, argv []string, err error) {
	return childProcess("kube-apiserver")
}

// childProcess finds a child process of ours by its command name (envtest
// starts kube-apiserver and etcd as children of the harness).
func childProcess(name string) (pid int, argv []string, err error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, nil, err
	}
	self := os.Getpid()
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		if parent, err := parentOf(p); err != nil || parent != self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			return 0, nil, err
		}
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		return p, argv, nil
	}
	return 0, nil, fmt.Errorf("no %s child process found", name)
}

// parentOf reads the parent PID from /proc/PID/stat.
func parentOf(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var state string
	var ppid int
	if _, err := fmt.Sscan(string(data[i+1:]), &state, &ppid); err != nil {
		return 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
	}
	return ppid, nil
}

// killAndStartAPIServer kills the running kube-apiserver with SIGKILL, starts it
// again with the same command line (its output appended to logPath) and waits
// until it answers /readyz. It returns the new process, which the caller
// stops before envtest's Stop, and how long the API server was down.
func killAndStartAPIServer(ctx context.Context, kubeconfig, logPath string) (*process, time.Duration, error) {
	pid, argv, err := apiServerProcess()
	if err != nil {
		return nil, 0, err
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return nil, 0, err
	}
	killed := time.Now()
	if err := proc.Kill(); err != nil {
		return nil, 0, fmt.Errorf("killing kube-apiserver %d: %w", pid, err)
	}
	// envtest waits for its child and so reaps it; wait until it is gone so
	// that the new process can bind the same port.
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			break
		}
		if time.Since(killed) > 30*time.Second {
			return nil, 0, fmt.Errorf("kube-apiserver %d did not exit after SIGKILL", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p, err := startProcess(argv, logPath)
	if err != nil {
		return nil, 0, fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	if err := waitReady(ctx, kubeconfig, 2*time.Minute); err != nil {
		return p, 0, err
	}
	return p, time.Since(killed), nil
}

// waitReady polls the API server's /readyz with the kubeconfig's credentials.
func waitReady(ctx context.Context, kubeconfig string, timeout time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.Timeout = 2 * time.Second
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(cfg.Host, "/")+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready %s after its restart", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
