//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
)

// driverAndWorkers is Kueue's workload "one": a driver pod set of 2 pods of
// 1 cpu and a workers pod set of 5 pods of 1 gpu.
func driverAndWorkers(ns, name, queue string) *kueue.Workload {
	wl := makeWL(ns, name, queue, "cpu", "1")
	wl.Spec.PodSets[0].Name, wl.Spec.PodSets[0].Count = "driver", 2
	workers := *wl.Spec.PodSets[0].DeepCopy()
	workers.Name, workers.Count = "workers", 5
	workers.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	wl.Spec.PodSets = append(wl.Spec.PodSets, workers)
	return wl
}

// waitReservation waits until the ClusterQueue's status reserves cpu and
// gpu of its flavors on-demand and model-a.
func waitReservation(t *testing.T, cq string, cpu, gpu int64) {
	t.Helper()
	eventually(t, 20*time.Second, func() string {
		var q kueue.ClusterQueue
		if err := env.Client.Get(context.Background(), keyOf("", cq), &q); err != nil {
			return err.Error()
		}
		gotCPU, _ := flavorCell(q.Status.FlavorsReservation, "on-demand", corev1.ResourceCPU)
		gotGPU, _ := flavorCell(q.Status.FlavorsReservation, "model-a", "example.com/gpu")
		if gotCPU != cpu || gotGPU != gpu {
			return fmt.Sprintf("%s reserves %d cpu and %d gpu, want %d and %d", cq, gotCPU, gotGPU, cpu, gpu)
		}
		return ""
	})
}

// Kueue: test/integration/singlecluster/controller/core/
// clusterqueue_controller_test.go (v0.17.0), "Should update status when
// workloads have reclaimable pods" and, with the ReclaimablePods gate off,
// "Should ignore update status when workloads have reclaimable pods".
// Kueue's test writes the admission itself; here the manager admits the
// workload, then its reclaimable pods are written as a job integration
// would: two workers (5 gpu reserved, then 3), then every worker and one
// driver (2 cpu, then 1; no gpu).
func TestKueueClusterQueueStatusWithReclaimablePods(t *testing.T) {
	for _, gateOff := range []bool{false, true} {
		name := "gate on"
		if gateOff {
			name = "gate off"
		}
		t.Run(name, func(t *testing.T) {
			ns := "reclaim-status"
			if gateOff {
				ns = "reclaim-status-off"
			}
			create(t, makeFlavor("on-demand"), makeFlavor("model-a"), makeNS(ns, nil),
				&kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: kueue.ClusterQueueSpec{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
					ResourceGroups: []kueue.ResourceGroup{
						{CoveredResources: []corev1.ResourceName{"cpu"}, Flavors: []kueue.FlavorQuotas{
							{Name: "on-demand", Resources: []kueue.ResourceQuota{quota("cpu", "5", "", "")}}}},
						{CoveredResources: []corev1.ResourceName{"example.com/gpu"}, Flavors: []kueue.FlavorQuotas{
							{Name: "model-a", Resources: []kueue.ResourceQuota{quota("example.com/gpu", "5", "", "")}}}},
					}}},
				makeLQ(ns, "q", ns))
			m := startManagerWith(t, func(cfg *configapi.Configuration) {
				cfg.FeatureGates = map[string]bool{string(configapi.FeatureReclaimablePods): !gateOff}
			}, prometheus.NewRegistry())
			defer m.stop()
			create(t, driverAndWorkers(ns, "one", "q"))
			waitAdmitted(t, ns, "one")
			waitReservation(t, ns, 2, 5)

			updateStatus(t, ns, "one", func(w *kueue.Workload) {
				w.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: "workers", Count: 2}}
			})
			if gateOff {
				consistently(t, 2*time.Second, func() string {
					var q kueue.ClusterQueue
					if err := env.Client.Get(context.Background(), keyOf("", ns), &q); err != nil {
						return err.Error()
					}
					if gpu, _ := flavorCell(q.Status.FlavorsReservation, "model-a", "example.com/gpu"); gpu != 5 {
						return fmt.Sprintf("the gate is off, yet %d gpu reserved, want 5", gpu)
					}
					return ""
				})
				return
			}
			waitReservation(t, ns, 2, 3)
			updateStatus(t, ns, "one", func(w *kueue.Workload) {
				w.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: "driver", Count: 1}, {Name: "workers", Count: 5}}
			})
			waitReservation(t, ns, 1, 0)
		})
	}
}

// Kueue: test/integration/singlecluster/controller/jobs/job/
// job_controller_test.go (v0.17.0), "Should allow reclaim of resources that
// are no longer needed", through the manager and the Job integration. job1
// (parallelism 2, completions 5, 2 cpu a pod) runs in a queue of 5 cpu; job2
// (3 cpu) does not fit; once job1 has 4 completions its one remaining pod
// needs 2 cpu, its Workload gets reclaimablePods main: 1, and job2 starts.
func TestKueueJobReclaimablePodsThroughTheManager(t *testing.T) {
	ns := "reclaim-jobs"
	cpuQueue(t, ns, "5")
	startManagerOpts(t, nil, prometheus.NewRegistry(), core.LoopOptions{}, job.Controller())
	newJob := func(name, cpu string, parallelism, completions int32) *batchv1.Job {
		return &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kueue.QueueNameLabel: "q"}},
			Spec: batchv1.JobSpec{Suspend: ptr.To(true), Parallelism: ptr.To(parallelism), Completions: ptr.To(completions),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}},
		}
	}
	getJob := func(name string) *batchv1.Job {
		var j batchv1.Job
		if err := env.Client.Get(context.Background(), keyOf(ns, name), &j); err != nil {
			t.Fatal(err)
		}
		return &j
	}
	workloadOf := func(name string) *kueue.Workload {
		for _, w := range listWLs(t, ns) {
			if len(w.OwnerReferences) > 0 && w.OwnerReferences[0].Name == name {
				return &w
			}
		}
		return nil
	}
	running := func(name string) func() string {
		return func() string {
			if ptr.Deref(getJob(name).Spec.Suspend, true) {
				return name + " still suspended"
			}
			return ""
		}
	}

	create(t, newJob("job1", "2", 2, 5))
	eventually(t, 20*time.Second, running("job1"))
	create(t, newJob("job2", "3", 1, 1))
	eventually(t, 20*time.Second, func() string {
		wl := workloadOf("job2")
		if wl == nil {
			return "job2 has no workload yet"
		}
		if c := cond(wl, kueue.WorkloadQuotaReserved); c == nil || c.Status != metav1.ConditionFalse {
			return "job2's workload not yet pending"
		}
		return ""
	})
	consistently(t, 2*time.Second, func() string {
		if !ptr.Deref(getJob("job2").Spec.Suspend, false) {
			return "job2 started with 3 cpu needed and 1 free"
		}
		return ""
	})

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j := getJob("job1")
		j.Status.Succeeded = 4
		return env.Client.Status().Update(context.Background(), j)
	})
	if err != nil {
		t.Fatalf("marking 4 of job1's completions done: %v", err)
	}
	eventually(t, 20*time.Second, func() string {
		wl := workloadOf("job1")
		if wl == nil {
			return "job1's workload is gone"
		}
		if rp := wl.Status.ReclaimablePods; len(rp) != 1 || rp[0].Name != kueue.DefaultPodSetName || rp[0].Count != 1 {
			return fmt.Sprintf("job1's reclaimable pods are %+v, want main: 1", rp)
		}
		return ""
	})
	eventually(t, 20*time.Second, running("job2"))
	eventually(t, 20*time.Second, func() string {
		var cq kueue.ClusterQueue
		if err := env.Client.Get(context.Background(), keyOf("", ns), &cq); err != nil {
			return err.Error()
		}
		if total, _ := flavorCell(cq.Status.FlavorsReservation, "default", corev1.ResourceCPU); total != 5 {
			return fmt.Sprintf("ClusterQueue reserves %d cpu, want 5 (2 for job1's last pod, 3 for job2)", total)
		}
		return ""
	})
}
