//go:build integration

package framework

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"quokka.dev/quokka/controllers"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/test/kubecluster"
)

// ManagerCommand is `quokka manager` running in-process, as a user types it,
// with the controllers of cmd/quokka. Tests that start it set their logger
// first (controller-runtime keeps the first one set), so the command's own
// logger is ignored.
type ManagerCommand struct {
	cancel   context.CancelFunc
	exited   chan int
	exitCode int
	stderr   *strings.Builder
}

// StartManagerCommand runs `quokka manager args...` until the test ends or
// Stop is called.
func StartManagerCommand(t *testing.T, args ...string) *ManagerCommand {
	t.Helper()
	root := cli.NewRootCommand(cli.Options{Controllers: controllers.All()})
	ctx, cancel := context.WithCancel(context.Background())
	m := &ManagerCommand{cancel: cancel, exited: make(chan int, 1), exitCode: -1, stderr: &strings.Builder{}}
	go func() {
		m.exited <- cli.Execute(ctx, root, append([]string{"manager"}, args...), m.stderr)
	}()
	t.Cleanup(func() { m.Stop(t) })
	return m
}

// Alive returns an error once the command has exited.
func (m *ManagerCommand) Alive() error {
	if m.exitCode < 0 {
		select {
		case m.exitCode = <-m.exited:
		default:
			return nil
		}
	}
	return fmt.Errorf("quokka manager exited with %d: %s", m.exitCode, m.stderr.String())
}

// Stop cancels the command's context and fails the test unless it then exits
// with 0 within 30 seconds.
func (m *ManagerCommand) Stop(t *testing.T) {
	t.Helper()
	m.cancel()
	if m.exitCode >= 0 {
		return
	}
	select {
	case m.exitCode = <-m.exited:
	case <-time.After(30 * time.Second):
		t.Error("quokka manager did not stop within 30s")
		return
	}
	if m.exitCode != 0 {
		t.Errorf("quokka manager exited with %d: %s", m.exitCode, m.stderr.String())
	}
}

// Eventually polls check until it succeeds, for up to a minute, and fails the
// test at once when alive fails (the process it waits on has gone); alive may
// be nil when there is no such process.
func Eventually(t *testing.T, alive func() error, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if alive != nil {
			if err := alive(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after a minute: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t *testing.T) int {
	t.Helper()
	port, err := kubecluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// LogRecorder keeps every line a funcr logger writes (its Record method is a
// funcr.New sink), so a test can look for what the manager logged.
type LogRecorder struct {
	mu  sync.Mutex
	all []string
}

// Record is the funcr sink.
func (r *LogRecorder) Record(prefix, args string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, prefix+" "+args)
}

// Lines returns the lines recorded so far.
func (r *LogRecorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.all...)
}
