package certs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// certDirWriter copies the serving certificate from the Secret into the webhook
// server's cert dir, as the kubelet does for a Pod that mounts the Secret there.
// A manager outside a Pod has no kubelet: without the copy its webhook server
// would never start, and the rotator, which waits for the files, would stop the
// manager 17 to 34 minutes after the start. In a Pod the cert dir is the Secret's
// volume, which is read-only, so the writer leaves it to the kubelet.
type certDirWriter struct {
	reader client.Reader
	secret types.NamespacedName
	dir    string
	log    logr.Logger
	// first is the time between reads of the Secret until the certificate has
	// been written once (the rotator fills the Secret within seconds of the
	// start), later the time between reads afterwards (renewals, months apart).
	first, later time.Duration
}

// NeedLeaderElection is false: every replica serves webhooks.
func (w *certDirWriter) NeedLeaderElection() bool { return false }

func (w *certDirWriter) Start(ctx context.Context) error {
	if err := probeWritable(w.dir); err != nil {
		if errors.Is(err, syscall.EROFS) {
			w.log.V(1).Info("the webhook cert dir is read-only, a mounted Secret: the kubelet keeps it current", "dir", w.dir)
			return nil
		}
		w.log.Error(err, "cannot write the webhook certificate: the webhook server does not start until tls.crt and tls.key are in its cert dir", "dir", w.dir)
		return nil
	}
	wait := w.first
	for {
		wrote, err := w.sync(ctx)
		switch {
		case err != nil:
			w.log.Error(err, "copying the webhook certificate to its cert dir", "dir", w.dir)
			wait = w.later
		case wrote:
			w.log.Info("wrote the webhook certificate to its cert dir, as no kubelet mounts the Secret here", "dir", w.dir, "secret", w.secret)
			wait = w.later
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// sync writes the Secret's certificate and key to the cert dir when they differ
// from the files, and reports whether it wrote. A Secret that the rotator has not
// filled yet, or that cannot be read for the moment, is tried again later.
func (w *certDirWriter) sync(ctx context.Context) (bool, error) {
	secret := &corev1.Secret{}
	if err := w.reader.Get(ctx, w.secret, secret); err != nil {
		if ctx.Err() == nil {
			w.log.V(1).Info("reading the webhook Secret", "secret", w.secret, "error", err.Error())
		}
		return false, nil
	}
	cert, key := secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
	if len(cert) == 0 || len(key) == 0 {
		return false, nil
	}
	// The key first: the rotator and the webhook server's certificate watcher
	// take tls.crt as the sign that the pair is there.
	wroteKey, err := writeIfChanged(filepath.Join(w.dir, corev1.TLSPrivateKeyKey), key)
	if err != nil {
		return false, err
	}
	wroteCert, err := writeIfChanged(filepath.Join(w.dir, corev1.TLSCertKey), cert)
	if err != nil {
		return false, err
	}
	return wroteKey || wroteCert, nil
}

// probeWritable creates dir if needed and checks that a file can be created in
// it.
func probeWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	_ = f.Close()
	return os.Remove(f.Name())
}

// writeIfChanged replaces path with data unless it holds data already. The
// file is written beside and renamed, so a reader never sees half of it.
func writeIfChanged(path string, data []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}
