package scheduler

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// sinceEpoch turns an offset from the tests' now into one from Epoch, which
// the wrappers' condition times take.
func sinceEpoch(d time.Duration) time.Duration { return now.Sub(Epoch) + d }

func deactivations(ds []Decision) []Deactivate {
	var out []Deactivate
	for _, d := range ds {
		if x, ok := d.(Deactivate); ok {
			out = append(out, x)
		}
	}
	return out
}

// Kueue: pkg/controller/core/workload_controller_test.go, "admitted workload
// with max execution time" and "... - expired", and reconcileMaxExecutionTime:
// remaining = maximumExecutionTimeSeconds - accumulatedPastExecutionTimeSeconds
// - time since the Admitted condition's transition; at or below zero the
// workload becomes a DeactivationTarget ("exceeding the maximum execution
// time"), above it the check is due again after remaining.
func TestKueueMaximumExecutionTime(t *testing.T) {
	admitted := func(name string) *WorkloadWrapper {
		return gpus(name, 1).ReserveQuota("a", "h100").QuotaReservedAt(sinceEpoch(-time.Hour))
	}
	cases := []struct {
		name         string
		wl           *kueue.Workload
		wantDeact    bool
		wantDeadline time.Duration // from now; 0 for none
	}{
		{name: "admitted workload with max execution time",
			wl:           admitted("w").MaximumExecutionTime(120).AdmittedAt(sinceEpoch(-time.Minute)).Obj(),
			wantDeadline: time.Minute},
		{name: "admitted workload with max execution time - expired",
			wl:        admitted("w").MaximumExecutionTime(60).AdmittedAt(sinceEpoch(-2 * time.Minute)).Obj(),
			wantDeact: true},
		{name: "remaining time zero: deactivated",
			wl:        admitted("w").MaximumExecutionTime(60).AdmittedAt(sinceEpoch(-time.Minute)).Obj(),
			wantDeact: true},
		{name: "earlier admissions count (Kueue integration: with multiple admissions)",
			wl:        admitted("w").MaximumExecutionTime(30).PastExecution(29).AdmittedAt(sinceEpoch(-2 * time.Second)).Obj(),
			wantDeact: true},
		{name: "earlier admissions shorten the deadline",
			wl:           admitted("w").MaximumExecutionTime(30).PastExecution(20).AdmittedAt(sinceEpoch(-2 * time.Second)).Obj(),
			wantDeadline: 8 * time.Second},
		{name: "no maximum",
			wl: admitted("w").AdmittedAt(sinceEpoch(-24 * time.Hour)).Obj()},
		{name: "quota reserved, not admitted: Kueue counts admitted time only",
			wl: admitted("w").MaximumExecutionTime(1).Obj()},
		{name: "deactivation already decided",
			wl: admitted("w").MaximumExecutionTime(1).AdmittedAt(sinceEpoch(-time.Hour)).
				Condition(metav1.Condition{Type: kueue.WorkloadDeactivationTarget, Status: metav1.ConditionTrue,
					Reason: kueue.WorkloadMaximumExecutionTimeExceeded}).Obj()},
		{name: "pending workload",
			wl: gpus("w", 1).MaximumExecutionTime(1).Obj()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, MakeFlavor("h100").Obj(), MakeClusterQueue("a").Quota("h100", gpu, "4").Obj(),
				MakeLocalQueue("ns", "lq", "a").Obj(), tc.wl)
			at, ok := s.NextDeadline(now)
			ds := s.Cycle(now)
			got := deactivations(ds)
			if !tc.wantDeact {
				if len(got) != 0 {
					t.Fatalf("deactivated %v, want none", got)
				}
			} else {
				want := Deactivate{Workload: key("ns", "w"), ClusterQueue: "a",
					Reason: kueue.WorkloadMaximumExecutionTimeExceeded, Message: "exceeding the maximum execution time"}
				if len(got) != 1 || got[0] != want {
					t.Fatalf("deactivated %+v, want %+v", got, want)
				}
			}
			switch {
			case tc.wantDeadline == 0 && ok:
				t.Errorf("next deadline %v, want none", at.Sub(now))
			case tc.wantDeadline != 0 && (!ok || at.Sub(now) != tc.wantDeadline):
				t.Errorf("next deadline %v (found %v), want in %v", at.Sub(now), ok, tc.wantDeadline)
			}
		})
	}
}

// The whole course of a maximum execution time in the engine, as Kueue's
// integration test "should deactivate the workload when the time expires"
// sees it: admitted by a cycle, the workload is deactivated once its maximum
// has passed since that cycle, not before; a driver that records the
// DeactivationTarget stops the decision; spec.active=false evicts it with the
// quota kept until the eviction is confirmed; then it waits, inactive.
func TestMaximumExecutionTimeFromAdmissionToInactive(t *testing.T) {
	w := gpus("w", 4).MaximumExecutionTime(10)
	s := world(t, Options{}, MakeFlavor("h100").Obj(), MakeClusterQueue("a").Quota("h100", gpu, "4").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(), w.Obj(), gpus("next", 4).Created(time.Second).Obj())
	if got := admittedNames(s.Cycle(now)); len(got) != 1 || got[0] != "w" {
		t.Fatalf("admitted %v, want w", got)
	}
	if at, ok := s.NextDeadline(now); !ok || !at.Equal(now.Add(10*time.Second)) {
		t.Fatalf("next deadline %v (%v), want now+10s", at, ok)
	}
	if got := deactivations(s.Cycle(now.Add(9 * time.Second))); len(got) != 0 {
		t.Fatalf("deactivated %v after 9 s of 10", got)
	}
	if got := deactivations(s.Cycle(now.Add(10 * time.Second))); len(got) != 1 {
		t.Fatalf("deactivated %v after 10 s, want w", got)
	}
	// The driver's write lands: admission, then the DeactivationTarget.
	written := w.Clone().ReserveQuota("a", "h100").QuotaReservedAt(sinceEpoch(0)).AdmittedAt(sinceEpoch(0))
	apply(t, s, written.Clone().Condition(metav1.Condition{Type: kueue.WorkloadDeactivationTarget,
		Status: metav1.ConditionTrue, Reason: kueue.WorkloadMaximumExecutionTimeExceeded}).Obj())
	ds := s.Cycle(now.Add(11 * time.Second))
	if got := deactivations(ds); len(got) != 0 {
		t.Fatalf("deactivated %v again after the DeactivationTarget was recorded", got)
	}
	if _, ok := s.NextDeadline(now.Add(11 * time.Second)); ok {
		t.Errorf("a deadline is left after the deactivation was recorded")
	}
	// spec.active=false: evicted, the quota held until confirmed.
	apply(t, s, written.Clone().Active(false).Obj())
	ds = s.Cycle(now.Add(12 * time.Second))
	if len(ds) == 0 {
		t.Fatalf("no decision once w is inactive")
	}
	ev, ok := ds[0].(Evict)
	if !ok || ev.Workload != key("ns", "w") || ev.Reason != EvictReasonDeactivated {
		t.Fatalf("first decision %+v, want w evicted as Deactivated", ds[0])
	}
	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v while w still holds its quota", got)
	}
	s.EvictWorkload(key("ns", "w"))
	ds = s.Cycle(now.Add(13 * time.Second))
	if got := admittedNames(ds); len(got) != 1 || got[0] != "next" {
		t.Fatalf("admitted %v once w's quota was released, want next", got)
	}
	mustPending(t, ds, "w", ReasonInactive)
}
