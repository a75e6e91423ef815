//go:build integration

package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/controllers/jobs/webhooks"
	"quokka.dev/quokka/internal/cli"
	"quokka.dev/quokka/test/integration/framework"
)

// Kueue v0.17's LocalQueueDefaulting (GA, always on), through the API server
// and the webhook: a Job created without the queue-name label in a
// namespace with a LocalQueue named "default" gets the label, is suspended
// and gets a Workload in that LocalQueue; the label may then not be
// removed ("queue-name must not be empty in namespace with default queue").
func TestKueueJobGetsTheDefaultLocalQueue(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	if err := k8s.Create(ctx, &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"},
		Spec: kueue.LocalQueueSpec{ClusterQueue: "research"}}); err != nil {
		t.Fatal(err)
	}
	j := gpuJob(ns, "plain", "")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	if q := j.Labels[kueue.QueueNameLabel]; q != "default" || !ptr.Deref(j.Spec.Suspend, false) {
		t.Fatalf("created Job: queue-name %q, suspended %v; want default and suspended", q, ptr.Deref(j.Spec.Suspend, false))
	}
	if wl := waitForWorkload(t, j); wl.Spec.QueueName != "default" {
		t.Errorf("workload queue %q, want default", wl.Spec.QueueName)
	}
	delete(j.Labels, kueue.QueueNameLabel)
	err := k8s.Update(ctx, j)
	if err == nil || !strings.Contains(err.Error(), "queue-name must not be empty in namespace with default queue") {
		t.Fatalf("removing the queue-name label: err = %v; want Kueue's message", err)
	}
}

// Kueue: test/integration/singlecluster/webhook/jobs/job_webhook_test.go
// (v0.17.0), "Job Webhook With manageJobsWithoutQueueName enabled", its four
// Its (the managed namespaces: every one but
// unmanaged-ns), with the Job integration's reconciler beside the webhook: the
// suspended Job gets a Workload that names no LocalQueue, which moves to the
// LocalQueue of a label added later.
func TestKueueJobWebhookWithManageJobsWithoutQueueName(t *testing.T) {
	env, err := framework.StartWithWebhooks()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	err = env.StartManagerConfigured(ctx, func(cfg *configapi.Configuration) {
		cfg.ManageJobsWithoutQueueName = true
		cfg.ManagedJobsNamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kueue-system", "unmanaged-ns"}}}}
	}, []cli.Controller{job.Controller(), webhooks.ControllerWith(webhooks.Options{ManageCerts: false})}, stopped)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	c := env.Client
	for _, name := range []string{"managed-ns", "unmanaged-ns"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("checking the workload is not created when JobMinParallelismAnnotation is invalid", func(t *testing.T) {
		j := gpuJob("managed-ns", "job-with-queue-name", "foo")
		j.Annotations = map[string]string{kueue.JobMinParallelismAnnotation: "a"}
		err := c.Create(ctx, j)
		if err == nil || !strings.Contains(err.Error(), kueue.JobMinParallelismAnnotation) {
			t.Fatalf("an invalid minimum parallelism: err = %v; want a refusal naming the annotation", err)
		}
	})

	t.Run("Should suspend a Job even no queue name specified", func(t *testing.T) {
		j := gpuJob("managed-ns", "job-without-queue-name", "")
		if err := c.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if !ptr.Deref(j.Spec.Suspend, false) {
			t.Fatal("a Job without a queue name in a managed namespace was not suspended")
		}
		wl := &kueue.Workload{}
		key := client.ObjectKey{Namespace: j.Namespace, Name: job.WorkloadName(j.Name, j.UID)}
		eventually(t, "the workload without a LocalQueue", func() error { return c.Get(ctx, key, wl) })
		if wl.Spec.QueueName != "" {
			t.Fatalf("workload queue %q, want none", wl.Spec.QueueName)
		}
		j.Labels = map[string]string{kueue.QueueNameLabel: "research-gpu"}
		if err := c.Update(ctx, j); err != nil {
			t.Fatalf("labelling the suspended Job: %v", err)
		}
		eventually(t, "the workload in the Job's new LocalQueue", func() error {
			if err := c.Get(ctx, key, wl); err != nil {
				return err
			}
			if wl.Spec.QueueName != "research-gpu" {
				return fmt.Errorf("workload queue %q", wl.Spec.QueueName)
			}
			return nil
		})
	})

	t.Run("Should not suspend a Job with no queue name specified in an unmanaged namespace", func(t *testing.T) {
		j := gpuJob("unmanaged-ns", "job-without-queue-name-unmanaged", "")
		if err := c.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if ptr.Deref(j.Spec.Suspend, false) {
			t.Fatal("a Job in an unmanaged namespace was suspended")
		}
		// A bound on waiting for the controller to act wrongly, not a
		// performance assertion.
		time.Sleep(2 * time.Second)
		var list kueue.WorkloadList
		if err := c.List(ctx, &list, client.InNamespace("unmanaged-ns")); err != nil {
			t.Fatal(err)
		}
		got := &batchv1.Job{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(j), got); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 || ptr.Deref(got.Spec.Suspend, false) {
			t.Fatalf("%d workloads, suspended %v; want none and running", len(list.Items), ptr.Deref(got.Spec.Suspend, false))
		}
	})

	t.Run("Should not update unsuspend Job successfully when adding queue name", func(t *testing.T) {
		j := gpuJob("managed-ns", "job-unsuspended-with-a-queue", "")
		if err := c.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		j.Labels = map[string]string{kueue.QueueNameLabel: "queue"}
		j.Spec.Suspend = ptr.To(false)
		if err := c.Update(ctx, j); err == nil {
			t.Fatal("the API server let a Job be unsuspended while its queue name was added")
		}
	})
}

// Kueue: the same file, "Job Webhook with manageJobsWithoutQueueName
// disabled" (the package's manager runs without the option): a Job with a
// queue name created unsuspended is suspended, one without is not, and the
// queue name of a Job being unsuspended may not change. Its two partial
// admission Its are TestKueuePartialAdmissionAnnotation.
func TestKueueJobWebhookWithManageJobsWithoutQueueNameDisabled(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	t.Run("should suspend a Job when created in unsuspend state", func(t *testing.T) {
		j := gpuJob(ns, "job-with-queue-name", "default")
		j.Spec.Suspend = ptr.To(false)
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if !ptr.Deref(j.Spec.Suspend, false) {
			t.Fatal("a Job with a queue name created unsuspended was not suspended")
		}
	})
	t.Run("should not suspend a Job when no queue name specified", func(t *testing.T) {
		j := gpuJob(ns, "job-without-queue-name", "")
		j.Spec.Suspend = ptr.To(false)
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		if ptr.Deref(j.Spec.Suspend, false) {
			t.Fatal("a Job without a queue name was suspended")
		}
	})
	t.Run("should not update unsuspend Job successfully when changing queue name", func(t *testing.T) {
		j := gpuJob(ns, "job-changing-queue", "queue")
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		j.Labels[kueue.QueueNameLabel] = "queue2"
		j.Spec.Suspend = ptr.To(false)
		if err := k8s.Update(ctx, j); err == nil {
			t.Fatal("a Job's queue name changed while it was unsuspended")
		}
	})
}
