package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// step0 runs the worked example's step 0: product-training holds 6 GPUs,
// research bursts to 48 with six 8-GPU jobs and a seventh waits.
func step0(t *testing.T, s *Scheduler) {
	t.Helper()
	apply(t, s, gpuJob("product", "pt-running", "training", 6).ReserveQuota("product-training", "h100").Obj())
	for i := range 7 {
		apply(t, s, gpuJob("research", fmt.Sprintf("r%d", i), "research-gpu", 8).Created(time.Duration(i)*time.Minute).Obj())
	}
	s.Cycle(now)
	if r, p, e := teamGPUs(t, s); r != 48 || p != 6 || e != 0 {
		t.Fatalf("step 0: research %d, product-training %d, eval %d; want 48, 6, 0", r, p, e)
	}
}

// 002, worked example, step 1: "product-training submits a 16-GPU job. 6 + 16 =
// 22 ≤ 24, so the job is within nominal and may reclaim. Ten GPUs are free, so 6
// more are needed. Research is the only queue above nominal (48 > 32), and
// preempting one 8-GPU research job is enough. Result: research 40,
// product-training 22, eval 0. Total 62, free 2."
//
// Step 2: "eval submits an 8-GPU job. That is within its nominal of 8. Six more
// GPUs are needed, so one more research job is preempted. Result: research 32
// (borrowing 0), product-training 22, eval 8. [...] research may borrow them
// because 12 − (22 − 12) = 2 are still lendable."
func TestWorkedExamplePreemptionReclaimsOneJobPerStep(t *testing.T) {
	s := threeTeamsReclaim(t, kueue.PreemptionPolicyAny)
	step0(t, s)

	// Step 1.
	apply(t, s, gpuJob("product", "pt-16", "training", 16).Created(time.Hour).Obj())
	ds := s.Cycle(now.Add(time.Minute))
	ps := preempts(ds)
	if len(ps) != 1 || len(ps[0].Victims) != 1 {
		t.Fatalf("step 1: preemptions %+v, want one decision with exactly one victim", ps)
	}
	v := ps[0].Victims[0]
	if ps[0].Preemptor != key("product", "pt-16") || ps[0].PreemptorClusterQueue != "product-training" {
		t.Errorf("preemptor %v in %s", ps[0].Preemptor, ps[0].PreemptorClusterQueue)
	}
	if v.ClusterQueue != "research" || v.Reason != PreemptionInCohortReclamation {
		t.Errorf("victim %+v, want a research job preempted for InCohortReclamation", v)
	}
	for _, want := range []string{"reclamation within the cohort", "product/pt-16", "UID: product/pt-16"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("victim message %q lacks %q", v.Message, want)
		}
	}
	mustPending(t, ds, "pt-16", ReasonWaitingForPreemption)
	if len(admits(ds)) != 0 {
		t.Fatalf("step 1 admitted %v before the eviction was confirmed", admittedNames(ds))
	}

	// Not confirmed yet: no second preemption for the same need.
	ds = s.Cycle(now.Add(2 * time.Minute))
	if len(preempts(ds)) != 0 || len(admits(ds)) != 0 {
		t.Fatalf("while the victim is being evicted: preempts %v, admits %v", preempts(ds), admittedNames(ds))
	}
	p := mustPending(t, ds, "pt-16", ReasonWaitingForPreemption)
	if !strings.Contains(p.Message, "waiting for 1 preempted workloads") {
		t.Errorf("message %q", p.Message)
	}

	s.EvictWorkload(v.Workload)
	ds = s.Cycle(now.Add(3 * time.Minute))
	if got := admittedNames(ds); strings.Join(got, ",") != "pt-16" {
		t.Fatalf("after the eviction admitted %v, want pt-16", got)
	}
	if len(preempts(ds)) != 0 {
		t.Fatalf("unexpected preemption %+v", preempts(ds))
	}
	if r, pt, e := teamGPUs(t, s); r != 40 || pt != 22 || e != 0 || 64-r-pt-e != 2 {
		t.Fatalf("step 1 result: research %d, product-training %d, eval %d; want 40, 22, 0 and 2 free", r, pt, e)
	}

	// Step 2.
	apply(t, s, gpuJob("eval", "eval-8", "eval", 8).Created(2*time.Hour).Obj())
	ds = s.Cycle(now.Add(4 * time.Minute))
	ps = preempts(ds)
	if len(ps) != 1 || len(ps[0].Victims) != 1 || ps[0].Victims[0].ClusterQueue != "research" {
		t.Fatalf("step 2: preemptions %+v, want exactly one research victim", ps)
	}
	confirm(s, ds)
	ds = s.Cycle(now.Add(5 * time.Minute))
	if got := admittedNames(ds); strings.Join(got, ",") != "eval-8" {
		t.Fatalf("step 2 admitted %v, want eval-8", got)
	}
	if r, pt, e := teamGPUs(t, s); r != 32 || pt != 22 || e != 8 {
		t.Fatalf("step 2 result: research %d, product-training %d, eval %d; want 32, 22, 8", r, pt, e)
	}
	// Research may still borrow the 2 lendable GPUs.
	apply(t, s, gpuJob("research", "two", "research-gpu", 2).Created(3*time.Hour).Obj())
	ds = s.Cycle(now.Add(6 * time.Minute))
	if got := admittedNames(ds); strings.Join(got, ",") != "two" {
		t.Fatalf("admitted %v, want the 2-GPU research job", got)
	}
	if len(preempts(ds)) != 0 {
		t.Fatalf("research preempted %+v although it is not within nominal", preempts(ds))
	}
}

// 002: "Borrowing does not return quota on its own. reclaimWithinCohort
// defaults to Never, so a lender waits until the borrower's jobs finish."
func TestWorkedExampleReclaimNeverWaitsForJobsToFinish(t *testing.T) {
	s := threeTeamsReclaim(t, kueue.PreemptionPolicyNever)
	step0(t, s)
	apply(t, s, gpuJob("product", "pt-16", "training", 16).Created(time.Hour).Obj())
	for i := range 3 {
		ds := s.Cycle(now.Add(time.Duration(i+1) * time.Minute))
		if len(preempts(ds)) != 0 {
			t.Fatalf("cycle %d preempted %+v with reclaimWithinCohort Never", i, preempts(ds))
		}
		mustStillPending(t, s, ds, "pt-16", ReasonInsufficientQuotaInCohort)
	}
	// One research job finishes: 6 unused floor + 12 free in the cohort ≥ 16.
	s.FinishWorkload(key("research", "r0"))
	ds := s.Cycle(now.Add(10 * time.Minute))
	if got := admittedNames(ds); strings.Join(got, ",") != "pt-16" {
		t.Fatalf("after r0 finished admitted %v, want pt-16 first (it does not borrow)", got)
	}
	if r, pt, _ := teamGPUs(t, s); r != 40 || pt != 22 {
		t.Fatalf("research %d, product-training %d; want 40, 22", r, pt)
	}
}

// 002, failure modes: "Borrowing storms. Without borrowingLimit, one team can
// absorb the whole idle pool, and the owners' return then preempts many large
// jobs at once. Cap borrowing at what you can afford to lose."
func TestBorrowingStormPreemptsManyJobsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		limit   []QuotaOption
		victims int
	}{
		{"no borrowingLimit: research holds all 64, three jobs go", nil, 3},
		{"borrowingLimit 16: research holds 48, one job goes", []QuotaOption{Borrowing("16")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("h100").Obj(),
				MakeClusterQueue("research").Cohort("ml").Quota("h100", gpu, "32", tc.limit...).Preemption(any_, never).Obj(),
				MakeClusterQueue("product-training").Cohort("ml").Quota("h100", gpu, "24").Preemption(any_, never).Obj(),
				MakeClusterQueue("eval").Cohort("ml").Quota("h100", gpu, "8").Preemption(any_, never).Obj(),
				MakeLocalQueue("research", "lq", "research").Obj(), MakeLocalQueue("product", "lq", "product-training").Obj())
			for i := range 8 {
				apply(t, s, MakeWorkload("research", fmt.Sprintf("r%d", i)).Queue("lq").Request(gpu, "8").Created(time.Duration(i)*time.Second).Obj())
			}
			s.Cycle(now)
			apply(t, s, MakeWorkload("product", "return").Queue("lq").Request(gpu, "24").Created(time.Hour).Obj())
			ds := s.Cycle(now.Add(time.Minute))
			ps := preempts(ds)
			if len(ps) != 1 || len(ps[0].Victims) != tc.victims {
				t.Fatalf("preemptions %+v, want one decision with %d victims", ps, tc.victims)
			}
			confirm(s, ds)
			if got := strings.Join(admittedNames(s.Cycle(now.Add(2*time.Minute))), ","); got != "return" {
				t.Fatalf("admitted %q, want the owner's job", got)
			}
		})
	}
}
