package elasticquota

import (
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	queuev1alpha1 "quokka.dev/quokka/apis/koord/queue/v1alpha1"
)

// replicas makes the unit n replicas of per cores each.
func (b *unitBuilder) Replicas(n int64, per int64) *unitBuilder {
	b.u.Replicas, b.u.PerReplica, b.u.Request = n, cpu(per), cpu(n*per)
	return b
}

// decided splits a cycle: the reason (or "admit") per pending unit, and the
// Preempt decisions in order.
func decided(t *testing.T, ds []Decision) (map[string]Pending, map[string]string, []Preempt) {
	t.Helper()
	got := map[string]string{}
	pend := map[string]Pending{}
	var pre []Preempt
	for _, d := range ds {
		switch d := d.(type) {
		case Preempt:
			pre = append(pre, d)
			continue
		case Admit:
			got[d.Unit.Name] = "admit"
		case Pending:
			got[d.Unit.Name] = d.Reason
			pend[d.Unit.Name] = d
		}
	}
	return pend, got, pre
}

func victims(pre []Preempt) string {
	var out []string
	for _, p := range pre {
		out = append(out, p.Unit.Name+"/"+p.Preemptor.Name+"×"+itoa64(p.Replicas))
	}
	return strings.Join(out, " ")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

const (
	wfpr = WaitForPodsRunningAnnotation
	eqp  = EnableQueueUnitPreemptionAnnotation
)

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// schedulingqueuev2 Reserve: "no more queueunit can be scheduled in this queue"
// while the queue waits for pods running (koord-queue/wait-for-pods-running:
// "true") and one of its units is assumed ("queue units that have reserved the
// quota but not run yet"); the unit leaves the assumed set when all its
// replicas run (Update: "delete qu from assumed ... all running").
func TestWaitForPodsRunningSerialisesItsQueue(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), "Priority", wfpr, "true"))
	addUnits(t, s, mkUnit("a").Quota("q").Replicas(2, 1).Obj(), mkUnit("b").Quota("q").CPU(1).At(1).Obj())
	pend, got, pre := decided(t, s.Cycle())
	if got["a"] != "admit" || got["b"] != ReasonWaitForPodsRunning || len(pre) != 0 {
		t.Fatalf("first cycle: %v, preempt %v; want a admitted and b waiting", got, victims(pre))
	}
	if !strings.Contains(pend["b"].Message, "waits for the pods of default/a to run") {
		t.Errorf("message %q", pend["b"].Message)
	}
	mustNil(t, s.SetRunning(key("a"), 1))
	if _, got, _ := decided(t, s.Cycle()); got["b"] != ReasonWaitForPodsRunning {
		t.Fatalf("one of a's two replicas runs: b %s, want still waiting", got["b"])
	}
	mustNil(t, s.SetRunning(key("a"), 2))
	if s.Assumed(key("a")) {
		t.Fatal("a runs all its replicas and is still assumed")
	}
	if _, got, _ := decided(t, s.Cycle()); got["b"] != "admit" {
		t.Fatalf("a runs: b %s, want admitted", got["b"])
	}
}

// 004: "The Priority and Block policies read the wait-for-pods-running,
// preemption and scan depth annotations, while the Intelligent policy reads
// koord-queue/priority-threshold only"; schedulingqueuev2 reads the annotation
// as exactly "true". A unit whose pods run at admission is never assumed.
func TestWaitForPodsRunningOnlyPriorityAndBlockWithTrue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, policy, value string
		runs                bool
		want                string
	}{
		{"Priority", "Priority", "true", false, ReasonWaitForPodsRunning},
		{"Block", "Block", "true", false, ReasonWaitForPodsRunning},
		{"Intelligent ignores it", "Intelligent", "true", false, "admit"},
		{"not exactly true", "Priority", "True", false, "admit"},
		{"pods run at admission", "Priority", "true", true, "admit"},
	}
	for _, tc := range cases {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), tc.policy, wfpr, tc.value, eqp, "true"))
		a := mkUnit("a").Quota("q").CPU(1).Obj()
		a.RunsAtAdmission = tc.runs
		addUnits(t, s, a, mkUnit("b").Quota("q").CPU(1).At(1).Obj())
		if _, got, _ := decided(t, s.Cycle()); got["a"] != "admit" || got["b"] != tc.want {
			t.Errorf("%s: a %s, b %s; want admit and %s", tc.name, got["a"], got["b"], tc.want)
		}
	}
}

// schedulingqueuev2 Reserve, "before reserving": a unit that fits in a queue
// that waits for pods running reclaims every assumed unit that sorts after it
// (lessFunc(qi, assumedQi) < 0), with wait-for-pods-running alone; it is
// admitted once they are reclaimed ("waiting for queueUnit preempted"). Only
// replicas whose pods do not run are taken (GetResourcesCanReclaim: replicas −
// running).
func TestBeforeReservingReclaimsAssumedUnitsSortingAfter(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), "Priority", wfpr, "true"))
	addUnits(t, s, mkUnit("low").Quota("q").Priority(1).Replicas(3, 1).Obj())
	s.Cycle()
	mustNil(t, s.SetRunning(key("low"), 1))
	addUnits(t, s, mkUnit("high").Quota("q").Priority(5).CPU(1).At(5).Obj())
	pend, got, pre := decided(t, s.Cycle())
	if got["high"] != ReasonPreempting || victims(pre) != "low/high×2" {
		t.Fatalf("high %s, preempt %q; want Preempting and low/high×2", got["high"], victims(pre))
	}
	if p := pre[0]; p.Request[corev1.ResourceCPU] != 2000 || !strings.Contains(p.Message, "2 of its 3 replicas") {
		t.Errorf("preempt %+v", p)
	}
	if !strings.Contains(pend["high"].Message, "preemption: waiting for queueUnit preempted, victims: [default/low]") {
		t.Errorf("message %q", pend["high"].Message)
	}
	// Nothing changes until the driver reclaims.
	if _, got, pre := decided(t, s.Cycle()); got["high"] != ReasonPreempting || len(pre) != 0 {
		t.Fatalf("before the reclaim: high %s, preempt %q", got["high"], victims(pre))
	}
	r, err := s.ReclaimDone(key("low"), 1)
	mustNil(t, err)
	if r.Replicas != 2 || r.Left != 1 || r.Requeued || r.Preemptor != key("high") {
		t.Errorf("reclaimed %+v", r)
	}
	if u := s.Cache().Used("q"); u.Cpu().MilliValue() != 1000 {
		t.Errorf("q uses %v after the reclaim, want 1 CPU", u)
	}
	if _, got, _ := decided(t, s.Cycle()); got["high"] != "admit" {
		t.Fatalf("after the reclaim: high %s, want admitted", got["high"])
	}
}

// A victim with nothing left is enqueued again with its whole request and its
// place: Koord-Queue keeps it in its queue (IsQueueUnitSatisfied is false with
// no admitted replica); it now sorts after the preemptor, which is assumed.
func TestFullyReclaimedVictimIsPendingAgain(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), "Block", wfpr, "true"))
	addUnits(t, s, mkUnit("low").Quota("q").Priority(1).Replicas(2, 1).Obj())
	s.Cycle()
	addUnits(t, s, mkUnit("high").Quota("q").Priority(5).CPU(1).At(5).Obj())
	if _, _, pre := decided(t, s.Cycle()); victims(pre) != "low/high×2" {
		t.Fatalf("preempt %q", victims(pre))
	}
	r, err := s.ReclaimDone(key("low"), 0)
	mustNil(t, err)
	if !r.Requeued || s.PendingCount() != 2 || s.AdmittedCount() != 0 {
		t.Fatalf("reclaimed %+v; %d pending, %d admitted", r, s.PendingCount(), s.AdmittedCount())
	}
	if _, got, _ := decided(t, s.Cycle()); got["high"] != "admit" || got["low"] != ReasonWaitForPodsRunning {
		t.Fatalf("high %s, low %s; want admit and WaitForPodsRunning", got["high"], got["low"])
	}
}

// PriorityQueue.Preempt: "preemption is disabled because wait-for-pods-running
// is disabled" and "preemption is disabled in queue"; with both, a unit that
// does not fit marks the assumed units sorting after it, lowest first, until
// what they give back covers its whole request (dryRunPreemption,
// IsResLargeThan); a unit that sorts before it is never a victim.
func TestPreemptionLowestFirstUntilTheRequestIsCovered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		annotations []string
		want        string
		reason      string
	}{
		{"both", []string{wfpr, "true", eqp, "true"}, "v3/p×1 v2/p×1", ReasonPreempting},
		{"wait only", []string{wfpr, "true"}, "", ReasonFailedScheduling},
		{"preemption only", []string{eqp, "true"}, "", ReasonFailedScheduling},
	} {
		s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "8"}), "Priority", tc.annotations...))
		for _, u := range []QueueUnit{
			mkUnit("top").Quota("q").Priority(9).CPU(2).Obj(),
			mkUnit("v1").Quota("q").Priority(3).CPU(2).Obj(),
			mkUnit("v2").Quota("q").Priority(2).CPU(2).Obj(),
			mkUnit("v3").Quota("q").Priority(1).CPU(2).Obj(),
		} {
			mustNil(t, s.RestoreAdmitted(u, "q"))
		}
		addUnits(t, s, mkUnit("p").Quota("q").Priority(5).CPU(3).At(9).Obj())
		pend, got, pre := decided(t, s.Cycle())
		if victims(pre) != tc.want || got["p"] != tc.reason {
			t.Errorf("%s: preempt %q, p %s (%s); want %q and %s", tc.name, victims(pre), got["p"], pend["p"].Message, tc.want, tc.reason)
		}
	}
}

// GetResourcesCanReclaim: nothing within the protect time after the unit's
// allocation (defaultReclaimProtectTime), and never a running replica.
func TestPreemptionSkipsProtectedAndRunningUnits(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), "Priority", wfpr, "true", eqp, "true"))
	s.SetReclaimProtectTime(10 * time.Minute)
	young := mkUnit("young").Quota("q").Priority(1).CPU(2).Obj()
	young.AllocatedAt = epoch
	runs := mkUnit("runs").Quota("q").Priority(1).CPU(2).Obj()
	runs.AllocatedAt = epoch.Add(-time.Hour)
	mustNil(t, s.RestoreAdmitted(young, "q"))
	mustNil(t, s.RestoreAdmitted(runs, "q"))
	mustNil(t, s.SetRunning(key("runs"), 1))
	addUnits(t, s, mkUnit("p").Quota("q").Priority(5).CPU(2).At(9).Obj())
	s.SetNow(epoch.Add(5 * time.Minute))
	pend, got, pre := decided(t, s.Cycle())
	if len(pre) != 0 || got["p"] != ReasonFailedScheduling || !strings.HasSuffix(pend["p"].Message, "; preempt failed: no victims found") {
		t.Fatalf("within the protect time: preempt %q, p %s %q", victims(pre), got["p"], pend["p"].Message)
	}
	s.SetNow(epoch.Add(10 * time.Minute))
	if _, got, pre := decided(t, s.Cycle()); victims(pre) != "young/p×1" || got["p"] != ReasonPreempting {
		t.Fatalf("after the protect time: preempt %q, p %s; want young only (runs runs)", victims(pre), got["p"])
	}
}

// One preemption round per queue at a time (PriorityQueue.preemptFlag: "queue
// %s is preempting, not allowed to preempt again"): a second unit that does
// not fit waits until every victim of the round is reclaimed, and the
// preemptor waits for its victims instead of marking more.
func TestOnePreemptionRoundPerQueue(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "4"}), "Priority", wfpr, "true", eqp, "true"))
	for _, u := range []QueueUnit{mkUnit("v1").Quota("q").CPU(2).Obj(), mkUnit("v2").Quota("q").CPU(2).At(1).Obj()} {
		mustNil(t, s.RestoreAdmitted(u, "q"))
	}
	mustNil(t, s.SetRunning(key("v1"), 1))
	addUnits(t, s, mkUnit("p1").Quota("q").Priority(5).CPU(2).At(5).Obj(), mkUnit("p2").Quota("q").Priority(4).CPU(2).At(5).Obj())
	pend, got, pre := decided(t, s.Cycle())
	if victims(pre) != "v2/p1×1" || got["p1"] != ReasonPreempting || got["p2"] != ReasonFailedScheduling ||
		!strings.Contains(pend["p2"].Message, "queue q is preempting, not allowed to preempt again") {
		t.Fatalf("preempt %q, p1 %s, p2 %s %q", victims(pre), got["p1"], got["p2"], pend["p2"].Message)
	}
	if _, _, pre := decided(t, s.Cycle()); len(pre) != 0 {
		t.Fatalf("a second round while the first is in flight: %q", victims(pre))
	}
	if _, err := s.ReclaimDone(key("v2"), 0); err != nil {
		t.Fatal(err)
	}
	if got := s.Reclaiming(); len(got) != 0 {
		t.Fatalf("still reclaiming %v", got)
	}
	_, got, pre = decided(t, s.Cycle())
	// p1 is admitted, and assumed; p2 sorts after it and finds no victim.
	if got["p1"] != "admit" || got["p2"] != ReasonFailedScheduling || len(pre) != 0 {
		t.Fatalf("after the round: p1 %s, p2 %s, preempt %q", got["p1"], got["p2"], victims(pre))
	}
}

// Quokka marks victims only when giving them back would make the preemptor
// fit: Koord-Queue's dryRunPreemption marks what it found even when the quota
// that refused the unit is an ancestor that the queue's own units cannot free.
func TestPreemptionThatCannotHelpMarksNothing(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell,
		quota("org", "", map[string]string{"cpu": "4"}),
		policy(quota("a", "org", map[string]string{"cpu": "8"}), "Priority", wfpr, "true", eqp, "true"),
		quota("b", "org", map[string]string{"cpu": "8"}))
	mustNil(t, s.RestoreAdmitted(mkUnit("other").Quota("b").CPU(3).Obj(), "b"))
	mustNil(t, s.RestoreAdmitted(mkUnit("low").Quota("a").CPU(1).Obj(), "a"))
	addUnits(t, s, mkUnit("p").Quota("a").Priority(5).CPU(3).At(5).Obj())
	pend, got, pre := decided(t, s.Cycle())
	if len(pre) != 0 || got["p"] != ReasonFailedScheduling || !strings.Contains(pend["p"].Message, "would not make it fit either") {
		t.Fatalf("preempt %q, p %s %q", victims(pre), got["p"], pend["p"].Message)
	}
}

// The driver's calls: SetRunning and ReclaimDone need an admitted unit, and
// ReclaimDone one that a Preempt marked; a victim that finishes first ends its
// part of the round.
func TestReclaimCallsAndFinishedVictims(t *testing.T) {
	t.Parallel()
	s := newSched(t, NoOversell, policy(quota("q", "", map[string]string{"cpu": "2"}), "Priority", wfpr, "true", eqp, "true"))
	if err := s.SetRunning(key("nobody"), 1); err == nil {
		t.Error("SetRunning of an unknown unit succeeded")
	}
	mustNil(t, s.RestoreAdmitted(mkUnit("v").Quota("q").CPU(2).Obj(), "q"))
	if _, err := s.ReclaimDone(key("v"), 0); err == nil {
		t.Error("ReclaimDone of an unmarked unit succeeded")
	}
	addUnits(t, s, mkUnit("p").Quota("q").Priority(5).CPU(2).At(5).Obj())
	if _, _, pre := decided(t, s.Cycle()); victims(pre) != "v/p×1" {
		t.Fatalf("preempt %q", victims(pre))
	}
	mustNil(t, s.FinishUnit(key("v")))
	if len(s.rounds) != 0 || len(s.Reclaiming()) != 0 {
		t.Fatalf("rounds %v after the victim finished", s.rounds)
	}
	if _, got, _ := decided(t, s.Cycle()); got["p"] != "admit" {
		t.Fatalf("p %s, want admitted", got["p"])
	}
}

// UnitOf gives a unit of one pod set its replicas (the pod set's count) and
// one pod's request, so that preemption reclaims pods, not whole jobs
// (GetResourcesCanReclaim counts replicas per pod set), and its
// status.lastAllocateTime, from which the reclaim protection runs.
func TestUnitOfReplicasAndAllocationTime(t *testing.T) {
	t.Parallel()
	qu := &queuev1alpha1.QueueUnit{}
	qu.Name, qu.Namespace = "u", "default"
	qu.Spec.Resource = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6")}
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}}
	qu.Spec.PodSet = []queuev1alpha1.PodSet{{Name: "u", Count: 3, Template: tmpl}}
	at := metav1.NewTime(epoch)
	qu.Status.LastAllocateTime = &at
	u, err := UnitOf(qu)
	mustNil(t, err)
	if u.Replicas != 3 || u.PerReplica[corev1.ResourceCPU] != 2000 || !u.AllocatedAt.Equal(epoch) {
		t.Errorf("unit %+v", u)
	}
	// resource_report_controller reconcileReclaim lowers
	// status.admissions[].replicas by what it reclaimed: such a unit holds
	// only what is left (a manager that restarts restores it so).
	qu.Status.Admissions = []queuev1alpha1.Admission{{Name: "u", Replicas: 1}}
	if u, _ := UnitOf(qu); u.Replicas != 1 || u.Request[corev1.ResourceCPU] != 2000 {
		t.Errorf("partly reclaimed: %d replicas requesting %v, want 1 of 2 cpu", u.Replicas, u.Request)
	}
	qu.Status.Admissions = nil
	qu.Spec.PodSet = nil
	if u, _ := UnitOf(qu); u.replicas() != 1 || u.perReplica()[corev1.ResourceCPU] != 6000 {
		t.Errorf("without pod sets: %d replicas of %v, want one of the whole request", u.replicas(), u.perReplica())
	}
}
