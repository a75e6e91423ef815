package scheduler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

const (
	never   = kueue.PreemptionPolicyNever
	any_    = kueue.PreemptionPolicyAny
	lower   = kueue.PreemptionPolicyLowerPriority
	lowerEq = kueue.PreemptionPolicyLowerOrNewerEqualPriority
)

// job is a one-pod workload requesting cpu cores with a priority.
func job(ns, name string, cpu, prio int) *WorkloadWrapper {
	return MakeWorkload(ns, name).Queue("lq").Priority(int32(prio)).Request("cpu", fmt.Sprint(cpu))
}

// pair is two queues a and b in cohort c with nominal cpu quotas; namespace a
// feeds a, namespace b feeds b.
func pair(t *testing.T, opts Options, a, b *ClusterQueueWrapper) *Scheduler {
	return world(t, opts, MakeFlavor("default").Obj(), a.Cohort("c").Obj(), b.Cohort("c").Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
}

// admitted upserts workloads as admitted in cq at increasing QuotaReserved
// times (the order given is the admission order).
func admitted(t *testing.T, s *Scheduler, cq string, ws ...*WorkloadWrapper) {
	for i, w := range ws {
		apply(t, s, w.ReserveQuota(cq, "default").QuotaReservedAt(time.Duration(i)*time.Minute).Obj())
	}
}

func victimNames(ds []Decision) string {
	var out []string
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			out = append(out, v.Workload.Name+":"+v.Reason)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// 002/Kueue: withinClusterQueue "LowerPriority" lets a workload preempt
// lower-priority workloads of its own queue; "LowerOrNewerEqualPriority" also
// equal-priority workloads that are newer; "Never" nothing.
func TestWithinClusterQueuePolicies(t *testing.T) {
	cases := []struct {
		name   string
		policy kueue.PreemptionPolicy
		prio   int
		// created offset of the preemptor relative to the victims (created at Epoch).
		created time.Duration
		want    string
	}{
		{"Never preempts nothing", never, 10, 0, ""},
		{"LowerPriority takes a lower priority", lower, 10, 0, "low:InClusterQueue"},
		{"LowerPriority spares equal priority", lower, 0, 0, ""},
		{"LowerOrNewerEqualPriority takes an equal, newer one", lowerEq, 0, -time.Hour, "low:InClusterQueue"},
		{"LowerOrNewerEqualPriority spares an equal, older one", lowerEq, 0, time.Hour, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("default").Obj(),
				MakeClusterQueue("a").Quota("default", "cpu", "4").Preemption(never, tc.policy).Obj(),
				MakeLocalQueue("a", "lq", "a").Obj())
			admitted(t, s, "a", job("a", "low", 4, 0))
			apply(t, s, job("a", "new", 4, tc.prio).Created(tc.created).Obj())
			ds := s.Cycle(now)
			if got := victimNames(ds); got != tc.want {
				t.Fatalf("victims %q, want %q", got, tc.want)
			}
		})
	}
}

// 002: "A workload may reclaim lent quota only when, with it admitted, its
// queue stays within its nominal quota"; and candidates from other queues must
// be borrowing.
func TestReclaimWithinCohortRules(t *testing.T) {
	cases := []struct {
		name    string
		reclaim kueue.PreemptionPolicy
		// b's admitted jobs (cpu, priority); b has nominal 4, a has nominal 6.
		bJobs   [][2]int
		aUsed   int
		request int
		prio    int
		// shift moves nominal quota from b to a.
		shift int
		want  string
	}{
		{"Any reclaims from a borrower, lowest priority first", any_, [][2]int{{4, 0}, {4, 5}}, 0, 4, 0, 0, "b0:InCohortReclamation"},
		{"the most recently admitted of equal priority goes first", any_, [][2]int{{2, 0}, {2, 0}, {2, 0}, {2, 0}}, 0, 4, 0, 0, "b3:InCohortReclamation"},
		{"LowerPriority spares an equal priority", lower, [][2]int{{4, 5}, {4, 5}}, 0, 4, 5, 0, ""},
		{"LowerPriority takes the lower one", lower, [][2]int{{4, 5}, {4, 0}}, 0, 4, 5, 0, "b1:InCohortReclamation"},
		{"no reclaim beyond the preemptor's nominal", any_, [][2]int{{4, 0}, {4, 0}}, 2, 6, 0, 0, ""},
		{"a queue within nominal is not a candidate", any_, [][2]int{{4, 0}}, 6, 4, 9, 0, ""},
		{"Never waits", never, [][2]int{{4, 0}, {4, 0}}, 0, 4, 9, 0, ""},
		// Newest first takes b1 (1 cpu), which is not enough, then b0 (4);
		// putting b1 back still fits, so only b0 goes.
		{"minimal set: victims that are not needed are put back", any_, [][2]int{{4, 0}, {1, 0}}, 2, 5, 0, 1, "b0:InCohortReclamation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := pair(t, Options{},
				MakeClusterQueue("a").Quota("default", "cpu", fmt.Sprint(6+tc.shift)).Preemption(tc.reclaim, never),
				MakeClusterQueue("b").Quota("default", "cpu", fmt.Sprint(4-tc.shift)).Preemption(tc.reclaim, never))
			var bs []*WorkloadWrapper
			for i, j := range tc.bJobs {
				bs = append(bs, job("b", fmt.Sprintf("b%d", i), j[0], j[1]))
			}
			admitted(t, s, "b", bs...)
			if tc.aUsed > 0 {
				admitted(t, s, "a", job("a", "a-running", tc.aUsed, 0))
			}
			apply(t, s, job("a", "new", tc.request, tc.prio).Obj())
			ds := s.Cycle(now)
			if got := victimNames(ds); got != tc.want {
				t.Fatalf("victims %q, want %q (decisions %v)", got, tc.want, ds)
			}
		})
	}
}

// Kueue: borrowWithinCohort LowerPriority lets a workload that must borrow
// preempt lower-priority workloads of other borrowing queues, at or below
// maxPriorityThreshold when set.
func TestBorrowWithinCohort(t *testing.T) {
	cases := []struct {
		name      string
		threshold *int32
		victimPri int
		want      string
	}{
		{"lower priority is taken", nil, 1, "c0:InCohortReclaimWhileBorrowing"},
		{"equal priority is not", nil, 5, ""},
		{"above the threshold is not", int32p(0), 1, ""},
		{"at the threshold is", int32p(1), 1, "c0:InCohortReclaimWhileBorrowing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// a (nominal 2) needs 4 and must borrow; b (nominal 0) borrows 4 of
			// c's 4.
			s := world(t, Options{}, MakeFlavor("default").Obj(),
				MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(lower, never).BorrowWithinCohort(tc.threshold).Obj(),
				MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Obj(),
				MakeClusterQueue("c").Cohort("c").Quota("default", "cpu", "4").Obj(),
				MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("b", "lq", "b").Obj())
			admitted(t, s, "b", job("b", "c0", 4, tc.victimPri))
			admitted(t, s, "a", job("a", "a0", 2, 0))
			apply(t, s, job("a", "new", 4, 5).Obj())
			ds := s.Cycle(now)
			if got := victimNames(ds); got != tc.want {
				t.Fatalf("victims %q, want %q (decisions %v)", got, tc.want, ds)
			}
		})
	}
}

// Kueue: flavorFungibility.whenCanPreempt "TryNextFlavor prefers a later
// flavor that fits without preemption; MayStopSearch stops at the first flavor
// where preemption would make it fit".
func TestWhenCanPreempt(t *testing.T) {
	for _, tc := range []struct {
		policy      kueue.FlavorFungibilityPolicy
		wantAdmit   string
		wantVictims string
	}{
		{kueue.TryNextFlavor, "new", ""},
		{kueue.MayStopSearch, "", "low:InClusterQueue"},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("first").Obj(), MakeFlavor("second").Obj(),
				MakeClusterQueue("a").Quota("first", "cpu", "4").Quota("second", "cpu", "4").
					Preemption(never, lower).WhenCanPreempt(tc.policy).Obj(),
				MakeLocalQueue("a", "lq", "a").Obj())
			apply(t, s, job("a", "low", 4, 0).ReserveQuota("a", "first").Obj())
			apply(t, s, job("a", "new", 4, 10).Obj())
			ds := s.Cycle(now)
			if got := strings.Join(admittedNames(ds), ","); got != tc.wantAdmit {
				t.Errorf("admitted %q, want %q", got, tc.wantAdmit)
			}
			if got := victimNames(ds); got != tc.wantVictims {
				t.Errorf("victims %q, want %q", got, tc.wantVictims)
			}
		})
	}
}

// The brief: "A preemptor does not preempt twice for the same need while its
// victims are still being evicted [...] and those victims are not counted as
// candidates again." A second preemptor in the same cycle finds other victims.
func TestInFlightVictimsAreNotTakenTwice(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Quota("default", "cpu", "8").Preemption(never, lower).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj())
	admitted(t, s, "a", job("a", "low0", 4, 0), job("a", "low1", 4, 0))
	apply(t, s, job("a", "hi0", 4, 10).Obj())
	apply(t, s, job("a", "hi1", 4, 10).Created(time.Minute).Obj())
	ds := s.Cycle(now)
	if got := victimNames(ds); got != "low0:InClusterQueue,low1:InClusterQueue" {
		t.Fatalf("victims %q: each preemptor needs its own victim", got)
	}
	for _, p := range preempts(ds) {
		if len(p.Victims) != 1 {
			t.Fatalf("preemptor %v took %d victims", p.Preemptor, len(p.Victims))
		}
	}
	// Preempt decisions come before the preemptor's pending decision.
	for i, d := range ds {
		if p, ok := d.(Preempt); ok {
			if i+1 >= len(ds) || ds[i+1].WorkloadKey() != p.Preemptor {
				t.Errorf("Preempt for %v not followed by its pending decision", p.Preemptor)
			}
		}
	}
	ds = s.Cycle(now.Add(time.Minute))
	if len(preempts(ds)) != 0 {
		t.Fatalf("preempted again while victims are being evicted: %+v", preempts(ds))
	}
	confirm(s, []Decision{Preempt{Victims: []Victim{{Workload: key("a", "low0")}, {Workload: key("a", "low1")}}}})
	ds = s.Cycle(now.Add(2 * time.Minute))
	if got := strings.Join(admittedNames(ds), ","); got != "hi0,hi1" {
		t.Fatalf("admitted %q after evictions, want hi0,hi1", got)
	}
}

// A preemptor deleted and recreated under the same name (a new UID) starts
// afresh: it does not inherit its predecessor's preemption. Its
// predecessor's victim is still leaving (the driver was told to evict it and
// does), so it is no candidate, and its room counts: the new 8-CPU workload
// takes only low0, waits for its own victim, and is admitted once both are
// gone.
func TestRecreatedPreemptorDoesNotInheritVictims(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Quota("default", "cpu", "8").Preemption(never, lower).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj())
	admitted(t, s, "a", job("a", "low0", 4, 0), job("a", "low1", 4, 0))
	apply(t, s, job("a", "hi", 4, 10).Obj())
	first := s.Cycle(now)
	if got := victimNames(first); got != "low1:InClusterQueue" {
		t.Fatalf("victims %q", got)
	}
	apply(t, s, job("a", "hi", 8, 10).UID("second").Obj())
	ds := s.Cycle(now.Add(time.Minute))
	if got := victimNames(ds); got != "low0:InClusterQueue" {
		t.Fatalf("victims %q: low1 is leaving already, the new 8-CPU workload needs low0 too", got)
	}
	if p := mustPending(t, ds, "hi", ReasonWaitingForPreemption); !strings.Contains(p.Message, "waiting for 1") {
		t.Fatalf("message %q", p.Message)
	}
	confirm(s, ds)
	if got := admittedNames(s.Cycle(now.Add(2 * time.Minute))); len(got) != 0 {
		t.Fatalf("admitted %v while low1 still holds its quota", got)
	}
	confirm(s, first)
	if got := strings.Join(admittedNames(s.Cycle(now.Add(3*time.Minute))), ","); got != "hi" {
		t.Fatalf("admitted %q once both victims are gone, want hi", got)
	}
}

// DryRun names the victims preemption would take, and changes nothing.
func TestDryRunReportsVictims(t *testing.T) {
	s := pair(t, Options{},
		MakeClusterQueue("a").Quota("default", "cpu", "6").Preemption(any_, never),
		MakeClusterQueue("b").Quota("default", "cpu", "4").Preemption(any_, never))
	admitted(t, s, "b", job("b", "b0", 4, 0), job("b", "b1", 4, 0))
	res := s.DryRun(job("a", "what-if", 4, 0).Obj())
	if res.Fits || len(res.Victims) != 1 || res.Victims[0].Workload.Name != "b1" || res.Victims[0].Reason != PreemptionInCohortReclamation {
		t.Fatalf("dry run %+v, want one victim b1 for InCohortReclamation", res)
	}
	if u := usage(t, s, "b", "default", "cpu"); u != 8000 {
		t.Fatalf("b's usage %d after a dry run, want 8000", u)
	}
	if ds := s.Cycle(now); len(preempts(ds)) != 0 {
		t.Fatalf("a dry run must leave nothing behind: %+v", preempts(ds))
	}
}
