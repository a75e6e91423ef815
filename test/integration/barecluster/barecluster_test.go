//go:build integration

// Package barecluster runs `quokka manager` as a new user first does: against an
// API server that has Quokka's CRDs and nothing else (no namespace, no webhook
// Secret, no webhook configurations), with a kubeconfig, from outside the
// cluster. It has its own API server, since every other package installs more.
package barecluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/controllers/jobs/webhooks/certs"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

const namespace = "quokka-system"

// Issue 16: "`quokka manager` starts on any cluster that has the CRDs." It
// creates its namespace and webhook Secret, fills the Secret, serves webhooks
// with that certificate, says once that the webhooks are not registered, and
// admits a Workload.
func TestManagerStartsOnAClusterWithOnlyTheCRDs(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run with KUBEBUILDER_ASSETS=$(hack/envtest.sh)")
	}
	// The first logger set wins, so the command's own (klog's text logger on
	// stderr) is ignored and its lines are recorded here.
	logs := &framework.LogRecorder{}
	ctrl.SetLogger(funcr.New(logs.Record, funcr.Options{}))

	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(framework.RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	restConfig, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(restConfig, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	webhookPort := framework.FreePort(t)
	certDir := filepath.Join(dir, "certs")
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, fmt.Appendf(nil, `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
`, namespace, webhookPort, certDir), 0o600); err != nil {
		t.Fatal(err)
	}
	healthAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(framework.FreePort(t)))

	// The command as a user types it, leader election on (its Lease goes to the
	// namespace that does not exist yet), with the controllers of cmd/quokka.
	mgr := framework.StartManagerCommand(t, "--kubeconfig", kubeconfig, "--config", config,
		"--metrics-bind-address", "0", "--health-probe-bind-address", healthAddr)
	defer func() {
		// QUOKKA_TEST_LOG shows the log of a run that passed, too.
		if t.Failed() || os.Getenv("QUOKKA_TEST_LOG") != "" {
			t.Logf("manager log:\n%s", strings.Join(logs.Lines(), "\n"))
		}
	}()

	// A Workload is admitted: the manager runs and leads.
	if err := c.Create(ctx, &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "default-flavor"}}); err != nil {
		t.Fatal(err)
	}
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: kueue.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors: []kueue.FlavorQuotas{{Name: "default-flavor", Resources: []kueue.ResourceQuota{
					{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("4")},
				}}},
			}},
		},
	}
	lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "team"},
		Spec: kueue.LocalQueueSpec{ClusterQueue: "team"}}
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "first"},
		Spec: kueue.WorkloadSpec{
			QueueName: "team",
			PodSets: []kueue.PodSet{{
				Name:  kueue.DefaultPodSetName,
				Count: 1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
					}}},
				}},
			}},
		},
	}
	for _, o := range []client.Object{cq, lq, wl} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	framework.Eventually(t, mgr.Alive, "the Workload admitted", framework.WorkloadAdmitted(ctx, c, client.ObjectKeyFromObject(wl)))

	// The manager made its namespace and Secret, and filled the Secret.
	secret := &corev1.Secret{}
	framework.Eventually(t, mgr.Alive, "the webhook Secret created and filled", func() error {
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

	// With no kubelet to mount the Secret, the manager wrote the certificate to
	// its cert dir itself: the webhook server is ready and serves a certificate
	// the Secret's CA signed for the webhook Service.
	framework.Eventually(t, mgr.Alive, "the manager ready (webhook server started)", func() error {
		resp, err := http.Get("http://" + healthAddr + "/readyz")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(secret.Data["ca.crt"]) {
		t.Fatal("ca.crt is not PEM")
	}
	conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(webhookPort)), &tls.Config{
		RootCAs:    pool,
		ServerName: certs.ServiceName + "." + namespace + ".svc",
	})
	if err != nil {
		t.Fatalf("webhook server's certificate: %v", err)
	}
	_ = conn.Close()

	// Said once, and kept running: the manager stops only when told to.
	if err := mgr.Alive(); err != nil {
		t.Fatal(err)
	}
	mgr.Stop(t)
	var notices []string
	for _, l := range logs.Lines() {
		if strings.Contains(l, webhooks.UnregisteredMessage) {
			notices = append(notices, l)
		}
	}
	if len(notices) != 1 {
		t.Errorf("%d log lines say that the webhooks are not registered, want 1:\n%s", len(notices), strings.Join(notices, "\n"))
	}
}
