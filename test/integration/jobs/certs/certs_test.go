//go:build integration

// Package certs tests the manager's own webhook certificate management against a
// real API server: the rotator fills the empty Secret of config/webhook, injects
// its CA into both webhook configurations, and the webhook server then serves a
// certificate that the API server (holding that CA) accepts for the Service's
// DNS name. It has its own API server because the rotator rewrites the
// configurations' caBundle, which the envtest of package jobs relies on.
package certs

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/controllers/jobs/webhooks/certs"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

const namespace = "quokka-system"

func TestManagerIssuesAndInjectsItsWebhookCertificate(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run with KUBEBUILDER_ASSETS=$(hack/envtest.sh)")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(framework.RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Install config/webhook as shipped: namespace, empty Secret, configurations.
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	docs, err := framework.ReadManifests(filepath.Join(framework.RepoRoot(), "config", "webhook"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Object.GetKind() == "Kustomization" {
			continue
		}
		if err := framework.Apply(ctx, c, d.Object); err != nil {
			t.Fatalf("applying %s: %v", d, err)
		}
	}

	port := framework.FreePort(t)
	certDir := t.TempDir()
	conf := configapi.Default()
	conf.Namespace = ptrTo(namespace)
	conf.Webhook = configapi.ControllerWebhook{Host: "127.0.0.1", Port: &port, CertDir: certDir}
	conf.Metrics.BindAddress = "0"
	conf.Health.HealthProbeBindAddress = "0"
	conf.LeaderElection.LeaderElect = ptrTo(false)
	mgr, err := cli.NewManager(cfg, conf, cli.ManagerOptions{Controllers: []cli.Controller{webhooks.Controller()}})
	if err != nil {
		t.Fatal(err)
	}
	mgrCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	// The rotator fills the Secret; the kubelet would then project it into the
	// cert dir. The test does it by hand (the manager's own copy, for a manager
	// outside a Pod, writes the same bytes), so that what follows holds for a
	// manager in a Pod.
	secret := &corev1.Secret{}
	framework.Eventually(t, nil, "secret filled", func() error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: certs.SecretName}, secret); err != nil {
			return err
		}
		for _, k := range []string{"ca.crt", "tls.crt", "tls.key"} {
			if len(secret.Data[k]) == 0 {
				return fmt.Errorf("no %s yet", k)
			}
		}
		return nil
	})
	for _, k := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(certDir, k), secret.Data[k], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ca := secret.Data["ca.crt"]

	framework.Eventually(t, nil, "CA injected into both configurations", func() error {
		m := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: certs.MutatingConfigurationName}, m); err != nil {
			return err
		}
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: certs.ValidatingConfigurationName}, v); err != nil {
			return err
		}
		for _, w := range m.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, ca) {
				return fmt.Errorf("mutating webhook %s has no current caBundle", w.Name)
			}
		}
		for _, w := range v.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, ca) {
				return fmt.Errorf("validating webhook %s has no current caBundle", w.Name)
			}
		}
		return nil
	})

	// The webhook server starts once the certificate is in place, and what it
	// serves verifies against the injected CA for the Service's name.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.crt is not PEM")
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	framework.Eventually(t, nil, "webhook server serving the issued certificate", func() error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{
			RootCAs:    pool,
			ServerName: certs.ServiceName + "." + namespace + ".svc",
		})
		if err != nil {
			return err
		}
		return conn.Close()
	})
}

func ptrTo[T any](v T) *T { return &v }
