package scheduler

import (
	"fmt"
	"testing"
	"time"

	. "quokka.dev/quokka/engine/enginetest"
)

// preemptionWorld: 1,000 ClusterQueues in one cohort. q-0000 lends 10,000
// CPUs and reclaims (reclaimWithinCohort Any); each of the 999 others has
// nominal 10 and runs 20 admitted 1-CPU workloads (19,980 in all, each queue
// borrowing 10), so every one of them is a candidate.
func preemptionWorld(b *testing.B) *Scheduler {
	s := New(Options{})
	s.UpsertResourceFlavor(MakeFlavor("default").Obj())
	s.UpsertNamespace("ns", nil)
	for i := range 1000 {
		name := fmt.Sprintf("q-%04d", i)
		nominal := "10"
		if i == 0 {
			nominal = "10000"
		}
		if err := s.UpsertClusterQueue(MakeClusterQueue(name).Cohort("all").Quota("default", "cpu", nominal).Preemption(any_, never).Obj()); err != nil {
			b.Fatal(err)
		}
		s.UpsertLocalQueue(MakeLocalQueue("ns", name, name).Obj())
		if i == 0 {
			continue
		}
		for j := range 20 {
			if err := s.UpsertWorkload(MakeWorkload("ns", fmt.Sprintf("w-%04d-%02d", i, j)).Queue(name).Request("cpu", "1").
				ReserveQuota(name, "default").QuotaReservedAt(time.Duration(i*20+j) * time.Second).Obj()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s
}

// BenchmarkPreemption1000Queues20000Admitted measures one preemption decision:
// q-0000's 100-CPU workload finds 10 free CPUs and must reclaim 90 from the
// 19,980 candidates of 999 borrowing queues.
func BenchmarkPreemption1000Queues20000Admitted(b *testing.B) {
	pre := MakeWorkload("ns", "preemptor").Queue("q-0000").Request("cpu", "100").Obj()
	b.ReportAllocs()
	for b.Loop() {
		// A fresh world each time: the victims of a preemption stay in
		// flight (being evicted) even once their preemptor is gone, so the
		// next preemptor would wait for them instead of searching.
		b.StopTimer()
		s := preemptionWorld(b)
		b.StartTimer()
		if err := s.UpsertWorkload(pre); err != nil {
			b.Fatal(err)
		}
		ds := s.Cycle(now)
		if ps := preempts(ds); len(ps) != 1 || len(ps[0].Victims) != 90 {
			b.Fatalf("decisions %v: want one preemption with 90 victims", ds)
		}
	}
}

// fairWorld: a three-level cohort tree (root, 10 orgs, 10 teams each) of 1,000
// ClusterQueues with nominal 10 CPUs, 10 under each team cohort; the first half
// of the queues has 8 pending 4-CPU workloads, so that they compete for the
// idle half's quota by share.
func fairWorld(b *testing.B) *Scheduler {
	s := New(Options{FairSharing: bothStrategies})
	s.UpsertResourceFlavor(MakeFlavor("default").Obj())
	s.UpsertNamespace("ns", nil)
	for o := range 10 {
		if err := s.UpsertCohort(MakeCohort(fmt.Sprintf("org-%d", o)).Parent("root").Obj()); err != nil {
			b.Fatal(err)
		}
		for tm := range 10 {
			if err := s.UpsertCohort(MakeCohort(fmt.Sprintf("team-%d-%d", o, tm)).Parent(fmt.Sprintf("org-%d", o)).Obj()); err != nil {
				b.Fatal(err)
			}
		}
	}
	n := 0
	for i := range 1000 {
		name := fmt.Sprintf("q-%04d", i)
		team := fmt.Sprintf("team-%d-%d", i/100, (i/10)%10)
		if err := s.UpsertClusterQueue(MakeClusterQueue(name).Cohort(team).Quota("default", "cpu", "10").Preemption(any_, never).Obj()); err != nil {
			b.Fatal(err)
		}
		s.UpsertLocalQueue(MakeLocalQueue("ns", name, name).Obj())
		if i%2 == 1 {
			continue
		}
		for j := range 8 {
			n++
			if err := s.UpsertWorkload(MakeWorkload("ns", fmt.Sprintf("w-%04d-%d", i, j)).Queue(name).
				Created(time.Duration(n)*time.Millisecond).Request("cpu", "4").Obj()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s
}

// BenchmarkFairSharingCycle1000Queues3Levels measures one fair-sharing Cycle
// that admits by share across the tree until the quota runs out.
func BenchmarkFairSharingCycle1000Queues3Levels(b *testing.B) {
	var elapsed time.Duration
	var allocs uint64
	admitted := 0
	for b.Loop() {
		b.StopTimer()
		s := fairWorld(b)
		var ms0, ms1 runtimeMemStats
		readMemStats(&ms0)
		b.StartTimer()
		start := time.Now()
		ds := s.Cycle(now)
		elapsed += time.Since(start)
		b.StopTimer()
		readMemStats(&ms1)
		allocs += ms1.Mallocs - ms0.Mallocs
		admitted += len(admits(ds))
		b.StartTimer()
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N), "ns/cycle")
	b.ReportMetric(float64(allocs)/float64(b.N), "allocs/cycle")
	b.ReportMetric(float64(admitted)/float64(b.N), "admitted/cycle")
}
