//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
)

// Kueue: test/integration/singlecluster/controller/jobs/job/
// job_controller_test.go, "Should schedule jobs with partial admission",
// through the manager and the Job integration against a real API server. A
// Job of 5 pods of 2 cpu (completions 6) waits in a ClusterQueue of 5 cpu;
// given kueue.x-k8s.io/job-min-parallelism: 1 it is admitted with 2 pods
// (its Workload, made again, has minCount 1), runs with parallelism 2 and
// holds 4 cpu; stopped (Kueue's test clears the admission; here the
// Workload is deactivated), it is suspended with its parallelism of 5 back.
func TestKueueJobPartialAdmissionThroughTheManager(t *testing.T) {
	ns := "partial-jobs"
	cpuQueue(t, ns, "5")
	startManagerOpts(t, nil, prometheus.NewRegistry(), core.LoopOptions{}, job.Controller())
	create(t, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "job1", Labels: map[string]string{kueue.QueueNameLabel: "q"}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Parallelism: ptr.To[int32](5), Completions: ptr.To[int32](6),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}}},
	})
	jobKey := keyOf(ns, "job1")
	getJob := func() *batchv1.Job {
		var j batchv1.Job
		if err := env.Client.Get(context.Background(), jobKey, &j); err != nil {
			t.Fatal(err)
		}
		return &j
	}
	workloadOf := func() *kueue.Workload {
		for _, w := range listWLs(t, ns) {
			if len(w.OwnerReferences) > 0 && w.OwnerReferences[0].Name == "job1" {
				return &w
			}
		}
		return nil
	}
	eventually(t, 20*time.Second, func() string {
		wl := workloadOf()
		if wl == nil {
			return "no workload yet"
		}
		if c := cond(wl, kueue.WorkloadQuotaReserved); c == nil || c.Status != metav1.ConditionFalse {
			return "job1's workload not yet pending"
		}
		return ""
	})
	if !ptr.Deref(getJob().Spec.Suspend, false) {
		t.Fatal("job1 started with 10 cpu needed and 5 in its queue")
	}

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		j := getJob()
		if j.Annotations == nil {
			j.Annotations = map[string]string{}
		}
		j.Annotations[kueue.JobMinParallelismAnnotation] = "1"
		return env.Client.Update(context.Background(), j)
	})
	if err != nil {
		t.Fatalf("enabling partial admission: %v", err)
	}
	eventually(t, 20*time.Second, func() string {
		if j := getJob(); ptr.Deref(j.Spec.Suspend, true) {
			return "job1 still suspended"
		}
		return ""
	})
	if p := ptr.Deref(getJob().Spec.Parallelism, 0); p != 2 {
		t.Fatalf("job1 runs with parallelism %d, want 2", p)
	}
	wl := workloadOf()
	if wl == nil || ptr.Deref(wl.Spec.PodSets[0].MinCount, 0) != 1 || wl.Spec.PodSets[0].Count != 5 {
		t.Fatalf("job1's workload %+v: want 5 pods, minCount 1", wl)
	}
	if psa := wl.Status.Admission.PodSetAssignments[0]; ptr.Deref(psa.Count, 0) != 2 {
		t.Fatalf("admission %+v: want 2 pods", psa)
	}
	eventually(t, 20*time.Second, func() string {
		var cq kueue.ClusterQueue
		if err := env.Client.Get(context.Background(), keyOf("", ns), &cq); err != nil {
			return err.Error()
		}
		if total, _ := flavorCell(cq.Status.FlavorsReservation, "default", corev1.ResourceCPU); total != 4 {
			return "ClusterQueue reservation is not 4 cpu"
		}
		return ""
	})

	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := workloadOf()
		w.Spec.Active = ptr.To(false)
		return env.Client.Update(context.Background(), w)
	})
	if err != nil {
		t.Fatalf("deactivating job1's workload: %v", err)
	}
	eventually(t, 20*time.Second, func() string {
		j := getJob()
		if !ptr.Deref(j.Spec.Suspend, false) {
			return "job1 not suspended"
		}
		if p := ptr.Deref(j.Spec.Parallelism, 0); p != 5 {
			return "job1's parallelism not restored to 5"
		}
		return ""
	})
}
