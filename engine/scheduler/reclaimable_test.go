package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// rcEnv drives the engine as the manager does, keeping each workload's object:
// admissions are written back as status.admission, evictions confirmed, and
// status.reclaimablePods updated on the object the engine last saw.
type rcEnv struct {
	*kiEnv
	objs map[string]*WorkloadWrapper
}

func rcNewEnv(t *testing.T, opts Options, objs ...any) *rcEnv {
	return &rcEnv{kiEnv: kiNewEnv(t, opts, objs...), objs: map[string]*WorkloadWrapper{}}
}

func (e *rcEnv) add(ws ...*WorkloadWrapper) {
	e.t.Helper()
	for _, w := range ws {
		e.create(w)
		e.objs[w.Name] = w
	}
}

// run is one cycle checking the admissions and victims, the admissions then
// written back and the evictions confirmed.
func (e *rcEnv) run(what string, admitted, victims []string) {
	e.t.Helper()
	ds := e.step(what, admitted, victims)
	for _, a := range admits(ds) {
		v, _ := e.s.WorkloadState(a.Workload)
		w := e.objs[a.Workload.Name]
		w.Status.Admission = admissionOf(v)
		apply(e.t, e.s, w.Obj())
	}
	for _, v := range victims {
		e.objs[v].Status.Admission = nil
		e.finishEviction(v)
	}
}

// reclaim sets the workload's status.reclaimablePods, pod set by pod set.
func (e *rcEnv) reclaim(name string, counts map[string]int32) {
	e.t.Helper()
	w := e.objs[name]
	for _, ps := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		w.Reclaimable(ps, counts[ps])
	}
	apply(e.t, e.s, w.Obj())
}

// rcThree is Kueue's workload of three pod sets (first, second, third) of one
// pod of 1 cpu each.
func rcThree(name string, prio int32) *WorkloadWrapper {
	return MakeWorkload(kiNS, name).Queue("preemption-queue").Priority(prio).
		PodSet("first", 1).Request(corev1.ResourceCPU, "1").
		PodSet("second", 1).Request(corev1.ResourceCPU, "1").
		PodSet("third", 1).Request(corev1.ResourceCPU, "1")
}

// Kueue: test/integration/singlecluster/scheduler/scheduler_test.go (v0.17.0),
// When "Scheduling workloads on clusterQueues", its reclaimable pods Its:
// preemption-cq (3 cpus of on-demand, withinClusterQueue LowerPriority) fed
// by preemption-queue, and prod-cq (5 cpus of spot-tainted, borrowing up to
// 5, and 5 of on-demand) fed by prod-queue.
func TestKueueIntegrationSchedulerReclaimablePods(t *testing.T) {
	preemptionCQ := func() []any {
		cq := MakeClusterQueue("preemption-cq").Quota("on-demand", corev1.ResourceCPU, "3").
			Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj()
		return []any{kiOnDemand(), cq, kiLQ("preemption-queue", "preemption-cq")}
	}

	t.Run("Should admit workloads when resources are dynamically reclaimed", func(t *testing.T) {
		e := rcNewEnv(t, Options{}, preemptionCQ()...)
		e.add(rcThree("first-wl", 0))
		e.run("first workload", []string{"first-wl"}, nil)
		e.reclaim("first-wl", map[string]int32{"third": 1})
		e.run("one pod of the first reclaimed: nothing pending", nil, nil)
		e.counts("preemption-cq", 1, 0)
		if got := usage(t, e.s, "preemption-cq", "on-demand", "cpu"); got != 2000 {
			t.Fatalf("preemption-cq uses %dm cpu after the reclaim, want 2000m", got)
		}
		e.add(rcThree("second-wl", 100))
		e.run("the second, of higher priority, preempts the first", nil, []string{"first-wl"})
		e.run("the first's eviction confirmed: the second is admitted", []string{"second-wl"}, nil)
		e.counts("preemption-cq", 1, 1)
		e.reclaim("second-wl", map[string]int32{"first": 1, "second": 1})
		// The first keeps its reclaimable pod through the eviction: it asks
		// for 2 cpus, and the second now holds 1.
		e.run("two pods of the second reclaimed: the first is admitted again", []string{"first-wl"}, nil)
		e.counts("preemption-cq", 2, 0)
	})

	t.Run("Should admit workloads when resources are gradually released", func(t *testing.T) {
		e := rcNewEnv(t, Options{}, preemptionCQ()...)
		e.add(rcThree("first-wl", 0))
		e.run("first workload", []string{"first-wl"}, nil)
		e.add(MakeWorkload(kiNS, "second-wl").Queue("preemption-queue").PodSet("first", 1).Request(corev1.ResourceCPU, "1"))
		e.run("the second waits", nil, nil)
		e.counts("preemption-cq", 1, 1)
		e.reclaim("first-wl", map[string]int32{"third": 1})
		e.run("one pod of the first reclaimed: the second is admitted", []string{"second-wl"}, nil)
		e.admittedTotal("preemption-cq", 2)
	})

	t.Run("Should not admit workloads when resources are dynamically reclaimed and the reclaimablePods feature gate is off", func(t *testing.T) {
		e := rcNewEnv(t, Options{NoReclaimablePods: true}, preemptionCQ()...)
		e.add(rcThree("first-wl", 0))
		e.run("first workload", []string{"first-wl"}, nil)
		e.add(MakeWorkload(kiNS, "second-wl").Queue("preemption-queue").PodSet("first", 1).Request(corev1.ResourceCPU, "1"))
		e.run("the second waits", nil, nil)
		e.reclaim("first-wl", map[string]int32{"third": 1})
		e.run("one pod of the first reclaimed, the gate off: the second still waits", nil, nil)
		e.counts("preemption-cq", 1, 1)
		e.admittedTotal("preemption-cq", 1)
	})

	t.Run("Reclaimed resources are not accounted during admission", func(t *testing.T) {
		prodCQ := MakeClusterQueue("prod-cq").Quota("spot-tainted", corev1.ResourceCPU, "5", Borrowing("5")).
			Quota("on-demand", corev1.ResourceCPU, "5").Cohort("prod-cohort").Obj()
		e := rcNewEnv(t, Options{}, kiOnDemand(), kiSpotTainted(), prodCQ, kiLQ("prod-queue", "prod-cq"))
		e.add(MakeWorkload(kiNS, "first-wl").Queue("prod-queue").PodSet(string(kueue.DefaultPodSetName), 2).Request(corev1.ResourceCPU, "3"))
		e.run("two pods of 3 cpus do not fit", nil, nil)
		e.counts("prod-cq", 0, 1)
		e.reclaim("first-wl", map[string]int32{"main": 1})
		e.run("one pod reclaimed: admitted", []string{"first-wl"}, nil)
		v, _ := e.s.WorkloadState(e.key("first-wl"))
		if len(v.PodSets) != 1 || v.PodSets[0].Count != 1 {
			t.Fatalf("admitted with %+v, want one pod set of count 1", v.PodSets)
		}
	})
}

// Kueue: pkg/cache/queue/cluster_queue_test.go (v0.17.0), "update reclaimable
// pods in inadmissible": a workload parked as inadmissible goes back to the
// active queue when its reclaimable pods change. In the engine: a queue that
// slept with its workload unfit wakes when the workload's reclaimable pods are
// updated, and admits it (the incremental cycle decides as the full one).
func TestKueueReclaimablePodsUpdateWakesTheQueue(t *testing.T) {
	for _, full := range []bool{false, true} {
		e := rcNewEnv(t, Options{DisableIncrementalCycle: full},
			MakeFlavor("default").Obj(), MakeClusterQueue("cq").Quota("default", corev1.ResourceCPU, "1").Obj(), kiLQ("lq", "cq"))
		e.add(MakeWorkload(kiNS, "w").Queue("lq").PodSet(string(kueue.DefaultPodSetName), 2).Request(corev1.ResourceCPU, "1"))
		e.run("two pods of 1 cpu in 1", nil, nil)
		e.run("still unfit", nil, nil)
		e.reclaim("w", map[string]int32{"main": 1})
		e.run("one pod reclaimed", []string{"w"}, nil)
	}
}
