//go:build integration

package jobs

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/jobs/job"
	"quokka.dev/quokka/internal/scheme"
)

const (
	timeout  = 30 * time.Second
	interval = 100 * time.Millisecond
)

// eventually polls check until it returns nil or the timeout passes.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %s: %v", what, timeout, err)
		}
		time.Sleep(interval)
	}
}

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "jobs-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// createIgnoringExisting creates a cluster-scoped object that several tests share.
func createIgnoringExisting(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8s.Create(context.Background(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// h100 is spec 002's ResourceFlavor.
func h100() *kueue.ResourceFlavor {
	return &kueue.ResourceFlavor{
		ObjectMeta: metav1.ObjectMeta{Name: "h100"},
		Spec: kueue.ResourceFlavorSpec{
			NodeLabels: map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
			Tolerations: []corev1.Toleration{{
				Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule,
			}},
		},
	}
}

// gpuJob is an 8-GPU training Job; queue "" leaves it unlabelled.
func gpuJob(ns, name, queue string) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{}},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](2),
			Completions: ptr.To[int32](2),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				NodeSelector:  map[string]string{"team": "research"},
				Containers: []corev1.Container{{
					Name:  "train",
					Image: "registry.example/train:1",
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("12"), "nvidia.com/gpu": resource.MustParse("8")},
						Limits:   corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")},
					},
				}},
			}},
		},
	}
	if queue != "" {
		j.Labels[kueue.QueueNameLabel] = queue
	}
	return j
}

func getJob(t *testing.T, key client.ObjectKey) *batchv1.Job {
	t.Helper()
	j := &batchv1.Job{}
	if err := k8s.Get(context.Background(), key, j); err != nil {
		t.Fatal(err)
	}
	return j
}

// waitForWorkload returns the Job's Workload once the controller created it.
func waitForWorkload(t *testing.T, j *batchv1.Job) *kueue.Workload {
	t.Helper()
	wl := &kueue.Workload{}
	key := client.ObjectKey{Namespace: j.Namespace, Name: job.WorkloadName(j.Name, j.UID)}
	eventually(t, "workload created", func() error { return k8s.Get(context.Background(), key, wl) })
	return wl
}

// writeStatus updates the Workload's status as the core controller would,
// retrying on conflicts with the job controller's writes.
func writeStatus(t *testing.T, wl *kueue.Workload, mutate func(*kueue.Workload)) {
	t.Helper()
	eventually(t, "workload status written", func() error {
		fresh := &kueue.Workload{}
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(wl), fresh); err != nil {
			return err
		}
		mutate(fresh)
		return k8s.Status().Update(context.Background(), fresh)
	})
}

// admit writes what the core writes on admission: status.admission with the
// flavor of each resource, then QuotaReserved and Admitted.
func admit(flavor string) func(*kueue.Workload) {
	return func(wl *kueue.Workload) {
		wl.Status.Admission = &kueue.Admission{
			ClusterQueue: "research",
			PodSetAssignments: []kueue.PodSetAssignment{{
				Name: kueue.DefaultPodSetName,
				Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{
					corev1.ResourceCPU: kueue.ResourceFlavorReference(flavor),
					"nvidia.com/gpu":   kueue.ResourceFlavorReference(flavor),
				},
				ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("24"), "nvidia.com/gpu": resource.MustParse("16")},
				Count:         ptr.To(wl.Spec.PodSets[0].Count),
			}},
		}
		setTrue(wl, kueue.WorkloadQuotaReserved, "QuotaReserved", "Quota reserved in ClusterQueue research")
		setTrue(wl, kueue.WorkloadAdmitted, "Admitted", "The workload is admitted")
	}
}

// evict writes what the core writes on preemption.
func evict(wl *kueue.Workload) {
	setTrue(wl, kueue.WorkloadEvicted, kueue.WorkloadEvictedByPreemption, "Preempted to accommodate a workload in the same cohort")
	setTrue(wl, kueue.WorkloadPreempted, kueue.InCohortReclamationReason, "Preempted to accommodate a workload in the same cohort")
}

// requeue writes what the core writes once the evicted Job has stopped: the
// admission is cleared and the Workload waits again.
func requeue(wl *kueue.Workload) {
	wl.Status.Admission = nil
	setFalse(wl, kueue.WorkloadQuotaReserved, "Pending", "Evicted, waiting for quota")
	setFalse(wl, kueue.WorkloadAdmitted, "NoReservation", "The workload has no reservation")
	setTrue(wl, kueue.WorkloadRequeued, kueue.WorkloadEvictedByPreemption, "Requeued after preemption")
}

// readmit admits again: as in Kueue, a new reservation turns Evicted and
// Preempted False.
func readmit(flavor string) func(*kueue.Workload) {
	return func(wl *kueue.Workload) {
		admit(flavor)(wl)
		setFalse(wl, kueue.WorkloadEvicted, "QuotaReserved", "Previously: preempted")
		setFalse(wl, kueue.WorkloadPreempted, "QuotaReserved", "Previously: preempted")
	}
}

func setFalse(wl *kueue.Workload, typ, reason, msg string) {
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
		Type: typ, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: wl.Generation,
	})
}

func setTrue(wl *kueue.Workload, typ, reason, msg string) {
	meta.SetStatusCondition(&wl.Status.Conditions, metav1.Condition{
		Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: wl.Generation,
	})
}

// warningClient is a client whose admission warnings are recorded.
type warningRecorder struct {
	mu       sync.Mutex
	messages []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, text)
}

func (w *warningRecorder) contains(substr string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.messages {
		if strings.Contains(m, substr) {
			return true
		}
	}
	return false
}

func warningClient(t *testing.T) (client.Client, *warningRecorder) {
	t.Helper()
	rec := &warningRecorder{}
	cfg := rest.CopyConfig(restConfig)
	cfg.WarningHandler = rec
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}
