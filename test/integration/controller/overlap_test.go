//go:build integration

package controller

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/internal/scheme"
)

// Kueue: test/integration/singlecluster/scheduler/preemption_test.go, Context
// "In a ClusterQueue that is part of a cohort", It "Should preempt all
// necessary workloads in concurrent scheduling with the same priority
// (RecomputeAssignmentUponPreemptionTargetsOverlap=true)" and "(…=false)",
// through the manager, with the gate set in its Configuration. beta-cq
// borrows all of the cohort's 6 cpus with three workloads; alpha and gamma,
// 2 cpus each within their queues' nominal quota, reclaim. With the gate on
// two beta workloads are evicted at once; with it off one, "Finishing
// eviction for first set of preempted workloads" admits one of alpha and
// gamma and evicts a second beta workload, and after that eviction both are
// admitted and one beta workload is left. Each beta workload belongs to a
// running Job, so that its eviction stays in flight (no job integration runs
// here) until the test suspends the Job, as Kueue's FinishEvictionForWorkloads
// ends it.
func TestOverlappingPreemptionTargetsThroughTheManager(t *testing.T) {
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("RecomputeAssignmentUponPreemptionTargetsOverlap=%t", gate), func(t *testing.T) {
			ns := fmt.Sprintf("overlap-%t", gate)
			cohort := ns
			create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}))
			for _, q := range []string{"alpha", "beta", "gamma"} {
				cq := makeCQ(ns+"-"+q).cohort(cohort).selector("team", ns).flavor("default", quota("cpu", "2", "", ""))
				if q != "beta" {
					cq.reclaimAny()
				}
				create(t, cq.obj(), makeLQ(ns, q, ns+"-"+q))
			}
			betas := []string{"beta-0", "beta-1", "beta-2"}
			for _, name := range betas {
				job := &batchv1.Job{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
					Spec: batchv1.JobSpec{Suspend: ptr.To(false), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
					}}},
				}
				create(t, job)
				wl := makeWL(ns, name, "beta", "cpu", "2")
				if err := controllerutil.SetControllerReference(job, wl, scheme.New()); err != nil {
					t.Fatal(err)
				}
				create(t, wl)
			}
			startManagerWith(t, func(cfg *configapi.Configuration) {
				cfg.FeatureGates = map[string]bool{string(configapi.FeatureRecomputeAssignmentUponPreemptionTargetsOverlap): gate}
			}, prometheus.NewRegistry())
			waitAdmitted(t, ns, betas...)

			create(t, makeWL(ns, "alpha", "alpha", "cpu", "2"), makeWL(ns, "gamma", "gamma", "cpu", "2"))
			first := 1
			if gate {
				first = 2
			}
			victims := waitEvicted(t, ns, betas, first)
			consistently(t, 2*time.Second, func() string {
				if got := evicted(t, ns, betas); len(got) != first {
					return fmt.Sprintf("evicted %v, want %d beta workloads while the first evictions are in flight", got, first)
				}
				return ""
			})
			suspendJobs(t, ns, victims...)
			if !gate {
				// "Finishing eviction for first set of preempted workloads":
				// one of alpha and gamma is admitted, and the other evicts a
				// second beta workload.
				eventually(t, 20*time.Second, func() string {
					if n := countAdmitted([]kueue.Workload{*getWL(t, ns, "alpha"), *getWL(t, ns, "gamma")}); n != 1 {
						return fmt.Sprintf("%d of alpha and gamma admitted, want 1", n)
					}
					return ""
				})
				second := waitEvicted(t, ns, betas, 2)
				suspendJobs(t, ns, slices.DeleteFunc(second, func(n string) bool { return slices.Contains(victims, n) })...)
			}
			waitAdmitted(t, ns, "alpha", "gamma")
			eventually(t, 20*time.Second, func() string {
				admitted := 0
				for _, n := range betas {
					if isAdmitted(getWL(t, ns, n)) {
						admitted++
					}
				}
				if admitted != 1 {
					return fmt.Sprintf("%d beta workloads admitted, want 1", admitted)
				}
				return ""
			})
		})
	}
}

// evicted lists the named workloads whose Evicted condition is True.
func evicted(t *testing.T, ns string, names []string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		if c := cond(getWL(t, ns, n), kueue.WorkloadEvicted); c != nil && c.Status == metav1.ConditionTrue {
			out = append(out, n)
		}
	}
	return out
}

// waitEvicted waits until exactly want of the named workloads are evicted and
// returns them.
func waitEvicted(t *testing.T, ns string, names []string, want int) []string {
	t.Helper()
	var got []string
	eventually(t, 20*time.Second, func() string {
		if got = evicted(t, ns, names); len(got) != want {
			return fmt.Sprintf("evicted %v, want %d of %v", got, want, names)
		}
		return ""
	})
	return got
}

// suspendJobs suspends the named Jobs, which ends their workloads' evictions.
func suspendJobs(t *testing.T, ns string, names ...string) {
	t.Helper()
	for _, n := range names {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			job := &batchv1.Job{}
			if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: n}, job); err != nil {
				return err
			}
			job.Spec.Suspend = ptr.To(true)
			return env.Client.Update(context.Background(), job)
		})
		if err != nil {
			t.Fatalf("suspending job %s: %v", n, err)
		}
	}
}
