package scheduler

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue's integration tests of the scheduler (test/integration/singlecluster/
// scheduler) run the real scheduler against an API server and wait for each
// fact with gomega.Eventually. Here they drive the engine directly: each
// Eventually step is one Cycle, a workload created later is applied before the
// next Cycle, FinishEvictionForWorkloads confirms the victims' evictions with
// EvictWorkload and FinishWorkloads is FinishWorkload. The harness below keeps
// the victims whose eviction the driver has not confirmed yet, so that a test
// can only confirm what the engine asked to evict.

// kiNS is the namespace of the tests' workloads and LocalQueues, unless a
// test says otherwise.
const kiNS = "ns"

// kiEnv is one integration test's cluster.
type kiEnv struct {
	t     *testing.T
	s     *Scheduler
	clock time.Time
	// created is the creation offset of the last workload (from Epoch): each
	// new workload is one second younger, as when a test creates them in turn.
	created time.Duration
	names   []string
	// nsOf is each workload's namespace.
	nsOf map[string]string
	// inflight maps the victims the engine asked to evict, not yet confirmed,
	// to their ClusterQueue.
	inflight map[string]string
	// admissions counts Admit decisions per ClusterQueue over the whole test,
	// as Kueue's admitted_workloads_total does.
	admissions map[string]int
}

func kiNewEnv(t *testing.T, opts Options, objs ...any) *kiEnv {
	t.Helper()
	return &kiEnv{t: t, s: world(t, opts, objs...), clock: now, nsOf: map[string]string{}, inflight: map[string]string{}, admissions: map[string]int{}}
}

// create applies new workloads, each younger than any before it. Names are
// unique across namespaces.
func (e *kiEnv) create(ws ...*WorkloadWrapper) {
	e.t.Helper()
	for _, w := range ws {
		e.created += time.Second
		obj := w.Created(e.created).Obj()
		if _, ok := e.nsOf[obj.Name]; ok {
			e.t.Fatalf("workload %s created twice", obj.Name)
		}
		apply(e.t, e.s, obj)
		e.names = append(e.names, obj.Name)
		e.nsOf[obj.Name] = obj.Namespace
	}
}

// key returns the key of a workload the test created.
func (e *kiEnv) key(name string) types.NamespacedName {
	e.t.Helper()
	ns, ok := e.nsOf[name]
	if !ok {
		e.t.Fatalf("%s: unknown workload", name)
	}
	return key(ns, name)
}

// cycle runs one scheduling cycle, one second after the previous one.
func (e *kiEnv) cycle() []Decision {
	e.clock = e.clock.Add(time.Second)
	ds := e.s.Cycle(e.clock)
	for _, a := range admits(ds) {
		e.admissions[a.ClusterQueue]++
	}
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			e.inflight[v.Workload.Name] = v.ClusterQueue
		}
	}
	return ds
}

// step runs one cycle and checks the complete sets of workloads it admits and
// of victims it names. A wanted victim is "name:Reason" when Kueue's test
// asserts the reason, else the bare name; a list mixing both is a test bug.
func (e *kiEnv) step(what string, admitted, victims []string) []Decision {
	e.t.Helper()
	ds := e.cycle()
	e.check(what, ds, admitted, victims)
	return ds
}

func (e *kiEnv) check(what string, ds []Decision, admitted, victims []string) {
	e.t.Helper()
	gotA := admittedNames(ds)
	slices.Sort(gotA)
	wantA := slices.Clone(admitted)
	slices.Sort(wantA)
	if !slices.Equal(gotA, wantA) {
		e.t.Fatalf("%s: admitted %v, want %v; decisions %v", what, gotA, wantA, ds)
	}
	withReason := false
	for _, v := range victims {
		if strings.Contains(v, ":") {
			withReason = true
		}
	}
	gotV := kiVictims(ds, withReason)
	wantV := slices.Clone(victims)
	slices.Sort(wantV)
	if !slices.Equal(gotV, wantV) {
		e.t.Fatalf("%s: victims %v, want %v; decisions %v", what, gotV, wantV, ds)
	}
}

// kiVictims lists the victims of the decisions, sorted, with their reasons or not.
func kiVictims(ds []Decision, withReason bool) []string {
	out := []string{}
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			if withReason {
				out = append(out, v.Workload.Name+":"+v.Reason)
			} else {
				out = append(out, v.Workload.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// kiVictim returns the victim named name in the decisions.
func kiVictim(t *testing.T, ds []Decision, name string) Victim {
	t.Helper()
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			if v.Workload.Name == name {
				return v
			}
		}
	}
	t.Fatalf("%s is no victim; decisions %v", name, ds)
	return Victim{}
}

// kiPreemptorOf returns the preemptor that names victim.
func kiPreemptorOf(t *testing.T, ds []Decision, victim string) string {
	t.Helper()
	for _, p := range preempts(ds) {
		for _, v := range p.Victims {
			if v.Workload.Name == victim {
				return p.Preemptor.Name
			}
		}
	}
	t.Fatalf("%s is no victim; decisions %v", victim, ds)
	return ""
}

// kiPendingOf returns the Pending decision for the workload named name.
func kiPendingOf(t *testing.T, ds []Decision, name string) Pending {
	t.Helper()
	for _, d := range ds {
		if p, ok := d.(Pending); ok && p.Workload.Name == name {
			return p
		}
	}
	t.Fatalf("%s is not pending; decisions %v", name, ds)
	return Pending{}
}

// holds checks that each workload holds quota in cq and, unless flavor is "",
// that every resource of every pod set is assigned flavor.
func (e *kiEnv) holds(cq, flavor string, names ...string) {
	e.t.Helper()
	for _, n := range names {
		v, ok := e.s.WorkloadState(e.key(n))
		if !ok {
			e.t.Fatalf("%s: unknown workload", n)
		}
		if (v.State != StateAdmitted && v.State != StateAssumed) || v.ClusterQueue != cq {
			e.t.Fatalf("%s is %s in %q, want it holding quota in %s", n, v.State, v.ClusterQueue, cq)
		}
		if flavor == "" {
			continue
		}
		for _, ps := range v.PodSets {
			if len(ps.Flavors) == 0 {
				e.t.Fatalf("%s: pod set %s has no flavor, want %s", n, ps.Name, flavor)
			}
			for r, f := range ps.Flavors {
				if f != flavor {
					e.t.Fatalf("%s: pod set %s has %s in flavor %s, want %s", n, ps.Name, r, f, flavor)
				}
			}
		}
	}
}

// pending checks that each workload is pending (neither holding quota nor
// finished).
func (e *kiEnv) pending(names ...string) {
	e.t.Helper()
	for _, n := range names {
		v, ok := e.s.WorkloadState(e.key(n))
		if !ok {
			e.t.Fatalf("%s: unknown workload", n)
		}
		if v.State != StatePending {
			e.t.Fatalf("%s is %s (in %q), want it pending", n, v.State, v.ClusterQueue)
		}
	}
}

// holding returns how many of the workloads hold quota.
func (e *kiEnv) holding(names ...string) int {
	n := 0
	for _, name := range names {
		if v, ok := e.s.WorkloadState(e.key(name)); ok && (v.State == StateAdmitted || v.State == StateAssumed) {
			n++
		}
	}
	return n
}

// holdingIn returns the workloads holding quota in cq, sorted by name.
func (e *kiEnv) holdingIn(cq string) []string {
	var out []string
	for _, n := range e.names {
		if v, ok := e.s.WorkloadState(e.key(n)); ok && (v.State == StateAdmitted || v.State == StateAssumed) && v.ClusterQueue == cq {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// counts checks a ClusterQueue's workloads holding quota (Kueue's
// reserving_active_workloads) and pending (its pending_workloads, active and
// inadmissible together).
func (e *kiEnv) counts(cq string, admitted, pending int) {
	e.t.Helper()
	v, ok := e.s.ClusterQueueSnapshot(cq)
	if !ok {
		e.t.Fatalf("no ClusterQueue %s", cq)
	}
	if v.AdmittedWorkloads != admitted || v.PendingWorkloads != pending {
		e.t.Fatalf("%s: %d holding quota and %d pending, want %d and %d", cq, v.AdmittedWorkloads, v.PendingWorkloads, admitted, pending)
	}
}

// preempted checks that the engine asked to evict each workload and that the
// eviction is not confirmed yet (Kueue's ExpectWorkloadsToBePreempted).
func (e *kiEnv) preempted(names ...string) {
	e.t.Helper()
	for _, n := range names {
		if _, ok := e.inflight[n]; !ok {
			e.t.Fatalf("%s is not being preempted; victims in flight: %v", n, e.inflight)
		}
	}
}

// finishEviction is Kueue's FinishEvictionForWorkloads: each workload must be
// a victim in flight; its eviction is confirmed.
func (e *kiEnv) finishEviction(names ...string) {
	e.t.Helper()
	e.preempted(names...)
	for _, n := range names {
		e.s.EvictWorkload(e.key(n))
		delete(e.inflight, n)
	}
}

// finishEvictionsInCQ is Kueue's FinishEvictionOfWorkloadsInCQ: exactly n
// victims in flight are in cq, and their evictions are confirmed.
func (e *kiEnv) finishEvictionsInCQ(cq string, n int) []string {
	e.t.Helper()
	var vs []string
	for v, q := range e.inflight {
		if q == cq {
			vs = append(vs, v)
		}
	}
	sort.Strings(vs)
	if len(vs) != n {
		e.t.Fatalf("%d victims in flight in %s (%v), want %d", len(vs), cq, vs, n)
	}
	e.finishEviction(vs...)
	return vs
}

// finish is Kueue's FinishWorkloads.
func (e *kiEnv) finish(names ...string) {
	for _, n := range names {
		e.s.FinishWorkload(e.key(n))
	}
}

// finishRunningInCQ is Kueue's FinishRunningWorkloadsInCQ: n workloads holding
// quota in cq finish (the first by name).
func (e *kiEnv) finishRunningInCQ(cq string, n int) {
	e.t.Helper()
	running := e.holdingIn(cq)
	if len(running) < n {
		e.t.Fatalf("%s: %d workloads running (%v), want at least %d", cq, len(running), running, n)
	}
	e.finish(running[:n]...)
}

// admittedIn checks Kueue's admitted_workloads_total of a ClusterQueue.
func (e *kiEnv) admittedTotal(cq string, want int) {
	e.t.Helper()
	if got := e.admissions[cq]; got != want {
		e.t.Fatalf("%s: %d admissions over the test, want %d", cq, got, want)
	}
}

// kiWl is a one-pod workload of namespace kiNS requesting cpu, with a priority.
func kiWl(name, lq string, prio int32, cpu string) *WorkloadWrapper {
	return MakeWorkload(kiNS, name).Queue(lq).Priority(prio).Request(corev1.ResourceCPU, cpu)
}

// kiLQ is a LocalQueue of namespace kiNS.
func kiLQ(name, cq string) *kueue.LocalQueue { return MakeLocalQueue(kiNS, name, cq).Obj() }

// kiUID is the UID MakeWorkload gives a workload of namespace kiNS.
func kiUID(name string) types.UID { return types.UID(kiNS + "/" + name) }

// The priorities of preemption_test.go.
const (
	kiLowPriority int32 = iota - 1
	kiMidPriority
	kiHighPriority
	kiVeryHighPriority
)

// kiNames returns prefix-1 .. prefix-n.
func kiNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return out
}

// kiPrefixed returns which of the names start with prefix.
func kiPrefixed(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// Kueue: test/integration/singlecluster/scheduler/preemption_test.go,
// Describe "Preemption", Context "In a single ClusterQueue": cq has 4 cpus of
// alpha and withinClusterQueue LowerOrNewerEqualPriority.
func TestKueueIntegrationPreemptionInASingleClusterQueue(t *testing.T) {
	single := func(t *testing.T) *kiEnv {
		return kiNewEnv(t, Options{}, MakeFlavor("alpha").Obj(),
			MakeClusterQueue("cq").Quota("alpha", corev1.ResourceCPU, "4").Preemption(never, lowerEq).Obj(),
			kiLQ("q", "cq"))
	}

	// It "Should preempt Workloads with lower priority when there is not enough quota".
	t.Run("Should preempt Workloads with lower priority when there is not enough quota", func(t *testing.T) {
		e := single(t)
		e.create(kiWl("low-wl-1", "q", kiLowPriority, "1"), kiWl("low-wl-2", "q", kiLowPriority, "1"),
			kiWl("mid-wl", "q", kiMidPriority, "1"), kiWl("high-wl-1", "q", kiHighPriority, "1"))
		e.step("initial workloads", []string{"low-wl-1", "low-wl-2", "mid-wl", "high-wl-1"}, nil)
		e.holds("cq", "alpha", "low-wl-1", "low-wl-2", "mid-wl", "high-wl-1")

		e.create(kiWl("low-wl-3", "q", kiLowPriority, "1"))
		e.step("a low priority workload", nil, nil)
		e.pending("low-wl-3")

		e.create(kiWl("high-wl-2", "q", kiHighPriority, "2"))
		e.step("a high priority workload", nil, []string{"low-wl-1:InClusterQueue", "low-wl-2:InClusterQueue"})
		e.finishEviction("low-wl-1", "low-wl-2")
		e.step("after the evictions", []string{"high-wl-2"}, nil)
		e.holds("cq", "alpha", "high-wl-2")
		e.pending("low-wl-1", "low-wl-2")
	})

	// It "Should retry on failed preemptions". Kueue fails the eviction's API
	// write and retries it; in Quokka the write is the driver's, so the engine
	// keeps the preemption (no new victims, the preemptor waiting) until the
	// eviction is confirmed.
	t.Run("Should retry on failed preemptions", func(t *testing.T) {
		e := single(t)
		e.create(kiWl("low-wl", "q", kiLowPriority, "3"))
		e.step("a low priority workload", []string{"low-wl"}, nil)
		e.holds("cq", "alpha", "low-wl")

		e.create(kiWl("high-wl", "q", kiHighPriority, "3"))
		ds := e.step("a high priority workload", nil, []string{"low-wl"})
		mustPending(t, ds, "high-wl", ReasonWaitingForPreemption)
		// The eviction failed: nothing is confirmed, and the preemption stands.
		ds = e.cycle()
		if got := admittedNames(ds); len(got) != 0 {
			t.Fatalf("while the eviction is not confirmed: admitted %v", got)
		}
		if got := kiVictims(ds, false); len(got) != 0 && !slices.Equal(got, []string{"low-wl"}) {
			t.Fatalf("while the eviction is not confirmed: victims %v, want none new", got)
		}
		mustStillPending(t, e.s, ds, "high-wl", ReasonWaitingForPreemption)
		e.holds("cq", "alpha", "low-wl")

		e.finishEviction("low-wl")
		e.step("after the eviction", []string{"high-wl"}, nil)
		e.holds("cq", "alpha", "high-wl")
		e.pending("low-wl")
	})

	// It "Should preempt newer Workloads with the same priority when there is
	// not enough quota".
	t.Run("Should preempt newer Workloads with the same priority when there is not enough quota", func(t *testing.T) {
		e := single(t)
		e.create(kiWl("wl-1", "q", kiLowPriority, "1"), kiWl("wl-2", "q", kiLowPriority, "1"))
		e.step("initial workloads", []string{"wl-1", "wl-2"}, nil)

		e.create(kiWl("wl-3", "q", kiLowPriority, "3"))
		e.step("wl-3 does not fit", nil, nil)
		e.pending("wl-3")

		e.create(kiWl("wl-4", "q", kiLowPriority, "1"))
		e.step("a new workload", []string{"wl-4"}, nil)
		e.holds("cq", "alpha", "wl-1", "wl-2", "wl-4")
		e.pending("wl-3")

		e.finish("wl-1")
		e.step("wl-1 finished: wl-3 preempts the newer wl-4", nil, []string{"wl-4"})
		e.finishEviction("wl-4")
		e.step("after the eviction", []string{"wl-3"}, nil)
		e.holds("cq", "alpha", "wl-3")
		e.pending("wl-4")
	})

	// It "Should issue preemption exactly once for each preempted workload".
	// Kueue counts the events; here a cycle before the evictions are confirmed
	// must not preempt again.
	t.Run("Should issue preemption exactly once for each preempted workload", func(t *testing.T) {
		e := single(t)
		low := kiNames("low-priority-wl", 8)
		for _, n := range low {
			e.create(MakeWorkload(kiNS, n).Queue("q").Priority(10).PodSet("worker", 1).Request(corev1.ResourceCPU, "500m"))
		}
		e.step("low-priority workloads", low, nil)
		e.counts("cq", 8, 0)

		e.create(MakeWorkload(kiNS, "first-high-prio").Queue("q").Priority(100).PodSet("worker", 1).Request(corev1.ResourceCPU, "4"))
		e.step("the first high-priority workload", nil, low)
		e.step("no second preemption while the evictions are under way", nil, nil)
		e.finishEviction(low...)
		e.step("after the evictions", []string{"first-high-prio"}, nil)
		e.holds("cq", "alpha", "first-high-prio")

		e.finish("first-high-prio")
		e.step("the first high-priority workload finished", low, nil)
		e.counts("cq", 8, 0)

		e.create(MakeWorkload(kiNS, "second-high-prio").Queue("q").Priority(100).PodSet("worker", 1).Request(corev1.ResourceCPU, "4"))
		e.step("the second high-priority workload", nil, low)
		e.finishEviction(low...)
	})

	// It "Should include job UID in preemption condition when the label is set".
	t.Run("Should include job UID in preemption condition when the label is set", func(t *testing.T) {
		e := single(t)
		e.create(kiWl("low", "q", kiLowPriority, "4"))
		e.step("a low priority workload", []string{"low"}, nil)
		e.create(kiWl("high", "q", kiHighPriority, "4").Label("kueue.x-k8s.io/job-uid", "job-uid"))
		ds := e.step("a high priority workload with the JobUID label", nil, []string{"low:InClusterQueue"})
		want := fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: job-uid) due to prioritization in the ClusterQueue", kiUID("high"))
		if msg := kiVictim(t, ds, "low").Message; !strings.HasPrefix(msg, want) {
			t.Fatalf("Preempted message %q, want it to start with %q", msg, want)
		}
	})
}

// Kueue: preemption_test.go, Context "In a ClusterQueue that is part of a
// cohort": alpha-cq, beta-cq and gamma-cq have 2 cpus of alpha each in cohort
// all; alpha-cq and gamma-cq preempt LowerPriority within and Any in the
// cohort, beta-cq never.
func TestKueueIntegrationPreemptionInAClusterQueueThatIsPartOfACohort(t *testing.T) {
	cohort := func(t *testing.T, opts Options) *kiEnv {
		return kiNewEnv(t, opts, MakeFlavor("alpha").Obj(),
			MakeClusterQueue("alpha-cq").Cohort("all").Quota("alpha", corev1.ResourceCPU, "2").Preemption(any_, lower).Obj(),
			MakeClusterQueue("beta-cq").Cohort("all").Quota("alpha", corev1.ResourceCPU, "2").Obj(),
			MakeClusterQueue("gamma-cq").Cohort("all").Quota("alpha", corev1.ResourceCPU, "2").Preemption(any_, lower).Obj(),
			kiLQ("alpha-q", "alpha-cq"), kiLQ("beta-q", "beta-cq"), kiLQ("gamma-q", "gamma-cq"))
	}

	// It "Should preempt Workloads in the cohort borrowing quota, when the
	// ClusterQueue is using less than nominal quota".
	t.Run("Should preempt Workloads in the cohort borrowing quota, when the ClusterQueue is using less than nominal quota", func(t *testing.T) {
		e := cohort(t, Options{})
		e.create(kiWl("alpha-low", "alpha-q", kiLowPriority, "1"), kiWl("beta-mid", "beta-q", kiMidPriority, "1"),
			kiWl("beta-high", "beta-q", kiHighPriority, "4"))
		e.step("workloads, beta-cq borrowing", []string{"alpha-low", "beta-mid", "beta-high"}, nil)
		e.holds("alpha-cq", "alpha", "alpha-low")
		e.holds("beta-cq", "alpha", "beta-mid", "beta-high")

		e.create(kiWl("alpha-mid", "alpha-q", kiMidPriority, "2"))
		ds := e.step("alpha-mid preempts in both queues", nil, []string{"alpha-low:InClusterQueue", "beta-mid:InCohortReclamation"})
		for _, v := range []string{"alpha-low", "beta-mid"} {
			if msg := kiVictim(t, ds, v).Message; !strings.Contains(msg, fmt.Sprintf("(UID: %s, JobUID: UNKNOWN)", kiUID("alpha-mid"))) {
				t.Fatalf("%s: Preempted message %q does not name alpha-mid", v, msg)
			}
		}
		e.finishEviction("alpha-low", "beta-mid")
		e.step("after the evictions", []string{"alpha-mid"}, nil)
		e.holds("alpha-cq", "alpha", "alpha-mid")
		e.holds("beta-cq", "alpha", "beta-high")
		e.pending("alpha-low", "beta-mid")

		// The preemptor finishes: the victims are admitted again.
		e.finish("alpha-mid")
		e.step("the preemptor finished", []string{"alpha-low", "beta-mid"}, nil)
		e.holds("alpha-cq", "alpha", "alpha-low")
		e.holds("beta-cq", "alpha", "beta-mid", "beta-high")
	})

	// It "Should not preempt Workloads in the cohort, if the ClusterQueue
	// requires borrowing".
	t.Run("Should not preempt Workloads in the cohort, if the ClusterQueue requires borrowing", func(t *testing.T) {
		e := cohort(t, Options{})
		e.create(kiWl("alpha-high-1", "alpha-q", kiHighPriority, "2"), kiWl("beta-low", "beta-q", kiLowPriority, "4"))
		e.step("workloads, beta-cq borrowing", []string{"alpha-high-1", "beta-low"}, nil)
		e.create(kiWl("alpha-high-2", "alpha-q", kiHighPriority, "2"))
		e.step("alpha-high-2 would have to borrow", nil, nil)
		e.pending("alpha-high-2")
		e.holds("alpha-cq", "alpha", "alpha-high-1")
		e.holds("beta-cq", "alpha", "beta-low")
	})

	// It "Should preempt all necessary workloads in concurrent scheduling with
	// different priorities". Kueue's test expects both preemptors to target
	// beta-mid first and the last one to target beta-high once one of them is
	// admitted. That is Kueue with RecomputeAssignmentUponPreemptionTargetsOverlap
	// off (and Kueue before v0.20): the second preemptor's targets overlap the
	// first's, so it evicts nothing. With the gate on (its default since v0.20,
	// and Quokka's) it recomputes with beta-mid gone and targets beta-high in
	// the same cycle; the test's assertions hold either way, since it checks
	// beta-high's quota, which an eviction under way keeps.
	t.Run("Should preempt all necessary workloads in concurrent scheduling with different priorities", func(t *testing.T) {
		e := cohort(t, Options{})
		e.create(kiWl("beta-mid", "beta-q", kiMidPriority, "3"), kiWl("beta-high", "beta-q", kiHighPriority, "3"))
		e.step("beta-cq borrowing", []string{"beta-mid", "beta-high"}, nil)

		e.create(kiWl("alpha-mid", "alpha-q", kiMidPriority, "2"), kiWl("gamma-mid", "gamma-q", kiMidPriority, "2"))
		ds := e.step("alpha-mid and gamma-mid reclaim", nil, []string{"beta-high", "beta-mid"})
		if p := kiPreemptorOf(t, ds, "beta-mid"); p != "alpha-mid" {
			t.Fatalf("beta-mid preempted by %s, want alpha-mid (created first)", p)
		}
		e.finishEviction("beta-mid")
		e.step("beta-mid evicted: one of the two is admitted", []string{"alpha-mid"}, nil)
		e.holds("beta-cq", "alpha", "beta-high")
		e.finishEviction("beta-high")
		e.step("beta-high evicted", []string{"gamma-mid"}, nil)
		e.holds("alpha-cq", "alpha", "alpha-mid")
		e.holds("gamma-cq", "alpha", "gamma-mid")
	})
	t.Run("Should preempt all necessary workloads in concurrent scheduling with different priorities (RecomputeAssignmentUponPreemptionTargetsOverlap=false)", func(t *testing.T) {
		e := cohort(t, Options{WaitOnOverlappingTargets: true})
		e.create(kiWl("beta-mid", "beta-q", kiMidPriority, "3"), kiWl("beta-high", "beta-q", kiHighPriority, "3"))
		e.step("beta-cq borrowing", []string{"beta-mid", "beta-high"}, nil)

		e.create(kiWl("alpha-mid", "alpha-q", kiMidPriority, "2"), kiWl("gamma-mid", "gamma-q", kiMidPriority, "2"))
		// "since the two pending workloads are not aware of each other both of
		// them will request the eviction of betaMidWl only"
		ds := e.step("both target beta-mid only", nil, []string{"beta-mid"})
		if p := kiPreemptorOf(t, ds, "beta-mid"); p != "alpha-mid" {
			t.Fatalf("beta-mid preempted by %s, want alpha-mid (created first)", p)
		}
		if d := kiPendingOf(t, ds, "gamma-mid"); d.Message != overlappingTargetsMessage {
			t.Fatalf("gamma-mid pending with %q, want Kueue's overlapping-targets message", d.Message)
		}
		e.step("nothing more while beta-mid leaves", nil, nil)
		e.finishEviction("beta-mid")
		// "one of alpha-mid and gamma-mid should be admitted", "betaHighWl
		// remains admitted", "the last one should request the preemption of
		// betaHighWl".
		e.step("beta-mid evicted: alpha-mid admitted, gamma-mid targets beta-high", []string{"alpha-mid"}, []string{"beta-high"})
		e.holds("beta-cq", "alpha", "beta-high")
		e.finishEviction("beta-high")
		e.step("beta-high evicted", []string{"gamma-mid"}, nil)
		e.holds("alpha-cq", "alpha", "alpha-mid")
		e.holds("gamma-cq", "alpha", "gamma-mid")
	})

	// Its "Should preempt all necessary workloads in concurrent scheduling with
	// the same priority" with RecomputeAssignmentUponPreemptionTargetsOverlap
	// true and false. With the gate true Kueue evicts two beta workloads; with
	// it false one first, and the second after the first eviction finished.
	// Quokka's gate does the same (Options.WaitOnOverlappingTargets is the gate
	// off).
	for _, gate := range []bool{true, false} {
		name := fmt.Sprintf("Should preempt all necessary workloads in concurrent scheduling with the same priority (RecomputeAssignmentUponPreemptionTargetsOverlap=%t)", gate)
		t.Run(name, func(t *testing.T) {
			e := cohort(t, Options{WaitOnOverlappingTargets: !gate})
			beta := []string{"beta-0", "beta-1", "beta-2"}
			for _, n := range beta {
				e.create(MakeWorkload(kiNS, n).Queue("beta-q").Request(corev1.ResourceCPU, "2"))
			}
			e.step("beta-cq borrowing", beta, nil)
			e.create(MakeWorkload(kiNS, "alpha").Queue("alpha-q").Request(corev1.ResourceCPU, "2"),
				MakeWorkload(kiNS, "gamma").Queue("gamma-q").Request(corev1.ResourceCPU, "2"))
			ds := e.cycle()
			vs := kiVictims(ds, false)
			want := 2
			if !gate {
				want = 1
			}
			if len(vs) != want || len(kiPrefixed(vs, "beta-")) != want {
				t.Fatalf("victims %v, want %d of %v; decisions %v", vs, want, beta, ds)
			}
			if got := admittedNames(ds); len(got) != 0 {
				t.Fatalf("admitted %v while preempting", got)
			}
			e.finishEviction(vs...)
			if !gate {
				// "Finishing eviction for first set of preempted workloads":
				// one of the two is admitted and the other evicts a second
				// beta workload.
				ds = e.cycle()
				if got := admittedNames(ds); len(got) != 1 {
					t.Fatalf("admitted %v after the first eviction, want one of alpha and gamma; decisions %v", got, ds)
				}
				vs = kiVictims(ds, false)
				if len(vs) != 1 || len(kiPrefixed(vs, "beta-")) != 1 {
					t.Fatalf("victims %v after the first eviction, want one more beta workload; decisions %v", vs, ds)
				}
				e.finishEviction(vs...)
			}
			ds = e.cycle()
			if n := e.holding("alpha", "gamma"); n != 2 {
				t.Fatalf("%d of alpha and gamma admitted, want both; decisions %v", n, ds)
			}
			if n := e.holding(beta...); n != 1 {
				t.Fatalf("%d beta workloads admitted, want 1", n)
			}
		})
	}
}

// Kueue: preemption_test.go, Context "In a cohort with StrictFIFO", It "Should
// reclaim from cohort even if another CQ has pending workloads".
func TestKueueIntegrationPreemptionInACohortWithStrictFIFO(t *testing.T) {
	t.Run("Should reclaim from cohort even if another CQ has pending workloads", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, MakeFlavor("one").Obj(),
			MakeClusterQueue("alpha-cq").Cohort("all").Strategy(kueue.StrictFIFO).Quota("one", corev1.ResourceCPU, "2").Preemption(any_, lower).Obj(),
			MakeClusterQueue("beta-cq").Cohort("all").Strategy(kueue.StrictFIFO).Quota("one", corev1.ResourceCPU, "2").Preemption(any_, lower).Obj(),
			kiLQ("alpha-lq", "alpha-cq"), kiLQ("beta-lq", "beta-cq"))
		e.create(kiWl("use-all", "alpha-lq", 1, "4"))
		e.step("use-all borrows all of beta-cq", []string{"use-all"}, nil)
		e.create(kiWl("pending", "alpha-lq", 0, "1"))
		e.step("pending does not fit", nil, nil)
		e.pending("pending")

		e.create(kiWl("preemptor", "beta-lq", -1, "1"))
		e.step("preemptor reclaims", nil, []string{"use-all"})
		e.finishEviction("use-all")
		// Kueue asserts only that the preemptor is admitted and use-all is
		// pending: "pending" may be admitted too.
		ds := e.cycle()
		got := admittedNames(ds)
		if !slices.Contains(got, "preemptor") {
			t.Fatalf("admitted %v, want the preemptor; decisions %v", got, ds)
		}
		for _, n := range got {
			if n != "preemptor" && n != "pending" {
				t.Fatalf("admitted %v, want the preemptor (and maybe pending)", got)
			}
		}
		e.holds("beta-cq", "one", "preemptor")
		e.pending("use-all")
	})
}

// Kueue: preemption_test.go, Context "When most quota is in a shared
// ClusterQueue in a cohort", It "should allow preempting workloads while
// borrowing". Four queues have 1 cpu of "one" (borrowing up to 10) and 10 of
// "fallback" (no borrowing), with whenCanBorrow and whenCanPreempt
// MayStopSearch, reclaimWithinCohort LowerPriority and borrowWithinCohort
// LowerPriority (the standard ones up to priority 0); shared-cq holds 10 cpus
// of "one".
func TestKueueIntegrationPreemptionWhenMostQuotaIsInASharedClusterQueueInACohort(t *testing.T) {
	t.Run("should allow preempting workloads while borrowing", func(t *testing.T) {
		mid := kiMidPriority
		q := func(name string, threshold *int32) *kueue.ClusterQueue {
			return MakeClusterQueue(name).Cohort("all").
				Quota("one", corev1.ResourceCPU, "1", Borrowing("10")).Quota("fallback", corev1.ResourceCPU, "10", Borrowing("0")).
				WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).
				Preemption(lower, never).BorrowWithinCohort(threshold).Obj()
		}
		e := kiNewEnv(t, Options{}, MakeFlavor("one").Obj(), MakeFlavor("fallback").Obj(),
			q("a-standard-cq", &mid), q("a-best-effort-cq", nil), q("b-best-effort-cq", nil), q("b-standard-cq", &mid),
			MakeClusterQueue("shared-cq").Cohort("all").Quota("one", corev1.ResourceCPU, "10").Obj(),
			kiLQ("a-standard-lq", "a-standard-cq"), kiLQ("a-best-effort-lq", "a-best-effort-cq"),
			kiLQ("b-best-effort-lq", "b-best-effort-cq"), kiLQ("b-standard-lq", "b-standard-cq"))

		e.create(kiWl("a-best-effort-low", "a-best-effort-lq", kiLowPriority, "5"))
		e.step("a low priority workload which borrows", []string{"a-best-effort-low"}, nil)
		e.holds("a-best-effort-cq", "one", "a-best-effort-low")

		e.create(kiWl("b-best-effort-low", "b-best-effort-lq", kiLowPriority, "1"))
		e.step("a low priority workload which does not borrow", []string{"b-best-effort-low"}, nil)
		e.holds("b-best-effort-cq", "one", "b-best-effort-low")

		e.create(kiWl("b-standard-high", "b-standard-lq", kiHighPriority, "5"))
		e.step("a high priority workload which borrows", []string{"b-standard-high"}, nil)
		e.holds("b-standard-cq", "one", "b-standard-high")

		e.create(kiWl("a-standard-very-high", "a-standard-lq", kiVeryHighPriority, "7"))
		ds := e.step("a-standard-very-high", nil, []string{"a-best-effort-low:InCohortReclaimWhileBorrowing"})
		if msg := kiVictim(t, ds, "a-best-effort-low").Message; !strings.Contains(msg, fmt.Sprintf("(UID: %s, JobUID: UNKNOWN) due to reclamation within the cohort while borrowing", kiUID("a-standard-very-high"))) {
			t.Fatalf("Preempted message %q", msg)
		}
		e.finishEviction("a-best-effort-low")
		e.step("after the eviction", []string{"a-standard-very-high", "a-best-effort-low"}, nil)
		e.holds("a-standard-cq", "one", "a-standard-very-high")
		e.holds("a-best-effort-cq", "fallback", "a-best-effort-low")
		e.holds("b-standard-cq", "one", "b-standard-high")
		e.holds("b-best-effort-cq", "one", "b-best-effort-low")
	})
}

// Kueue: preemption_test.go, Context "With lending limit", It "Should be able
// to preempt when lending limit enabled".
func TestKueueIntegrationPreemptionWithLendingLimit(t *testing.T) {
	t.Run("Should be able to preempt when lending limit enabled", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, MakeFlavor("alpha").Obj(),
			MakeClusterQueue("prod-cq").Cohort("all").Quota("alpha", corev1.ResourceCPU, "5", Lending("4")).Preemption(any_, never).Obj(),
			MakeClusterQueue("dev-cq").Cohort("all").Quota("alpha", corev1.ResourceCPU, "5").Obj(),
			kiLQ("prod-queue", "prod-cq"), kiLQ("dev-queue", "dev-cq"))
		e.create(kiWl("wl-1", "dev-queue", 0, "4"), kiWl("wl-2", "dev-queue", 1, "5"))
		e.step("two workloads", []string{"wl-1", "wl-2"}, nil)
		e.create(MakeWorkload(kiNS, "wl-3").Queue("prod-queue").Request(corev1.ResourceCPU, "4"))
		e.step("another workload", nil, []string{"wl-1"})
		e.finishEviction("wl-1")
		e.step("after the eviction", []string{"wl-3"}, nil)
		e.holds("prod-cq", "alpha", "wl-3")
	})
}

// Kueue: preemption_test.go, Context "When borrowWithinCohort is used and
// PrioritySortingWithinCohort disabled", It "should allow preempting workloads
// while borrowing". The gate orders heads of different queues; only one head
// is pending at a time here, so Quokka (which has no such gate) decides alike.
func TestKueueIntegrationPreemptionWhenBorrowWithinCohortIsUsedAndPrioritySortingWithinCohortDisabled(t *testing.T) {
	t.Run("should allow preempting workloads while borrowing", func(t *testing.T) {
		veryHigh := kiVeryHighPriority
		e := kiNewEnv(t, Options{}, MakeFlavor("default").Obj(),
			MakeClusterQueue("a-cq").Cohort("all").Quota("default", corev1.ResourceCPU, "0", Borrowing("10")).
				WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).Preemption(any_, lower).Obj(),
			MakeClusterQueue("b-cq").Cohort("all").Quota("default", corev1.ResourceCPU, "5", Borrowing("5")).
				WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).Preemption(any_, lower).BorrowWithinCohort(&veryHigh).Obj(),
			MakeClusterQueue("c-cq").Cohort("all").Quota("default", corev1.ResourceCPU, "5").
				WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).Preemption(any_, lower).Obj(),
			kiLQ("a-lq", "a-cq"), kiLQ("b-lq", "b-cq"))
		e.create(kiWl("a-low", "a-lq", kiMidPriority, "4"))
		e.step("a mid priority workload in a-cq", []string{"a-low"}, nil)
		e.create(kiWl("b1-high", "b-lq", kiHighPriority, "4"))
		e.step("a high priority workload b1 in b-cq", []string{"b1-high"}, nil)
		e.create(kiWl("b2-high", "b-lq", kiHighPriority, "4"))
		e.step("a high priority workload b2 in b-cq", nil, []string{"a-low"})
		e.finishEviction("a-low")
		e.step("after the eviction", []string{"b2-high"}, nil)
		e.pending("a-low")
		e.holds("b-cq", "default", "b1-high", "b2-high")
	})
}

// Kueue: preemption_test.go, Context "In a multi-level cohort", It "workloads
// in guaranteed cq should have preferential access to the resources": cohort
// guaranteed (3 cpus) under root; best-effort (0 cpus) in root and guaranteed
// (0 cpus) in guaranteed, both reclaiming Any.
func TestKueueIntegrationPreemptionInAMultiLevelCohort(t *testing.T) {
	t.Run("workloads in guaranteed cq should have preferential access to the resources", func(t *testing.T) {
		e := kiNewEnv(t, Options{}, MakeFlavor("default").Obj(),
			MakeCohort("root").Obj(),
			MakeCohort("guaranteed").Parent("root").Quota("default", corev1.ResourceCPU, "3").Obj(),
			MakeClusterQueue("best-effort").Cohort("root").Quota("default", corev1.ResourceCPU, "0").Preemption(any_, lower).Obj(),
			MakeClusterQueue("guaranteed").Cohort("guaranteed").Quota("default", corev1.ResourceCPU, "0").Preemption(any_, lower).Obj(),
			kiLQ("best-effort-lq", "best-effort"), kiLQ("guaranteed-lq", "guaranteed"))
		e.create(kiWl("best-effort-wl", "best-effort-lq", kiHighPriority, "3"))
		e.step("a workload in best-effort", []string{"best-effort-wl"}, nil)
		e.create(kiWl("guaranteed-wl", "guaranteed-lq", kiMidPriority, "3"))
		e.step("a workload in guaranteed", nil, []string{"best-effort-wl"})
		e.finishEviction("best-effort-wl")
		e.step("after the eviction", []string{"guaranteed-wl"}, nil)
		e.pending("best-effort-wl")
		e.holds("guaranteed", "default", "guaranteed-wl")
	})
}
