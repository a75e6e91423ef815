package scheduler

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// The generated week's shape in miniature: one root Cohort over two, a dozen
// queues that may borrow without limit, jobs whose CPU follows their GPUs,
// three priorities, jobs arriving and finishing, and no change of structure,
// so that queues sleep and freed quota wakes a herd of them. A quiet
// incremental scheduler, which drops heads that lost for good (lost.go) and
// defers the walks of woken queues (deferred.go), "still admit[s], preempt[s]
// and evict[s] exactly as" one that evaluates everything: the same decisions
// but Pending every cycle, and after WakeAll the same decisions, Pending
// included. The streams must take every path of deferred.go: placeholders,
// walks with the admissions since released, and dropped queues brought back
// before a preemption.
func TestQuietHerdDecidesAsFullCycle(t *testing.T) {
	steps := 2500
	if testing.Short() {
		steps = 800
	}
	var lost, preemptions, deferrals, rewalks, revivals atomic.Uint64
	t.Run("seeds", func(t *testing.T) {
		for seed := uint64(1); seed <= 12; seed++ {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				s, p := herd(t, seed, steps)
				lost.Add(s.lost)
				deferrals.Add(s.deferrals)
				rewalks.Add(s.rewalks)
				revivals.Add(s.revivals)
				preemptions.Add(p)
			})
		}
	})
	counts := fmt.Sprintf("%d heads lost for good, %d preemptions, %d walks deferred, %d walked with admissions released, %d dropped queues brought back",
		lost.Load(), preemptions.Load(), deferrals.Load(), rewalks.Load(), revivals.Load())
	if lost.Load() == 0 || preemptions.Load() == 0 || deferrals.Load() == 0 || rewalks.Load() == 0 || revivals.Load() == 0 {
		t.Fatalf("the streams must make herds, preempt and take every path of deferred.go: %s", counts)
	}
	t.Log(counts)
}

// herd runs one seed's stream and returns the quiet scheduler, for its
// counters, and the preemptions made.
func herd(t *testing.T, seed uint64, steps int) (quiet *Scheduler, preemptions uint64) {
	rnd := rand.New(rand.NewPCG(seed, 11))
	a, b := New(Options{QuietCycles: true}), New(Options{DisableIncrementalCycle: true})
	both := func(f func(s *Scheduler)) { f(a); f(b) }
	for _, f := range []string{"a100", "h100"} {
		rf := MakeFlavor(f).Obj()
		both(func(s *Scheduler) { s.UpsertResourceFlavor(rf) })
	}
	for _, c := range []*kueue.Cohort{MakeCohort("root").Obj(), MakeCohort("org-1").Parent("root").Obj(), MakeCohort("org-2").Parent("root").Obj()} {
		both(func(s *Scheduler) { _ = s.UpsertCohort(c.DeepCopy()) })
	}
	policies := []kueue.PreemptionPolicy{never, lower, lowerEq}
	var queues []string
	for i := range 12 {
		name := fmt.Sprintf("team-%02d", i)
		queues = append(queues, name)
		n := 1 + rnd.IntN(4)
		w := MakeClusterQueue(name).Cohort(fmt.Sprintf("org-%d", 1+i%2))
		for _, f := range []string{"h100", "a100"} {
			w.Quota(f, gpu, fmt.Sprint(n)).Quota(f, "cpu", fmt.Sprint(12*n))
		}
		reclaim := never
		if rnd.IntN(2) == 0 {
			reclaim = any_
		}
		w.Preemption(reclaim, policies[rnd.IntN(len(policies))])
		cq, lq := w.Obj(), MakeLocalQueue("ns", name, name).Obj()
		both(func(s *Scheduler) { _ = s.UpsertClusterQueue(cq.DeepCopy()); s.UpsertLocalQueue(lq) })
	}
	both(func(s *Scheduler) { s.UpsertNamespace("ns", nil) })
	held := map[types.NamespacedName]bool{}
	next := 0
	for i := range steps {
		switch x := rnd.IntN(10); {
		case x < 4:
			next++
			g := []int{1, 1, 2, 4}[rnd.IntN(4)]
			wl := MakeWorkload("ns", fmt.Sprintf("job-%05d", next)).Queue(queues[rnd.IntN(len(queues))]).
				Priority([]int32{0, 0, 0, 10, 10, 100}[rnd.IntN(6)]).Created(time.Duration(next)*time.Second).
				Request(gpu, fmt.Sprint(g)).Request("cpu", fmt.Sprint(12*g)).Obj()
			both(func(s *Scheduler) { _ = s.UpsertWorkload(wl.DeepCopy()) })
		case x < 7 && len(held) > 0:
			keys := sortedLQKeys(held)
			k := keys[rnd.IntN(len(keys))]
			delete(held, k)
			both(func(s *Scheduler) { s.FinishWorkload(k) })
		default:
			woken := rnd.IntN(10) == 0
			if woken {
				a.WakeAll()
			}
			da, db := a.Cycle(now), b.Cycle(now)
			if woken && !sameAfterWakeAll(da, db) {
				t.Fatalf("seed %d, step %d: after WakeAll, quiet and full cycles decided differently:\n%v\n%v", seed, i, da, db)
			}
			compareIncremental(t, i, da, db)
			for _, d := range db {
				switch d := d.(type) {
				case Admit:
					held[d.Workload] = true
				case Preempt:
					preemptions++
					for _, v := range d.Victims {
						delete(held, v.Workload)
						both(func(s *Scheduler) { s.EvictWorkload(v.Workload) })
					}
				}
			}
		}
	}
	return a, preemptions
}
