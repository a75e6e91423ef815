package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/webhooks/certs"
	"quokka.dev/quokka/internal/cli"
)

// Paths of the webhooks; config/webhook/manifests.yaml names the same.
const (
	MutateJobPath            = "/mutate-batch-v1-job"
	ValidateJobPath          = "/validate-batch-v1-job"
	ValidateLocalQueuePath   = "/validate-kueue-x-k8s-io-v1beta2-localqueue"
	ValidateWorkloadPath     = "/validate-kueue-x-k8s-io-v1beta2-workload"
	ValidateClusterQueuePath = "/validate-kueue-x-k8s-io-v1beta2-clusterqueue"
	ValidateCohortPath       = "/validate-kueue-x-k8s-io-v1beta2-cohort"
)

// Options of Setup.
type Options struct {
	// ManageCerts runs the certificate rotator (package certs) and holds the
	// webhook server back until its certificate is ready. Off when someone else
	// provides the certificate (cert-manager, or envtest in tests).
	ManageCerts bool
}

// Controller registers the webhooks with `quokka manager`, with the serving
// certificate managed by the manager itself.
func Controller() cli.Controller {
	return ControllerWith(Options{ManageCerts: true})
}

// ControllerWith is Controller with explicit options.
func ControllerWith(o Options) cli.Controller {
	return cli.Controller{
		Name: "webhooks",
		Setup: func(mgr manager.Manager, cfg *configapi.Configuration) error {
			return Setup(mgr, cfg, o)
		},
		BeforeStart: func(ctx context.Context, c client.Client, cfg *configapi.Configuration) error {
			return Prepare(ctx, c, cfg, o)
		},
	}
}

// UnregisteredMessage is logged, once, when the manager starts and finds its
// webhook configurations missing, as on a cluster where only the CRDs were
// applied. The job controller still suspends and queues a labelled Job, but only
// after the API server has let its pods start.
const UnregisteredMessage = "admission webhooks are not registered, so Jobs are not suspended at creation: " +
	"a Job created without spec.suspend: true can start pods before Quokka suspends and queues it; " +
	"register the webhooks by deploying Quokka in the cluster with `kubectl apply -k config/default`"

// Prepare runs before the manager starts. When the manager manages its
// certificate, it creates the webhook Secret, and the namespace, if they are
// missing; and it says, in one line, when the webhook configurations are not
// registered. It contacts the API server through c, which must not read from a
// cache.
func Prepare(ctx context.Context, c client.Client, cfg *configapi.Configuration, o Options) error {
	if o.ManageCerts && cfg.InternalCertManagementEnabled() && cfg.Namespace != nil {
		if err := certs.EnsureSecret(ctx, c, *cfg.Namespace); err != nil {
			return err
		}
	}
	reportUnregistered(ctx, c)
	return nil
}

// reportUnregistered logs UnregisteredMessage when a webhook configuration is
// missing. It never fails the start: the manager runs without webhooks, and the
// rotator injects its CA into configurations registered later.
func reportUnregistered(ctx context.Context, c client.Client) {
	log := ctrl.LoggerFrom(ctx)
	var missing []string
	for _, obj := range []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: certs.MutatingConfigurationName}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: certs.ValidatingConfigurationName}},
	} {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, obj.GetName())
		case err != nil:
			log.V(1).Info("cannot tell whether the webhooks are registered", "configuration", obj.GetName(), "error", err.Error())
			return
		}
	}
	if len(missing) > 0 {
		log.Info(UnregisteredMessage, "missing", missing)
	}
}

// Setup registers the webhooks on mgr's webhook server once its certificate is
// ready. Asking the manager for its webhook server is what adds the server to
// the manager, and a server added before its certificate is on disk fails to
// start and stops the manager; so the handlers are registered by a runnable that
// waits for the rotator. The readiness probe fails until the server serves.
func Setup(mgr manager.Manager, cfg *configapi.Configuration, o Options) error {
	r := &registrar{mgr: mgr, cfg: cfg}
	// internalCertManagement.enable: false in the Configuration leaves the
	// certificate to someone else, as in Kueue.
	if o.ManageCerts && cfg.InternalCertManagementEnabled() {
		ns := ""
		if cfg.Namespace != nil {
			ns = *cfg.Namespace
		}
		ready, err := certs.Manage(mgr, certs.Options{Namespace: ns, CertDir: cfg.Webhook.CertDir})
		if err != nil {
			return err
		}
		r.ready = ready
	} else {
		ready := make(chan struct{})
		close(ready)
		r.ready = ready
	}
	if err := mgr.AddReadyzCheck("webhook-server", r.readyz); err != nil {
		return fmt.Errorf("adding the webhook server's readiness check: %w", err)
	}
	if err := mgr.Add(r); err != nil {
		return fmt.Errorf("adding the webhook registrar: %w", err)
	}
	return nil
}

// registrar registers the webhooks once the certificate is ready. It runs on
// every replica, leader or not, since all of them serve admission requests.
type registrar struct {
	mgr     manager.Manager
	cfg     *configapi.Configuration
	ready   <-chan struct{}
	started atomic.Pointer[healthz.Checker]
}

// NeedLeaderElection is false: followers serve webhooks too.
func (r *registrar) NeedLeaderElection() bool { return false }

// Start waits for the certificate, then registers the handlers, which adds and
// starts the webhook server. The manager starts runnables on their own
// goroutines, so waiting here delays nothing else.
func (r *registrar) Start(ctx context.Context) error {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return nil
	}
	server := r.mgr.GetWebhookServer()
	register(server.Register, r.mgr, r.cfg)
	checker := server.StartedChecker()
	r.started.Store(&checker)
	<-ctx.Done()
	return nil
}

// readyz fails until the handlers are registered and the server answers.
func (r *registrar) readyz(req *http.Request) error {
	checker := r.started.Load()
	if checker == nil {
		return errors.New("webhook certificate not ready yet")
	}
	return (*checker)(req)
}

// register adds the handlers; its first argument is the server's Register.
func register(add func(string, http.Handler), mgr manager.Manager, cfg *configapi.Configuration) {
	c, s := mgr.GetClient(), mgr.GetScheme()
	jobs := &JobWebhook{Client: c, ManageJobsWithoutQueueName: cfg.ManageJobsWithoutQueueName, ManagedNamespaces: cfg.ManagedNamespaces(),
		DefaultPriorityClass: cfg.FeatureGate(configapi.FeatureWorkloadPriorityClassDefaulting)}
	add(MutateJobPath, admission.WithDefaulter[*batchv1.Job](s, jobs))
	add(ValidateJobPath, admission.WithValidator[*batchv1.Job](s, jobs))
	add(ValidateLocalQueuePath, admission.WithValidator[*kueue.LocalQueue](s, &LocalQueueWebhook{Client: c}))
	add(ValidateWorkloadPath, admission.WithValidator[*kueue.Workload](s, &WorkloadWebhook{Client: c,
		PriorityBoost: cfg.FeatureGate(configapi.FeaturePriorityBoost)}))
	add(ValidateClusterQueuePath, admission.WithValidator[*kueue.ClusterQueue](s, &ClusterQueueWebhook{Config: cfg}))
	add(ValidateCohortPath, admission.WithValidator[*kueue.Cohort](s, &CohortWebhook{}))
}
