//go:build integration

// Package framework starts a real kube-apiserver and etcd (envtest) with Quokka's
// CRDs installed, for the integration tests under test/integration.
//
// The binaries come from hack/envtest.sh, which builds them from the Go module
// proxy; `make test-integration` sets KUBEBUILDER_ASSETS to its output.
package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"quokka.dev/quokka/internal/scheme"
)

// Env is a running API server with a client that knows Quokka's kinds.
type Env struct {
	Config *rest.Config
	Client client.Client
	env    *envtest.Environment
}

// RepoRoot returns the repository's root directory, found from this file's path so
// that tests can read config/crd and examples/ wherever `go test` runs them.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Start launches etcd and kube-apiserver with the CRDs of config/crd/bases.
func Start() (*Env, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, fmt.Errorf("KUBEBUILDER_ASSETS is not set: run the integration tests with `make test-integration`, which builds the API server with hack/envtest.sh")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("creating client: %w", err)
	}
	return &Env{Config: cfg, Client: c, env: env}, nil
}

// Stop shuts the API server and etcd down.
func (e *Env) Stop() error {
	return e.env.Stop()
}
