package scheduler

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// baselineClass is one workload class of Kueue's scheduler performance
// baseline (test/performance/scheduler/configs/baseline/generator.yaml).
type baselineClass struct {
	name     string
	perQueue int
	priority int32
	cpu      string
}

var baselineClasses = []baselineClass{
	{"small", 350, 50, "1"},
	{"medium", 100, 100, "5"},
	{"large", 50, 200, "20"},
}

// baselineDriver plays Kueue's baseline config against the engine as the
// manager does under Kueue's harness: 5 cohorts × 6 ClusterQueues (nominal
// 20 cpu, borrowing limit 100, reclaimWithinCohort Any, withinClusterQueue
// LowerPriority), the small and medium workloads of the config pending at the
// start and the large ones arriving one per queue per tick; each tick
// finishes the 30 longest admitted workloads, confirms the previous tick's
// preemptions and submits a new workload of the same class for each one
// finished, so that the backlog stays the size the harness builds up.
type baselineDriver struct {
	s        *Scheduler
	admitted []types.NamespacedName
	class    map[types.NamespacedName]baselineClass
	queue    map[types.NamespacedName]string
	victims  []types.NamespacedName
	queues   []string
	n        int
	tick     int
	// large counts the large workloads submitted per queue: as in the
	// harness, where they arrive over the first minute, one per queue per
	// tick, and preempt the smaller ones admitted before them.
	large int
	// finishPerTick is how many admitted workloads each tick finishes.
	finishPerTick int
}

func newBaselineDriver(b testing.TB, opts Options) *baselineDriver {
	d := &baselineDriver{s: New(opts), class: map[types.NamespacedName]baselineClass{}, queue: map[types.NamespacedName]string{},
		finishPerTick: 30}
	d.s.UpsertResourceFlavor(MakeFlavor("rf").Obj())
	d.s.UpsertNamespace("ns", nil)
	for c := range 5 {
		for q := range 6 {
			name := baselineQueue(b, d.s, c, q)
			d.queues = append(d.queues, name)
			for _, cl := range baselineClasses[:2] {
				for range cl.perQueue {
					d.submit(b, name, cl)
				}
			}
		}
	}
	// The small and medium workloads fill the quota before any large one
	// arrives.
	d.record(d.s.Cycle(now))
	return d
}

// baselineQueue makes ClusterQueue q of Cohort c of Kueue's baseline config
// (nominal 20 cpu, borrowing limit 100, reclaimWithinCohort Any,
// withinClusterQueue LowerPriority) and its LocalQueue, and returns its name.
func baselineQueue(t testing.TB, s *Scheduler, c, q int) string {
	name := fmt.Sprintf("cq-%d-cohort-%d", q, c)
	if err := s.UpsertClusterQueue(MakeClusterQueue(name).Cohort(fmt.Sprintf("cohort-%d", c)).
		Quota("rf", "cpu", "20", Borrowing("100")).
		Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj()); err != nil {
		t.Fatal(err)
	}
	s.UpsertLocalQueue(MakeLocalQueue("ns", name, name).Obj())
	return name
}

// record notes a cycle's admissions and the victims to confirm next tick.
func (d *baselineDriver) record(ds []Decision) {
	for _, dec := range ds {
		switch x := dec.(type) {
		case Admit:
			d.admitted = append(d.admitted, x.Workload)
		case Preempt:
			for _, v := range x.Victims {
				d.victims = append(d.victims, v.Workload)
			}
		}
	}
}

func (d *baselineDriver) submit(b testing.TB, queue string, cl baselineClass) {
	d.n++
	wl := MakeWorkload("ns", fmt.Sprintf("%s-%06d", cl.name, d.n)).Queue(queue).
		Created(time.Duration(d.n)*time.Millisecond).Priority(cl.priority).Request("cpu", cl.cpu)
	if err := d.s.UpsertWorkload(wl.Obj()); err != nil {
		b.Fatal(err)
	}
	d.class[wl.Key()], d.queue[wl.Key()] = cl, queue
}

// step runs one tick and returns its decisions.
func (d *baselineDriver) step(b testing.TB) []Decision {
	for _, v := range d.victims {
		d.s.EvictWorkload(v)
	}
	d.victims = d.victims[:0]
	done := min(d.finishPerTick, len(d.admitted))
	for _, k := range d.admitted[:done] {
		d.s.FinishWorkload(k)
		d.submit(b, d.queue[k], d.class[k])
	}
	d.admitted = d.admitted[done:]
	if large := baselineClasses[2]; d.large < large.perQueue {
		d.large++
		for _, q := range d.queues {
			d.submit(b, q, large)
		}
	}
	d.tick++
	ds := d.s.Cycle(now.Add(time.Duration(d.tick) * time.Second))
	d.record(ds)
	return ds
}

// BenchmarkKueueBaselineTick measures one cycle of the manager's engine under
// Kueue's baseline load at its peak backlog (15,000 workloads): the cost per
// cycle that, times the cycles of a run, is most of the manager's CPU under
// Kueue's harness (hack/kueue-perf.sh).
func BenchmarkKueueBaselineTick(b *testing.B) {
	// waitForPodsReady as the manager runs it by default (its workloads
	// never report PodsReady, so every admitted one is watched).
	d := newBaselineDriver(b, Options{WaitForPodsReady: &WaitForPodsReady{Timeout: 30 * time.Minute,
		RecoveryTimeout: 30 * time.Minute, BackoffBase: time.Minute, BackoffMax: time.Hour, OrderByEviction: true}})
	for range 20 {
		d.step(b) // from the initial burst to a steady state
	}
	var admitted, pending int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, dec := range d.step(b) {
			switch dec.(type) {
			case Admit:
				admitted++
			case Pending:
				pending++
			}
		}
	}
	b.ReportMetric(float64(admitted)/float64(b.N), "admitted/cycle")
	b.ReportMetric(float64(pending)/float64(b.N), "pending-decisions/cycle")
}

// TestKueueBaselineDecidesAsFullWalk plays Kueue's baseline load (the
// benchmark's driver) with the incremental cycle, whose per-queue caches let
// equal workloads share answers and whose queues sleep, and with every
// workload evaluated afresh (Options.DisableIncrementalCycle): every tick
// must admit and preempt the same workloads, and leave pending with the same
// reasons every workload the incremental cycle explains (a sleeping queue's
// workloads keep their last reason); after WakeAll, every workload.
func TestKueueBaselineDecidesAsFullWalk(t *testing.T) {
	inc := newBaselineDriver(t, Options{})
	full := newBaselineDriver(t, Options{DisableIncrementalCycle: true})
	// Few finishes: the large workloads must preempt to get in.
	inc.finishPerTick, full.finishPerTick = 2, 2
	preempted := 0
	for tick := range 26 {
		woken := tick == 25
		if woken {
			inc.s.WakeAll()
		}
		got, want := inc.step(t), full.step(t)
		if d := diffOutcomes(outcomes(want), outcomes(got), woken); d != "" {
			t.Fatalf("tick %d: incremental cycle decided otherwise than the full walk:\n%s", tick, d)
		}
		preempted += len(preempts(got))
	}
	if preempted == 0 {
		t.Fatal("no tick preempted: the load no longer exercises the preemption caches")
	}
}

// outcomes is what a tick decided for each workload: admitted (with its
// ClusterQueue), preempted for (with the preemptor), or pending (with the
// reason; messages may name usage that the two walks reach in another order).
func outcomes(ds []Decision) map[string]string {
	out := map[string]string{}
	for _, d := range ds {
		switch x := d.(type) {
		case Admit:
			out[x.Workload.String()] = "admit " + x.ClusterQueue
		case Preempt:
			for _, v := range x.Victims {
				out[v.Workload.String()] = "victim of " + x.Preemptor.String()
			}
		case Pending:
			if _, ok := out[x.Workload.String()]; !ok {
				out[x.Workload.String()] = "pending " + x.Reason
			}
		}
	}
	return out
}

// diffOutcomes lists the workloads whose outcomes differ, in name order; a
// workload the full walk leaves pending may have no outcome in the
// incremental cycle unless every must.
func diffOutcomes(full, inc map[string]string, every bool) string {
	var lines []string
	for k, v := range full {
		if got, ok := inc[k]; !ok && !every && strings.HasPrefix(v, "pending ") {
			continue
		} else if got != v {
			lines = append(lines, fmt.Sprintf("%s: full walk %q, incremental %q", k, v, inc[k]))
		}
	}
	for k, v := range inc {
		if _, ok := full[k]; !ok {
			lines = append(lines, fmt.Sprintf("%s: full walk no decision, incremental %q", k, v))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
