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
	withPriority := func(wl *kueue.Workload, p int32) *kueue.Workload {
		wl.Spec.Priority = ptr.To(p)
		return wl
	}
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
