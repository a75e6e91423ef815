//go:build integration

// Package api checks Quokka's API against a real kube-apiserver: the examples apply,
// invalid objects are rejected with the field named, and defaults are applied.
package api

import (
	"fmt"
	"os"
	"testing"

	"quokka.dev/quokka/test/integration/framework"
)

var env *framework.Env

func TestMain(m *testing.M) {
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
