package scheduler

import (
	"strings"
	"testing"
	"time"

	. "quokka.dev/quokka/engine/enginetest"
)

// brief: "Finished or deleted workloads release quota at once."
func TestFinishedAndDeletedReleaseQuota(t *testing.T) {
	cases := map[string]func(s *Scheduler){
		"FinishWorkload":     func(s *Scheduler) { s.FinishWorkload(key("ns", "running")) },
		"DeleteWorkload":     func(s *Scheduler) { s.DeleteWorkload(key("ns", "running")) },
		"Finished condition": func(s *Scheduler) { apply(t, s, gpus("running", 8).ReserveQuota("a", "h100").Finished().Obj()) },
	}
	for name, release := range cases {
		t.Run(name, func(t *testing.T) {
			s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "8"),
				gpus("running", 8).ReserveQuota("a", "h100").Obj(), gpus("next", 8).Obj())
			mustPending(t, s.Cycle(now), "next", ReasonInsufficientQuota)
			release(s)
			if u := usage(t, s, "a", "h100", gpu); u != 0 {
				t.Fatalf("usage %d after release", u)
			}
			if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "next" {
				t.Fatalf("admitted %v", got)
			}
		})
	}
}

// brief: "provide Forget(key) to undo an assumed admission when a driver's API
// write fails", and an informer update that lags behind the write keeps the
// assumption.
func TestForgetUndoesAssumedAdmission(t *testing.T) {
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "8"), gpus("w", 8).Obj())
	if len(admits(s.Cycle(now))) != 1 {
		t.Fatal("not admitted")
	}
	apply(t, s, gpus("w", 8).Obj()) // stale informer event without status.admission
	if v, _ := s.WorkloadState(key("ns", "w")); v.State != StateAssumed || v.ClusterQueue != "a" {
		t.Fatalf("state %+v, want assumed in a", v)
	}
	s.Forget(key("ns", "w"))
	if v, _ := s.WorkloadState(key("ns", "w")); v.State != StatePending {
		t.Fatalf("state %+v, want pending", v)
	}
	if u := usage(t, s, "a", "h100", gpu); u != 0 {
		t.Fatalf("usage %d after Forget", u)
	}
	if len(admits(s.Cycle(now))) != 1 {
		t.Fatal("a forgotten workload is admitted again")
	}
	// Confirmation turns the assumption into an admission; Forget then does nothing.
	apply(t, s, gpus("w", 8).ReserveQuota("a", "h100").Obj())
	s.Forget(key("ns", "w"))
	if v, _ := s.WorkloadState(key("ns", "w")); v.State != StateAdmitted {
		t.Fatalf("state %+v, want admitted", v)
	}
	if u := usage(t, s, "a", "h100", gpu); u != 8 {
		t.Fatalf("usage %d, want 8", u)
	}
}

// brief: "EvictWorkload: driver confirms an eviction: quota released, workload
// pending again (requeued, keeps its creation time/priority)".
func TestEvictRequeuesWithOriginalOrder(t *testing.T) {
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "4"),
		gpus("first", 4).Created(0).ReserveQuota("a", "h100").Obj(),
		gpus("second", 4).Created(time.Minute).Obj())
	s.EvictWorkload(key("ns", "first"))
	if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "first" {
		t.Fatalf("the evicted workload keeps its place ahead of newer ones; admitted %v", got)
	}
}

// brief: DynamicQuotaOrchestration "when true and a CQ/Cohort has
// status.effectiveQuotas != nil, use effectiveQuotas.resourceGroups instead of
// spec.resourceGroups (an empty list is used as is, no fallback)".
func TestDynamicQuotaOrchestrationEffectiveQuotas(t *testing.T) {
	cases := []struct {
		name  string
		gate  bool
		cq    *ClusterQueueWrapper
		admit bool
	}{
		{"gate off uses spec", false, MakeClusterQueue("a").Quota("h100", gpu, "8").EffectiveQuota("h100", gpu, "1"), true},
		{"gate on uses effective", true, MakeClusterQueue("a").Quota("h100", gpu, "8").EffectiveQuota("h100", gpu, "1"), false},
		{"gate on, empty effective list", true, MakeClusterQueue("a").Quota("h100", gpu, "8").EmptyEffectiveQuotas(), false},
		{"gate on, no effective quotas", true, MakeClusterQueue("a").Quota("h100", gpu, "8"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{DynamicQuotaOrchestration: tc.gate}, MakeFlavor("h100").Obj(), tc.cq.Obj(),
				MakeLocalQueue("ns", "lq", "a").Obj(), gpus("w", 4).Obj())
			ds := s.Cycle(now)
			if got := len(admits(ds)) == 1; got != tc.admit {
				t.Fatalf("admitted=%v, want %v: %v", got, tc.admit, ds)
			}
		})
	}
}

func TestUpsertErrorsNameFieldPath(t *testing.T) {
	s := New(Options{})
	err := s.UpsertWorkload(MakeWorkload("ns", "w").Request("cpu", "-1").Obj())
	if err == nil || !strings.Contains(err.Error(), "spec.podSets[0].template.spec.containers[0].resources.requests[cpu]") {
		t.Fatalf("error %v must name the field", err)
	}
	err = s.UpsertCohort(MakeCohort("c").Quota("h100", gpu, "-2").Obj())
	if err == nil || !strings.Contains(err.Error(), "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota") {
		t.Fatalf("error %v must name the field", err)
	}
}

// brief: "DryRun(wl *kueue.Workload) DryRunResult // 'what if submitted now':
// fits where (flavors), by borrowing or not, or why not; never changes state".
func TestDryRun(t *testing.T) {
	s := threeTeams(t)
	apply(t, s, gpuJob("product", "pt", "training", 6).ReserveQuota("product-training", "h100").Obj())
	for i := range 5 {
		apply(t, s, gpuJob("research", "r"+itoa(i), "research-gpu", 8).ReserveQuota("research", "h100").Obj())
	}
	before, _ := s.ClusterQueueSnapshot("research")
	res := s.DryRun(gpuJob("research", "probe", "research-gpu", 8).Obj())
	if !res.Fits || !res.Borrowing || res.ClusterQueue != "research" || res.PodSets[0].Flavors[gpu] != "h100" {
		t.Fatalf("dry run %+v, want fits in h100 by borrowing", res)
	}
	if len(res.Flavors) != 1 || res.Flavors[0].Flavors[0].Resources[0].Available < 8 {
		t.Fatalf("flavor outcomes must carry amounts: %+v", res.Flavors)
	}
	res = s.DryRun(gpuJob("research", "probe", "research-gpu", 16).Obj())
	if res.Fits || res.Reason != ReasonBorrowingLimitReached {
		t.Fatalf("16 more GPUs pass research's ceiling of 48: %+v", res)
	}
	after, _ := s.ClusterQueueSnapshot("research")
	if after.AdmittedWorkloads != before.AdmittedWorkloads || usage(t, s, "research", "h100", gpu) != 40 {
		t.Fatal("DryRun must not change state")
	}
	if _, ok := s.WorkloadState(key("research", "probe")); ok {
		t.Fatal("DryRun must not record the workload")
	}
}

// Views report quotas in effect, usage and borrowed amounts.
func TestClusterQueueView(t *testing.T) {
	s := threeTeams(t)
	for i := range 5 {
		apply(t, s, gpuJob("research", "r"+itoa(i), "research-gpu", 8).ReserveQuota("research", "h100").Obj())
	}
	v, _ := s.ClusterQueueSnapshot("research")
	if !v.Active || v.Cohort != "ml-platform" || v.AdmittedWorkloads != 5 {
		t.Fatalf("view %+v", v)
	}
	var q QuotaView
	for _, x := range v.Quotas {
		if x.Resource == gpu {
			q = x
		}
	}
	if q.Nominal != 32 || q.BorrowingLimit != 16 {
		t.Fatalf("gpu quota %+v", q)
	}
	for _, u := range v.Usage {
		if u.Resource == gpu && (u.Total != 40 || u.Borrowed != 8) {
			t.Fatalf("gpu usage %+v, want 40 with 8 borrowed", u)
		}
	}
}

// A Pending decision names the workload's LocalQueue (its spec.queueName), so
// that a driver counts pending workloads per LocalQueue without reading the
// object; a workload whose LocalQueue does not exist names it all the same.
func TestPendingNamesTheLocalQueue(t *testing.T) {
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "8"),
		gpus("running", 8).ReserveQuota("a", "h100").Obj(), gpus("next", 8).Obj(),
		MakeWorkload("ns", "lost").Queue("missing").Request(gpu, "1").Obj())
	ds := s.Cycle(now)
	if p := mustPending(t, ds, "next", ReasonInsufficientQuota); p.LocalQueue != "lq" {
		t.Errorf("next: LocalQueue %q, want lq", p.LocalQueue)
	}
	if p := mustPending(t, ds, "lost", ReasonLocalQueueNotFound); p.LocalQueue != "missing" {
		t.Errorf("lost: LocalQueue %q, want missing", p.LocalQueue)
	}
}
