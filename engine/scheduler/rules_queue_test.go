package scheduler

import (
	"strings"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// oneQueue: flavor h100, queue a with nominal n GPUs, LocalQueue ns/lq.
func oneQueue(t *testing.T, a *ClusterQueueWrapper, objs ...any) *Scheduler {
	return world(t, Options{}, append([]any{MakeFlavor("h100").Obj(), a.Obj(), MakeLocalQueue("ns", "lq", "a").Obj()}, objs...)...)
}

// brief: "the CQ's namespaceSelector must match the namespace's labels (unset
// selects none, {} selects all)".
func TestNamespaceSelector(t *testing.T) {
	cases := []struct {
		name  string
		cq    *ClusterQueueWrapper
		admit bool
	}{
		{"unset selects none", MakeClusterQueue("a").Quota("h100", gpu, "8").NoNamespaceSelector(), false},
		{"empty selects all", MakeClusterQueue("a").Quota("h100", gpu, "8"), true},
		{"matching labels", MakeClusterQueue("a").Quota("h100", gpu, "8").NamespaceSelector(map[string]string{"tenant": "research"}), true},
		{"other labels", MakeClusterQueue("a").Quota("h100", gpu, "8").NamespaceSelector(map[string]string{"tenant": "eval"}), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := oneQueue(t, tc.cq, namespace{"ns", map[string]string{"tenant": "research"}}, gpus("w", 1).Obj())
			ds := s.Cycle(now)
			if tc.admit {
				if len(admits(ds)) != 1 {
					t.Fatalf("want admitted, got %v", ds)
				}
				return
			}
			mustPending(t, ds, "w", ReasonNamespaceNotSelected)
		})
	}
}

// brief: "Order: priority (spec.priority, else value of WorkloadPriorityClass/
// PriorityClass named by spec.priorityClassRef, else 0), then creation time, then
// UID." and 002: "queueingStrategy orders Workloads by priority, then creation
// time."
func TestQueueOrderPriorityCreationUID(t *testing.T) {
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "3"),
		gpus("old-low", 1).Created(0).Obj(),
		gpus("new-high", 1).Created(time.Hour).Priority(10).Obj(),
		gpus("class-high", 1).Created(2*time.Hour).PriorityClass("urgent", false).Obj(),
		gpus("uid-b", 1).Created(time.Minute).UID("b").Obj(),
		gpus("uid-a", 1).Created(time.Minute).UID("a").Obj(),
	)
	s.UpsertWorkloadPriorityClass("urgent", 5)
	ds := s.Cycle(now)
	if got := strings.Join(admittedNames(ds), ","); got != "new-high,class-high,old-low" {
		t.Fatalf("admitted %s, want new-high,class-high,old-low", got)
	}
	// Same priority and creation time: UID breaks the tie.
	s.FinishWorkload(key("ns", "old-low"))
	if got := strings.Join(admittedNames(s.Cycle(now)), ","); got != "uid-a" {
		t.Fatalf("admitted %s, want uid-a", got)
	}
	v, _ := s.WorkloadState(key("ns", "class-high"))
	if v.Priority != 5 {
		t.Errorf("priority from the WorkloadPriorityClass: %d", v.Priority)
	}
}

// The pod PriorityClass is used for a scheduling.k8s.io reference, and a class
// that changes value moves its pending workloads.
func TestPriorityClassReference(t *testing.T) {
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "1"),
		gpus("plain", 1).Obj(),
		gpus("pod-class", 1).Created(time.Hour).PriorityClass("system", true).Obj())
	s.UpsertPriorityClass("system", 100)
	s.UpsertWorkloadPriorityClass("system", -100) // same name, other group: ignored
	if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "pod-class" {
		t.Fatalf("admitted %v", got)
	}
}

// 002: "Under StrictFIFO, an older Workload that does not fit blocks newer ones.
// Under BestEffortFIFO, the default, newer Workloads that fit can go ahead."
func TestQueueingStrategies(t *testing.T) {
	for _, strategy := range []kueue.QueueingStrategy{kueue.StrictFIFO, kueue.BestEffortFIFO} {
		t.Run(string(strategy), func(t *testing.T) {
			s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "4").Strategy(strategy),
				gpus("small-1", 2).Obj(),
				gpus("big", 4).Created(time.Minute).Obj(),
				gpus("small-2", 2).Created(2*time.Minute).Obj())
			ds := s.Cycle(now)
			got := strings.Join(admittedNames(ds), ",")
			mustPending(t, ds, "big", ReasonInsufficientQuota)
			if strategy == kueue.StrictFIFO {
				if got != "small-1" {
					t.Fatalf("StrictFIFO admitted %s, want small-1 only", got)
				}
				p := mustPending(t, ds, "small-2", ReasonBlockedByStrictFIFOHead)
				if !strings.Contains(p.Message, "ns/big") {
					t.Errorf("message must name the head: %s", p.Message)
				}
				return
			}
			if got != "small-1,small-2" {
				t.Fatalf("BestEffortFIFO admitted %s, want small-1,small-2", got)
			}
		})
	}
}

// brief: "one Cycle admits EVERY workload that fits [...] in the order the
// queueing strategy defines" and "admissions it returns are assumed in the cache
// immediately [...] a second Cycle does not re-admit".
func TestCycleAdmitsEverythingThatFitsOnce(t *testing.T) {
	objs := []any{}
	for i := range 100 {
		objs = append(objs, gpus("w"+pad(i), 1).Created(time.Duration(i)*time.Second).Obj())
	}
	s := oneQueue(t, MakeClusterQueue("a").Quota("h100", gpu, "60"), objs...)
	ds := s.Cycle(now)
	a := admits(ds)
	if len(a) != 60 || a[0].Workload.Name != "w000" || a[59].Workload.Name != "w059" {
		t.Fatalf("admitted %d (%v...)", len(a), admittedNames(ds)[:3])
	}
	if n := len(ds) - len(a); n != 40 {
		t.Fatalf("pending decisions %d, want 40", n)
	}
	if again := admits(s.Cycle(now)); len(again) != 0 {
		t.Fatalf("second cycle re-admitted %d", len(again))
	}
	v, _ := s.ClusterQueueSnapshot("a")
	if v.AdmittedWorkloads != 60 || v.PendingWorkloads != 40 {
		t.Fatalf("counts: %+v", v)
	}
	lq, _ := s.LocalQueueSnapshot("ns", "lq")
	if lq.AdmittedWorkloads != 60 || lq.PendingWorkloads != 40 || lq.Usage[h100gpu] != 60 {
		t.Fatalf("local queue view: %+v", lq)
	}
}

func pad(i int) string {
	s := "000" + itoa(i)
	return s[len(s)-3:]
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// brief: "between queues of one cohort order candidates by Kueue's rules
// (non-borrowing before borrowing, then priority, then creation time, then UID)".
func TestCohortOrderNonBorrowingFirst(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Cohort("c").Quota("h100", gpu, "0").Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("h100", gpu, "4").Obj(),
		MakeLocalQueue("ns", "lq-a", "a").Obj(), MakeLocalQueue("ns", "lq-b", "b").Obj(),
		// Older and higher priority, but a must borrow all of it.
		MakeWorkload("ns", "borrower").Queue("lq-a").Request(gpu, "4").Priority(100).Obj(),
		MakeWorkload("ns", "owner").Queue("lq-b").Request(gpu, "4").Created(time.Hour).Obj())
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "owner" {
		t.Fatalf("admitted %v, want the non-borrowing owner first", got)
	}
	mustPending(t, ds, "borrower", ReasonInsufficientQuotaInCohort)
}

// brief: "stopPolicy Hold: no new admissions (pending reason Stopped);
// HoldAndDrain: also return Evict decisions for admitted workloads (reason
// ClusterQueueStopped). LocalQueue stopPolicy likewise (LocalQueueStopped)."
func TestStopPolicies(t *testing.T) {
	cases := []struct {
		name      string
		cqStop    kueue.StopPolicy
		lqStop    kueue.StopPolicy
		evict     string
		activeMsg string
	}{
		{"cq hold", kueue.Hold, "", "", "ClusterQueue a is stopped (stopPolicy Hold)"},
		{"cq drain", kueue.HoldAndDrain, "", EvictReasonClusterQueueStopped, "ClusterQueue a is stopped (stopPolicy HoldAndDrain)"},
		{"lq hold", "", kueue.Hold, "", "LocalQueue ns/lq is stopped (stopPolicy Hold)"},
		{"lq drain", "", kueue.HoldAndDrain, EvictReasonLocalQueueStopped, "LocalQueue ns/lq is stopped (stopPolicy HoldAndDrain)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cq := MakeClusterQueue("a").Quota("h100", gpu, "8")
			if tc.cqStop != "" {
				cq.StopPolicy(tc.cqStop)
			}
			lq := MakeLocalQueue("ns", "lq", "a")
			if tc.lqStop != "" {
				lq.StopPolicy(tc.lqStop)
			}
			s := world(t, Options{}, MakeFlavor("h100").Obj(), cq.Obj(), lq.Obj(),
				gpus("running", 2).ReserveQuota("a", "h100").Obj(), gpus("new", 1).Obj())
			ds := s.Cycle(now)
			p := mustPending(t, ds, "new", ReasonStopped)
			if p.Message != tc.activeMsg {
				t.Errorf("message %q, want %q", p.Message, tc.activeMsg)
			}
			var evicts []Evict
			for _, d := range ds {
				if e, ok := d.(Evict); ok {
					evicts = append(evicts, e)
				}
			}
			if tc.evict == "" {
				if len(evicts) != 0 {
					t.Fatalf("Hold must not evict: %v", evicts)
				}
				return
			}
			if len(evicts) != 1 || evicts[0].Workload.Name != "running" || evicts[0].Reason != tc.evict {
				t.Fatalf("evictions %v, want running with %s", evicts, tc.evict)
			}
			// The driver confirms: quota released, the workload pending (and held).
			s.EvictWorkload(key("ns", "running"))
			if u := usage(t, s, "a", "h100", gpu); u != 0 {
				t.Fatalf("usage after eviction %d", u)
			}
			mustPending(t, s.Cycle(now), "running", ReasonStopped)
		})
	}
}

// brief pending reasons: LocalQueueNotFound, ClusterQueueNotFound, Inactive
// workload (spec.active=false), ExceedsMaximumQuota (can never fit).
func TestPendingReasons(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Cohort("c").Quota("h100", gpu, "4", Borrowing("2")).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("h100", gpu, "10").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(),
		MakeLocalQueue("ns", "dangling", "missing").Obj(),
		MakeWorkload("ns", "no-lq").Queue("nope").Request(gpu, "1").Obj(),
		MakeWorkload("ns", "no-cq").Queue("dangling").Request(gpu, "1").Obj(),
		gpus("inactive", 1).Active(false).Obj(),
		gpus("huge", 7).Obj(),
	)
	ds := s.Cycle(now)
	mustPending(t, ds, "no-lq", ReasonLocalQueueNotFound)
	mustPending(t, ds, "no-cq", ReasonClusterQueueNotFound)
	mustPending(t, ds, "inactive", ReasonInactive)
	p := mustPending(t, ds, "huge", ReasonExceedsMaximumQuota)
	if !strings.Contains(p.Message, "at most 6") {
		t.Errorf("message must give the ceiling nominal 4 + borrowing limit 2: %s", p.Message)
	}
	// Creating the LocalQueue routes the workload.
	apply(t, s, MakeLocalQueue("ns", "nope", "a").Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "no-lq" {
		t.Fatalf("admitted %v", got)
	}
}

// DESIGN.md: "Every workload that is not admitted carries ... a sentence a person
// can act on ("needs 8 nvidia.com/gpu in flavor h100; 2 unused in cohort
// ml-platform ...")". When GPUs and the CPU that comes with them are both short,
// the sentence names the GPUs and lists the rest.
func TestPendingMessageNamesTheScarceResource(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("research").Cohort("ml").Quota("h100", "cpu", "96").Quota("h100", gpu, "8").Obj(),
		MakeClusterQueue("other").Cohort("ml").Quota("h100", "cpu", "24").Quota("h100", gpu, "2").Obj(),
		MakeLocalQueue("ns", "lq", "research").Obj(),
		MakeWorkload("ns", "running").Queue("lq").Request("cpu", "96").Request(gpu, "8").Obj(),
		MakeWorkload("ns", "waiting").Queue("lq").Request("cpu", "96").Request(gpu, "8").Created(time.Hour).Obj())
	ds := s.Cycle(now)
	p := mustPending(t, ds, "waiting", ReasonInsufficientQuotaInCohort)
	if !strings.HasPrefix(p.Message, "needs 8 nvidia.com/gpu in flavor h100; 2 unused in cohort ml") || !strings.Contains(p.Message, "also short of cpu") {
		t.Errorf("message = %q, want it to lead with the GPUs and list cpu as also short", p.Message)
	}
}
