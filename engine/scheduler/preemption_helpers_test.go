package scheduler

import (
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// threeTeamsReclaim is the worked example's cluster with every queue's
// reclaimWithinCohort set to reclaim (the spec uses Any).
func threeTeamsReclaim(t *testing.T, reclaim kueue.PreemptionPolicy) *Scheduler {
	never := kueue.PreemptionPolicyNever
	return world(t, Options{},
		MakeFlavor("h100").NodeLabel("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3").Obj(),
		MakeClusterQueue("research").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "research"}).
			Quota("h100", "cpu", "384").Quota("h100", "memory", "3840Gi").Quota("h100", gpu, "32", Borrowing("16")).
			Preemption(reclaim, never).Obj(),
		MakeClusterQueue("product-training").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "product"}).
			Quota("h100", "cpu", "288", Lending("144")).Quota("h100", "memory", "2880Gi", Lending("1440Gi")).
			Quota("h100", gpu, "24", Lending("12")).Preemption(reclaim, never).Obj(),
		MakeClusterQueue("eval").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "eval"}).
			Quota("h100", "cpu", "96").Quota("h100", "memory", "960Gi").Quota("h100", gpu, "8").Preemption(reclaim, never).Obj(),
		namespace{"research", map[string]string{"tenant": "research"}},
		namespace{"product", map[string]string{"tenant": "product"}},
		namespace{"eval", map[string]string{"tenant": "eval"}},
		MakeLocalQueue("research", "research-gpu", "research").Obj(),
		MakeLocalQueue("product", "training", "product-training").Obj(),
		MakeLocalQueue("eval", "eval", "eval").Obj(),
	)
}

func preempts(ds []Decision) []Preempt {
	var out []Preempt
	for _, d := range ds {
		if p, ok := d.(Preempt); ok {
			out = append(out, p)
		}
	}
	return out
}

// confirm evicts every victim of the decisions, as a driver does once the API
// server has the Evicted condition.
func confirm(s *Scheduler, ds []Decision) {
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			s.EvictWorkload(v.Workload)
		}
	}
}

func teamGPUs(t *testing.T, s *Scheduler) (research, pt, eval int64) {
	t.Helper()
	return usage(t, s, "research", "h100", gpu), usage(t, s, "product-training", "h100", gpu), usage(t, s, "eval", "h100", gpu)
}

func int32p(v int32) *int32 { return &v }
