package scheduler

import (
	"fmt"
	"testing"
	"time"

	. "quokka.dev/quokka/engine/enginetest"
)

// bigWorld: 1,000 ClusterQueues in 10 cohorts, each with nominal 10 GPUs and
// 40 CPUs in h100, and 50 pending 1-GPU workloads per queue (50,000 in all), so
// that about a fifth are admitted and the rest are evaluated and stay pending.
func bigWorld(b *testing.B) (*Scheduler, int) {
	s := New(Options{})
	s.UpsertResourceFlavor(MakeFlavor("h100").Obj())
	s.UpsertNamespace("ns", nil)
	for i := range 1000 {
		name := fmt.Sprintf("cq-%04d", i)
		if err := s.UpsertClusterQueue(MakeClusterQueue(name).Cohort(fmt.Sprintf("cohort-%d", i%10)).
			Quota("h100", "cpu", "40").Quota("h100", gpu, "10", Borrowing("5")).Obj()); err != nil {
			b.Fatal(err)
		}
		s.UpsertLocalQueue(MakeLocalQueue("ns", name, name).Obj())
	}
	n := 0
	for j := range 50 {
		for i := range 1000 {
			n++
			wl := MakeWorkload("ns", fmt.Sprintf("w-%04d-%02d", i, j)).Queue(fmt.Sprintf("cq-%04d", i)).
				Created(time.Duration(n)*time.Millisecond).Priority(int32(j%3)).
				Request(gpu, "1").Request("cpu", "2").Obj()
			if err := s.UpsertWorkload(wl); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s, n
}

// BenchmarkCycle1000Queues50000Pending measures one Cycle over 50,000 pending
// workloads: admissions per second and allocations per admission.
func BenchmarkCycle1000Queues50000Pending(b *testing.B) {
	var admitted, decisions int
	var elapsed time.Duration
	var allocs uint64
	for b.Loop() {
		b.StopTimer()
		s, _ := bigWorld(b)
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
		decisions += len(ds)
		b.StartTimer()
	}
	b.ReportMetric(float64(admitted)/elapsed.Seconds(), "admissions/s")
	b.ReportMetric(float64(allocs)/float64(admitted), "allocs/admission")
	b.ReportMetric(float64(admitted)/float64(b.N), "admitted/cycle")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/cycle")
}

// BenchmarkDrainOneQueue10000: one ClusterQueue with room for 10,000 small
// pending workloads; one Cycle admits them all.
func BenchmarkDrainOneQueue10000(b *testing.B) { benchDrain(b, false) }

// BenchmarkDrainOneQueue10000AFS is the same drain with admission fair
// sharing, the workloads alternating between two LocalQueues: every admission
// settles its LocalQueue's usage and reorders the two.
func BenchmarkDrainOneQueue10000AFS(b *testing.B) { benchDrain(b, true) }

func benchDrain(b *testing.B, afs bool) {
	var admitted int
	var elapsed time.Duration
	var allocs uint64
	opts := Options{}
	if afs {
		opts = afsOptions()
	}
	for b.Loop() {
		b.StopTimer()
		s := New(opts)
		s.UpsertResourceFlavor(MakeFlavor("default").Obj())
		cq := MakeClusterQueue("cq").Quota("default", "cpu", "10000").Quota("default", "memory", "10000Gi")
		if afs {
			cq.AdmissionFairSharing()
		}
		if err := s.UpsertClusterQueue(cq.Obj()); err != nil {
			b.Fatal(err)
		}
		lqs := []string{"lq"}
		if afs {
			lqs = append(lqs, "lq-2")
		}
		for _, lq := range lqs {
			s.UpsertLocalQueue(MakeLocalQueue("ns", lq, "cq").Obj())
		}
		for i := range 10000 {
			if err := s.UpsertWorkload(MakeWorkload("ns", fmt.Sprintf("w-%05d", i)).Queue(lqs[i%len(lqs)]).
				Created(time.Duration(i)*time.Millisecond).Request("cpu", "1").Request("memory", "1Gi").Obj()); err != nil {
				b.Fatal(err)
			}
		}
		var ms0, ms1 runtimeMemStats
		readMemStats(&ms0)
		b.StartTimer()
		start := time.Now()
		ds := s.Cycle(now)
		elapsed += time.Since(start)
		b.StopTimer()
		readMemStats(&ms1)
		allocs += ms1.Mallocs - ms0.Mallocs
		if got := len(admits(ds)); got != 10000 {
			b.Fatalf("admitted %d, want 10000", got)
		}
		admitted += 10000
		b.StartTimer()
	}
	b.ReportMetric(elapsed.Seconds()/float64(b.N)*1000, "ms/drain")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(admitted), "ns/admission")
	b.ReportMetric(float64(allocs)/float64(admitted), "allocs/admission")
}
