//go:build integration

// Package koord checks, against a real API server, that Queue objects follow their
// ElasticQuotas as the spec's 004 document describes.
package koord

import (
	"context"

	"fmt"
	"github.com/go-logr/logr"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
	koordv1alpha1 "quokka.dev/quokka/apis/koord/scheduling/v1alpha1"
	"quokka.dev/quokka/controllers/koord"
	"quokka.dev/quokka/internal/scheme"
	"quokka.dev/quokka/test/integration/framework"
)

var env *framework.Env

// mgr is the manager the tests run against; a test that needs other options
// or a restart replaces it (restartManager) and puts the default back.
var mgr *runningManager

// defaultOptions resync quickly, so that a retry the API does not announce
// shows within a test's patience.
var defaultOptions = koord.Options{Resync: time.Second}

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	var err error
	if env, err = framework.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, ns := range []string{queuev1alpha1.DefaultQueueNamespace} {
		if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if mgr, err = startManager(defaultOptions); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	mgr.stop()
	_ = env.Stop()
	os.Exit(code)
}

// runningManager is a controller-runtime manager with the Koord-Queue path,
// started in the background.
type runningManager struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func startManager(opts koord.Options) (*runningManager, error) {
	m, err := ctrl.NewManager(env.Config, manager.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Every manager of these tests is a fresh controller-runtime manager;
		// two controllers of one name would clash in its name registry.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, err
	}
	if err := koord.Setup(m, opts); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningManager{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := m.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	return r, nil
}

func (r *runningManager) stop() {
	r.cancel()
	<-r.done
}

// restartManager stops the running manager and starts one with opts.
func restartManager(t *testing.T, opts koord.Options) {
	t.Helper()
	mgr.stop()
	var err error
	if mgr, err = startManager(opts); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) {
			ok, err := cond()
			last = err
			return ok, nil
		})
	if err != nil {
		t.Fatalf("%s: not reached (%v)", what, last)
	}
}

// 004, "Step 2": creation, update and deletion of an ElasticQuota create, reconcile
// and delete the Queue of the same name in the koord-queue namespace.
func TestQueueFollowsElasticQuota(t *testing.T) {
	ctx := context.Background()
	c := env.Client
	for _, ns := range []string{queuev1alpha1.DefaultQueueNamespace, "team-a-ns"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	eq := &koordv1alpha1.ElasticQuota{
		ObjectMeta: metav1.ObjectMeta{
			Name: "team-a", Namespace: "team-a-ns",
			Labels: map[string]string{
				koordv1alpha1.ParentLabel:      "",
				koordv1alpha1.IsParentLabel:    "false",
				queuev1alpha1.QueuePolicyLabel: "Block",
			},
			Annotations: map[string]string{"koord-queue/wait-for-pods-running": "true"},
		},
		Spec: koordv1alpha1.ElasticQuotaSpec{
			Min: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")},
		},
	}
	if err := c.Create(ctx, eq); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: queuev1alpha1.DefaultQueueNamespace, Name: "team-a"}
	q := &queuev1alpha1.Queue{}
	eventually(t, "Queue created", func() (bool, error) {
		if err := c.Get(ctx, key, q); err != nil {
			return false, err
		}
		return q.Spec.QueuePolicy == queuev1alpha1.BlockPolicy && q.Spec.Priority != nil && *q.Spec.Priority == 1000 &&
			q.Annotations["koord-queue/wait-for-pods-running"] == "true", nil
	})

	// 004: "A policy that is written directly to the spec.queuePolicy of an
	// automatically created Queue is restored", and "Annotations that are written
	// directly to the Queue are preserved."
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, q); err != nil {
			return err
		}
		q.Spec.QueuePolicy = queuev1alpha1.IntelligentPolicy
		q.Annotations["koord-queue/priority-threshold"] = "100"
		return c.Update(ctx, q)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "policy restored, hand-written annotation kept", func() (bool, error) {
		if err := c.Get(ctx, key, q); err != nil {
			return false, err
		}
		return q.Spec.QueuePolicy == queuev1alpha1.BlockPolicy && q.Annotations["koord-queue/priority-threshold"] == "100", nil
	})

	// Removing the policy label restores Priority.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(eq), eq); err != nil {
			return err
		}
		delete(eq.Labels, queuev1alpha1.QueuePolicyLabel)
		return c.Update(ctx, eq)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "policy back to Priority", func() (bool, error) {
		if err := c.Get(ctx, key, q); err != nil {
			return false, err
		}
		return q.Spec.QueuePolicy == queuev1alpha1.PriorityPolicy, nil
	})

	// 004: "Deleting the ElasticQuota deletes the Queue."
	if err := c.Delete(ctx, eq); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Queue deleted", func() (bool, error) {
		err := c.Get(ctx, key, &queuev1alpha1.Queue{})
		return apierrors.IsNotFound(err), nil
	})
}
