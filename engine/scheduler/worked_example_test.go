package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

const gpu = "nvidia.com/gpu"

var h100gpu = resources.FlavorResource{Flavor: "h100", Resource: gpu}

// threeTeams builds the spec's worked example: 64 H100 GPUs in flavor h100 and
// three ClusterQueues in cohort ml-platform, with CPU and memory at 12 CPU and
// 120Gi per GPU.
func threeTeams(t *testing.T) *Scheduler {
	return world(t, Options{},
		MakeFlavor("h100").NodeLabel("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3").Obj(),
		MakeClusterQueue("research").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "research"}).
			Quota("h100", "cpu", "384").Quota("h100", "memory", "3840Gi").Quota("h100", gpu, "32", Borrowing("16")).Obj(),
		MakeClusterQueue("product-training").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "product"}).
			Quota("h100", "cpu", "288", Lending("144")).Quota("h100", "memory", "2880Gi", Lending("1440Gi")).
			Quota("h100", gpu, "24", Lending("12")).Obj(),
		MakeClusterQueue("eval").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "eval"}).
			Quota("h100", "cpu", "96").Quota("h100", "memory", "960Gi").Quota("h100", gpu, "8").Obj(),
		namespace{"research", map[string]string{"tenant": "research"}},
		namespace{"product", map[string]string{"tenant": "product"}},
		namespace{"eval", map[string]string{"tenant": "eval"}},
		MakeLocalQueue("research", "research-gpu", "research").Obj(),
		MakeLocalQueue("product", "training", "product-training").Obj(),
		MakeLocalQueue("eval", "eval", "eval").Obj(),
	)
}

// gpuJob requests n GPUs with 12 CPU and 120Gi per GPU, as one pod.
func gpuJob(ns, name, queue string, n int) *WorkloadWrapper {
	return MakeWorkload(ns, name).Queue(queue).
		Request(gpu, fmt.Sprint(n)).Request("cpu", fmt.Sprint(12*n)).Request("memory", fmt.Sprintf("%dGi", 120*n))
}

// 002, worked example, step 0: "Product-training is using 6 GPUs and eval 0.
// [...] Research ceiling: 32 + min(16, 20) = 48 GPUs, which is six 8-GPU jobs.
// Allocated: 48 + 6 + 0 = 54. Idle: 10."
func TestWorkedExampleStep0ResearchBursts(t *testing.T) {
	s := threeTeams(t)
	apply(t, s, gpuJob("product", "pt-running", "training", 6).ReserveQuota("product-training", "h100").Obj())
	for i := range 7 {
		apply(t, s, gpuJob("research", fmt.Sprintf("r%d", i), "research-gpu", 8).Created(time.Duration(i)*time.Minute).Obj())
	}
	ds := s.Cycle(now)
	if got := admittedNames(ds); strings.Join(got, ",") != "r0,r1,r2,r3,r4,r5" {
		t.Fatalf("admitted %v, want exactly r0..r5", got)
	}
	research, pt, eval := usage(t, s, "research", "h100", gpu), usage(t, s, "product-training", "h100", gpu), usage(t, s, "eval", "h100", gpu)
	if research != 48 || pt != 6 || eval != 0 {
		t.Fatalf("GPU usage research %d, product-training %d, eval %d; want 48, 6, 0", research, pt, eval)
	}
	if idle := 64 - research - pt - eval; idle != 10 {
		t.Fatalf("idle GPUs %d, want 10", idle)
	}
	p := mustPending(t, ds, "r6", ReasonBorrowingLimitReached)
	t.Logf("r6: %s", p.Message)
	for _, want := range []string{"needs 8 nvidia.com/gpu in flavor h100", "4 unused in cohort ml-platform", "borrowing limit of research reached"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("message %q lacks %q", p.Message, want)
		}
	}
	// Five of the six admissions borrow nothing until research passes 32 GPUs.
	borrowing := 0
	for _, a := range admits(ds) {
		if a.Borrowing {
			borrowing++
		}
	}
	if borrowing != 2 {
		t.Errorf("admissions above nominal 32: %d, want 2 (the 5th and 6th job)", borrowing)
	}
	// A second cycle admits nothing more and keeps the reason.
	ds = s.Cycle(now)
	if len(admits(ds)) != 0 {
		t.Fatalf("second cycle admitted %v", admittedNames(ds))
	}
	mustStillPending(t, s, ds, "r6", ReasonBorrowingLimitReached)
}

// 002, worked example, step 2: "Result: research 32 (borrowing 0), product-training
// 22, eval 8. The 2 free GPUs are product-training's, and research may borrow them
// because 12 − (22 − 12) = 2 are still lendable."
func TestWorkedExampleStep2LendableRemainder(t *testing.T) {
	s := threeTeams(t)
	for i := range 4 {
		apply(t, s, gpuJob("research", fmt.Sprintf("running-%d", i), "research-gpu", 8).ReserveQuota("research", "h100").Obj())
	}
	apply(t, s, gpuJob("product", "pt-6", "training", 6).ReserveQuota("product-training", "h100").Obj())
	apply(t, s, gpuJob("product", "pt-16", "training", 16).ReserveQuota("product-training", "h100").Obj())
	apply(t, s, gpuJob("eval", "eval-8", "eval", 8).ReserveQuota("eval", "h100").Obj())

	apply(t, s, gpuJob("research", "three", "research-gpu", 3).Obj())
	ds := s.Cycle(now)
	mustPending(t, ds, "three", ReasonInsufficientQuotaInCohort)

	apply(t, s, gpuJob("research", "two", "research-gpu", 2).Created(time.Minute).Obj())
	ds = s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "two" {
		t.Fatalf("admitted %v, want only the 2-GPU job", got)
	}
	if a := admits(ds)[0]; !a.Borrowing {
		t.Error("the 2-GPU job borrows product-training's lendable GPUs")
	}
}
