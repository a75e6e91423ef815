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
	"k8s.io/utils/ptr"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/controllers/core"
	"quokka.dev/quokka/controllers/jobs/job"
)

// afsConfig turns admission fair sharing on with a one-second sampling
// interval and a ten-second half-life: usage moves a fifteenth of the way to
// what is in use at each sample (Kueue's moving average).
func afsConfig(cfg *configapi.Configuration) {
	cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{
		UsageHalfLifeTime:     metav1.Duration{Duration: 10 * time.Second},
		UsageSamplingInterval: metav1.Duration{Duration: time.Second},
	}
}

// consumedCPU reads a LocalQueue's status.fairSharing.admissionFairSharingStatus.
func consumedCPU(t *testing.T, ns, name string) (milli int64, at time.Time, ok bool) {
	t.Helper()
	lq := &kueue.LocalQueue{}
	if err := env.Client.Get(context.Background(), keyOf(ns, name), lq); err != nil {
		t.Fatalf("reading LocalQueue %s/%s: %v", ns, name, err)
	}
	if lq.Status.FairSharing == nil || lq.Status.FairSharing.AdmissionFairSharingStatus == nil {
		return 0, time.Time{}, false
	}
	s := lq.Status.FairSharing.AdmissionFairSharingStatus
	q := s.ConsumedResources[corev1.ResourceCPU]
	return q.MilliValue(), s.LastUpdate.Time, true
}

// Kueue (fair_sharing_test.go, "Restarting the manager", "should retain the
// LocalQueue's historical usage across a restart"): the manager writes each
// LocalQueue's decayed usage to status.fairSharing.admissionFairSharingStatus,
// sampling on a quiet cluster too, and a restarted manager starts from it
// rather than from zero.
func TestAdmissionFairSharingUsageSurvivesRestart(t *testing.T) {
	ns := "afs-restart"
	cq := makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", "4", "", "")).obj()
	cq.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cq, makeLQ(ns, "q", ns))
	first := startManager(t, afsConfig)
	create(t, makeWL(ns, "w0", "q", "cpu", "2"))
	waitAdmitted(t, ns, "w0")
	// The usage grows with each sample while w0 runs, with no other event.
	eventually(t, 20*time.Second, func() string {
		v, _, ok := consumedCPU(t, ns, "q")
		if !ok || v < 500 {
			return fmt.Sprintf("consumed cpu %dm (status written: %v), want at least 500m", v, ok)
		}
		return ""
	})
	// Kueue's kueue_local_queue_admission_fair_sharing_usage: the same usage,
	// weighted, over the LocalQueue's weight (1).
	eventually(t, 10*time.Second, func() string {
		v, ok := sample(first.scrape(t), "kueue_local_queue_admission_fair_sharing_usage",
			map[string]string{"name": "q", "namespace": ns, "cluster_queue": cq.Name, "replica_role": "standalone"})
		if !ok || v < 0.5 {
			return fmt.Sprintf("kueue_local_queue_admission_fair_sharing_usage = %v (found %v), want at least 0.5", v, ok)
		}
		return ""
	})
	finish(t, getWL(t, ns, "w0"))
	first.stop()
	before, stoppedAt, _ := consumedCPU(t, ns, "q")

	startManager(t, afsConfig)
	// The new manager samples (w0 is finished: nothing in use) and writes a
	// newer status; seeded from the old one, it is what it was, decayed by
	// the samples since (Kueue's test asks for more than 70%; from zero it
	// would stay 0).
	eventually(t, 20*time.Second, func() string {
		v, at, ok := consumedCPU(t, ns, "q")
		if !ok || !at.After(stoppedAt) {
			return fmt.Sprintf("no status written since the restart (last update %v, stopped at %v)", at, stoppedAt)
		}
		if v <= before*7/10 {
			return fmt.Sprintf("consumed cpu after the restart %dm, want more than 70%% of %dm", v, before)
		}
		return ""
	})
}

// Kueue: test/e2e/sequential/baseline/admission_fair_sharing_test.go, When
// "using UsageBasedAdmissionFairSharing within a ClusterQueue", It "should
// prioritize LocalQueues with lower usage", through the manager and the Job
// integration against a real API server, with Kueue's half-life and sampling
// interval of a second. Two 4-cpu Jobs of lq-a fill the 8-cpu ClusterQueue
// until lq-a's usage passes 4 cpus; then job-a-3 (lq-a) and job-b-1 (lq-b)
// wait, and when job-a-1 ends (Kueue's test deletes it; here its Workload
// finishes, as the Job's would) lq-b's job starts and job-a-3, older, waits.
// Without the ClusterQueue's admission mode job-a-3 goes first.
func TestKueueAdmissionFairSharingPrioritizesLowerUsageThroughTheManager(t *testing.T) {
	ns := "afs-jobs"
	cq := makeCQ(ns).selector("team", ns).flavor("default", quota("cpu", "8", "", "")).obj()
	cq.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cq, makeLQ(ns, "lq-a", ns), makeLQ(ns, "lq-b", ns))
	finishWorkloadsAtEnd(t, ns)
	startAFSJobManager(t)
	runTwoJobsUntilUsage(t, ns, "lq-a", "job-a", "4")
	suspended := func(name string) bool { return jobSuspended(t, ns, name) }
	workloadOf := func(jobName string) *kueue.Workload {
		for _, w := range listWLs(t, ns) {
			if len(w.OwnerReferences) > 0 && w.OwnerReferences[0].Name == jobName {
				return &w
			}
		}
		return nil
	}
	// job-a-3's Workload is older than job-b-1's by more than the second
	// creation times are kept to: in plain FIFO order it would go first.
	afsJob(t, ns, "job-a-3", "lq-a", "4")
	eventually(t, 20*time.Second, func() string {
		if workloadOf("job-a-3") == nil {
			return "no workload for job-a-3 yet"
		}
		return ""
	})
	time.Sleep(1100 * time.Millisecond)
	afsJob(t, ns, "job-b-1", "lq-b", "4")
	eventually(t, 20*time.Second, func() string {
		if workloadOf("job-b-1") == nil {
			return "no workload for job-b-1 yet"
		}
		return ""
	})
	first := workloadOf("job-a-1")
	if first == nil {
		t.Fatal("no workload for job-a-1")
	}
	finish(t, first)
	eventually(t, 20*time.Second, func() string {
		if suspended("job-b-1") {
			return "job-b-1 still suspended"
		}
		return ""
	})
	if !suspended("job-a-3") {
		t.Fatal("job-a-3 started: lq-a's higher usage must keep it behind job-b-1")
	}
}

// startAFSJobManager runs the manager with the Job integration and Kueue's
// e2e admission fair sharing settings: a half-life and a sampling interval
// of a second.
func startAFSJobManager(t *testing.T) {
	t.Helper()
	startManagerOpts(t, func(cfg *configapi.Configuration) {
		cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{
			UsageHalfLifeTime:     metav1.Duration{Duration: time.Second},
			UsageSamplingInterval: metav1.Duration{Duration: time.Second},
		}
	}, prometheus.NewRegistry(), core.LoopOptions{}, job.Controller())
}

// finishWorkloadsAtEnd finishes every Workload of ns once the test and its
// manager have stopped: a Job left admitted without ready pods would keep a
// later test's blockAdmission waiting (the API server is shared).
func finishWorkloadsAtEnd(t *testing.T, ns string) {
	t.Helper()
	t.Cleanup(func() {
		for _, w := range listWLs(t, ns) {
			if c := cond(&w, kueue.WorkloadFinished); c == nil || c.Status != metav1.ConditionTrue {
				finish(t, &w)
			}
		}
	})
}

// afsJob creates a suspended one-pod Job requesting cpus in LocalQueue lq.
func afsJob(t *testing.T, ns, name, lq, cpus string) {
	t.Helper()
	create(t, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{kueue.QueueNameLabel: lq}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpus)}}}}}}},
	})
}

// runTwoJobsUntilUsage starts two Jobs of cpus each in lq (prefix-1 and
// prefix-2) and waits until the LocalQueue's consumed cpu, in its status,
// passes cpus, as Kueue's e2e tests do before their next step.
func runTwoJobsUntilUsage(t *testing.T, ns, lq, prefix, cpus string) {
	t.Helper()
	afsJob(t, ns, prefix+"-1", lq, cpus)
	afsJob(t, ns, prefix+"-2", lq, cpus)
	eventually(t, 20*time.Second, func() string {
		if jobSuspended(t, ns, prefix+"-1") || jobSuspended(t, ns, prefix+"-2") {
			return lq + "'s jobs not both started"
		}
		return ""
	})
	over := resource.MustParse(cpus)
	eventually(t, 20*time.Second, func() string {
		if v, _, ok := consumedCPU(t, ns, lq); !ok || v <= over.MilliValue() {
			return fmt.Sprintf("%s's consumed cpu %dm (status written: %v), want more than %s", lq, v, ok, cpus)
		}
		return ""
	})
}

func jobSuspended(t *testing.T, ns, name string) bool {
	t.Helper()
	var j batchv1.Job
	if err := env.Client.Get(context.Background(), keyOf(ns, name), &j); err != nil {
		t.Fatal(err)
	}
	return ptr.Deref(j.Spec.Suspend, false)
}

// Kueue: test/e2e/sequential/baseline/admission_fair_sharing_test.go, When
// "preemption is enabled across ClusterQueues in a cohort", It "should
// preempt workloads when reclaiming quota from cohort": afs-cq1 and afs-cq2
// (4 cpus each, UsageBasedAdmissionFairSharing, reclaimWithinCohort Any) in
// one Cohort. lq1-a's two 3-cpu Jobs borrow, lq1-a's usage passes 3 cpus,
// and a 3-cpu Job of lq2-a reclaims: it starts, and afs-cq1 keeps one
// workload admitted.
func TestKueueAdmissionFairSharingReclaimsAcrossTheCohortThroughTheManager(t *testing.T) {
	ns := "afs-cohort"
	var cqs []*kueue.ClusterQueue
	for _, name := range []string{"afs-cq1", "afs-cq2"} {
		cq := makeCQ(name).cohort("afs-cohort").selector("team", ns).flavor("default", quota("cpu", "4", "", "")).obj()
		cq.Spec.AdmissionScope = &kueue.AdmissionScope{AdmissionMode: kueue.UsageBasedAdmissionFairSharing}
		cq.Spec.Preemption = &kueue.ClusterQueuePreemption{ReclaimWithinCohort: kueue.PreemptionPolicyAny}
		cqs = append(cqs, cq)
	}
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}), cqs[0], cqs[1],
		makeLQ(ns, "lq1-a", "afs-cq1"), makeLQ(ns, "lq2-a", "afs-cq2"))
	finishWorkloadsAtEnd(t, ns)
	startAFSJobManager(t)
	runTwoJobsUntilUsage(t, ns, "lq1-a", "job1-a", "3")
	afsJob(t, ns, "job2-a-1", "lq2-a", "3")
	eventually(t, 30*time.Second, func() string {
		if jobSuspended(t, ns, "job2-a-1") {
			return "job2-a-1 still suspended"
		}
		var cq kueue.ClusterQueue
		if err := env.Client.Get(context.Background(), keyOf("", "afs-cq1"), &cq); err != nil {
			t.Fatal(err)
		}
		if cq.Status.AdmittedWorkloads != 1 {
			return fmt.Sprintf("afs-cq1 has %d workloads admitted, want 1", cq.Status.AdmittedWorkloads)
		}
		return ""
	})
}
