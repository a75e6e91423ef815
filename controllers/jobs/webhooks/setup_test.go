package webhooks

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/controllers/jobs/webhooks/certs"
	"quokka.dev/quokka/internal/scheme"
)

// Issue 16: "when the webhook configurations are not registered, say once, in
// one log line, what that means and how to register them"; the Secret is made
// only when the manager manages the certificate.
func TestPrepareCreatesTheSecretAndSaysOnceWhenWebhooksAreNotRegistered(t *testing.T) {
	t.Parallel()
	registered := []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: certs.MutatingConfigurationName}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: certs.ValidatingConfigurationName}},
	}
	for _, tc := range []struct {
		name        string
		existing    []client.Object
		opts        Options
		certsOff    bool
		wantSecret  bool
		wantMissing string // "" when the configurations are all there
	}{
		{
			name: "bare cluster", opts: Options{ManageCerts: true}, wantSecret: true,
			wantMissing: `"missing"=["quokka-mutating-webhook-configuration" "quokka-validating-webhook-configuration"]`,
		},
		{
			name: "only the mutating configuration", existing: registered[:1], opts: Options{ManageCerts: true}, wantSecret: true,
			wantMissing: `"missing"=["quokka-validating-webhook-configuration"]`,
		},
		{name: "webhooks registered, Secret missing", existing: registered, opts: Options{ManageCerts: true}, wantSecret: true},
		{name: "certificate from elsewhere", existing: registered},
		{name: "internalCertManagement.enable: false", existing: registered, opts: Options{ManageCerts: true}, certsOff: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.existing...).Build()
			cfg := configapi.Default()
			cfg.Namespace = ptr.To("quokka-system")
			if tc.certsOff {
				cfg.InternalCertManagement = &configapi.InternalCertManagement{Enable: ptr.To(false)}
			}
			var mu sync.Mutex
			var lines []string
			ctx := ctrl.LoggerInto(context.Background(), funcr.New(func(_, args string) {
				mu.Lock()
				defer mu.Unlock()
				lines = append(lines, args)
			}, funcr.Options{}))

			if err := Prepare(ctx, c, cfg, tc.opts); err != nil {
				t.Fatal(err)
			}
			err := c.Get(ctx, client.ObjectKey{Namespace: "quokka-system", Name: certs.SecretName}, &corev1.Secret{})
			if tc.wantSecret != (err == nil) || (err != nil && !apierrors.IsNotFound(err)) {
				t.Errorf("Secret: err %v; want it to exist: %v", err, tc.wantSecret)
			}
			var notices []string
			for _, l := range lines {
				if strings.Contains(l, UnregisteredMessage) {
					notices = append(notices, l)
				}
			}
			switch {
			case tc.wantMissing == "" && len(notices) > 0:
				t.Errorf("registered webhooks reported missing: %v", notices)
			case tc.wantMissing != "" && (len(notices) != 1 || !strings.Contains(notices[0], tc.wantMissing)):
				t.Errorf("notices %v; want one line with %s", notices, tc.wantMissing)
			}
		})
	}
}
