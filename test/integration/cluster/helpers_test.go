//go:build integration

package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
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
	"quokka.dev/quokka/test/kubecluster"
)

// On a Job's pod template, runForAnnotation tells KWOK how long its pods run,
// and exitAfterAnnotation how long they take to exit once deleted
// (test/kubecluster/stages.yaml).
const (
	runForAnnotation    = "quokka.dev/test-run-for"
	exitAfterAnnotation = "quokka.dev/test-exit-after"
	// exitCodeAnnotation makes the pods fail with that code after runFor.
	exitCodeAnnotation = "quokka.dev/test-exit-code"
)

// until polls check every 100ms for up to 90 seconds and fails the test with
// check's last error and the end of the cluster components' logs.
func until(t *testing.T, what string, check func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 90*time.Second, true,
		func(context.Context) (bool, error) {
			if err := cluster.Alive(); err != nil {
				return false, err
			}
			last = check()
			return last == nil, nil
		})
	if err != nil {
		t.Fatalf("%s: not reached: %v (last: %v)\n%s", what, err, last, cluster.Logs())
	}
}

// applyDir applies the manifests of testdata/<dir>.
func applyDir(t *testing.T, dir string) {
	t.Helper()
	applyFrom(t, filepath.Join(framework.RepoRoot(), "test", "integration", "cluster", "testdata", dir), nil)
}

// applyFrom applies the manifests under path, but those skip selects.
func applyFrom(t *testing.T, path string, skip func(framework.Document) bool) {
	t.Helper()
	docs, err := framework.ReadManifests(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if skip != nil && skip(d) {
			continue
		}
		if d.Object.GetKind() == "Node" {
			addNode(t, d.Object)
			continue
		}
		if err := framework.Apply(context.Background(), k8s, d.Object); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
}

// addNode creates a Node for KWOK and removes the not-ready taint the API
// server puts on every new Node (see kubecluster.AddNode): in a cluster the
// node lifecycle controller removes it once the kubelet reports Ready, and
// that controller does not run here (it would want the fake kubelets'
// heartbeats).
func addNode(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kubecluster.AddNode(context.Background(), k8s, obj); err != nil {
		t.Fatal(err)
	}
}

// nodesReady waits until KWOK reports every named node Ready.
func nodesReady(t *testing.T, names ...string) {
	t.Helper()
	until(t, fmt.Sprintf("nodes %v Ready", names), func() error {
		for _, n := range names {
			var node corev1.Node
			if err := k8s.Get(context.Background(), client.ObjectKey{Name: n}, &node); err != nil {
				return err
			}
			ready := false
			for _, c := range node.Status.Conditions {
				ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
			}
			if !ready {
				return fmt.Errorf("node %s is not Ready: %v", n, node.Status.Conditions)
			}
		}
		return nil
	})
}

// cpuJob is a Job of `pods` pods of one CPU each, submitted to queue, whose
// pods run for runFor once started.
func cpuJob(ns, name, queue string, pods int32, runFor string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kueue.QueueNameLabel: queue}},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(pods),
			Completions: ptr.To(pods),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{runForAnnotation: runFor}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/batch:v1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
				},
			},
		},
	}
}

// podsOf lists the pods the Job controller made for a Job.
func podsOf(ns, jobName string) ([]corev1.Pod, error) {
	var pods corev1.PodList
	err := k8s.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{batchv1.JobNameLabel: jobName})
	return pods.Items, err
}

// workloadOf returns the Workload the Job integration made for a Job.
func workloadOf(ns, jobName string) (*kueue.Workload, error) {
	var wls kueue.WorkloadList
	if err := k8s.List(context.Background(), &wls, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for i := range wls.Items {
		if o := metav1.GetControllerOf(&wls.Items[i]); o != nil && o.Kind == "Job" && o.Name == jobName {
			return &wls.Items[i], nil
		}
	}
	return nil, fmt.Errorf("job %s/%s has no Workload yet", ns, jobName)
}

// admittedFlavor is the flavor of the Workload's only pod set's CPU, or an
// error while it is not admitted.
func admittedFlavor(ns, jobName string) (string, error) {
	wl, err := workloadOf(ns, jobName)
	if err != nil {
		return "", err
	}
	if wl.Status.Admission == nil || !meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
		return "", fmt.Errorf("workload %s is not admitted: %v", wl.Name, wl.Status.Conditions)
	}
	psa := wl.Status.Admission.PodSetAssignments
	if len(psa) != 1 {
		return "", fmt.Errorf("workload %s has %d pod set assignments", wl.Name, len(psa))
	}
	return string(psa[0].Flavors[corev1.ResourceCPU]), nil
}

// jobComplete returns a check: nil once the Job has Complete=True.
func jobComplete(ns, name string) func() error {
	return func() error {
		var j batchv1.Job
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &j); err != nil {
			return err
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("job %s/%s is not complete: active %d, succeeded %d, suspended %v",
			ns, name, j.Status.Active, j.Status.Succeeded, ptr.Deref(j.Spec.Suspend, false))
	}
}

// podsRunning returns a check: nil once the Job has n Running pods, all bound.
func podsRunning(ns, jobName string, n int) func() error {
	return func() error {
		pods, err := podsOf(ns, jobName)
		if err != nil {
			return err
		}
		running := 0
		for _, p := range pods {
			if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
				running++
			}
		}
		if running != n {
			states := make([]string, 0, len(pods))
			for _, p := range pods {
				states = append(states, fmt.Sprintf("%s on %q: %s %v", p.Name, p.Spec.NodeName, p.Status.Phase, p.Status.Conditions))
			}
			return fmt.Errorf("job %s/%s has %d running pods, want %d: %v", ns, jobName, running, n, states)
		}
		return nil
	}
}

// change is an object as the API server committed it, with its
// resourceVersion: etcd's revision, which orders all of a cluster's writes.
type change struct {
	rv  uint64
	obj client.Object
}

// changeRecorder watches objects of a namespace.
type changeRecorder struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	seen   []change
}

// recordChanges starts watching the namespace's objects of the lists' kinds.
func recordChanges(t *testing.T, ns string, lists ...client.ObjectList) *changeRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &changeRecorder{cancel: cancel}
	for _, list := range lists {
		w, err := watcher.Watch(ctx, list, client.InNamespace(ns))
		if err != nil {
			cancel()
			t.Fatalf("watching %T: %v", list, err)
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer w.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case ev, ok := <-w.ResultChan():
					if !ok {
						return
					}
					obj, isObj := ev.Object.(client.Object)
					if !isObj {
						continue
					}
					rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
					if err != nil {
						continue
					}
					r.mu.Lock()
					r.seen = append(r.seen, change{rv: rv, obj: obj})
					r.mu.Unlock()
				}
			}
		}()
	}
	return r
}

// stop ends the watches and returns what they saw, in commit order.
func (r *changeRecorder) stop() []change {
	r.cancel()
	r.wg.Wait()
	sort.Slice(r.seen, func(i, j int) bool { return r.seen[i].rv < r.seen[j].rv })
	return r.seen
}

// firstChange is the earliest change whose object matches.
func firstChange(changes []change, match func(client.Object) bool) *change {
	for i := range changes {
		if match(changes[i].obj) {
			return &changes[i]
		}
	}
	return nil
}

// unschedulable reports whether the scheduler found no node for the pod: it
// is Pending, unbound, and PodScheduled is False with reason Unschedulable.
func unschedulable(p *corev1.Pod) bool {
	c := podCondition(p, corev1.PodScheduled)
	return p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "" &&
		c != nil && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
}

// podsUnschedulable returns a check: nil once the Job has n pods and the
// scheduler found no node for any of them.
func podsUnschedulable(ns, jobName string, n int) func() error {
	return func() error {
		pods, err := podsOf(ns, jobName)
		if err != nil {
			return err
		}
		if len(pods) != n {
			return fmt.Errorf("job %s/%s has %d pods, want %d", ns, jobName, len(pods), n)
		}
		for _, p := range pods {
			if !unschedulable(&p) {
				return fmt.Errorf("pod %s on %q: phase %s, PodScheduled %+v; want unschedulable", p.Name, p.Spec.NodeName, p.Status.Phase, podCondition(&p, corev1.PodScheduled))
			}
		}
		return nil
	}
}

// podCondition is the pod's condition of that type, or nil.
func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
