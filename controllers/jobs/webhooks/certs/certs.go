// Package certs keeps the webhook server's certificate valid without
// cert-manager. It wraps open-policy-agent/cert-controller, the rotator Kueue and
// Gatekeeper use: a self-signed CA and a serving certificate for the webhook
// Service, stored in a Secret that the Deployment mounts at the webhook server's
// cert dir, injected into the caBundle of Quokka's webhook configurations and
// renewed before they expire.
package certs

import (
	"fmt"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
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

// +kubebuilder:rbac:groups="",namespace=quokka-system,resources=secrets,verbs=get;list;watch;update
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
	return ready, nil
}
