package scheduler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// podsReadyAt is a PodsReady condition with that status, reason and
// lastTransitionTime (an offset from the tests' now).
func podsReadyAt(status metav1.ConditionStatus, reason string, at time.Duration) metav1.Condition {
	return metav1.Condition{Type: kueue.WorkloadPodsReady, Status: status, Reason: reason,
		LastTransitionTime: metav1.NewTime(now.Add(at))}
}

// Kueue: pkg/controller/core/workload_controller_test.go,
// TestAdmittedNotReadyWorkload: which admitted workloads count toward the
// PodsReady timeout, in which cause, and when the check is due again (here,
// the engine's next deadline; "exceeded" is a cycle's eviction).
func TestKueueAdmittedNotReadyWorkload(t *testing.T) {
	minuteAgo := -time.Minute
	admitted := func() *WorkloadWrapper {
		return gpus("w", 1).ReserveQuota("a", "h100").QuotaReservedAt(sinceEpoch(minuteAgo))
	}
	cases := []struct {
		name      string
		wl        *kueue.Workload
		wait      *WaitForPodsReady
		wantCause string        // "" when it does not count
		wantAfter time.Duration // time left; 0 with a cause: timed out now
	}{
		{name: "workload without Admitted condition; not counting",
			wl: admitted().Obj(), wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
		{name: "workload with Admitted=True, no PodsReady; counting",
			wl: admitted().AdmittedAt(sinceEpoch(minuteAgo)).Obj(), wait: &WaitForPodsReady{Timeout: 5 * time.Minute},
			wantCause: kueue.WorkloadWaitForStart, wantAfter: 4 * time.Minute},
		{name: "workload with Admitted=True, no PodsReady, but no timeout configured; not counting",
			wl: admitted().AdmittedAt(sinceEpoch(minuteAgo)).Obj()},
		{name: "workload with Admitted=True, no PodsReady; timeout exceeded",
			wl: admitted().AdmittedAt(sinceEpoch(-7 * time.Minute)).Obj(), wait: &WaitForPodsReady{Timeout: 5 * time.Minute},
			wantCause: kueue.WorkloadWaitForStart},
		{name: "with reason WorkloadWaitForPodsReadyStart; workload with Admitted=True, PodsReady=False; counting since admitted.LastTransitionTime",
			wl:   admitted().AdmittedAt(sinceEpoch(minuteAgo)).Condition(podsReadyAt(metav1.ConditionFalse, kueue.WorkloadWaitForStart, 0)).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}, wantCause: kueue.WorkloadWaitForStart, wantAfter: 4 * time.Minute},
		{name: "with reason PodsReady; workload with Admitted=True, PodsReady=False; counting since admitted.LastTransitionTime",
			wl:   admitted().AdmittedAt(sinceEpoch(minuteAgo)).Condition(podsReadyAt(metav1.ConditionFalse, "PodsReady", 0)).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}, wantCause: kueue.WorkloadWaitForStart, wantAfter: 4 * time.Minute},
		{name: "workload with Admitted=True, PodsReady=False, Reason=WorkloadWaitForPodsReadyRecovery",
			wl:   admitted().AdmittedAt(sinceEpoch(minuteAgo)).Condition(podsReadyAt(metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, 0)).Obj(),
			wait: &WaitForPodsReady{RecoveryTimeout: 3 * time.Minute}, wantCause: kueue.WorkloadWaitForRecovery, wantAfter: 3 * time.Minute},
		{name: "workload with Admitted=True, PodsReady=False, Reason=WorkloadWaitForPodsReadyRecovery, recoveryTimeout not configured",
			wl:   admitted().AdmittedAt(sinceEpoch(minuteAgo)).Condition(podsReadyAt(metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, 0)).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
		{name: "workload with Admitted=Unknown; not counting",
			wl: admitted().Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionUnknown,
				LastTransitionTime: metav1.NewTime(now.Add(minuteAgo))}).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
		{name: "workload with Admitted=False, not counting",
			wl: admitted().Condition(metav1.Condition{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionFalse,
				LastTransitionTime: metav1.NewTime(now.Add(minuteAgo))}).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
		{name: "being evicted for another reason: reconcileNotReadyTimeout leaves it alone",
			wl: admitted().AdmittedAt(sinceEpoch(-7 * time.Minute)).Condition(metav1.Condition{Type: kueue.WorkloadEvicted,
				Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPreemption}).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
		{name: "workload with Admitted=True, PodsReady=True; not counting",
			wl:   admitted().AdmittedAt(sinceEpoch(minuteAgo)).Condition(podsReadyAt(metav1.ConditionTrue, kueue.WorkloadStarted, 0)).Obj(),
			wait: &WaitForPodsReady{Timeout: 5 * time.Minute}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{WaitForPodsReady: tc.wait}, MakeFlavor("h100").Obj(),
				MakeClusterQueue("a").Quota("h100", gpu, "4").Obj(), MakeLocalQueue("ns", "lq", "a").Obj(), tc.wl)
			at, ok := s.NextDeadline(now)
			ds := s.Cycle(now)
			var evicted *Evict
			for _, d := range ds {
				if e, isEvict := d.(Evict); isEvict {
					evicted = &e
				}
			}
			switch {
			case tc.wantCause == "":
				if ok || evicted != nil {
					t.Fatalf("counts: deadline %v (%v), eviction %+v; want not counting", at.Sub(now), ok, evicted)
				}
			case tc.wantAfter > 0:
				if !ok || at.Sub(now) != tc.wantAfter || evicted != nil {
					t.Fatalf("deadline in %v (%v), eviction %+v; want due in %v", at.Sub(now), ok, evicted, tc.wantAfter)
				}
			default:
				if evicted == nil || evicted.Reason != kueue.WorkloadEvictedByPodsReadyTimeout || evicted.UnderlyingCause != tc.wantCause ||
					evicted.Message != "Exceeded the PodsReady timeout ns/w" {
					t.Fatalf("eviction %+v, want PodsReadyTimeout (%s), Kueue's message", evicted, tc.wantCause)
				}
			}
		})
	}
}

// Kueue: the same file's TestReconcile, "trigger deactivation of workload
// when reaching backoffLimitCount", "wait time should be limited to
// backoffMaxSeconds" and "recovery time should be limited to
// recoveryTimeout": the n-th PodsReady timeout backs off base × 2^(n-1), at
// most backoffMaxSeconds (the recovery case's back-off is the first one's,
// the base); a workload that lost a ready pod times out after
// recoveryTimeout, not timeout; past backoffLimitCount the workload is
// deactivated instead ("exceeding the maximum number of re-queuing
// retries").
func TestKueuePodsReadyTimeoutBackoff(t *testing.T) {
	timedOut := func(count int32) *kueue.Workload {
		w := gpus("w", 1).ReserveQuota("a", "h100").QuotaReservedAt(sinceEpoch(-5 * time.Minute)).AdmittedAt(sinceEpoch(-5 * time.Minute)).Obj()
		w.Status.RequeueState = &kueue.RequeueState{Count: &count, RequeueAt: &metav1.Time{Time: now.Add(-time.Second)}}
		return w
	}
	cases := []struct {
		name      string
		wl        *kueue.Workload
		wait      WaitForPodsReady
		want      Decision
		wantAfter time.Duration
	}{
		{name: "trigger deactivation of workload when reaching backoffLimitCount", wl: timedOut(1),
			wait: WaitForPodsReady{Timeout: 3 * time.Second, BackoffLimitCount: ptrTo[int32](1)},
			want: Deactivate{Workload: key("ns", "w"), ClusterQueue: "a", Reason: kueue.WorkloadRequeuingLimitExceeded,
				Message: "exceeding the maximum number of re-queuing retries"}},
		{name: "wait time should be limited to backoffMaxSeconds", wl: timedOut(10),
			wait: WaitForPodsReady{Timeout: 3 * time.Second, BackoffLimitCount: ptrTo[int32](100), BackoffBase: 10 * time.Second, BackoffMax: 7200 * time.Second},
			want: Evict{Workload: key("ns", "w"), ClusterQueue: "a", Reason: kueue.WorkloadEvictedByPodsReadyTimeout,
				Message: "Exceeded the PodsReady timeout ns/w", UnderlyingCause: kueue.WorkloadWaitForStart, RequeueAt: now.Add(7200 * time.Second)}},
		{name: "recovery time should be limited to recoveryTimeout", wl: func() *kueue.Workload {
			w := timedOut(0)
			w.Status.RequeueState = nil
			w.Status.Conditions = append(w.Status.Conditions, podsReadyAt(metav1.ConditionFalse, kueue.WorkloadWaitForRecovery, -3*time.Minute))
			return w
		}(),
			wait: WaitForPodsReady{Timeout: 5 * time.Minute, RecoveryTimeout: 3 * time.Second, BackoffLimitCount: ptrTo[int32](100),
				BackoffBase: 10 * time.Second, BackoffMax: 7200 * time.Second},
			want: Evict{Workload: key("ns", "w"), ClusterQueue: "a", Reason: kueue.WorkloadEvictedByPodsReadyTimeout,
				Message: "Exceeded the PodsReady timeout ns/w", UnderlyingCause: kueue.WorkloadWaitForRecovery, RequeueAt: now.Add(10 * time.Second)}},
		{name: "the first timeout backs off the base", wl: timedOut(0),
			wait: WaitForPodsReady{Timeout: 3 * time.Second, BackoffBase: 60 * time.Second, BackoffMax: 3600 * time.Second},
			want: Evict{Workload: key("ns", "w"), ClusterQueue: "a", Reason: kueue.WorkloadEvictedByPodsReadyTimeout,
				Message: "Exceeded the PodsReady timeout ns/w", UnderlyingCause: kueue.WorkloadWaitForStart, RequeueAt: now.Add(60 * time.Second)}},
		{name: "the third doubles it twice", wl: timedOut(2),
			wait: WaitForPodsReady{Timeout: 3 * time.Second, BackoffBase: 60 * time.Second, BackoffMax: 3600 * time.Second},
			want: Evict{Workload: key("ns", "w"), ClusterQueue: "a", Reason: kueue.WorkloadEvictedByPodsReadyTimeout,
				Message: "Exceeded the PodsReady timeout ns/w", UnderlyingCause: kueue.WorkloadWaitForStart, RequeueAt: now.Add(240 * time.Second)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wait := tc.wait
			s := world(t, Options{WaitForPodsReady: &wait}, MakeFlavor("h100").Obj(),
				MakeClusterQueue("a").Quota("h100", gpu, "4").Obj(), MakeLocalQueue("ns", "lq", "a").Obj(), tc.wl)
			ds := s.Cycle(now)
			if len(ds) == 0 || ds[0] != tc.want {
				t.Fatalf("decisions %+v, want first %+v", ds, tc.want)
			}
		})
	}
}

// After a PodsReady timeout the workload waits for its back-off
// (status.requeueState.requeueAt) before it may be admitted again, and then
// queues behind the workloads created before its eviction
// (requeuingStrategy.timestamp Eviction, Kueue's default); the engine's next
// deadline is the back-off's end, since nothing else wakes it.
func TestPodsReadyTimeoutWaitsForTheBackoffThenQueuesByEvictionTime(t *testing.T) {
	wait := &WaitForPodsReady{Timeout: time.Minute, BackoffBase: 10 * time.Second, BackoffMax: time.Hour, OrderByEviction: true}
	requeueAt := now.Add(10 * time.Second)
	evictedAt := now.Add(-time.Second)
	backingOff := gpus("w", 4).Created(0).Obj()
	backingOff.Status.RequeueState = &kueue.RequeueState{Count: ptrTo[int32](1), RequeueAt: &metav1.Time{Time: requeueAt}}
	backingOff.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadEvicted, Status: metav1.ConditionTrue,
		Reason: kueue.WorkloadEvictedByPodsReadyTimeout, LastTransitionTime: metav1.NewTime(evictedAt)}}
	s := world(t, Options{WaitForPodsReady: wait}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Quota("h100", gpu, "4").Obj(), MakeLocalQueue("ns", "lq", "a").Obj(), backingOff)

	mustPending(t, s.Cycle(now), "w", ReasonBackoff)
	if at, ok := s.NextDeadline(now); !ok || !at.Equal(requeueAt) {
		t.Fatalf("next deadline %v (%v), want the back-off's end", at, ok)
	}
	// Created at Epoch, later than w's creation but before its eviction.
	apply(t, s, gpus("older", 4).Created(now.Sub(Epoch)-2*time.Second).Obj())
	ds := s.Cycle(now.Add(5 * time.Second))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "older" {
		t.Fatalf("admitted %v during w's back-off, want older", got)
	}
	s.FinishWorkload(key("ns", "older"))
	apply(t, s, gpus("newer", 4).Created(now.Sub(Epoch)).Obj())
	ds = s.Cycle(requeueAt)
	if got := admittedNames(ds); len(got) != 1 || got[0] != "w" {
		t.Fatalf("admitted %v once the back-off ended, want w (evicted before newer was created)", got)
	}
}

func ptrTo[T any](v T) *T { return &v }

// Kueue: pkg/cache/queue/cluster_queue_test.go, TestStrictFIFO, "w1.priority
// equals w2.priority and w1.create time is earlier than w2.create time but w1
// was evicted" and "... but kueue is configured to always use the creation
// timestamp": a workload evicted for a PodsReady timeout is ordered by the
// eviction's time (requeuingStrategy.timestamp Eviction), unless the
// Configuration says Creation.
func TestKueueStrictFIFOOrdersByPodsReadyEviction(t *testing.T) {
	t1, t2, t3 := now.Add(-3*time.Minute), now.Add(-2*time.Minute), now.Add(-time.Minute)
	evicted := gpus("w1", 4).Created(t1.Sub(Epoch)).Condition(metav1.Condition{Type: kueue.WorkloadEvicted,
		Status: metav1.ConditionTrue, Reason: kueue.WorkloadEvictedByPodsReadyTimeout, LastTransitionTime: metav1.NewTime(t3)}).Obj()
	for _, tc := range []struct {
		name            string
		orderByEviction bool
		want            string
	}{
		{"w1 was evicted: ordered by its eviction", true, "w2"},
		{"kueue is configured to always use the creation timestamp", false, "w1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{WaitForPodsReady: &WaitForPodsReady{Timeout: time.Hour, OrderByEviction: tc.orderByEviction}},
				MakeFlavor("h100").Obj(), MakeClusterQueue("a").Strategy(kueue.StrictFIFO).Quota("h100", gpu, "4").Obj(),
				MakeLocalQueue("ns", "lq", "a").Obj(), evicted, gpus("w2", 4).Created(t2.Sub(Epoch)).Obj())
			if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("admitted %v, want the head %s", got, tc.want)
			}
		})
	}
}
