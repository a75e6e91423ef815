package scheduler

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
)

// timelineClass is one workload class of Kueue's baseline generator config
// with its pacing: count per ClusterQueue, the first created at start and one
// every every after it, running for run once admitted.
type timelineClass struct {
	baselineClass
	start, every, run time.Duration
}

// baselineTimeline plays Kueue's baseline config on a clock, as Kueue's
// harness drives the manager (hack/kueue-perf.sh): workloads are created at
// their classes' intervals from the start, a cycle runs every gap, an
// admitted workload finishes its runtime plus lag after its admission, and
// victims are evicted the cycle after their preemption.
type baselineTimeline struct {
	s       *Scheduler
	creates []timelineEvent
	next    int
	later   []timelineEvent
	run     map[types.NamespacedName]time.Duration
	cq      map[types.NamespacedName]string
	// explained counts the Pending decisions the cycles returned.
	explained int
}

type timelineEvent struct {
	at     time.Duration
	key    types.NamespacedName
	class  timelineClass
	cq     string
	finish bool
}

func newBaselineTimeline(t testing.TB, opts Options, cohorts, perCohort, scale int, largeStart time.Duration) *baselineTimeline {
	tl := &baselineTimeline{s: New(opts), run: map[types.NamespacedName]time.Duration{}, cq: map[types.NamespacedName]string{}}
	tl.s.UpsertResourceFlavor(MakeFlavor("rf").Obj())
	tl.s.UpsertNamespace("ns", nil)
	classes := []timelineClass{
		{baselineClasses[0], 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{baselineClasses[1], 0, 500 * time.Millisecond, 500 * time.Millisecond},
		{baselineClasses[2], largeStart, 1200 * time.Millisecond, time.Second},
	}
	n := 0
	for c := range cohorts {
		for q := range perCohort {
			name := baselineQueue(t, tl.s, c, q)
			for _, cl := range classes {
				for i := range cl.perQueue / scale {
					n++
					key := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("%s-%06d", cl.name, n)}
					tl.creates = append(tl.creates, timelineEvent{at: cl.start + time.Duration(i)*cl.every, key: key, class: cl, cq: name})
				}
			}
		}
	}
	sort.SliceStable(tl.creates, func(i, j int) bool { return tl.creates[i].at < tl.creates[j].at })
	return tl
}

// advance applies every event due at or before at.
func (tl *baselineTimeline) advance(t testing.TB, at time.Duration) {
	for ; tl.next < len(tl.creates) && tl.creates[tl.next].at <= at; tl.next++ {
		e := tl.creates[tl.next]
		wl := MakeWorkload("ns", e.key.Name).Queue(e.cq).Created(e.at+time.Duration(tl.next)).
			Priority(e.class.priority).Request("cpu", e.class.cpu)
		if err := tl.s.UpsertWorkload(wl.Obj()); err != nil {
			t.Fatal(err)
		}
		tl.run[e.key], tl.cq[e.key] = e.class.run, e.cq
	}
	rest := tl.later[:0]
	for _, e := range tl.later {
		switch {
		case e.at > at:
			rest = append(rest, e)
		case e.finish:
			tl.s.FinishWorkload(e.key)
		default:
			tl.s.EvictWorkload(e.key)
		}
	}
	tl.later = rest
}

// cycle runs one cycle at at and schedules what its decisions lead to.
func (tl *baselineTimeline) cycle(at, lag time.Duration) []Decision {
	ds := tl.s.Cycle(now.Add(at))
	for _, d := range ds {
		switch x := d.(type) {
		case Admit:
			tl.later = append(tl.later, timelineEvent{at: at + tl.run[x.Workload] + lag, key: x.Workload, finish: true})
		case Preempt:
			for _, v := range x.Victims {
				tl.later = append(tl.later, timelineEvent{at: at + time.Millisecond, key: v.Workload})
			}
		case Pending:
			tl.explained++
		}
	}
	return ds
}

func (tl *baselineTimeline) done() bool { return tl.next == len(tl.creates) && len(tl.later) == 0 }

// TestKueueBaselineTimelineDecidesAsFullWalk plays Kueue's baseline config,
// scaled down, on the harness's clock through an incremental scheduler and
// one that walks every workload every cycle: every cycle must admit and
// preempt the same workloads in the same order, and each Pending decision
// of the incremental one must be the full walk's. Here queues sleep though
// their workloads' preemption searches ran (one flavor, reclaim Any), and new
// arrivals are probed rather than waking their queue (arrivals.go); so the
// incremental scheduler must explain far fewer workloads. The large workloads
// start a second late, once the small and medium ones hold the quota, so
// that they reclaim it; the runner's lag after a workload's runtime is 50 ms
// (many preemptions) or 300 ms (as under the harness on this machine).
//
// Both with Quokka's default gates and with Kueue v0.17.0's, which the
// harness gives the manager (no SchedulingEquivalenceHashing, and a
// preemptor waits for evictions in flight its targets overlap): there the
// workloads behind a queue's head are parked one by one, and most of them
// search for victims in vain as their equals did. In both, runs of equal
// workloads settle as the first of them did (repeat.go), ahead of the heap
// too, and must decide as the full walk does.
func TestKueueBaselineTimelineDecidesAsFullWalk(t *testing.T) {
	gates := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"kueue-v0.17", Options{NoEquivalenceHashing: true, WaitOnOverlappingTargets: true}},
	}
	for _, g := range gates {
		for _, lag := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/lag-%v", g.name, lag), func(t *testing.T) {
				testBaselineTimelineDecidesAsFullWalk(t, g.opts, lag)
			})
		}
	}
}

func testBaselineTimelineDecidesAsFullWalk(t *testing.T, opts Options, lag time.Duration) {
	fullOpts := opts
	fullOpts.DisableIncrementalCycle = true
	inc := newBaselineTimeline(t, opts, 2, 3, 5, time.Second)
	full := newBaselineTimeline(t, fullOpts, 2, 3, 5, time.Second)
	const gap = 40 * time.Millisecond
	cycles, admitted, preempted := 0, 0, 0
	for at := time.Duration(0); !inc.done(); at += gap {
		if at > 10*time.Minute {
			t.Fatalf("the timeline has not drained after %v", at)
		}
		inc.advance(t, at)
		full.advance(t, at)
		if cycles%100 == 99 {
			inc.s.WakeAll()
		}
		got, want := inc.cycle(at, lag), full.cycle(at, lag)
		compareIncremental(t, cycles, got, want)
		cycles++
		admitted += len(admits(got))
		preempted += len(preempts(got))
	}
	t.Logf("%d cycles, %d admitted, %d preemptions; explained %d (full walk %d); %d queues kept asleep by a probe, %d woken late; %d settled by a memo, %d of them ahead of the heap",
		cycles, admitted, preempted, inc.explained, full.explained, inc.s.probed, inc.s.lateWakes, inc.s.repeats, inc.s.repeatsAhead)
	if inc.s.repeatsAhead == 0 || inc.s.repeats == inc.s.repeatsAhead {
		t.Fatalf("runs of equal workloads must settle by their memos, at their turn and ahead of the heap: %d settled so, %d ahead",
			inc.s.repeats, inc.s.repeatsAhead)
	}
	if preempted == 0 || inc.s.probed == 0 {
		t.Fatalf("the timeline must preempt and probe arrivals: %d preemptions, %d probes", preempted, inc.s.probed)
	}
	if inc.explained*2 > full.explained {
		t.Fatalf("the incremental scheduler explained %d workloads, the full walk %d: its queues do not sleep", inc.explained, full.explained)
	}
}
