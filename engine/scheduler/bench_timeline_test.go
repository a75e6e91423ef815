package scheduler

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkKueueBaselineTimeline plays Kueue's whole baseline config (5
// cohorts × 6 ClusterQueues, 15,000 workloads created at the generator's
// intervals) on the harness's clock, a cycle every 40 ms and every queue
// woken every 5 s as the manager does, each workload finished after its
// runtime plus the runner's median lag for its class under the harness
// (docs/kueue-perf.md, thirteenth round: 140 ms, 400 ms, 5.7 s), and reports the
// engine's time per cycle in each of the harness's phases: while the large
// workloads hold the quota (the first minute), the medium phase and the
// small one. Under the harness a cycle's cost delays the next admission (the
// loop spaces cycles by twice their cost) and takes CPU from the API server
// and the runner.
//
// Most cycles here have nothing to do (a cycle every 40 ms, finishes in
// bursts); under the harness nearly every cycle follows a finish and admits.
// So it also reports the cycles that admitted apart: their engine time and
// their Pending decisions, one per pending workload walked. In the medium
// phase such a cycle walks nearly every pending workload: a release wakes
// its tree's queues (Kueue requeues its inadmissible workloads then), and
// the walk of an awake queue evaluates every pending workload, parked or not
// (park.go), unless the prefilter finds that no preemption could give it a
// flavor (prefilter.go); runs of equal workloads settle as the first of them
// did (repeat.go).
//
// It runs with Quokka's default gates and with Kueue v0.17.0's, which the
// harness gives the manager (hack/kueue-perf.sh): without
// SchedulingEquivalenceHashing, the workloads behind a queue's head are
// parked one by one, and most of them search for victims (in vain, as their
// equals did) in each cycle after a release.
func BenchmarkKueueBaselineTimeline(b *testing.B) {
	b.Run("gates=default", func(b *testing.B) { benchmarkBaselineTimeline(b, Options{}) })
	b.Run("gates=kueue-v0.17", func(b *testing.B) {
		benchmarkBaselineTimeline(b, Options{NoEquivalenceHashing: true, WaitOnOverlappingTargets: true})
	})
}

func benchmarkBaselineTimeline(b *testing.B, opts Options) {
	const gap = 40 * time.Millisecond
	lag := map[string]time.Duration{"large": 140 * time.Millisecond, "medium": 400 * time.Millisecond, "small": 5700 * time.Millisecond}
	phases := []struct {
		name string
		end  time.Duration
	}{{"large", 62 * time.Second}, {"medium", 95 * time.Second}, {"small", time.Hour}}
	spent := make([]time.Duration, len(phases))
	cycles := make([]int, len(phases))
	// admitting counts the cycles that admitted, their engine time and
	// their Pending decisions.
	admitting := make([]int, len(phases))
	admittingSpent := make([]time.Duration, len(phases))
	admittingPending := make([]int, len(phases))
	// waited is each workload's time from creation to its last admission,
	// as the runner measures it.
	waited := map[types.NamespacedName]time.Duration{}
	for b.Loop() {
		b.StopTimer()
		tl := newBaselineTimeline(b, opts, 5, 6, 1, 0)
		created := map[types.NamespacedName]time.Duration{}
		class := map[types.NamespacedName]string{}
		for i := range tl.creates {
			e := &tl.creates[i]
			e.class.run += lag[e.class.name]
			created[e.key], class[e.key] = e.at, e.class.name
		}
		b.StartTimer()
		for at := time.Duration(0); !tl.done(); at += gap {
			if at > 20*time.Minute {
				b.Fatalf("the timeline has not drained after %v", at)
			}
			tl.advance(b, at)
			if at%(5*time.Second) == 0 {
				tl.s.WakeAll()
			}
			p := 0
			for at >= phases[p].end {
				p++
			}
			explained := tl.explained
			start := time.Now()
			ds := tl.cycle(at, 0)
			took := time.Since(start)
			spent[p] += took
			cycles[p]++
			as := admits(ds)
			for _, a := range as {
				waited[a.Workload] = at - created[a.Workload]
			}
			if len(as) > 0 {
				admitting[p]++
				admittingSpent[p] += took
				admittingPending[p] += tl.explained - explained
			}
		}
		b.StopTimer()
		sum, n := map[string]time.Duration{}, map[string]int{}
		for k, w := range waited {
			sum[class[k]] += w
			n[class[k]]++
		}
		for _, cl := range baselineClasses {
			if n[cl.name] > 0 {
				b.ReportMetric((sum[cl.name] / time.Duration(n[cl.name])).Seconds(), "s-wait-"+cl.name)
			}
		}
		b.StartTimer()
	}
	for i, ph := range phases {
		if cycles[i] > 0 {
			b.ReportMetric(float64(spent[i].Microseconds())/float64(cycles[i]), "µs/cycle-"+ph.name)
		}
		if admitting[i] > 0 {
			b.ReportMetric(float64(admittingSpent[i].Microseconds())/float64(admitting[i]), "µs/admitting-cycle-"+ph.name)
			b.ReportMetric(float64(admittingPending[i])/float64(admitting[i]), "pending/admitting-cycle-"+ph.name)
		}
	}
}
