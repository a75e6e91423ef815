package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

func afsOptions() Options {
	return Options{AdmissionFairSharing: &config.AdmissionFairSharing{
		UsageHalfLifeTime: metav1.Duration{Duration: 10 * time.Minute}, UsageSamplingInterval: metav1.Duration{Duration: time.Minute}}}
}

// shared is one ClusterQueue with 4 CPUs fed by LocalQueues "heavy" and
// "light" in namespace t; afs turns on UsageBasedAdmissionFairSharing.
func shared(t *testing.T, opts Options, afs bool, lightWeight string) *Scheduler {
	cq := MakeClusterQueue("shared").Quota("default", "cpu", "4")
	if afs {
		cq.AdmissionFairSharing()
	}
	light := MakeLocalQueue("t", "light", "shared")
	if lightWeight != "" {
		light.FairWeight(lightWeight)
	}
	return world(t, opts, MakeFlavor("default").Obj(), cq.Obj(), MakeLocalQueue("t", "heavy", "shared").Obj(), light.Obj())
}

// cpuOf is a LocalQueue's admission fair sharing usage of cpu.
func cpuOf(v LocalQueueView) float64 {
	q := v.ConsumedResources["cpu"]
	return q.AsApproximateFloat64()
}

func cpuJob(lq, name string, cpu int, created time.Duration) *WorkloadWrapper {
	return MakeWorkload("t", name).Queue(lq).Request("cpu", fmt.Sprint(cpu)).Created(created)
}

// 002: "an entry penalty stops a tenant from flooding the queue before its
// usage catches up": heavy's four older jobs would take all four CPUs in plain
// order; with AFS each admission raises heavy's usage at once, so light's jobs
// interleave in the same cycle.
func TestAFSEntryPenaltyInterleavesWithinACycle(t *testing.T) {
	for _, tc := range []struct {
		afs  bool
		want string
	}{
		{false, "h0,h1,h2,h3"},
		{true, "h0,l0,h1,l1"},
	} {
		t.Run(fmt.Sprintf("afs=%v", tc.afs), func(t *testing.T) {
			s := shared(t, afsOptions(), tc.afs, "")
			for i := range 4 {
				apply(t, s, cpuJob("heavy", fmt.Sprintf("h%d", i), 1, time.Duration(i)*time.Second).Obj())
				apply(t, s, cpuJob("light", fmt.Sprintf("l%d", i), 1, time.Hour+time.Duration(i)*time.Second).Obj())
			}
			if got := strings.Join(admittedNames(s.Cycle(now)), ","); got != tc.want {
				t.Fatalf("admitted %s, want %s", got, tc.want)
			}
		})
	}
}

// 002: AFS "orders Workloads by the decayed historical usage of their
// LocalQueue": heavy ran 4 CPUs for a while; light's newer job goes first
// while heavy's usage is high, and heavy's goes first again once its usage has
// decayed below light's (time is the now passed to Cycle).
func TestAFSOrdersByDecayedUsage(t *testing.T) {
	s := shared(t, afsOptions(), true, "")
	apply(t, s, cpuJob("heavy", "big", 4, 0).Obj())
	for m := range 5 {
		s.Cycle(now.Add(time.Duration(m) * time.Minute))
	}
	s.FinishWorkload(key("t", "big"))
	// light runs 1 CPU from now on.
	apply(t, s, cpuJob("light", "small", 1, time.Minute).Obj())
	s.Cycle(now.Add(5 * time.Minute))

	heavy, _ := s.LocalQueueSnapshot("t", "heavy")
	light, _ := s.LocalQueueSnapshot("t", "light")
	if cpuOf(heavy) <= cpuOf(light) {
		t.Fatalf("consumed heavy %v, light %v: heavy must have used more", heavy.ConsumedResources, light.ConsumedResources)
	}
	// Two jobs compete for the 3 free CPUs; only one fits.
	apply(t, s, cpuJob("heavy", "h-next", 3, 2*time.Minute).Obj())
	apply(t, s, cpuJob("light", "l-next", 3, 3*time.Minute).Obj())
	if got := strings.Join(admittedNames(s.Cycle(now.Add(6*time.Minute))), ","); got != "l-next" {
		t.Fatalf("admitted %s, want l-next (heavy's usage is higher)", got)
	}
	s.FinishWorkload(key("t", "l-next"))
	s.DeleteWorkload(key("t", "h-next"))
	// Light keeps running 1 CPU; heavy is idle. After enough half-lives heavy's
	// usage is below light's, which a running job keeps topping up.
	later := now.Add(6 * time.Minute)
	for m := 1; m <= 90; m++ {
		later = now.Add(time.Duration(6+m) * time.Minute)
		s.Cycle(later)
	}
	heavy, _ = s.LocalQueueSnapshot("t", "heavy")
	light, _ = s.LocalQueueSnapshot("t", "light")
	if cpuOf(heavy) >= cpuOf(light) {
		t.Fatalf("consumed heavy %v, light %v after 90 minutes: heavy's must have decayed below", heavy.ConsumedResources, light.ConsumedResources)
	}
	if !heavy.ConsumedAt.Equal(later) {
		t.Errorf("last sample %v, want %v", heavy.ConsumedAt, later)
	}
	apply(t, s, cpuJob("light", "l-again", 3, 4*time.Minute).Obj())
	apply(t, s, cpuJob("heavy", "h-again", 3, 5*time.Minute).Obj())
	if got := strings.Join(admittedNames(s.Cycle(later.Add(time.Minute))), ","); got != "h-again" {
		t.Fatalf("admitted %s, want h-again (heavy's usage decayed below light's)", got)
	}
}

// The LocalQueue's spec.fairSharing.weight divides its usage: light at weight
// 4 with the same usage as heavy still goes first.
func TestAFSLocalQueueWeight(t *testing.T) {
	for _, tc := range []struct {
		weight, want string
	}{
		{"", "h1"},
		{"4", "l1"},
	} {
		t.Run("weight="+tc.weight, func(t *testing.T) {
			s := shared(t, afsOptions(), true, tc.weight)
			apply(t, s, cpuJob("heavy", "h0", 1, 0).Obj())
			apply(t, s, cpuJob("light", "l0", 1, time.Second).Obj())
			s.Cycle(now)
			// Equal usage now (one CPU each). Only one of the next two fits.
			apply(t, s, cpuJob("heavy", "h1", 2, 2*time.Second).Obj())
			apply(t, s, cpuJob("light", "l1", 2, 3*time.Second).Obj())
			apply(t, s, cpuJob("heavy", "h2", 4, 4*time.Second).Obj())
			if got := strings.Join(admittedNames(s.Cycle(now.Add(time.Second))), ","); got != tc.want {
				t.Fatalf("admitted %s, want %s", got, tc.want)
			}
		})
	}
}

// The quota each LocalQueue holds, which every admission's settlement reads,
// is kept as workloads attach and detach; it must always equal the sum over
// the LocalQueue's workloads holding quota, through admissions, finishes,
// evictions, a reclaim that shrinks a charge and a deletion.
func TestAFSHeldQuotaFollowsItsWorkloads(t *testing.T) {
	s := shared(t, afsOptions(), true, "")
	check := func(step string) {
		t.Helper()
		want := map[string]int64{}
		for lq, set := range s.admittedByLQ {
			for _, r := range set {
				for fr, v := range r.admission.Usage {
					want[lq.Name+"/"+string(fr.Resource)] += v
				}
			}
		}
		got := map[string]int64{}
		for lq, held := range s.afs.held {
			for r, v := range held {
				got[lq.Name+"/"+string(r)] = v
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: held %v, want %v", step, got, want)
		}
	}
	apply(t, s, cpuJob("heavy", "h0", 1, 0).Obj())
	apply(t, s, MakeWorkload("t", "h1").Queue("heavy").PodSet("main", 2).Request("cpu", "1").Created(time.Second).Obj())
	apply(t, s, cpuJob("light", "l0", 1, 2*time.Second).Obj())
	s.Cycle(now)
	check("admitted")
	s.FinishWorkload(key("t", "h0"))
	check("finished")
	s.EvictWorkload(key("t", "l0"))
	check("evicted")
	s.Cycle(now.Add(time.Second))
	check("admitted again")
	// h1's second pod finished for good: its charge shrinks.
	wl := MakeWorkload("t", "h1").Queue("heavy").PodSet("main", 2).Request("cpu", "1").Created(time.Second).
		ReserveQuota("shared", "default").Reclaimable("main", 1).Obj()
	apply(t, s, wl)
	check("reclaimed")
	s.DeleteWorkload(key("t", "h1"))
	check("deleted")
}

// NextSample tells a driver when Kueue samples a LocalQueue whose usage
// orders workloads: a sampling interval after its last update, for a
// LocalQueue holding quota in a ClusterQueue in UsageBasedAdmissionFairSharing
// mode; none for one that holds nothing, in a ClusterQueue not in that mode,
// or alone in its ClusterQueue (its usage orders nothing).
func TestAFSNextSample(t *testing.T) {
	for _, tc := range []struct {
		name             string
		afs, held, alone bool
		want             time.Duration // 0: none
	}{
		{name: "holding quota, usage-based", afs: true, held: true, want: time.Minute},
		{name: "holding nothing", afs: true},
		{name: "not in the mode", held: true},
		{name: "the only LocalQueue of its ClusterQueue", afs: true, held: true, alone: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shared(t, afsOptions(), tc.afs, "")
			if tc.alone {
				s.DeleteLocalQueue("t", "light")
			}
			if tc.held {
				apply(t, s, cpuJob("heavy", "h0", 1, 0).Obj())
			}
			s.Cycle(now)
			at, ok := s.NextSample(now)
			if ok != (tc.want != 0) || ok && !at.Equal(now.Add(tc.want)) {
				t.Fatalf("next sample %v (%v), want %v after now", at, ok, tc.want)
			}
			if ok {
				if _, again := s.NextSample(at); again {
					t.Fatal("a sample is due after its own time before any cycle ran then")
				}
				s.Cycle(at)
				if next, _ := s.NextSample(at); !next.Equal(at.Add(time.Minute)) {
					t.Fatalf("after the sample at %v the next is %v, want a minute later", at, next)
				}
			}
		})
	}
}

// A dry run (quokka explain) counts the workloads ahead in the order the
// cycle takes them: under admission fair sharing, by the usage of their
// LocalQueues first. heavy holds all four CPUs; its older h1 is behind
// light's l1, and ahead of it without the mode.
func TestAFSDryRunCountsTheWorkloadsAhead(t *testing.T) {
	for _, afs := range []bool{true, false} {
		s := shared(t, afsOptions(), afs, "")
		apply(t, s, cpuJob("heavy", "big", 4, 0).Obj())
		s.Cycle(now)
		s.Cycle(now.Add(time.Minute))
		h1, l1 := cpuJob("heavy", "h1", 1, time.Second).Obj(), cpuJob("light", "l1", 1, 2*time.Second).Obj()
		apply(t, s, h1)
		apply(t, s, l1)
		wantH, wantL := 1, 0
		if !afs {
			wantH, wantL = 0, 1
		}
		if got := s.DryRun(h1).Ahead; got != wantH {
			t.Errorf("afs=%v: %d ahead of h1, want %d", afs, got, wantH)
		}
		if got := s.DryRun(l1).Ahead; got != wantL {
			t.Errorf("afs=%v: %d ahead of l1, want %d", afs, got, wantL)
		}
	}
}
