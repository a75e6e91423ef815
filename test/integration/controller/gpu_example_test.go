//go:build integration

package controller

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

const gpu = corev1.ResourceName("nvidia.com/gpu")

// createGPUCluster creates examples/gpu-cluster as objects: research 32 GPUs
// borrowing at most 16, product-training 24 lending at most 12, eval 8, all in
// cohort ml-platform and reclaiming with reclaimWithinCohort: Any.
func createGPUCluster(t *testing.T) {
	t.Helper()
	create(t, makeFlavor("h100"), makeFlavor("a100"),
		&kueue.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "ml-platform"}})
	for _, team := range []string{"research", "product-training", "eval"} {
		create(t, makeNS(team, map[string]string{"tenant": team}))
	}
	create(t,
		makeCQ("research").cohort("ml-platform").selector("tenant", "research").reclaimAny().
			flavor("h100", quota("cpu", "384", "", ""), quota("memory", "3840Gi", "", ""), quota(gpu, "32", "16", "")).
			flavor("a100", quota("cpu", "0", "", ""), quota("memory", "0", "", ""), quota(gpu, "0", "", "")).obj(),
		makeCQ("product-training").cohort("ml-platform").selector("tenant", "product-training").reclaimAny().
			flavor("h100", quota("cpu", "288", "", "144"), quota("memory", "2880Gi", "", "1440Gi"), quota(gpu, "24", "", "12")).obj(),
		makeCQ("eval").cohort("ml-platform").selector("tenant", "eval").reclaimAny().
			flavor("h100", quota("cpu", "96", "", ""), quota("memory", "960Gi", "", ""), quota(gpu, "8", "", "")).obj(),
		makeLQ("research", "research-gpu", "research"),
		makeLQ("product-training", "product-training-gpu", "product-training"),
		makeLQ("eval", "eval-gpu", "eval"),
	)
}

// 002, worked example step 0: "research bursts. Product-training is using 6 GPUs
// and eval 0": of seven 8-GPU research jobs six are admitted (32 nominal plus 16
// borrowed) and the seventh waits at research's borrowing limit. Steps 1 and 2:
// product-training's 16-GPU job and eval's 8-GPU job each preempt one research job.
func TestGPUWorkedExample(t *testing.T) {
	createGPUCluster(t)
	mgr := startManager(t, func(cfg *configapi.Configuration) { cfg.Metrics.EnableClusterQueueResources = true })

	// "Product-training is using 6 GPUs and eval 0."
	create(t, gpuWL("product-training", "pt-6", "product-training-gpu", 6))
	eventually(t, 30*time.Second, func() string {
		if !isAdmitted(getWL(t, "product-training", "pt-6")) {
			return "pt-6 not admitted"
		}
		return ""
	})
	for i := range 7 {
		create(t, gpuWL("research", fmt.Sprintf("train-%d", i), "research-gpu", 8))
		// Distinct creation times keep the FIFO order, hence which one waits, stable.
		time.Sleep(1100 * time.Millisecond)
	}
	eventually(t, 30*time.Second, func() string {
		if n := countAdmitted(listWLs(t, "research")); n != 6 {
			return fmt.Sprintf("%d research workloads admitted, want 6", n)
		}
		return ""
	})
	for i := range 6 {
		wl := getWL(t, "research", fmt.Sprintf("train-%d", i))
		psa := wl.Status.Admission.PodSetAssignments
		if len(psa) != 1 || psa[0].Flavors[gpu] != "h100" || psa[0].ResourceUsage.Name(gpu, "").Value() != 8 ||
			psa[0].Count == nil || *psa[0].Count != 1 || wl.Status.Admission.ClusterQueue != "research" {
			t.Errorf("train-%d admission = %+v, want research, h100, 8 GPUs, count 1", i, wl.Status.Admission)
		}
		if c := cond(wl, kueue.WorkloadQuotaReserved); c.Reason != kueue.WorkloadQuotaReserved {
			t.Errorf("train-%d QuotaReserved reason = %s", i, c.Reason)
		}
	}
	eventually(t, 10*time.Second, func() string {
		c := cond(getWL(t, "research", "train-6"), kueue.WorkloadQuotaReserved)
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "borrowing limit") ||
			!strings.Contains(c.Message, "research") {
			return fmt.Sprintf("train-6 QuotaReserved = %+v, want False naming research's borrowing limit", c)
		}
		return ""
	})

	t.Run("status", func(t *testing.T) {
		eventually(t, 10*time.Second, func() string {
			cq := &kueue.ClusterQueue{}
			if err := env.Client.Get(t.Context(), keyOf("", "research"), cq); err != nil {
				return err.Error()
			}
			st := cq.Status
			if st.AdmittedWorkloads != 6 || st.ReservingWorkloads != 6 || st.PendingWorkloads != 1 {
				return fmt.Sprintf("research counts admitted=%d reserving=%d pending=%d, want 6, 6, 1",
					st.AdmittedWorkloads, st.ReservingWorkloads, st.PendingWorkloads)
			}
			total, borrowed := flavorCell(st.FlavorsUsage, "h100", gpu)
			if total != 48 || borrowed != 16 {
				return fmt.Sprintf("research h100 GPUs total=%d borrowed=%d, want 48 and 16", total, borrowed)
			}
			if t2, _ := flavorCell(st.FlavorsReservation, "h100", gpu); t2 != 48 {
				return fmt.Sprintf("research flavorsReservation h100 GPUs = %d, want 48", t2)
			}
			lq := &kueue.LocalQueue{}
			if err := env.Client.Get(t.Context(), keyOf("research", "research-gpu"), lq); err != nil {
				return err.Error()
			}
			if lq.Status.AdmittedWorkloads != 6 || lq.Status.PendingWorkloads != 1 {
				return fmt.Sprintf("research-gpu counts admitted=%d pending=%d", lq.Status.AdmittedWorkloads, lq.Status.PendingWorkloads)
			}
			if u, _ := flavorCell(lq.Status.FlavorsUsage, "h100", gpu); u != 48 {
				return fmt.Sprintf("research-gpu h100 GPUs = %d, want 48", u)
			}
			return ""
		})
	})

	t.Run("metrics", func(t *testing.T) {
		eventually(t, 10*time.Second, func() string {
			text := mgr.scrape(t)
			for _, want := range []struct {
				name   string
				labels map[string]string
				value  float64
			}{
				{"kueue_cluster_queue_resource_usage", map[string]string{"cohort": "ml-platform", "cluster_queue": "research",
					"flavor": "h100", "resource": "nvidia.com/gpu", "replica_role": "standalone"}, 48},
				{"kueue_cluster_queue_nominal_quota", map[string]string{"cluster_queue": "research", "flavor": "h100", "resource": "nvidia.com/gpu"}, 32},
				{"kueue_cluster_queue_borrowing_limit", map[string]string{"cluster_queue": "research", "flavor": "h100", "resource": "nvidia.com/gpu"}, 16},
				{"kueue_cluster_queue_lending_limit", map[string]string{"cluster_queue": "product-training", "flavor": "h100", "resource": "nvidia.com/gpu"}, 12},
				{"kueue_admitted_workloads_total", map[string]string{"cluster_queue": "research"}, 6},
				{"kueue_admission_wait_time_seconds_count", map[string]string{"cluster_queue": "research"}, 6},
				{"kueue_pending_workloads", map[string]string{"cluster_queue": "research", "status": "inadmissible"}, 1},
				{"kueue_pending_workloads", map[string]string{"cluster_queue": "research", "status": "active"}, 0},
				{"kueue_local_queue_resource_usage", map[string]string{"name": "research-gpu", "namespace": "research",
					"flavor": "h100", "resource": "nvidia.com/gpu", "replica_role": "standalone"}, 48},
				{"kueue_local_queue_pending_workloads", map[string]string{"name": "research-gpu", "namespace": "research", "status": "inadmissible"}, 1},
			} {
				got, ok := sample(text, want.name, want.labels)
				if !ok || got != want.value {
					return fmt.Sprintf("%s%v = %v (found %v), want %v", want.name, want.labels, got, ok, want.value)
				}
			}
			if _, ok := sample(text, "kueue_admission_attempts_total", map[string]string{"result": "success"}); !ok {
				return "no kueue_admission_attempts_total{result=success}"
			}
			if _, ok := sample(text, "kueue_admission_attempt_duration_seconds_count", map[string]string{"result": "success"}); !ok {
				return "no kueue_admission_attempt_duration_seconds{result=success}"
			}
			return ""
		})
	})

	// 002, step 1: "preempting one 8-GPU research job is enough. Result: research
	// 40, product-training 22, eval 0." Step 2: "one more research job is
	// preempted. Result: research 32 (borrowing 0), product-training 22, eval 8."
	t.Run("preemption", func(t *testing.T) {
		create(t, gpuWL("product-training", "pt-16", "product-training-gpu", 16))
		eventually(t, 30*time.Second, func() string {
			if !isAdmitted(getWL(t, "product-training", "pt-16")) {
				return "pt-16 not admitted"
			}
			return ""
		})
		preempted := preemptedBy(t, "product-training/pt-16")
		if len(preempted) != 1 {
			t.Fatalf("research workloads preempted by product-training/pt-16: %v, want exactly one", preempted)
		}
		victim := getWL(t, "research", preempted[0])
		if c := cond(victim, kueue.WorkloadRequeued); c == nil || c.Status != metav1.ConditionTrue || c.Reason != kueue.WorkloadEvictedByPreemption {
			t.Errorf("victim %s Requeued = %+v, want True/Preempted", victim.Name, c)
		}
		eventually(t, 10*time.Second, func() string {
			text := mgr.scrape(t)
			if v, _ := sample(text, "kueue_preempted_workloads_total", map[string]string{
				"preempting_cluster_queue": "product-training", "reason": kueue.InCohortReclamationReason}); v != 1 {
				return fmt.Sprintf("kueue_preempted_workloads_total{product-training} = %v, want 1", v)
			}
			return ""
		})

		create(t, gpuWL("eval", "eval-8", "eval-gpu", 8))
		eventually(t, 30*time.Second, func() string {
			if !isAdmitted(getWL(t, "eval", "eval-8")) {
				return "eval-8 not admitted"
			}
			if n := countAdmitted(listWLs(t, "research")); n != 4 {
				return fmt.Sprintf("%d research workloads admitted, want 4", n)
			}
			return ""
		})
		if got := preemptedBy(t, "eval/eval-8"); len(got) != 1 {
			t.Errorf("research workloads preempted by eval/eval-8: %v, want exactly one", got)
		}
		eventually(t, 10*time.Second, func() string {
			text := mgr.scrape(t)
			if v, _ := sample(text, "kueue_preempted_workloads_total", map[string]string{
				"preempting_cluster_queue": "eval", "reason": kueue.InCohortReclamationReason}); v != 1 {
				return fmt.Sprintf("kueue_preempted_workloads_total{eval} = %v, want 1", v)
			}
			return ""
		})
	})
}

// preemptedBy lists research workloads whose Preempted condition (current or
// previous) names the preemptor, after checking the eviction's conditions.
func preemptedBy(t *testing.T, preemptor string) []string {
	t.Helper()
	var out []string
	for _, wl := range listWLs(t, "research") {
		p := cond(&wl, kueue.WorkloadPreempted)
		if p == nil || !strings.Contains(p.Message, preemptor) {
			continue
		}
		if p.Status == metav1.ConditionTrue {
			if p.Reason != kueue.InCohortReclamationReason {
				t.Errorf("%s Preempted reason = %s, want InCohortReclamation", wl.Name, p.Reason)
			}
			if e := cond(&wl, kueue.WorkloadEvicted); e == nil || e.Status != metav1.ConditionTrue || e.Reason != kueue.WorkloadEvictedByPreemption {
				t.Errorf("%s Evicted = %+v, want True/Preempted", wl.Name, e)
			}
			if wl.Status.Admission != nil {
				t.Errorf("%s still has status.admission after preemption", wl.Name)
			}
		}
		out = append(out, wl.Name)
	}
	return out
}

func flavorCell(usage []kueue.FlavorUsage, flavor string, r corev1.ResourceName) (total, borrowed int64) {
	for _, f := range usage {
		if string(f.Name) != flavor {
			continue
		}
		for _, c := range f.Resources {
			if c.Name == r {
				return c.Total.Value(), c.Borrowed.Value()
			}
		}
	}
	return -1, -1
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$`)

// sample finds the value of the sample of name whose labels include labels.
func sample(text, name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		match := true
		for k, v := range labels {
			if !strings.Contains(m[2], fmt.Sprintf("%s=%q", k, v)) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		return v, err == nil
	}
	return 0, false
}
