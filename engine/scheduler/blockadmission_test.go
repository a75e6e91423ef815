package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// blocking is waitForPodsReady with blockAdmission, as Kueue's podsready
// scheduler suite configures it (a back-off base of 1 s).
func blocking(timeout time.Duration) Options {
	return Options{WaitForPodsReady: &WaitForPodsReady{Timeout: timeout, RecoveryTimeout: timeout,
		BackoffBase: time.Second, BackoffMax: time.Hour, OrderByEviction: true, BlockAdmission: true}}
}

// podsReadySuite is the objects of Kueue's SchedulerWithWaitForPodsReady
// suite (test/integration/singlecluster/scheduler/podsready): ClusterQueues
// prod-cq and dev-cq of 5 cpu each in Cohort "all", a LocalQueue for each.
func podsReadySuite() []any {
	return []any{MakeFlavor("default").Obj(),
		MakeClusterQueue("prod-cq").Cohort("all").Quota("default", "cpu", "5").Obj(),
		MakeClusterQueue("dev-cq").Cohort("all").Quota("default", "cpu", "5").Obj(),
		MakeLocalQueue("ns", "prod-queue", "prod-cq").Obj(), MakeLocalQueue("ns", "dev-queue", "dev-cq").Obj()}
}

// cpuWorkload is a one-pod workload of that many cpus in a LocalQueue,
// created at Epoch plus created.
func cpuWorkload(name, lq, cpu string, created time.Duration) *WorkloadWrapper {
	return MakeWorkload("ns", name).Queue(lq).Request("cpu", cpu).Created(created)
}

// readyIn confirms w's admission in cq (admitted at the tests' now) with a
// PodsReady condition of that status and reason.
func readyIn(w *WorkloadWrapper, cq string, status metav1.ConditionStatus, reason string) *kueue.Workload {
	return w.Clone().ReserveQuota(cq, "default").QuotaReservedAt(sinceEpoch(0)).AdmittedAt(sinceEpoch(0)).
		Condition(podsReadyAt(status, reason, 0)).Obj()
}

// mustWait checks that a cycle stopped at name, which fits, with Kueue's
// reason and message, and admitted nothing.
func mustWait(t *testing.T, ds []Decision, name string) {
	t.Helper()
	p := mustPending(t, ds, name, ReasonWaitingForPodsReady)
	if p.Reason != "Waiting" || p.Message != "waiting for all admitted workloads to be in PodsReady condition" {
		t.Fatalf("%s: %s (%s), want Kueue's reason Waiting and its message", name, p.Reason, p.Message)
	}
	if a := admittedNames(ds); len(a) != 0 {
		t.Fatalf("admitted %v while admission is blocked", a)
	}
}

// mustStillWait is mustWait for a later cycle of the same block, which need
// not look at name again (it keeps its reason).
func mustStillWait(t *testing.T, s *Scheduler, ds []Decision, name string) {
	t.Helper()
	mustStillPending(t, s, ds, name, ReasonWaitingForPodsReady)
	if a := admittedNames(ds); len(a) != 0 {
		t.Fatalf("admitted %v while admission is blocked", a)
	}
}

// Kueue: SchedulerWithWaitForPodsReady, "Should unblock admission of new
// workloads in other ClusterQueues once the admitted workload exceeds
// timeout" (both cases of the Long PodsReady timeout context: the admitted
// workload's PodsReady turns True with reason PodsReady, then Started): the
// first workload is admitted and the second, which fits in its own
// ClusterQueue, waits (QuotaReserved=False, reason Waiting) until the first
// has PodsReady=True; then it is admitted.
func TestKueueBlockAdmissionUntilPodsReady(t *testing.T) {
	for _, reason := range []string{"PodsReady", kueue.WorkloadStarted} {
		t.Run(reason, func(t *testing.T) {
			prod := cpuWorkload("prod-wl", "prod-queue", "2", 0)
			dev := cpuWorkload("dev-wl", "dev-queue", "2", time.Second)
			s := world(t, blocking(time.Hour), append(podsReadySuite(), prod.Obj(), dev.Obj())...)
			ds := s.Cycle(now)
			if got := admittedNames(ds); !reflect.DeepEqual(got, []string{"prod-wl"}) {
				t.Fatalf("admitted %v, want [prod-wl]", got)
			}
			mustWait(t, ds[1:], "dev-wl")
			// The admission is written; its pods are not ready yet.
			apply(t, s, readyIn(prod, "prod-cq", metav1.ConditionFalse, kueue.WorkloadWaitForStart))
			mustStillWait(t, s, s.Cycle(now.Add(time.Second)), "dev-wl")
			apply(t, s, readyIn(prod, "prod-cq", metav1.ConditionTrue, reason))
			if got := admittedNames(s.Cycle(now.Add(2 * time.Second))); !reflect.DeepEqual(got, []string{"dev-wl"}) {
				t.Fatalf("after prod-wl's PodsReady=True, admitted %v, want [dev-wl]", got)
			}
		})
	}
}

// Kueue: SchedulerWithWaitForPodsReady, "Should unblock admission of new
// workloads once the admitted workload is deleted".
func TestKueueBlockAdmissionEndsWhenTheUnreadyWorkloadIsDeleted(t *testing.T) {
	prod := cpuWorkload("prod-wl", "prod-queue", "2", 0)
	s := world(t, blocking(time.Hour), append(podsReadySuite(), prod.Obj())...)
	if got := admittedNames(s.Cycle(now)); !reflect.DeepEqual(got, []string{"prod-wl"}) {
		t.Fatalf("admitted %v, want [prod-wl]", got)
	}
	apply(t, s, readyIn(prod, "prod-cq", metav1.ConditionFalse, kueue.WorkloadWaitForStart))
	apply(t, s, cpuWorkload("dev-wl", "dev-queue", "2", time.Second).Obj())
	mustWait(t, s.Cycle(now.Add(time.Second)), "dev-wl")
	s.DeleteWorkload(prod.Key())
	if got := admittedNames(s.Cycle(now.Add(2 * time.Second))); !reflect.DeepEqual(got, []string{"dev-wl"}) {
		t.Fatalf("after prod-wl's deletion, admitted %v, want [dev-wl]", got)
	}
}

// Kueue: SchedulerWithWaitForPodsReady, "Should block admission of one new
// workload if two are considered in the same scheduling cycle" (blocking) and
// SchedulerWithWaitForPodsReadyNonblockingMode, "Should not block admission
// of one new workload if two are considered in the same scheduling cycle":
// two workloads of 11 cpu wait until test-cq (25 cpu, no borrowing) joins
// the Cohort; in its first cycle both fit, and with blockAdmission only the
// first created is admitted while the other waits.
func TestKueueBlockAdmissionOneOfTwoInTheSameCycle(t *testing.T) {
	for _, block := range []bool{true, false} {
		name := "blockAdmission"
		if !block {
			name = "nonblocking"
		}
		t.Run(name, func(t *testing.T) {
			opts := blocking(time.Hour)
			opts.WaitForPodsReady.BlockAdmission = block
			s := world(t, opts, append(podsReadySuite(),
				cpuWorkload("prod-wl", "prod-queue", "11", 0).Obj(), cpuWorkload("dev-wl", "dev-queue", "11", time.Second).Obj())...)
			if got := admittedNames(s.Cycle(now)); len(got) != 0 {
				t.Fatalf("admitted %v before test-cq exists, want none", got)
			}
			apply(t, s, MakeClusterQueue("test-cq").Cohort("all").Quota("default", "cpu", "25", Borrowing("0")).Obj())
			ds := s.Cycle(now.Add(time.Second))
			if !block {
				if got := admittedNames(ds); len(got) != 2 {
					t.Fatalf("admitted %v, want both", got)
				}
				return
			}
			if got := admittedNames(ds); !reflect.DeepEqual(got, []string{"prod-wl"}) {
				t.Fatalf("admitted %v, want [prod-wl], the first created", got)
			}
			mustPending(t, ds, "dev-wl", ReasonWaitingForPodsReady)
		})
	}
}

// Kueue: SchedulerWithWaitForPodsReady, Tiny PodsReady timeout, "Should
// unblock admission of new workloads in other ClusterQueues once the admitted
// workload exceeds timeout": prod-wl never gets ready; at the timeout it is
// evicted (PodsReadyTimeout) and, once the eviction is done, dev-wl is
// admitted; prod-wl's back-off over, it fits again and waits for dev-wl.
func TestKueueBlockAdmissionEndsWithThePodsReadyTimeout(t *testing.T) {
	timeout := 5 * time.Second
	prod := cpuWorkload("prod-wl", "prod-queue", "2", 0)
	dev := cpuWorkload("dev-wl", "dev-queue", "2", time.Second)
	s := world(t, blocking(timeout), append(podsReadySuite(), prod.Obj(), dev.Obj())...)
	if got := admittedNames(s.Cycle(now)); !reflect.DeepEqual(got, []string{"prod-wl"}) {
		t.Fatalf("admitted %v, want [prod-wl]", got)
	}
	apply(t, s, readyIn(prod, "prod-cq", metav1.ConditionFalse, kueue.WorkloadWaitForStart))
	at := now.Add(timeout)
	ds := s.Cycle(at)
	var evicted bool
	for _, d := range ds {
		if e, ok := d.(Evict); ok && e.Workload == prod.Key() && e.Reason == EvictReasonPodsReadyTimeout {
			evicted = true
		}
	}
	if !evicted {
		t.Fatalf("no PodsReadyTimeout eviction of prod-wl at the timeout: %v", ds)
	}
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v while prod-wl still holds its quota", got)
	}
	// The manager finishes the eviction, writing the back-off.
	evictedProd := prod.Clone()
	count := int32(1)
	evictedProd.Status.RequeueState = &kueue.RequeueState{Count: &count, RequeueAt: &metav1.Time{Time: at.Add(time.Second)}}
	s.EvictWorkload(prod.Key())
	apply(t, s, evictedProd.Obj())
	ds = s.Cycle(at.Add(time.Millisecond))
	if got := admittedNames(ds); !reflect.DeepEqual(got, []string{"dev-wl"}) {
		t.Fatalf("after the eviction, admitted %v, want [dev-wl]", got)
	}
	apply(t, s, readyIn(dev, "dev-cq", metav1.ConditionFalse, kueue.WorkloadWaitForStart))
	mustWait(t, s.Cycle(at.Add(2*time.Second)), "prod-wl")
}

// A preemption is issued while admission is blocked, as in Kueue (a
// preemptor consumes no quota until its victims are gone, so the scheduler
// issues it before it would wait): the victim's eviction ends the block, and
// the preemptor is admitted.
func TestBlockAdmissionStillPreempts(t *testing.T) {
	low := cpuWorkload("low", "lq", "4", 0).Priority(1)
	s := world(t, blocking(time.Hour), MakeFlavor("default").Obj(),
		MakeClusterQueue("cq").Quota("default", "cpu", "4").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeLocalQueue("ns", "lq", "cq").Obj(), low.Obj())
	if got := admittedNames(s.Cycle(now)); !reflect.DeepEqual(got, []string{"low"}) {
		t.Fatalf("admitted %v, want [low]", got)
	}
	apply(t, s, readyIn(low, "cq", metav1.ConditionFalse, kueue.WorkloadWaitForStart))
	apply(t, s, cpuWorkload("high", "lq", "4", time.Second).Priority(100).Obj())
	ds := s.Cycle(now.Add(time.Second))
	ps := preempts(ds)
	if len(ps) != 1 || len(ps[0].Victims) != 1 || ps[0].Victims[0].Workload != low.Key() {
		t.Fatalf("preemptions %+v, want high to preempt low while low is not ready", ps)
	}
	s.EvictWorkload(low.Key())
	if got := admittedNames(s.Cycle(now.Add(2 * time.Second))); !reflect.DeepEqual(got, []string{"high"}) {
		t.Fatalf("after the eviction, admitted %v, want [high]", got)
	}
}

// Admissions the block lets through one at a time go in Kueue's order of
// the cycle's heads (priority, then creation) across trees, not in the order
// of the trees' names: the older workload of tree "b" is admitted before the
// newer one of tree "a", and the higher priority before both.
func TestBlockAdmissionOrderAcrossTrees(t *testing.T) {
	objs := []any{MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Quota("default", "cpu", "10").Obj(), MakeLocalQueue("ns", "lq-a", "a").Obj(),
		MakeClusterQueue("b").Quota("default", "cpu", "10").Obj(), MakeLocalQueue("ns", "lq-b", "b").Obj(),
		MakeClusterQueue("c").Quota("default", "cpu", "10").Obj(), MakeLocalQueue("ns", "lq-c", "c").Obj()}
	wls := map[string]*WorkloadWrapper{
		"newer-in-a":  cpuWorkload("newer-in-a", "lq-a", "1", 2*time.Second),
		"older-in-b":  cpuWorkload("older-in-b", "lq-b", "1", time.Second),
		"urgent-in-c": cpuWorkload("urgent-in-c", "lq-c", "1", 3*time.Second).Priority(10),
	}
	for _, w := range wls {
		objs = append(objs, w.Obj())
	}
	s := world(t, blocking(time.Hour), objs...)
	var order []string
	for i := range 3 {
		ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
		got := admittedNames(ds)
		if len(got) != 1 {
			t.Fatalf("cycle %d admitted %v, want one workload", i, got)
		}
		order = append(order, got[0])
		w := wls[got[0]]
		apply(t, s, readyIn(w, admits(ds)[0].ClusterQueue, metav1.ConditionTrue, kueue.WorkloadStarted))
	}
	if want := []string{"urgent-in-c", "older-in-b", "newer-in-a"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("admitted in the order %v, want %v", order, want)
	}
}

// Without blockAdmission the unready index is not kept: admitted workloads
// whose pods are not ready do not hold others back.
func TestNoBlockWithoutBlockAdmission(t *testing.T) {
	opts := blocking(time.Hour)
	opts.WaitForPodsReady.BlockAdmission = false
	s := world(t, opts, append(podsReadySuite(),
		cpuWorkload("prod-wl", "prod-queue", "2", 0).Obj(), cpuWorkload("dev-wl", "dev-queue", "2", time.Second).Obj())...)
	if got := admittedNames(s.Cycle(now)); len(got) != 2 {
		t.Fatalf("admitted %v, want both", got)
	}
	if len(s.unready) != 0 {
		t.Fatalf("unready index kept without blockAdmission: %v", s.unready)
	}
}

// Under blockAdmission, for random workloads over ClusterQueues in and out
// of a Cohort, with a driver that confirms every admission with pods not yet
// ready, makes a random admitted workload ready or finishes a ready one
// between cycles, and confirms preemptions: no cycle admits while a workload
// holding quota is not ready, none admits more than one workload, and every
// workload is admitted and finishes (the block's end wakes what it stopped:
// nothing is left waiting).
func TestPropertyBlockAdmissionOneAtATimeAndNoneLeftWaiting(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 29))
			objs := []any{MakeFlavor("default").Obj(),
				MakeClusterQueue("x1").Cohort("x").Quota("default", "cpu", "4").
					Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
				MakeClusterQueue("x2").Cohort("x").Quota("default", "cpu", "4").
					Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
				MakeClusterQueue("solo").Quota("default", "cpu", "4").Obj()}
			lqs := []string{"x1", "x2", "solo"}
			for _, cq := range lqs {
				objs = append(objs, MakeLocalQueue("ns", "lq-"+cq, cq).Obj())
			}
			wls := map[types.NamespacedName]*WorkloadWrapper{}
			for i := range 4 + rnd.IntN(12) {
				w := cpuWorkload(fmt.Sprintf("w%02d", i), "lq-"+lqs[rnd.IntN(len(lqs))], fmt.Sprint(1+rnd.IntN(4)),
					time.Duration(rnd.IntN(60))*time.Second).Priority(int32(rnd.IntN(3)))
				wls[w.Key()] = w
				objs = append(objs, w.Obj())
			}
			s := world(t, blocking(time.Hour), objs...)
			admitted := map[types.NamespacedName]string{} // key → ClusterQueue
			ready := map[types.NamespacedName]bool{}
			finished := 0
			for step := 0; finished < len(wls); step++ {
				if step > 40*len(wls) {
					t.Fatalf("%d of %d workloads finished after %d cycles: some wait forever", finished, len(wls), step)
				}
				unready := false
				for k := range admitted {
					unready = unready || !ready[k]
				}
				ds := s.Cycle(now.Add(time.Duration(step) * time.Second))
				as := admits(ds)
				if unready && len(as) > 0 || len(as) > 1 {
					t.Fatalf("cycle %d admitted %d workloads with an unready one holding quota: %v", step, len(as), unready)
				}
				for _, a := range as {
					admitted[a.Workload] = a.ClusterQueue
					apply(t, s, readyIn(wls[a.Workload], a.ClusterQueue, metav1.ConditionFalse, kueue.WorkloadWaitForStart))
				}
				for _, p := range preempts(ds) {
					for _, v := range p.Victims {
						s.EvictWorkload(v.Workload)
						delete(admitted, v.Workload)
						delete(ready, v.Workload)
						apply(t, s, wls[v.Workload].Obj())
					}
				}
				var keys []types.NamespacedName
				for k := range admitted {
					keys = append(keys, k)
				}
				slices.SortFunc(keys, func(a, b types.NamespacedName) int { return strings.Compare(a.Name, b.Name) })
				if len(keys) == 0 {
					continue
				}
				k := keys[rnd.IntN(len(keys))]
				if !ready[k] {
					ready[k] = true
					apply(t, s, readyIn(wls[k], admitted[k], metav1.ConditionTrue, kueue.WorkloadStarted))
					continue
				}
				s.FinishWorkload(k)
				delete(admitted, k)
				finished++
			}
		})
	}
}
