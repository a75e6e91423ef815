//go:build integration

package jobs

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

func TestLabelledJobIsSuspendedAndGetsAWorkload(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	createIgnoringExisting(t, &kueue.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high-priority"}, Value: 10000})
	j := gpuJob(ns, "train", "research-gpu")
	j.Labels[kueue.PriorityClassLabel] = "high-priority"
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	if !ptr.Deref(j.Spec.Suspend, false) {
		t.Fatal("the webhook did not suspend a Job with the queue-name label")
	}

	wl := waitForWorkload(t, j)
	if wl.Spec.QueueName != "research-gpu" {
		t.Errorf("queueName = %q; want research-gpu", wl.Spec.QueueName)
	}
	if len(wl.Spec.PodSets) != 1 || wl.Spec.PodSets[0].Name != "main" || wl.Spec.PodSets[0].Count != 2 {
		t.Fatalf("pod sets = %+v; want one set main of 2 pods", wl.Spec.PodSets)
	}
	gpus := wl.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"]
	if gpus.String() != "8" {
		t.Errorf("pod set requests %s nvidia.com/gpu; want 8", gpus.String())
	}
	wantRef := kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind, Name: "high-priority"}
	if wl.Spec.PriorityClassRef == nil || *wl.Spec.PriorityClassRef != wantRef || ptr.Deref(wl.Spec.Priority, 0) != 10000 {
		t.Errorf("priority %v from %+v; want 10000 from %+v", wl.Spec.Priority, wl.Spec.PriorityClassRef, wantRef)
	}
	owner := metav1.GetControllerOf(wl)
	if owner == nil || owner.Kind != "Job" || owner.UID != j.UID {
		t.Errorf("controller owner %+v; want Job %s", owner, j.UID)
	}
}

func TestUnlabelledJobIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	j := gpuJob(ns, "plain", "")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(j.Spec.Suspend, false) {
		t.Fatal("a Job without the queue-name label was suspended")
	}
	// Give the controller time to act wrongly, then check it did not. This is a
	// bound on waiting, not a performance assertion.
	time.Sleep(2 * time.Second)
	var list kueue.WorkloadList
	if err := k8s.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d workloads for an unlabelled Job; want none", len(list.Items))
	}
	if ptr.Deref(getJob(t, client.ObjectKeyFromObject(j)).Spec.Suspend, false) {
		t.Error("the controller suspended an unlabelled Job")
	}
}

// 002: nodeLabels are added to the pod template's nodeSelector and tolerations
// injected on admission; eviction stops the Job and restores its template.
func TestAdmissionInjectsTheFlavorAndEvictionRestoresTheTemplate(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	createIgnoringExisting(t, h100())
	j := gpuJob(ns, "train", "research-gpu")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(j)
	wl := waitForWorkload(t, j)

	writeStatus(t, wl, admit("h100"))
	eventually(t, "job started on h100", func() error {
		got := getJob(t, key)
		spec := got.Spec.Template.Spec
		if ptr.Deref(got.Spec.Suspend, true) {
			return fmt.Errorf("still suspended")
		}
		if spec.NodeSelector["nvidia.com/gpu.product"] != "NVIDIA-H100-80GB-HBM3" || spec.NodeSelector["team"] != "research" {
			return fmt.Errorf("nodeSelector %v", spec.NodeSelector)
		}
		want := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
		if len(spec.Tolerations) != 1 || spec.Tolerations[0] != want {
			return fmt.Errorf("tolerations %v", spec.Tolerations)
		}
		return nil
	})

	// The queue may not change under an admitted Job.
	running := getJob(t, key)
	running.Labels[kueue.QueueNameLabel] = "other"
	if err := k8s.Update(ctx, running); !apierrors.IsInvalid(err) {
		t.Errorf("changing the queue of an admitted Job: err = %v; want Invalid", err)
	}

	writeStatus(t, wl, evict)
	eventually(t, "job stopped with its template restored", func() error {
		got := getJob(t, key)
		spec := got.Spec.Template.Spec
		if !ptr.Deref(got.Spec.Suspend, false) {
			return fmt.Errorf("not suspended")
		}
		if len(spec.NodeSelector) != 1 || spec.NodeSelector["team"] != "research" || len(spec.Tolerations) != 0 {
			return fmt.Errorf("nodeSelector %v, tolerations %v", spec.NodeSelector, spec.Tolerations)
		}
		return nil
	})

	// The core requeues the stopped Workload, then admits it again; the Job runs
	// again on the flavor.
	writeStatus(t, wl, requeue)
	if !ptr.Deref(getJob(t, key).Spec.Suspend, false) {
		t.Fatal("a requeued Job was unsuspended")
	}
	writeStatus(t, wl, readmit("h100"))
	eventually(t, "job restarted on h100", func() error {
		got := getJob(t, key)
		if ptr.Deref(got.Spec.Suspend, true) || got.Spec.Template.Spec.NodeSelector["nvidia.com/gpu.product"] != "NVIDIA-H100-80GB-HBM3" {
			return fmt.Errorf("suspend %v, nodeSelector %v", got.Spec.Suspend, got.Spec.Template.Spec.NodeSelector)
		}
		return nil
	})
}

func TestCompletedJobFinishesItsWorkload(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	createIgnoringExisting(t, h100())
	j := gpuJob(ns, "short", "research-gpu")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(j)
	wl := waitForWorkload(t, j)
	// Created with Kueue's finalizer: no later write adds it.
	if !controllerutil.ContainsFinalizer(wl, kueue.ResourceInUseFinalizerName) {
		t.Errorf("the Job's Workload was created without %s", kueue.ResourceInUseFinalizerName)
	}
	writeStatus(t, wl, admit("h100"))
	eventually(t, "job started", func() error {
		if ptr.Deref(getJob(t, key).Spec.Suspend, true) {
			return fmt.Errorf("still suspended")
		}
		return nil
	})

	// Write what the Job controller writes when both pods succeed.
	eventually(t, "job completed", func() error {
		got := getJob(t, key)
		now := metav1.Now()
		start := metav1.NewTime(now.Add(-time.Minute))
		got.Status.StartTime = &start
		got.Status.CompletionTime = &now
		got.Status.Succeeded = 2
		got.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now},
		}
		return k8s.Status().Update(ctx, got)
	})
	eventually(t, "workload finished", func() error {
		got := &kueue.Workload{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(wl), got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, kueue.WorkloadFinished)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "Succeeded" {
			return fmt.Errorf("Finished = %+v", c)
		}
		return nil
	})
}

func TestDeletedJobDeletesItsWorkload(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	j := gpuJob(ns, "gone", "research-gpu")
	if err := k8s.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	wl := waitForWorkload(t, j)
	if err := k8s.Delete(ctx, j, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "workload deleted", func() error {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(wl), &kueue.Workload{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("workload still there (err %v)", err)
	})
}
