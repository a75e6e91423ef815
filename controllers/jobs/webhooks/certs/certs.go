// Package certs keeps the webhook server's certificate valid without
// cert-manager. It wraps open-policy-agent/cert-controller, the rotator Kueue and
// Gatekeeper use: a self-signed CA and a serving certificate for the webhook
// Service, stored in a Secret that the Deployment mounts at the webhook server's
// cert dir, injected into the caBundle of Quokka's webhook configurations and
// renewed before they expire.
//
// On a cluster that has only Quokka's CRDs, the manager creates the Secret (and
// its namespace) itself, and, outside a Pod, writes the certificate into the cert
// dir where no kubelet mounts the Secret.
package certs

import (
	"context"
	"fmt"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
)

// Names of the objects of config/webhook that the rotator reads and writes.
const (
	SecretName                  = configapi.WebhookSecretName
	ServiceName                 = configapi.WebhookServiceName
	MutatingConfigurationName   = "quokka-mutating-webhook-configuration"
	ValidatingConfigurationName = "quokka-validating-webhook-configuration"
)

// +kubebuilder:rbac:groups="",namespace=quokka-system,resources=secrets,verbs=get;list;watch;update;create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations;validatingwebhookconfigurations,verbs=get;list;watch;update

// Options say where the certificate goes.
type Options struct {
	// Namespace of the Secret and the Service: the manager's namespace.
	Namespace string
	// CertDir is where the Secret is mounted; the rotator waits for the files
	// to appear there before it reports ready.
	CertDir string
}

// Manage adds the rotator to mgr. The returned channel is closed once the
// certificate is on disk and the CA is in the webhook configurations; the webhook
// server must not start before, or it fails to load its certificate. The rotator
// runs on every replica (not only the leader) because every replica serves
// webhooks; they agree through the Secret's resourceVersion.
func Manage(mgr manager.Manager, o Options) (<-chan struct{}, error) {
	if o.Namespace == "" {
		return nil, fmt.Errorf("managing webhook certificates: the manager's namespace is not known")
	}
	ready := make(chan struct{})
	err := rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: o.Namespace, Name: SecretName},
		CertDir:        o.CertDir,
		CAName:         "quokka-ca",
		CAOrganization: "quokka",
		DNSName:        fmt.Sprintf("%s.%s.svc", ServiceName, o.Namespace),
		ExtraDNSNames:  []string{fmt.Sprintf("%s.%s.svc.cluster.local", ServiceName, o.Namespace)},
		IsReady:        ready,
		Webhooks: []rotator.WebhookInfo{
			{Type: rotator.Mutating, Name: MutatingConfigurationName},
			{Type: rotator.Validating, Name: ValidatingConfigurationName},
		},
		RequireLeaderElection: false,
		// The webhook server's certwatcher reloads the files, so the process
		// need not restart when the Secret changes.
		RestartOnSecretRefresh: false,
	})
	if err != nil {
		return nil, fmt.Errorf("adding the webhook certificate rotator: %w", err)
	}
	err = mgr.Add(&certDirWriter{
		reader: mgr.GetAPIReader(),
		secret: types.NamespacedName{Namespace: o.Namespace, Name: SecretName},
		dir:    o.CertDir,
		log:    mgr.GetLogger().WithName("webhook-cert-dir"),
		first:  time.Second,
		later:  time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("adding the webhook cert dir writer: %w", err)
	}
	return ready, nil
}

// EnsureSecret creates the Secret that the rotator fills, empty as config/webhook
// ships it, and the namespace, when they are missing: on a cluster that has only
// the CRDs there is neither, and the rotator stops the manager when it cannot
// read the Secret. It must run before the rotator starts; what exists is left as
// it is. Reads go through c, so c should not read from a cache that would watch
// Secrets in every namespace.
func EnsureSecret(ctx context.Context, c client.Client, namespace string) error {
	key := client.ObjectKey{Namespace: namespace, Name: SecretName}
	err := c.Get(ctx, key, &corev1.Secret{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading the webhook Secret %s: %w", key, err)
	}
	if err := ensureNamespace(ctx, c, namespace); err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: SecretName, Labels: map[string]string{
			"app.kubernetes.io/name":      "quokka",
			"app.kubernetes.io/component": "webhook",
		}},
		Type: corev1.SecretTypeOpaque,
	}
	if err := c.Create(ctx, secret); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // another replica was first
		}
		return fmt.Errorf("creating the webhook Secret %s: %w", key, err)
	}
	ctrl.LoggerFrom(ctx).Info("created the webhook Secret, for the manager to fill with its certificate", "secret", key)
	return nil
}

// ensureNamespace creates the namespace when it is missing. The deployed RBAC
// does not allow it and need not: a manager in a Pod runs in a namespace that
// exists, so only a manager outside the cluster, with its kubeconfig's rights,
// gets here.
func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	err := c.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading namespace %s: %w", name, err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return fmt.Errorf("creating namespace %s for the webhook Secret: %w", name, err)
	}
	ctrl.LoggerFrom(ctx).Info("created the manager's namespace", "namespace", name)
	return nil
}
