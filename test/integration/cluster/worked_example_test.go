//go:build integration

package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"quokka.dev/quokka/test/integration/framework"
)

const (
	gpu        corev1.ResourceName = "nvidia.com/gpu"
	h100Labels                     = "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3"
)

// h100Node is one of the spec's eight 8-GPU H100 nodes: labelled as the h100
// flavor's nodeLabels say, and tainted as examples/gpu-cluster assumes GPU
// nodes are.
func h100Node(i int) *corev1.Node {
	key, value, _ := strings.Cut(h100Labels, "=")
	res := corev1.ResourceList{
		gpu:                   resource.MustParse("8"),
		corev1.ResourceCPU:    resource.MustParse("96"),
		corev1.ResourceMemory: resource.MustParse("960Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("h100-%d", i), Labels: map[string]string{key: value},
			Annotations: map[string]string{framework.FakeNodeAnnotation: "fake"}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: string(gpu), Value: "present", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
}

// gpuJob is a Job of `pods` pods of perPod GPUs each; its pods run until the
// test ends.
func gpuJob(ns, name, queue string, pods int32, perPod string) *batchv1.Job {
	j := cpuJob(ns, name, queue, pods, "1h")
	q := resource.MustParse(perPod)
	j.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{gpu: q}, Limits: corev1.ResourceList{gpu: q}}
	return j
}

// Spec 002, "Worked example: three teams, 64 H100s", on the 64 GPUs it
// describes: eight nodes of 8 H100s. The decisions are the e2e test's
// (TestWorkedExampleWithJobs); here the pods follow them. After each step
// every pod of every admitted Job runs on an h100 node (as many GPUs admitted
// as the nodes hold: the quota matches the hardware), a preempted Job has no
// pod left, and a waiting Job has none yet.
func TestWorkedExampleRunsOnItsNodes(t *testing.T) {
	ctx := context.Background()
	applyFrom(t, filepath.Join(framework.RepoRoot(), "examples", "gpu-cluster"), func(d framework.Document) bool {
		return strings.HasSuffix(d.File, "trace.yaml") // the simulator's trace; this test submits Jobs
	})
	var names []string
	for i := 1; i <= 8; i++ {
		n := h100Node(i)
		addNode(t, n)
		names = append(names, n.Name)
	}
	nodesReady(t, names...)

	// Step 0: product-training's 6-GPU Job, then research's seven 8-GPU Jobs;
	// six run (research borrows 16 on top of its 32), the seventh waits.
	if err := k8s.Create(ctx, gpuJob("product-training", "ranker-v3", "product-training-gpu", 1, "6")); err != nil {
		t.Fatal(err)
	}
	until(t, "ranker-v3's pod runs", podsRunning("product-training", "ranker-v3", 1))
	for i := 1; i <= 7; i++ {
		if err := k8s.Create(ctx, gpuJob("research", fmt.Sprintf("sweep-%d", i), "research-gpu", 1, "8")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	until(t, "step 0: 6 + 48 GPUs run, every admitted pod on an h100 node", gpusRunning(map[string]int64{"product-training": 6, "research": 48}))

	// Step 1: product-training's 16-GPU Job (two 8-GPU pods) reclaims; one
	// research Job is preempted and its pod goes.
	if err := k8s.Create(ctx, gpuJob("product-training", "ranker-v4", "product-training-gpu", 2, "8")); err != nil {
		t.Fatal(err)
	}
	until(t, "step 1: 22 + 40 GPUs run", gpusRunning(map[string]int64{"product-training": 22, "research": 40}))

	// Step 2: eval's 8-GPU Job; one more research Job is preempted.
	if err := k8s.Create(ctx, gpuJob("eval", "benchmark-nightly", "eval-gpu", 1, "8")); err != nil {
		t.Fatal(err)
	}
	until(t, "step 2: 22 + 32 + 8 GPUs run", gpusRunning(map[string]int64{"product-training": 22, "research": 32, "eval": 8}))
}

// gpusRunning returns a check: nil once, in each namespace, the GPUs of the
// running pods sum to want, every unsuspended Job's pods all run on h100
// nodes, and no suspended Job has a pod left.
func gpusRunning(want map[string]int64) func() error {
	return func() error {
		ctx := context.Background()
		for ns, gpus := range want {
			var jobs batchv1.JobList
			if err := k8s.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
				return err
			}
			var running int64
			for _, j := range jobs.Items {
				pods, err := podsOf(ns, j.Name)
				if err != nil {
					return err
				}
				if ptr.Deref(j.Spec.Suspend, false) {
					if len(pods) != 0 {
						return fmt.Errorf("suspended job %s/%s still has pods %v", ns, j.Name, podNames(pods))
					}
					continue
				}
				if err := podsRunning(ns, j.Name, int(ptr.Deref(j.Spec.Parallelism, 1)))(); err != nil {
					return err
				}
				for _, p := range pods {
					var node corev1.Node
					if err := k8s.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, &node); err != nil {
						return err
					}
					if key, value, _ := strings.Cut(h100Labels, "="); node.Labels[key] != value {
						return fmt.Errorf("pod %s/%s runs on %s, not an h100 node", ns, p.Name, node.Name)
					}
					q := p.Spec.Containers[0].Resources.Requests[gpu]
					running += q.Value()
				}
			}
			if running != gpus {
				return fmt.Errorf("%s runs %d GPUs, want %d", ns, running, gpus)
			}
		}
		return nil
	}
}
