//go:build integration

// Package controller runs Quokka's core controllers in-process against a real
// kube-apiserver (envtest) and checks what users and tools see: Workload
// conditions and admissions, queue status, events and metrics.
//
// Tests run one after another, each with its own manager, because two managers
// without leader election would both admit. Objects carry a per-test prefix so
// tests do not see each other's queues.
package controller

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/stdr"
	ctrl "sigs.k8s.io/controller-runtime"

	"quokka.dev/quokka/test/integration/framework"
)

var env *framework.Env

func TestMain(m *testing.M) {
	// QUOKKA_TEST_LOG=<verbosity> shows the managers' logs.
	logger := logr.Discard()
	if v := os.Getenv("QUOKKA_TEST_LOG"); v != "" {
		n, _ := strconv.Atoi(v)
		stdr.SetVerbosity(n)
		logger = stdr.New(nil)
	}
	ctrl.SetLogger(logger)
	var err error
	env, err = framework.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
}
