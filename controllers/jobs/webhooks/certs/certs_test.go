package certs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"quokka.dev/quokka/internal/scheme"
)

const ns = "quokka-system"

var secretKey = types.NamespacedName{Namespace: ns, Name: SecretName}

func namespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
}

func filledSecret(cert, key string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SecretName},
		Data:       map[string][]byte{"ca.crt": []byte("ca"), corev1.TLSCertKey: []byte(cert), corev1.TLSPrivateKeyKey: []byte(key)},
	}
}

// Issue 16: "Make the manager create its namespace's webhook Secret when it is
// missing", and the namespace with it; what exists is left as it is.
func TestEnsureSecretCreatesWhatIsMissing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		existing []client.Object
		// created: the Secret is the empty one EnsureSecret makes.
		created  bool
		wantData map[string][]byte
	}{
		{name: "bare cluster: namespace and Secret", created: true},
		{name: "namespace only: the Secret", existing: []client.Object{namespace()}, created: true},
		{
			name:     "filled Secret: untouched",
			existing: []client.Object{namespace(), filledSecret("cert", "key")},
			wantData: filledSecret("cert", "key").Data,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.existing...).Build()
			if err := EnsureSecret(context.Background(), c, ns); err != nil {
				t.Fatal(err)
			}
			if err := c.Get(context.Background(), client.ObjectKey{Name: ns}, &corev1.Namespace{}); err != nil {
				t.Errorf("namespace: %v", err)
			}
			secret := &corev1.Secret{}
			if err := c.Get(context.Background(), secretKey, secret); err != nil {
				t.Fatalf("secret: %v", err)
			}
			if tc.created && (secret.Type != corev1.SecretTypeOpaque || secret.Labels["app.kubernetes.io/name"] != "quokka") {
				t.Errorf("created Secret: type %q, labels %v; want Opaque and config/webhook's labels", secret.Type, secret.Labels)
			}
			if len(secret.Data) != len(tc.wantData) || string(secret.Data[corev1.TLSCertKey]) != string(tc.wantData[corev1.TLSCertKey]) {
				t.Errorf("data %v; want %v", secret.Data, tc.wantData)
			}
		})
	}
}

// Two replicas may both find the Secret missing; the second one's create fails
// with AlreadyExists, which is success. Other errors name what was being done.
func TestEnsureSecretRaceAndErrors(t *testing.T) {
	t.Parallel()
	secrets := schema.GroupResource{Resource: "secrets"}
	failCreate := func(err error) client.Client {
		return interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(namespace()).Build(), interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				return err
			},
		})
	}
	if err := EnsureSecret(context.Background(), failCreate(apierrors.NewAlreadyExists(secrets, SecretName)), ns); err != nil {
		t.Errorf("AlreadyExists: %v; want success", err)
	}
	err := EnsureSecret(context.Background(), failCreate(apierrors.NewForbidden(secrets, SecretName, errors.New("no RBAC"))), ns)
	if err == nil || !strings.Contains(err.Error(), "creating the webhook Secret quokka-system/quokka-webhook-server-cert") {
		t.Errorf("Forbidden: %v; want an error naming the Secret", err)
	}
}

func newWriter(t *testing.T, c client.Reader) *certDirWriter {
	return &certDirWriter{reader: c, secret: secretKey, dir: t.TempDir(), log: logr.Discard()}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Outside a Pod the manager puts the Secret's certificate where the webhook
// server reads it, and again when the Secret changes; an unfilled Secret waits.
func TestCertDirWriterCopiesTheSecretWhenItChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: SecretName},
	}).Build()
	w := newWriter(t, c)

	if wrote, err := w.sync(ctx); wrote || err != nil {
		t.Fatalf("unfilled Secret: wrote %v, err %v; want nothing", wrote, err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, corev1.TLSCertKey)); !os.IsNotExist(err) {
		t.Fatalf("tls.crt exists before the Secret is filled: %v", err)
	}

	for i, pair := range [][2]string{{"cert-1", "key-1"}, {"cert-2", "key-2"}} {
		secret := &corev1.Secret{}
		if err := c.Get(ctx, secretKey, secret); err != nil {
			t.Fatal(err)
		}
		secret.Data = filledSecret(pair[0], pair[1]).Data
		if err := c.Update(ctx, secret); err != nil {
			t.Fatal(err)
		}
		if wrote, err := w.sync(ctx); !wrote || err != nil {
			t.Fatalf("certificate %d: wrote %v, err %v; want written", i+1, wrote, err)
		}
		if got := readFile(t, filepath.Join(w.dir, corev1.TLSCertKey)); got != pair[0] {
			t.Errorf("tls.crt = %q; want %q", got, pair[0])
		}
		if got := readFile(t, filepath.Join(w.dir, corev1.TLSPrivateKeyKey)); got != pair[1] {
			t.Errorf("tls.key = %q; want %q", got, pair[1])
		}
		if wrote, err := w.sync(ctx); wrote || err != nil {
			t.Errorf("unchanged Secret: wrote %v, err %v; want nothing", wrote, err)
		}
	}
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("cert dir holds %d files; want tls.crt and tls.key only (no CA key, no temporary files)", len(entries))
	}
}
