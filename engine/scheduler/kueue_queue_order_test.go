package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's pkg/cache/queue/cluster_queue_test.go (ff69552): the
// queue of one ClusterQueue. Quokka has no queue object of its own; its
// cycle keeps each ClusterQueue's pending workloads and takes them in
// Kueue's order. So Kueue's Pop order is the order of a cycle's admissions
// (or which workload gets the only room), its PendingTotal the queue's
// PendingWorkloads, its heap the workloads a cycle offers for admission,
// and its inadmissible list the workloads held back: by a PodsReady
// back-off or a namespace the queue does not select (a Pending decision
// says so), or parked until a requeue event, which a cycle shows as a
// workload that does not search for victims when a borrower appears by an
// admission (no requeue event) and does once an event happened (park.go).

// kqWl is a one-pod workload of 1 cpu in LocalQueue default/lq, created at
// Epoch+created.
func kqWl(name string, created time.Duration) *WorkloadWrapper {
	return MakeWorkload("default", name).Queue("lq").Request("cpu", "1").Created(created)
}

// kqQueue is ClusterQueue cq, without a cohort, with cpu of flavor default
// and the queueing strategy, fed by LocalQueue default/lq.
func kqQueue(t *testing.T, strategy kueue.QueueingStrategy, cpu string, objs ...any) *Scheduler {
	t.Helper()
	base := []any{MakeFlavor("default").Obj(), MakeClusterQueue("cq").Quota("default", "cpu", cpu).Strategy(strategy).Obj(),
		MakeLocalQueue("default", "lq", "cq").Obj()}
	return world(t, Options{}, append(base, objs...)...)
}

// kqPending is the PendingWorkloads of ClusterQueue cq.
func kqPending(t *testing.T, s *Scheduler, cq string) int {
	t.Helper()
	v, ok := s.ClusterQueueSnapshot(cq)
	if !ok {
		t.Fatalf("no ClusterQueue %s", cq)
	}
	return v.PendingWorkloads
}

// kqLQPending is the PendingWorkloads of a LocalQueue.
func kqLQPending(t *testing.T, s *Scheduler, ns, name string) int {
	t.Helper()
	v, ok := s.LocalQueueSnapshot(ns, name)
	if !ok {
		t.Fatalf("no LocalQueue %s/%s", ns, name)
	}
	return v.PendingWorkloads
}

// kqRequeueState sets status.requeueState, as Kueue writes it after a
// PodsReady timeout (requeueAt nil when at is zero).
func kqRequeueState(w *WorkloadWrapper, count int32, at time.Time) *WorkloadWrapper {
	w.Status.RequeueState = &kueue.RequeueState{Count: &count}
	if !at.IsZero() {
		w.Status.RequeueState.RequeueAt = &metav1.Time{Time: at}
	}
	return w
}

// kqCond is a condition of a type, status and reason.
func kqCond(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, LastTransitionTime: metav1.NewTime(Epoch)}
}

// kqEvictedByPodsReady is Kueue's Evicted=True condition of a PodsReady timeout.
var kqEvictedByPodsReady = kqCond(kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPodsReadyTimeout)

// kqAdmitsOnly checks that a cycle admitted exactly want, in this order.
func kqAdmitsOnly(t *testing.T, ds []Decision, want ...string) {
	t.Helper()
	if got := admittedNames(ds); !slices.Equal(got, append([]string{}, want...)) {
		t.Fatalf("admitted %v, want %v (decisions %v)", got, want, ds)
	}
}

// Kueue: Test_PushOrUpdate. A workload pushed, and pushed again as updated,
// is one pending workload; it goes to the heap (a cycle offers it) unless
// its PodsReady back-off (status.requeueState.requeueAt) is still ahead,
// and an Evicted condition with Requeued=True does not hold it.
func TestKueueQueuePushOrUpdate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wl       *WorkloadWrapper
		admitted bool
	}{
		{"workload doesn't have re-queue state", kqWl("workload-1", 0), true},
		{"workload is still under the backoff waiting time", kqRequeueState(kqWl("workload-1", 0), 10, now.Add(time.Minute)).
			Condition(kqEvictedByPodsReady).Condition(kqCond(kueue.WorkloadRequeued, metav1.ConditionFalse, kueue.WorkloadEvictedByPodsReadyTimeout)), false},
		{"should push workload to heap after Requeued=true", kqWl("workload-1", 0).
			Condition(kqEvictedByPodsReady).Condition(kqCond(kueue.WorkloadRequeued, metav1.ConditionTrue, "BackoffFinished")), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := kqQueue(t, kueue.BestEffortFIFO, "1")
			if kqPending(t, s, "cq") != 0 {
				t.Fatalf("ClusterQueue should be empty")
			}
			apply(t, s, tc.wl.Obj())
			updated := tc.wl.Clone()
			updated.ResourceVersion = "1"
			apply(t, s, updated.Obj())
			if got := kqPending(t, s, "cq"); got != 1 {
				t.Fatalf("%d pending workloads after the update, want 1", got)
			}
			ds := s.Cycle(now)
			if tc.admitted {
				kqAdmitsOnly(t, ds, "workload-1")
			} else {
				kqAdmitsOnly(t, ds)
				mustPending(t, ds, "workload-1", ReasonBackoff)
			}
		})
	}
}

// Kueue: Test_Pop. Workloads are popped oldest first, then the queue is
// empty. Here the queue has room for one at a time: each cycle admits the
// next, and once both finished nothing is left.
func TestKueueQueuePop(t *testing.T) {
	s := kqQueue(t, kueue.BestEffortFIFO, "1", kqWl("workload-2", time.Second).Obj(), kqWl("workload-1", 0).Obj())
	for i, want := range []string{"workload-1", "workload-2", ""} {
		ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
		if want == "" {
			kqAdmitsOnly(t, ds)
			break
		}
		kqAdmitsOnly(t, ds, want)
		s.FinishWorkload(key("default", want))
	}
	if got := kqPending(t, s, "cq"); got != 0 {
		t.Errorf("%d pending workloads at the end, want 0", got)
	}
}

// Kueue: Test_Delete. Deleting a workload takes it out of the queue, by
// namespace and name whatever its spec says.
func TestKueueQueueDelete(t *testing.T) {
	s := kqQueue(t, kueue.BestEffortFIFO, "2", kqWl("workload-1", 0).Obj(), kqWl("workload-2", 0).Obj())
	if got := kqPending(t, s, "cq"); got != 2 {
		t.Fatalf("%d pending workloads, want 2", got)
	}
	s.DeleteWorkload(key("default", "workload-1"))
	if got := kqPending(t, s, "cq"); got != 1 {
		t.Fatalf("%d pending workloads after deleting workload-1, want 1", got)
	}
	s.DeleteWorkload(key("default", "workload-2"))
	if got := kqPending(t, s, "cq"); got != 0 {
		t.Fatalf("%d pending workloads after deleting workload-2, want 0", got)
	}
	kqAdmitsOnly(t, s.Cycle(now))
}

// Kueue: TestFIFOClusterQueue. A StrictFIFO queue pops the oldest
// ("before"); "after", updated to be created a minute earlier, is popped
// next, before "now"; "now" deleted, the queue is empty. The queue has room
// for one workload at a time.
func TestKueueQueueFIFOClusterQueue(t *testing.T) {
	s := kqQueue(t, kueue.StrictFIFO, "1", kqWl("now", time.Hour).Obj(), kqWl("before", time.Hour-time.Second).Obj(),
		kqWl("after", time.Hour+time.Second).Obj())
	kqAdmitsOnly(t, s.Cycle(now), "before")
	apply(t, s, kqWl("after", time.Hour-time.Minute).Obj())
	s.FinishWorkload(key("default", "before"))
	kqAdmitsOnly(t, s.Cycle(now.Add(time.Second)), "after")
	s.DeleteWorkload(key("default", "now"))
	s.FinishWorkload(key("default", "after"))
	kqAdmitsOnly(t, s.Cycle(now.Add(2*time.Second)))
	if got := kqPending(t, s, "cq"); got != 0 {
		t.Errorf("%d pending workloads at the end, want 0", got)
	}
}

// Kueue: TestStrictFIFO, its cases but the two PodsReady eviction ones
// (TestKueueStrictFIFOOrdersByPodsReadyEviction). A StrictFIFO queue's head
// is the higher priority, then the older; with room for one, it is admitted.
func TestKueueQueueStrictFIFO(t *testing.T) {
	const low, high = 0, 1000
	for _, tc := range []struct {
		name       string
		p1, p2     int32
		want, left string
	}{
		{"w1.priority is higher than w2.priority", high, low, "w1", "w2"},
		{"w1.priority equals w2.priority and w1.create time is earlier than w2.create time", 0, 0, "w1", "w2"},
		{"p1.priority is lower than p2.priority and w1.create time is earlier than w2.create time", low, high, "w2", "w1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := func(p int32) string {
				if p == high {
					return "highPriority"
				}
				return "lowPriority"
			}
			s := kqQueue(t, kueue.StrictFIFO, "1",
				kqWl("w2", 2*time.Second).PriorityClass(class(tc.p2), true).Priority(tc.p2).Obj(),
				kqWl("w1", time.Second).PriorityClass(class(tc.p1), true).Priority(tc.p1).Obj())
			ds := s.Cycle(now)
			kqAdmitsOnly(t, ds, tc.want)
			mustPending(t, ds, tc.left, ReasonInsufficientQuota)
		})
	}
}

// Kueue: TestBackoffWaitingTimeExpired, its cases but "workload still have
// Requeued=false" (see the notes). A workload waits while
// status.requeueState.requeueAt is ahead, and only then.
func TestKueueQueueBackoffWaitingTimeExpired(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wl       *WorkloadWrapper
		admitted bool
	}{
		{"workload doesn't have requeueState", kqWl("wl", 0), true},
		{"workload doesn't have an evicted condition with reason=PodsReadyTimeout", kqRequeueState(kqWl("wl", 0), 10, time.Time{}), true},
		{"now already has exceeded requeueAt", kqRequeueState(kqWl("wl", 0), 10, now.Add(-time.Minute)).Condition(kqEvictedByPodsReady), true},
		{"now hasn't yet exceeded requeueAt", kqRequeueState(kqWl("wl", 0), 10, now.Add(time.Minute)).Condition(kqEvictedByPodsReady), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := kqQueue(t, kueue.BestEffortFIFO, "1", tc.wl.Obj()).Cycle(now)
			if tc.admitted {
				kqAdmitsOnly(t, ds, "wl")
			} else {
				kqAdmitsOnly(t, ds)
				mustPending(t, ds, "wl", ReasonBackoff)
			}
		})
	}
}

// kqSkipWorld is Cohort c with 7 cpu of flavor default: a (nominal 2, the
// strategy, reclaiming lower priorities) and q (nominal 2, no preemption)
// are empty, z (nominal 0) borrows 2 with z100 (priority 100), x holds x0
// (priority 0) at its nominal 2, y lends 1. a's w (2 cpu, priority 5) and
// q's h (2 cpu, priority 10) both fit in the 3 cpu left when Kueue's cycle
// nominates them; h, of higher priority, is admitted first, and w no longer
// fits: Kueue requeues it with RequeueReasonFailedAfterNomination.
func kqSkipWorld(t *testing.T, strategy kueue.QueueingStrategy) *Scheduler {
	t.Helper()
	s := world(t, Options{}, MakeFlavor("default").Obj(),
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Strategy(strategy).Preemption(lower, never).Obj(),
		MakeClusterQueue("q").Cohort("c").Quota("default", "cpu", "2").Preemption(never, never).Obj(),
		MakeClusterQueue("z").Cohort("c").Quota("default", "cpu", "0").Preemption(never, never).Obj(),
		MakeClusterQueue("x").Cohort("c").Quota("default", "cpu", "2").Preemption(never, never).Obj(),
		MakeClusterQueue("y").Cohort("c").Quota("default", "cpu", "1").Preemption(never, never).Obj(),
		MakeLocalQueue("a", "lq", "a").Obj(), MakeLocalQueue("q", "lq", "q").Obj(), MakeLocalQueue("z", "lq", "z").Obj(),
		MakeLocalQueue("x", "lq", "x").Obj(), MakeLocalQueue("y", "lq", "y").Obj())
	admitted(t, s, "z", job("z", "z100", 2, 100))
	admitted(t, s, "x", job("x", "x0", 2, 0))
	apply(t, s, job("a", "w", 2, 5).Obj())
	apply(t, s, job("q", "h", 2, 10).Obj())
	return s
}

// kqBorrowX admits x1 (1 cpu, priority 1) into x by another hand, in y's
// spare cpu: an admission, no requeue event. x then borrows, and x0 is a
// victim a's workloads may reclaim.
func kqBorrowX(t *testing.T, s *Scheduler) {
	t.Helper()
	apply(t, s, job("x", "x1", 1, 1).ReserveQuota("x", "default").QuotaReservedAt(time.Hour).Obj())
}

// kqNamespaces returns a ClusterQueue selecting namespaces labelled dep in
// values, and the namespaces ns1 (eng), ns2 (sales) and ns3 (marketing) of
// Kueue's TestClusterQueueImpl.
func kqNamespaces(cq *ClusterQueueWrapper, values ...string) (*ClusterQueueWrapper, []any) {
	cq.Spec.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "dep", Operator: metav1.LabelSelectorOpIn, Values: values}}}
	return cq, []any{namespace{"ns1", map[string]string{"dep": "eng"}}, namespace{"ns2", map[string]string{"dep": "sales"}},
		namespace{"ns3", map[string]string{"dep": "marketing"}}}
}

// Kueue: TestBestEffortFIFORequeueIfNotPresent. How a BestEffortFIFO queue
// takes back a workload its cycle did not admit, by the reason:
//   - "failure after nomination": to the heap. w, skipped when h took the
//     room it was nominated in, searches for victims in the next cycle:
//     once x borrows (an admission, no requeue event) it reclaims x0.
//   - "pending preemption": to the heap, and sticky at its head: the
//     preemptor p is admitted once its victim is gone, before n, of higher
//     priority, that arrived meanwhile.
//   - "namespace doesn't match": inadmissible. The workload of a namespace
//     the queue does not select waits, the next one is admitted; labelled,
//     the namespace lets it in.
//   - "didn't fit and no pending flavors", "nofit": inadmissible. A head
//     that fits in none of the queue's flavors waits, and the queue goes on
//     to the next workload.
//   - "preempt no candidates": inadmissible. parkWorld's a10 found no
//     victims; once x borrows (an admission) it still searches no more.
func TestKueueQueueBestEffortFIFORequeueIfNotPresent(t *testing.T) {
	t.Run("failure after nomination", func(t *testing.T) {
		s := kqSkipWorld(t, kueue.BestEffortFIFO)
		ds := s.Cycle(now)
		kqAdmitsOnly(t, ds, "h")
		mustPending(t, ds, "w", ReasonInsufficientQuotaInCohort)
		kqBorrowX(t, s)
		if got := victimNames(s.Cycle(now.Add(time.Second))); got != "x0:InCohortReclamation" {
			t.Fatalf("victims %q, want w to reclaim x0", got)
		}
	})
	t.Run("pending preemption", func(t *testing.T) {
		s := kqQueue(t, kueue.BestEffortFIFO, "2")
		apply(t, s, MakeClusterQueue("cq").Quota("default", "cpu", "2").Preemption(never, lower).Obj())
		admitted(t, s, "cq", kqWl("v", 0).Request("cpu", "2"))
		apply(t, s, kqWl("p", time.Second).Request("cpu", "2").Priority(10).Obj())
		ds := s.Cycle(now)
		if got := victimNames(ds); got != "v:InClusterQueue" {
			t.Fatalf("victims %q, want p to preempt v", got)
		}
		apply(t, s, kqWl("n", 2*time.Second).Request("cpu", "2").Priority(20).Obj())
		confirm(s, ds)
		kqAdmitsOnly(t, s.Cycle(now.Add(time.Second)), "p")
	})
	t.Run("namespace doesn't match", func(t *testing.T) {
		cq, nss := kqNamespaces(MakeClusterQueue("cq").Quota("default", "cpu", "2"), "eng")
		s := world(t, Options{}, append(nss, MakeFlavor("default").Obj(), cq.Obj(),
			MakeLocalQueue("ns3", "lq", "cq").Obj(), MakeLocalQueue("ns1", "lq", "cq").Obj())...)
		apply(t, s, MakeWorkload("ns3", "m").Queue("lq").Request("cpu", "1").Obj())
		apply(t, s, MakeWorkload("ns1", "e").Queue("lq").Request("cpu", "1").Created(time.Second).Obj())
		ds := s.Cycle(now)
		kqAdmitsOnly(t, ds, "e")
		mustPending(t, ds, "m", ReasonNamespaceNotSelected)
		kqAdmitsOnly(t, s.Cycle(now.Add(time.Second)))
		s.UpsertNamespace("ns3", map[string]string{"dep": "eng"})
		kqAdmitsOnly(t, s.Cycle(now.Add(2*time.Second)), "m")
	})
	for _, name := range []string{"didn't fit and no pending flavors", "nofit"} {
		t.Run(name, func(t *testing.T) {
			cq := MakeClusterQueue("cq").Quota("default", "cpu", "2")
			if name != "nofit" {
				cq = cq.Quota("spot", "cpu", "2") // a second flavor, tried as well
			}
			s := kqQueue(t, kueue.BestEffortFIFO, "2", MakeFlavor("spot").Obj(), cq.Obj(),
				kqWl("big", 0).Request("cpu", "3").Obj(), kqWl("small", time.Second).Obj())
			ds := s.Cycle(now)
			kqAdmitsOnly(t, ds, "small")
			mustPending(t, ds, "big", ReasonExceedsMaximumQuota)
		})
	}
	t.Run("preempt no candidates", func(t *testing.T) {
		s := parkWorld(t, Options{})
		apply(t, s, job("x", "x5", 1, 5).ReserveQuota("x", "default").QuotaReservedAt(time.Minute).Obj())
		if got := victimNames(s.Cycle(now.Add(time.Second))); got != "" {
			t.Fatalf("a10 preempted %s while inadmissible", got)
		}
	})
}

// Kueue: TestStrictFIFORequeueIfNotPresent (its cases are named by the
// reason; RequeueReasonGeneric's name is empty, here "Generic"). A
// StrictFIFO queue takes every workload back to the heap but one of a
// namespace it does not select:
//   - FailedAfterNomination: w, skipped when h took its room, is still
//     the head: s, behind it, would fit in the cpu left but waits.
//   - NamespaceMismatch: the older workload of an unselected namespace is
//     no head; the next is admitted.
//   - Generic: a head that does not fit blocks the workload behind it,
//     which would; it is admitted as soon as it fits.
func TestKueueQueueStrictFIFORequeueIfNotPresent(t *testing.T) {
	t.Run("FailedAfterNomination", func(t *testing.T) {
		s := kqSkipWorld(t, kueue.StrictFIFO)
		apply(t, s, job("a", "s", 1, 5).Created(time.Second).Obj())
		for i := 0; i < 2; i++ {
			ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
			if i == 0 {
				kqAdmitsOnly(t, ds, "h")
			} else {
				kqAdmitsOnly(t, ds)
			}
			mustStillPending(t, s, ds, "s", ReasonBlockedByStrictFIFOHead)
		}
	})
	t.Run("NamespaceMismatch", func(t *testing.T) {
		cq, nss := kqNamespaces(MakeClusterQueue("cq").Quota("default", "cpu", "1").Strategy(kueue.StrictFIFO), "eng")
		s := world(t, Options{}, append(nss, MakeFlavor("default").Obj(), cq.Obj(),
			MakeLocalQueue("ns3", "lq", "cq").Obj(), MakeLocalQueue("ns1", "lq", "cq").Obj())...)
		apply(t, s, MakeWorkload("ns3", "m").Queue("lq").Request("cpu", "1").Obj())
		apply(t, s, MakeWorkload("ns1", "e").Queue("lq").Request("cpu", "1").Created(time.Second).Obj())
		ds := s.Cycle(now)
		kqAdmitsOnly(t, ds, "e")
		mustPending(t, ds, "m", ReasonNamespaceNotSelected)
	})
	t.Run("Generic", func(t *testing.T) {
		s := kqQueue(t, kueue.StrictFIFO, "2", kqWl("big", 0).Request("cpu", "2").Obj(), kqWl("small", time.Second).Obj())
		admitted(t, s, "cq", kqWl("running", -time.Hour))
		for i := 0; i < 2; i++ {
			ds := s.Cycle(now.Add(time.Duration(i) * time.Second))
			kqAdmitsOnly(t, ds)
			mustStillPending(t, s, ds, "small", ReasonBlockedByStrictFIFOHead)
		}
		s.FinishWorkload(key("default", "running"))
		kqAdmitsOnly(t, s.Cycle(now.Add(2*time.Second)), "big")
	})
}

// kqVictimQueues is how many queues of kqTree hold a victim.
const kqVictimQueues = 4

// kqCycles are the engine's incremental cycle and its walk of every queue.
var kqCycles = []Options{{}, {DisableIncrementalCycle: true}}

// kqTree is a Cohort tree under root for the ClusterQueues given (with
// their LocalQueues and namespaces), whose workloads under test, of 2 cpu
// and priority 10, fit in their queue's nominal quota but find it lent:
// hog (nominal 0) borrows lent cpu, all of it, with hog100 (priority 100),
// and spare (1500m) has 1 cpu left beside its tiny (500m). Their search
// finds no victims, and Kueue parks them. Each of v1..v4 holds v0
// (priority 0) at its nominal 2 cpu; kqBorrow makes them borrowers. The
// tests that park run it with the incremental cycle and with the walk of
// every queue (kqCycles), which must decide alike.
func kqTree(t *testing.T, opts Options, root string, lent int, objs ...any) *Scheduler {
	t.Helper()
	base := []any{MakeFlavor("default").Obj(),
		MakeClusterQueue("hog").Cohort(root).Quota("default", "cpu", "0").Preemption(never, never).Obj(),
		MakeClusterQueue("spare").Cohort(root).Quota("default", "cpu", "1500m").Preemption(never, never).Obj(),
		MakeLocalQueue("hog", "lq", "hog").Obj(), MakeLocalQueue("spare", "lq", "spare").Obj()}
	for j := 1; j <= kqVictimQueues; j++ {
		v := fmt.Sprintf("v%d", j)
		base = append(base, MakeClusterQueue(v).Cohort(root).Quota("default", "cpu", "2").Preemption(never, never).Obj(),
			MakeLocalQueue(v, "lq", v).Obj())
	}
	s := world(t, opts, append(base, objs...)...)
	admitted(t, s, "hog", job("hog", "hog100", lent, 100))
	admitted(t, s, "spare", MakeWorkload("spare", "tiny").Queue("lq").Request("cpu", "500m"))
	for j := 1; j <= kqVictimQueues; j++ {
		v := fmt.Sprintf("v%d", j)
		admitted(t, s, v, job(v, "v0", 2, 0))
	}
	return s
}

// kqBorrow admits v5 (100m, priority 5) into each of kqTree's v queues by
// another hand, in spare's cpu: admissions, no requeue event. Each v queue
// then borrows, and its v0 is a victim the workloads under test may
// reclaim, one each.
func kqBorrow(t *testing.T, s *Scheduler) {
	t.Helper()
	for j := 1; j <= kqVictimQueues; j++ {
		v := fmt.Sprintf("v%d", j)
		apply(t, s, MakeWorkload(v, "v5").Queue("lq").Priority(5).Request("cpu", "100m").ReserveQuota(v, "default").QuotaReservedAt(time.Hour).Obj())
	}
}

// kqRelease finishes kqTree's tiny: quota released in the tree, Kueue's
// requeue event (QueueAssociatedInadmissibleWorkloadsAfter). What it frees
// lets none of the workloads under test fit.
func kqRelease(s *Scheduler) { s.FinishWorkload(key("spare", "tiny")) }

// kqPreemptors returns the workloads that preempted in a cycle's
// decisions, as namespace/name, sorted: in kqTree after kqBorrow, the
// workloads under test that were not parked.
func kqPreemptors(ds []Decision) []string {
	out := []string{}
	for _, p := range preempts(ds) {
		out = append(out, p.Preemptor.String())
	}
	slices.Sort(out)
	return out
}

// Kueue: TestClusterQueueImpl, its cases but "re-queue admissible workload
// that was inadmissible", "workload already on heap is not made
// inadmissible" (see the notes) and "update reclaimable pods in
// inadmissible" (TestKueueReclaimablePodsUpdateWakesTheQueue). Kueue's
// queue cq selects namespaces dep in (eng, sales): ns1 (eng) and ns2
// (sales), not ns3 (marketing). Its operations through the engine's entry
// points: a workload added is upserted; one requeued as inadmissible
// (requeueIfNotPresent, not immediate) is upserted if new and parked
// (ParkWorkload); an update is an upsert; a delete is DeleteWorkload;
// queueInadmissibleWorkloads is a requeue event in cq's tree (kqRelease).
// The queue is kqTree's, with room in its nominal quota for w1 and w2;
// each workload is of a class of its own (w2, w3 and w4 run 2, 4 and 8
// pods), as Kueue's generic requeues park no class; w4 waits for its
// back-off until a minute after now. Kueue's wantPending is the queue's
// PendingWorkloads, its wantActiveWorkloads the workloads that search for
// victims once the v queues borrow by an admission.
func TestKueueQueueClusterQueueImpl(t *testing.T) {
	w1 := job("ns1", "w1", 2, 10).Queue("q1").Created(3 * time.Second)
	w2 := MakeWorkload("ns2", "w2").Queue("q2").Priority(10).PodSet("main", 2).Request("cpu", "1").Created(2 * time.Second)
	w3 := MakeWorkload("ns3", "w3").Queue("q3").Priority(10).PodSet("main", 4).Request("cpu", "500m").Created(time.Second)
	w4 := kqRequeueState(MakeWorkload("ns1", "w4-requeue-state").Queue("q1").Priority(10).PodSet("main", 8).Request("cpu", "250m"),
		1, now.Add(time.Minute)).Condition(kqEvictedByPodsReady)
	w1Updated, w2Updated := w1.Clone().Queue("q2"), w2.Clone().Queue("q1")
	type ws = []*WorkloadWrapper
	for _, tc := range []struct {
		name                                  string
		add, inadmissible, update, deleted    ws
		queueInadmissible                     bool
		wantPending                           int
		wantActive                            []string
		wantBackoff, wantNamespaceNotSelected []string
	}{
		{name: "add, update, delete workload", add: ws{w1, w2, w4}, update: ws{w1Updated}, deleted: ws{w1},
			wantActive: []string{"ns2/w2"}, wantPending: 2, wantBackoff: []string{"w4-requeue-state"}},
		{name: "re-queue inadmissible workload; workloads with requeueState can't re-queue", add: ws{w1}, inadmissible: ws{w2, w4},
			wantActive: []string{"ns1/w1"}, wantPending: 3, wantBackoff: []string{"w4-requeue-state"}},
		{name: "re-queue inadmissible workload and flush", add: ws{w1}, inadmissible: ws{w2, w4}, queueInadmissible: true,
			wantActive: []string{"ns1/w1", "ns2/w2"}, wantPending: 3, wantBackoff: []string{"w4-requeue-state"}},
		{name: "re-queue multiple inadmissible workloads and count", inadmissible: ws{w1, w2}, queueInadmissible: true,
			wantActive: []string{"ns1/w1", "ns2/w2"}, wantPending: 2},
		{name: "count only workloads that actually moved", add: ws{w1}, inadmissible: ws{w2, w3}, queueInadmissible: true,
			wantActive: []string{"ns1/w1", "ns2/w2"}, wantPending: 3, wantNamespaceNotSelected: []string{"w3"}},
		{name: "avoid re-queueing inadmissible workloads not matching namespace selector", add: ws{w1}, inadmissible: ws{w3}, queueInadmissible: true,
			wantActive: []string{"ns1/w1"}, wantPending: 2, wantNamespaceNotSelected: []string{"w3"}},
		{name: "update inadmissible workload", add: ws{w1}, inadmissible: ws{w2}, update: ws{w2Updated},
			wantActive: []string{"ns1/w1", "ns2/w2"}, wantPending: 2},
		{name: "delete inadmissible workload", add: ws{w1}, inadmissible: ws{w2}, deleted: ws{w2}, queueInadmissible: true,
			wantActive: []string{"ns1/w1"}, wantPending: 1},
		{name: "update inadmissible workload without changes", inadmissible: ws{w2}, update: ws{w2},
			wantActive: []string{}, wantPending: 1},
		{name: "requeue inadmissible workload twice", inadmissible: ws{w2, w2},
			wantActive: []string{}, wantPending: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opts := range kqCycles {
				cq, nss := kqNamespaces(MakeClusterQueue("cq").Cohort("c").Quota("default", "cpu", "4").Preemption(lower, never), "eng", "sales")
				objs := append(nss, cq.Obj())
				for _, lq := range [][2]string{{"ns1", "q1"}, {"ns1", "q2"}, {"ns2", "q1"}, {"ns2", "q2"}, {"ns3", "q3"}} {
					objs = append(objs, MakeLocalQueue(lq[0], lq[1], "cq").Obj())
				}
				s := kqTree(t, opts, "c", 4, objs...)
				for _, w := range tc.add {
					apply(t, s, w.Obj())
				}
				for _, w := range tc.inadmissible {
					if _, known := s.WorkloadState(w.Key()); !known {
						apply(t, s, w.Obj())
					}
					s.ParkWorkload(w.Key())
				}
				for _, w := range tc.update {
					apply(t, s, w.Obj())
				}
				for _, w := range tc.deleted {
					s.DeleteWorkload(w.Key())
				}
				if tc.queueInadmissible {
					kqRelease(s)
				}
				if got := kqPending(t, s, "cq"); got != tc.wantPending {
					t.Errorf("incremental=%v: %d pending workloads, want %d", !opts.DisableIncrementalCycle, got, tc.wantPending)
				}
				kqBorrow(t, s)
				ds := s.Cycle(now)
				if got := kqPreemptors(ds); !slices.Equal(got, tc.wantActive) {
					t.Errorf("incremental=%v: workloads searching for victims %v, want %v", !opts.DisableIncrementalCycle, got, tc.wantActive)
				}
				for _, name := range tc.wantBackoff {
					mustPending(t, ds, name, ReasonBackoff)
				}
				for _, name := range tc.wantNamespaceNotSelected {
					mustPending(t, ds, name, ReasonNamespaceNotSelected)
				}
			}
		})
	}
}

// Kueue: TestRequeueHashTriggerByReason, its two cases whose class parking
// shows (see the notes for the others). With SchedulingEquivalenceHashing
// (on in Kueue since v0.18, and in Quokka) a head requeued because its
// search found no victims parks its class: a workload of the class (same
// priority and pod sets) arriving later is parked on arrival, and does not
// search when the v queues of kqTree borrow by an admission. A head of a
// namespace the queue does not select parks no class: the workload of its
// class arriving later searches.
func TestKueueQueueRequeueHashTriggerByReason(t *testing.T) {
	for _, tc := range []struct {
		name, first string
		want        []string
	}{
		{"preempt no candidates triggers hash", "ns1", []string{}},
		{"namespace mismatch does not trigger hash", "ns3", []string{"ns1/later"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opts := range kqCycles {
				cq, nss := kqNamespaces(MakeClusterQueue("cq").Cohort("c").Quota("default", "cpu", "2").Preemption(lower, never), "eng")
				s := kqTree(t, opts, "c", 2, append(nss, cq.Obj(), MakeLocalQueue("ns1", "lq", "cq").Obj(), MakeLocalQueue("ns3", "lq", "cq").Obj())...)
				apply(t, s, job(tc.first, "first", 2, 10).Obj())
				if ds := s.Cycle(now); len(preempts(ds)) != 0 || len(admits(ds)) != 0 {
					t.Fatalf("first cycle decided %v, want the head to wait", ds)
				}
				kqBorrow(t, s)
				apply(t, s, job("ns1", "later", 2, 10).Created(time.Minute).Obj())
				if got := kqPreemptors(s.Cycle(now.Add(time.Second))); !slices.Equal(got, tc.want) {
					t.Errorf("incremental=%v: workloads searching for victims %v, want %v", !opts.DisableIncrementalCycle, got, tc.want)
				}
			}
		})
	}
}
