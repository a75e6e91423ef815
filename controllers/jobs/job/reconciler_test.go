package job

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// harness runs the reconciler against a fake client, one pass at a time.
type harness struct {
	t      *testing.T
	c      client.Client
	r      *Reconciler
	key    client.ObjectKey
	events *events.FakeRecorder
}

func newHarness(t *testing.T, job *batchv1.Job, objs ...client.Object) *harness {
	t.Helper()
	c := fakeClient(append(objs, job)...)
	rec := events.NewFakeRecorder(100)
	return &harness{t: t, c: c, r: &Reconciler{Client: c, Recorder: rec}, key: client.ObjectKeyFromObject(job), events: rec}
}

// settle runs enough passes for every step of a transition (each pass makes at
// most one write).
func (h *harness) settle() {
	h.t.Helper()
	for range 6 {
		if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key}); err != nil {
			h.t.Fatalf("reconcile: %v", err)
		}
	}
}

func (h *harness) job() *batchv1.Job {
	h.t.Helper()
	j := &batchv1.Job{}
	if err := h.c.Get(context.Background(), h.key, j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

func (h *harness) workload() *kueue.Workload {
	h.t.Helper()
	j := h.job()
	wl := &kueue.Workload{}
	if err := h.c.Get(context.Background(), client.ObjectKey{Namespace: j.Namespace, Name: WorkloadName(j.Name, j.UID)}, wl); err != nil {
		h.t.Fatal(err)
	}
	return wl
}

func (h *harness) writeWorkloadStatus(mutate func(*kueue.Workload)) {
	h.t.Helper()
	wl := h.workload()
	mutate(wl)
	if err := h.c.Status().Update(context.Background(), wl); err != nil {
		h.t.Fatal(err)
	}
}

func TestUnlabelledJobIsIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("plain", "ns").obj())
	h.settle()
	var list kueue.WorkloadList
	if err := h.c.List(context.Background(), &list); err != nil || len(list.Items) != 0 {
		t.Errorf("workloads = %d (err %v); want none", len(list.Items), err)
	}
	if h.job().Spec.Suspend != nil {
		t.Error("an unlabelled Job was suspended")
	}
}

func TestAdmitThenEvictThenFinish(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "research").queue("research-gpu").request("nvidia.com/gpu", "8").suspend(true).obj(), h100())
	h.settle()
	if !ptr.Deref(h.job().Spec.Suspend, false) {
		t.Fatal("job runs before admission")
	}

	h.writeWorkloadStatus(func(wl *kueue.Workload) { admit(wl, "h100") })
	h.settle()
	j := h.job()
	if ptr.Deref(j.Spec.Suspend, true) {
		t.Fatal("admitted job still suspended")
	}
	if j.Spec.Template.Spec.NodeSelector["nvidia.com/gpu.product"] != "NVIDIA-H100-80GB-HBM3" || len(j.Spec.Template.Spec.Tolerations) != 1 {
		t.Errorf("template after admission: nodeSelector %v, tolerations %v", j.Spec.Template.Spec.NodeSelector, j.Spec.Template.Spec.Tolerations)
	}

	// The Job controller sets startTime when the Job starts; eviction must clear
	// it before the template can be restored.
	j.Status.StartTime = ptr.To(metav1.Now())
	if err := h.c.Status().Update(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	h.writeWorkloadStatus(func(wl *kueue.Workload) { setCondition(wl, kueue.WorkloadEvicted, kueue.WorkloadEvictedByPreemption) })
	h.settle()
	j = h.job()
	if !ptr.Deref(j.Spec.Suspend, false) || len(j.Spec.Template.Spec.NodeSelector) != 0 || len(j.Spec.Template.Spec.Tolerations) != 0 || j.Status.StartTime != nil {
		t.Errorf("after eviction: suspend %v, nodeSelector %v, tolerations %v, startTime %v; want suspended with the template as submitted",
			j.Spec.Suspend, j.Spec.Template.Spec.NodeSelector, j.Spec.Template.Spec.Tolerations, j.Status.StartTime)
	}

	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobFailed, Status: "True", Message: "BackoffLimitExceeded"})
	if err := h.c.Status().Update(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	h.settle()
	cond := meta.FindStatusCondition(h.workload().Status.Conditions, kueue.WorkloadFinished)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != FinishedReasonFailed {
		t.Errorf("Finished = %+v; want True, Failed", cond)
	}
}

func TestUnsuspendedJobIsSuspendedUntilAdmitted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("late", "ns").queue("q").suspend(false).obj())
	h.settle()
	if !ptr.Deref(h.job().Spec.Suspend, false) {
		t.Error("a managed Job that bypassed the webhook was left running before admission")
	}
}

func TestDeletedJobDeletesItsWorkload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("gone", "ns").queue("q").suspend(true).obj())
	h.settle()
	wl := h.workload()
	if err := h.c.Delete(context.Background(), h.job()); err != nil {
		t.Fatal(err)
	}
	h.settle()
	err := h.c.Get(context.Background(), client.ObjectKeyFromObject(wl), &kueue.Workload{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("workload of a deleted job: err = %v; want NotFound", err)
	}
}

func (h *harness) updateJob(mutate func(*batchv1.Job)) {
	h.t.Helper()
	j := h.job()
	mutate(j)
	if err := h.c.Update(context.Background(), j); err != nil {
		h.t.Fatal(err)
	}
}

// Kueue replaces the Workload of a pending Job that changed: the quota must
// cover what will actually run.
func TestPendingJobEditReplacesItsWorkload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").parallelism(2).suspend(true).obj())
	h.settle()
	h.updateJob(func(j *batchv1.Job) {
		j.Spec.Parallelism = ptr.To[int32](4)
		j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "b"}
	})
	h.settle()
	after := h.workload()
	if ps := after.Spec.PodSets[0]; ps.Count != 4 || ps.Template.Spec.NodeSelector["zone"] != "b" {
		t.Errorf("workload pod set: count %d, nodeSelector %v; want a new workload of 4 pods in zone b", ps.Count, ps.Template.Spec.NodeSelector)
	}
	if got := h.job().Spec.Template.Spec.NodeSelector; got["zone"] != "b" {
		t.Errorf("the user's nodeSelector edit was reverted: %v", got)
	}
}

// Eviction takes two writes; if the core clears the admission in between, the
// injected template must still be restored, not mistaken for a user's edit.
func TestAdmissionClearedBetweenSuspendAndRestore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").suspend(true).obj(), h100())
	h.settle()
	h.writeWorkloadStatus(func(wl *kueue.Workload) { admit(wl, "h100") })
	h.settle()
	// The fake client assigns no UIDs; a label marks this Workload instead.
	marked := h.workload()
	marked.Labels["test/original"] = "true"
	if err := h.c.Update(context.Background(), marked); err != nil {
		t.Fatal(err)
	}

	h.writeWorkloadStatus(func(wl *kueue.Workload) { setCondition(wl, kueue.WorkloadEvicted, kueue.WorkloadEvictedByPreemption) })
	if _, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key}); err != nil {
		t.Fatal(err)
	}
	if !ptr.Deref(h.job().Spec.Suspend, false) {
		t.Fatal("first pass did not suspend")
	}
	h.writeWorkloadStatus(func(wl *kueue.Workload) {
		wl.Status.Admission = nil
		meta.RemoveStatusCondition(&wl.Status.Conditions, kueue.WorkloadAdmitted)
	})
	h.settle()
	j := h.job()
	if h.workload().Labels["test/original"] != "true" {
		t.Error("the workload was replaced; the injected template was taken for a user's edit")
	}
	if len(j.Spec.Template.Spec.NodeSelector) != 0 || len(j.Spec.Template.Spec.Tolerations) != 0 || j.Annotations[InjectedAnnotation] != "" {
		t.Errorf("template not restored: nodeSelector %v, tolerations %v, annotations %v",
			j.Spec.Template.Spec.NodeSelector, j.Spec.Template.Spec.Tolerations, j.Annotations)
	}
}

// recorded drains the events recorded so far.
func (h *harness) recorded() []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestEventsTellWhatHappenedToTheJob(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").suspend(true).obj(), h100())
	h.settle()
	h.writeWorkloadStatus(func(wl *kueue.Workload) { admit(wl, "h100") })
	h.settle()
	h.writeWorkloadStatus(func(wl *kueue.Workload) { setCondition(wl, kueue.WorkloadEvicted, kueue.WorkloadEvictedByPreemption) })
	h.settle()
	got := strings.Join(h.recorded(), "\n")
	for _, want := range []string{
		"Normal CreatedWorkload Created Workload job-train-",
		"Normal Started Admitted by ClusterQueue research",
		"Normal Stopped Workload evicted (Preempted)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("events:\n%s\nmissing %q", got, want)
		}
	}

	missing := newHarness(t, makeJob("x", "ns").queue("q").workloadPriority("nope").suspend(true).obj())
	if _, err := missing.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: missing.key}); err == nil {
		t.Fatal("a missing WorkloadPriorityClass did not fail the pass")
	}
	if got := strings.Join(missing.recorded(), "\n"); !strings.Contains(got, "Warning CreateWorkloadFailed") || !strings.Contains(got, `"nope"`) {
		t.Errorf("events %q; want a warning naming the missing class", got)
	}
}

// A pass that reads the Job's Workload from a cache that has not seen its
// creation yet creates it again and gets AlreadyExists. The pass that created
// it recorded CreatedWorkload; the Job must not show the event twice (seen in
// a cluster with a real Job controller, test/integration/cluster).
func TestCreatedWorkloadRecordedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, makeJob("train", "ns").queue("q").suspend(true).obj(), h100())
	h.settle()
	stale := interceptor.NewClient(h.c.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*kueue.Workload); ok {
				return apierrors.NewNotFound(kueue.GroupVersion.WithResource("workloads").GroupResource(), key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	r := &Reconciler{Client: stale, Recorder: h.events}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key}); err != nil {
		t.Fatalf("a pass that finds its Workload already created failed: %v", err)
	}
	if n := strings.Count(strings.Join(h.recorded(), "\n"), "CreatedWorkload"); n != 1 {
		t.Errorf("CreatedWorkload recorded %d times, want once:\n%s", n, strings.Join(h.recorded(), "\n"))
	}
}
