package v1beta2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Names of the webhook Service and Secret that Quokka's manifests (config/webhook)
// create and its certificate rotator fills. They are fixed because the webhook
// configurations refer to them by name.
const (
	WebhookServiceName = "quokka-webhook-service"
	WebhookSecretName  = "quokka-webhook-server-cert"
)

// InternalCertManagement is Kueue's switch for the manager issuing its own webhook
// serving certificate. Kueue's stock Configuration sets it, so Quokka reads it:
// enable (the default) lets `quokka manager` create the CA and certificate and
// inject the CA into the webhook configurations; false leaves the certificate to
// someone else (cert-manager), mounted in webhook.certDir.
type InternalCertManagement struct {
	// Enable defaults to true.
	Enable *bool `json:"enable,omitempty"`
	// WebhookServiceName must be quokka-webhook-service when set.
	WebhookServiceName *string `json:"webhookServiceName,omitempty"`
	// WebhookSecretName must be quokka-webhook-server-cert when set.
	WebhookSecretName *string `json:"webhookSecretName,omitempty"`
}

// InternalCertManagementEnabled reports whether the manager manages its own
// webhook certificate.
func (c *Configuration) InternalCertManagementEnabled() bool {
	if c == nil || c.InternalCertManagement == nil || c.InternalCertManagement.Enable == nil {
		return true
	}
	return *c.InternalCertManagement.Enable
}

// validateInternalCertManagement refuses other Service and Secret names: Kueue lets
// them vary, but Quokka's webhook configurations are written for its own names, so
// another name would leave the webhooks without a certificate.
func validateInternalCertManagement(m *InternalCertManagement, path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if m.WebhookServiceName != nil && *m.WebhookServiceName != WebhookServiceName {
		errs = append(errs, field.NotSupported(path.Child("webhookServiceName"), *m.WebhookServiceName, []string{WebhookServiceName}))
	}
	if m.WebhookSecretName != nil && *m.WebhookSecretName != WebhookSecretName {
		errs = append(errs, field.NotSupported(path.Child("webhookSecretName"), *m.WebhookSecretName, []string{WebhookSecretName}))
	}
	return errs
}
