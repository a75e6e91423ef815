//go:build integration

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/test/integration/framework"
)

const (
	gpu        corev1.ResourceName = "nvidia.com/gpu"
	gpuProduct                     = "NVIDIA-H100-80GB-HBM3"
)

// gpuJob is a Job of `pods` pods with `perPod` GPUs each, submitted to a LocalQueue.
func gpuJob(namespace, name, queue string, pods int32, perPod string) *batchv1.Job {
	q := resource.MustParse(perPod)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{kueue.QueueNameLabel: queue}},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(pods),
			Completions: ptr.To(pods),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name: "trainer", Image: "registry.example.com/trainer:v1",
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{gpu: q},
						Limits:   corev1.ResourceList{gpu: q},
					},
				}},
			}},
		},
	}
}

func eventually(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true,
		func(context.Context) (bool, error) {
			ok, err := cond()
			last = err
			return ok, nil
		})
	if err != nil {
		t.Fatalf("%s: not reached (last error: %v)", what, last)
	}
}

// running lists, sorted, the Jobs of a namespace that are not suspended.
func running(ctx context.Context, namespace string) ([]string, error) {
	var jobs batchv1.JobList
	if err := k8s.List(ctx, &jobs, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var out []string
	for _, j := range jobs.Items {
		if j.Spec.Suspend != nil && !*j.Spec.Suspend {
			out = append(out, j.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func runningCount(t *testing.T, ctx context.Context, namespace string, want int) func() (bool, error) {
	return func() (bool, error) {
		names, err := running(ctx, namespace)
		if err != nil {
			return false, err
		}
		if len(names) != want {
			return false, fmt.Errorf("%s runs %v, want %d jobs", namespace, names, want)
		}
		return true, nil
	}
}

// workloadOf returns the Workload the Job integration created for a Job.
func workloadOf(ctx context.Context, namespace, jobName string) (*kueue.Workload, error) {
	var wls kueue.WorkloadList
	if err := k8s.List(ctx, &wls, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	for i := range wls.Items {
		for _, o := range wls.Items[i].OwnerReferences {
			if o.Kind == "Job" && o.Name == jobName {
				return &wls.Items[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no Workload owned by Job %s/%s yet", namespace, jobName)
}

// hasH100Placement reports whether an admitted Job carries the h100 flavor's
// nodeSelector and toleration.
func hasH100Placement(j *batchv1.Job) bool {
	if j.Spec.Template.Spec.NodeSelector["nvidia.com/gpu.product"] != gpuProduct {
		return false
	}
	for _, tol := range j.Spec.Template.Spec.Tolerations {
		if tol.Key == "nvidia.com/gpu" && tol.Operator == corev1.TolerationOpExists && tol.Effect == corev1.TaintEffectNoSchedule {
			return true
		}
	}
	return false
}

// 002, "Worked example: three teams, 64 H100s", with real Jobs: step 0 research
// bursts to 48 (six 8-GPU Jobs); step 1 product-training's 16-GPU Job preempts ONE
// research Job (the spec's numbers: 10 idle + 8 freed >= 16), which is suspended
// again with its template restored; step 2 eval's 8-GPU Job preempts one more.
// Admitted Jobs carry the h100 flavor's nodeSelector and toleration.
func TestWorkedExampleWithJobs(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(framework.RepoRoot(), "examples", "gpu-cluster")
	docs, err := framework.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if strings.HasSuffix(d.File, "trace.yaml") {
			continue // the simulator's trace; this test submits its own Jobs
		}
		if err := framework.Apply(ctx, k8s, d.Object); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}

	// Step 0: product-training already uses 6 GPUs, then research submits seven 8-GPU Jobs.
	if err := k8s.Create(ctx, gpuJob("product-training", "ranker-v3", "product-training-gpu", 1, "6")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "product-training's 6-GPU Job starts", runningCount(t, ctx, "product-training", 1))
	for i := 1; i <= 7; i++ {
		j := gpuJob("research", fmt.Sprintf("sweep-%d", i), "research-gpu", 1, "8")
		if err := k8s.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		// Submit in order, so that creation times order the queue.
		time.Sleep(50 * time.Millisecond)
	}
	eventually(t, "six research Jobs run (48 GPUs)", runningCount(t, ctx, "research", 6))
	// Which of the seven waits is the one the manager saw last: Workloads
	// created within one second tie on creationTimestamp, and Kueue's order
	// then falls to the UID. The spec's point is that exactly one waits, on
	// research's borrowing limit.
	var waiting string
	eventually(t, "one of the seven waits on research's borrowing limit", func() (bool, error) {
		waiting = ""
		for i := 1; i <= 7; i++ {
			name := fmt.Sprintf("sweep-%d", i)
			wl, err := workloadOf(ctx, "research", name)
			if err != nil {
				return false, err
			}
			c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
			if c != nil && c.Status == metav1.ConditionTrue {
				continue
			}
			if c == nil || !strings.Contains(c.Message, "borrowing limit of research") {
				return false, fmt.Errorf("%s: QuotaReserved = %+v", name, c)
			}
			if waiting != "" {
				return false, fmt.Errorf("both %s and %s wait", waiting, name)
			}
			waiting = name
		}
		if waiting == "" {
			return false, fmt.Errorf("none of the seven waits")
		}
		return true, nil
	})
	admitted := "sweep-1"
	if waiting == admitted {
		admitted = "sweep-2"
	}
	var sweep1 batchv1.Job
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "research", Name: admitted}, &sweep1); err != nil {
		t.Fatal(err)
	}
	if !hasH100Placement(&sweep1) {
		t.Errorf("admitted Job lacks the h100 nodeSelector and toleration: %+v / %+v",
			sweep1.Spec.Template.Spec.NodeSelector, sweep1.Spec.Template.Spec.Tolerations)
	}

	// Step 1: product-training's 16-GPU Job preempts exactly one research Job.
	before, _ := running(ctx, "research")
	if err := k8s.Create(ctx, gpuJob("product-training", "ranker-v4", "product-training-gpu", 2, "8")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the 16-GPU Job runs", runningCount(t, ctx, "product-training", 2))
	eventually(t, "research runs five Jobs (40 GPUs)", runningCount(t, ctx, "research", 5))
	after, _ := running(ctx, "research")
	victim := missing(before, after)
	if len(victim) != 1 {
		t.Fatalf("research Jobs stopped in step 1: %v, want exactly one", victim)
	}
	var stopped batchv1.Job
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "research", Name: victim[0]}, &stopped); err != nil {
		t.Fatal(err)
	}
	if stopped.Spec.Suspend == nil || !*stopped.Spec.Suspend {
		t.Errorf("the preempted Job %s is not suspended", victim[0])
	}
	eventually(t, "the preempted Job's template is restored", func() (bool, error) {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(&stopped), &stopped); err != nil {
			return false, err
		}
		if len(stopped.Spec.Template.Spec.NodeSelector) != 0 || len(stopped.Spec.Template.Spec.Tolerations) != 0 {
			return false, fmt.Errorf("template still has %v / %v", stopped.Spec.Template.Spec.NodeSelector, stopped.Spec.Template.Spec.Tolerations)
		}
		return true, nil
	})
	wl, err := workloadOf(ctx, "research", victim[0])
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadPreempted); c == nil || c.Status != metav1.ConditionTrue ||
		c.Reason != kueue.InCohortReclamationReason || !strings.Contains(c.Message, "ranker-v4") {
		t.Errorf("Preempted condition of %s = %+v, want InCohortReclamation naming ranker-v4", wl.Name, c)
	}

	// Step 2: eval's 8-GPU Job preempts one more research Job: 32 / 22 / 8.
	if err := k8s.Create(ctx, gpuJob("eval", "benchmark-nightly", "eval-gpu", 1, "8")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eval's Job runs", runningCount(t, ctx, "eval", 1))
	eventually(t, "research runs four Jobs (32 GPUs)", runningCount(t, ctx, "research", 4))
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "eval", Name: "benchmark-nightly"}, &sweep1); err != nil {
		t.Fatal(err)
	}
	if !hasH100Placement(&sweep1) {
		t.Errorf("eval's admitted Job lacks the h100 placement")
	}
}

// missing returns the names in before that are not in after.
func missing(before, after []string) []string {
	in := map[string]bool{}
	for _, n := range after {
		in[n] = true
	}
	var out []string
	for _, n := range before {
		if !in[n] {
			out = append(out, n)
		}
	}
	return out
}
