package scheduler

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// deleting marks a ClusterQueue as being deleted, as the API server does for
// an object that still has a finalizer.
func deleting(cq *kueue.ClusterQueue) *kueue.ClusterQueue {
	cq.DeletionTimestamp = &metav1.Time{Time: now}
	return cq
}

// Kueue: clusterqueue_controller_test.go, "Should be stuck in termination
// until admitted workloads finished running", as the engine sees it: a
// ClusterQueue being deleted admits nothing new, and the workloads it admitted
// keep their quota in the Cohort until they finish, so that no other queue
// borrows what they still use.
func TestTerminatingClusterQueueAdmitsNothingAndKeepsItsUsage(t *testing.T) {
	a := MakeClusterQueue("a").Cohort("c").Quota("h100", gpu, "4")
	s := world(t, Options{}, MakeFlavor("h100").Obj(), a.Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("h100", gpu, "4").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(), MakeLocalQueue("ns", "lq-b", "b").Obj(),
		gpus("running", 4).Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 {
		t.Fatalf("admitted %v, want running", got)
	}

	apply(t, s, deleting(a.Obj()))
	apply(t, s, gpus("late", 1).Obj())
	apply(t, s, MakeWorkload("ns", "borrower").Queue("lq-b").Request(gpu, "6").Obj())
	ds := s.Cycle(now)
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v while a is being deleted and its workload still runs", got)
	}
	p := mustPending(t, ds, "late", ReasonClusterQueueInactive)
	if !strings.Contains(p.Message, "being deleted") {
		t.Errorf("late's message %q does not say that its queue is being deleted", p.Message)
	}
	v, _ := s.ClusterQueueSnapshot("a")
	if v.AdmittedWorkloads != 1 {
		t.Errorf("a holds %d workloads, want 1 (running)", v.AdmittedWorkloads)
	}
	// The view carries the condition engine/quota's TestKueueClusterQueueReadiness checks.
	if v.Active || !v.Terminating || v.ActiveReason != kueue.ClusterQueueActiveReasonTerminating ||
		v.ActiveCondition != "Can't admit new workloads; clusterQueue is terminating" {
		t.Errorf("a's view: %+v, want inactive, Terminating", v)
	}

	// Once running is gone nothing holds quota in a: the manager lets the
	// deletion through, and until then its lendable quota is the Cohort's.
	s.FinishWorkload(key("ns", "running"))
	v, _ = s.ClusterQueueSnapshot("a")
	if v.AdmittedWorkloads != 0 {
		t.Errorf("a holds %d workloads after running finished, want 0", v.AdmittedWorkloads)
	}
	ds = s.Cycle(now)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "borrower" {
		t.Errorf("admitted %v, want only borrower", got)
	}
	s.DeleteClusterQueue("a")
	mustPending(t, s.Cycle(now), "late", ReasonClusterQueueNotFound)
}

// Kueue leaves an inactive ClusterQueue out of its scheduling snapshot
// (pkg/cache/scheduler/snapshot.go: a queue that is not active, or whose
// Cohort chain has a cycle, goes to InactiveClusterQueueSets and is not
// added), while its Cohorts keep the usage of its workloads: another queue
// cannot reclaim from it, and waits until its workloads finish.
func TestKueueInactiveClusterQueueWorkloadsAreNoCandidates(t *testing.T) {
	cases := []struct {
		name     string
		inactive func(a *ClusterQueueWrapper) *kueue.ClusterQueue
	}{
		{"stopped", func(a *ClusterQueueWrapper) *kueue.ClusterQueue { return a.StopPolicy(kueue.Hold).Obj() }},
		{"being deleted", func(a *ClusterQueueWrapper) *kueue.ClusterQueue { return deleting(a.Obj()) }},
		{"naming a missing flavor", func(a *ClusterQueueWrapper) *kueue.ClusterQueue {
			return a.Quota("gone", gpu, "0").Obj()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := MakeClusterQueue("a").Cohort("c").Quota("h100", gpu, "0")
			s := world(t, Options{}, MakeFlavor("h100").Obj(), a.Obj(),
				MakeClusterQueue("b").Cohort("c").Quota("h100", gpu, "4").Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyNever).Obj(),
				MakeLocalQueue("ns", "lq", "a").Obj(), MakeLocalQueue("ns", "lq-b", "b").Obj(),
				gpus("borrowing", 4).Obj())
			if got := admittedNames(s.Cycle(now)); len(got) != 1 {
				t.Fatalf("admitted %v, want borrowing", got)
			}
			apply(t, s, tc.inactive(a))
			apply(t, s, MakeWorkload("ns", "reclaimer").Queue("lq-b").Request(gpu, "4").Obj())
			ds := s.Cycle(now)
			if got := victimNames(ds); got != "" {
				t.Fatalf("evicted %s from an inactive ClusterQueue", got)
			}
			if got := admittedNames(ds); len(got) != 0 {
				t.Fatalf("admitted %v while borrowing still uses the Cohort's quota", got)
			}
			s.FinishWorkload(key("ns", "borrowing"))
			if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "reclaimer" {
				t.Fatalf("admitted %v once borrowing finished, want reclaimer", got)
			}
		})
	}
}

// Found by hack/kueue-perf.sh --load decisions (run dec-34, scenario s6-0,
// event 16): under fair sharing, a workload of a ClusterQueue without a
// Cohort that must preempt within its queue makes Kueue v0.17.0's manager
// panic (its fair-sharing target ordering asks the missing Cohort for its
// root: kubernetes-sigs/kueue#10891, fixed since). With the fix, the ordering
// offers only the preemptor's own queue, and withinClusterQueue decides, as
// without fair sharing: the lower-priority workloads that make room go, the
// newest first.
func TestFairSharingQueueWithoutCohortPreemptsWithinItself(t *testing.T) {
	for _, opts := range []Options{{FairSharing: bothStrategies}, {}} {
		s := world(t, opts, MakeFlavor("f1").Obj(), MakeFlavor("f2").Obj(),
			MakeClusterQueue("cq2").Quota("f1", gpu, "0").Quota("f2", gpu, "5").
				Preemption(kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority).Obj(),
			MakeLocalQueue("ns", "lq", "cq2").Obj(),
			gpus("w05", 1).Priority(0).Created(5*time.Second).ReserveQuota("cq2", "f2").Obj(),
			gpus("w07", 1).Priority(0).Created(7*time.Second).ReserveQuota("cq2", "f2").Obj(),
			gpus("w09", 2).Priority(20).Created(9*time.Second).ReserveQuota("cq2", "f2").Obj(),
			gpus("w11", 1).Priority(10).Created(11*time.Second).ReserveQuota("cq2", "f2").Obj(),
			gpus("w13", 3).Priority(20).Created(13*time.Second).Obj())
		ds := s.Cycle(now)
		if got, want := victimNames(ds), "w05:InClusterQueue,w07:InClusterQueue,w11:InClusterQueue"; got != want {
			t.Fatalf("fair sharing %v: victims %q, want %q", opts.FairSharing != nil, got, want)
		}
		mustPending(t, ds, "w13", ReasonWaitingForPreemption)
	}
}
