//go:build integration

package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// A waiting workload that cannot always reclaim what it waits for holds that
// quota for one cycle after each release in its cohort (Kueue's
// reserveCapacityForUnreclaimablePreempt), and a borrower of another queue
// evaluated in that cycle is kept out; Kueue requeues that borrower at once
// and admits it in its next cycle, with nothing else changed (see
// engine/scheduler's TestWantsCycleAfterAOneCycleHold). The manager must run
// that cycle: here nothing else would, since q's reason does not change and
// no other object does.
//
// cq3 lends 3 of its 5 cpu; a1 (priority 20) and b borrow all of them for
// cq1, whose nominal quota is 1. p (cq3, 2 cpu, within cq3's nominal quota)
// can reclaim nothing from higher-priority workloads and waits; q (cq1, 1
// cpu) waits for room. b finishing frees 1 cpu: p holds it for a cycle, and
// the next cycle admits q.
func TestBorrowerKeptOutByAOneCycleHoldIsAdmittedNext(t *testing.T) {
	const ns = "one-cycle-hold"
	cpu := corev1.ResourceCPU
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}))
	cq1 := makeCQ(ns+"-cq1").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "1", "", "")).obj()
	cq1.Spec.Preemption = &kueue.ClusterQueuePreemption{WithinClusterQueue: kueue.PreemptionPolicyLowerPriority}
	cq3 := makeCQ(ns+"-cq3").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "5", "", "3")).obj()
	cq3.Spec.Preemption = &kueue.ClusterQueuePreemption{ReclaimWithinCohort: kueue.PreemptionPolicyLowerPriority}
	create(t, cq1, cq3, makeLQ(ns, "lq1", ns+"-cq1"), makeLQ(ns, "lq3", ns+"-cq3"))
	create(t, withPriority(makeWL(ns, "a1", "lq1", "cpu", "3"), 20), withPriority(makeWL(ns, "b", "lq1", "cpu", "1"), 20),
		withPriority(makeWL(ns, "a3", "lq3", "cpu", "2"), 0))
	startManager(t, nil)
	waitAdmitted(t, ns, "a1", "b", "a3")

	create(t, withPriority(makeWL(ns, "p", "lq3", "cpu", "2"), 10), withPriority(makeWL(ns, "q", "lq1", "cpu", "1"), 0))
	// Both wait, with their reasons written.
	eventually(t, 20*time.Second, func() string {
		for _, n := range []string{"p", "q"} {
			wl := getWL(t, ns, n)
			if c := cond(wl, kueue.WorkloadQuotaReserved); c == nil || c.Status != "False" {
				return n + " has no pending reason yet"
			}
		}
		return ""
	})
	finish(t, getWL(t, ns, "b"))
	waitAdmitted(t, ns, "q")
	if wl := getWL(t, ns, "p"); meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved) {
		t.Errorf("p was admitted; it needs 2 cpu and only 1 was freed")
	}
}

// Kueue parks a BestEffortFIFO workload whose cycle found no victims, and an
// admission does not take it out of the inadmissible list; only a release in
// its cohort does (engine/scheduler's park.go). The manager must keep it
// parked through its own status writes, which come back as updates of the
// workload: here a10 waits to reclaim, x5's admission makes x borrow and
// x0 (priority 0) a victim a10 could take, and a10 still waits until b100
// finishes, then is admitted in the room b100 freed; x0 is never evicted.
// Nor does a10b, of a10's class, arriving once x borrows: Kueue's
// SchedulingEquivalenceHashing (on by default) parks it on arrival.
//
// a (nominal 2) reclaims lower priorities; b (nominal 0) borrows 2 with
// b100 (priority 100); x (nominal 2) runs x0; y lends its 1.
func TestParkedWorkloadWaitsForAReleaseNotAnAdmission(t *testing.T) {
	const ns = "parked"
	cpu := corev1.ResourceCPU
	create(t, makeFlavor("default"), makeNS(ns, map[string]string{"team": ns}))
	cqA := makeCQ(ns+"-a").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "2", "", "")).obj()
	cqA.Spec.Preemption = &kueue.ClusterQueuePreemption{ReclaimWithinCohort: kueue.PreemptionPolicyLowerPriority}
	create(t, cqA,
		makeCQ(ns+"-b").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "0", "", "")).obj(),
		makeCQ(ns+"-x").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "2", "", "")).obj(),
		makeCQ(ns+"-y").cohort(ns).selector("team", ns).flavor("default", quota(cpu, "1", "", "")).obj(),
		makeLQ(ns, "lqa", ns+"-a"), makeLQ(ns, "lqb", ns+"-b"), makeLQ(ns, "lqx", ns+"-x"), makeLQ(ns, "lqy", ns+"-y"))
	create(t, withPriority(makeWL(ns, "x0", "lqx", "cpu", "2"), 0), withPriority(makeWL(ns, "b100", "lqb", "cpu", "2"), 100))
	startManager(t, nil)
	waitAdmitted(t, ns, "x0", "b100")

	pending := func(names ...string) {
		t.Helper()
		eventually(t, 20*time.Second, func() string {
			for _, n := range names {
				if c := cond(getWL(t, ns, n), kueue.WorkloadQuotaReserved); c == nil || c.Status != "False" {
					return n + " has no pending reason yet"
				}
			}
			return ""
		})
	}
	create(t, withPriority(makeWL(ns, "a10", "lqa", "cpu", "2"), 10))
	pending("a10")
	create(t, withPriority(makeWL(ns, "x5", "lqx", "cpu", "1"), 5))
	waitAdmitted(t, ns, "x5")
	// a10b, of a10's class, arrives once x borrows: with Kueue's
	// SchedulingEquivalenceHashing (on by default) it is parked on arrival
	// with a10, where as a new head it would have reclaimed x0.
	create(t, withPriority(makeWL(ns, "a10b", "lqa", "cpu", "2"), 10))
	// A cycle after x5's admission: the one in which a10 would have
	// reclaimed x0 without parking.
	create(t, withPriority(makeWL(ns, "z", "lqy", "cpu", "9"), 0))
	pending("z")
	finish(t, getWL(t, ns, "b100"))
	waitAdmitted(t, ns, "a10")
	x0 := getWL(t, ns, "x0")
	if c := cond(x0, kueue.WorkloadEvicted); c != nil || !meta.IsStatusConditionTrue(x0.Status.Conditions, kueue.WorkloadQuotaReserved) {
		t.Errorf("x0 was evicted (%+v) though neither a10 nor a10b of its class had a release to search again after", c)
	}
}

// withPriority sets wl's spec.priority.
func withPriority(wl *kueue.Workload, p int32) *kueue.Workload {
	wl.Spec.Priority = ptr.To(p)
	return wl
}
