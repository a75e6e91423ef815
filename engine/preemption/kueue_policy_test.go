package preemption

import (
	"reflect"
	"testing"
	"time"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Kueue: pkg/scheduler/preemption/common/preemption_policy_test.go,
// TestSatisfiesPreemptionPolicy. Kueue's SatisfiesPreemptionPolicy answers
// whether a policy lets a preemptor take a candidate: LowerPriority a
// strictly lower priority; LowerOrNewerEqualPriority also an equal priority
// queued strictly after the preemptor; Any everything; Never nothing. Quokka
// has no one function for it: the search applies withinClusterQueue to the
// preemptor's own queue (WithinQueueAllowed) and reclaimWithinCohort to the
// other queues of its Cohort (classify). So each case runs a search (Find) in
// each place the API accepts its policy, and the candidate must be taken
// exactly when Kueue's answer is true:
//
//   - withinClusterQueue (Never, LowerPriority, LowerOrNewerEqualPriority):
//     queue q (nominal 4, no Cohort) is full with the candidate (4 CPUs);
//   - reclaimWithinCohort (Never, LowerPriority, Any): queue a (nominal 2)
//     shares Cohort c with b (nominal 0), where the candidate borrows a's 2
//     CPUs.
//
// The preemptor needs 2 CPUs, in q or a. Quokka has no PriorityBoost gate:
// the four cases that boost a priority through the annotation are not ported;
// "Any: always satisfies regardless of priority or boost" is, since Any
// takes the candidate whatever its priority, boosted or not (the annotation
// has no counterpart on a Candidate).
func TestKueueSatisfiesPreemptionPolicy(t *testing.T) {
	t.Parallel()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const (
		never        = kueue.PreemptionPolicyNever
		lower        = kueue.PreemptionPolicyLowerPriority
		lowerOrNewer = kueue.PreemptionPolicyLowerOrNewerEqualPriority
		anyPrio      = kueue.PreemptionPolicyAny
	)
	cases := []struct {
		name                    string
		preemptorPrio, candPrio int32
		// Creation times, after the epoch.
		preemptorAt, candAt time.Duration
		policy              kueue.PreemptionPolicy
		want                bool
	}{
		{"LowerPriority: preemptor has higher priority", 10, 5, 0, 0, lower, true},
		{"LowerPriority: preemptor has same priority", 10, 10, 0, 0, lower, false},
		{"LowerOrNewerEqualPriority: preemptor has same priority, same timestamp", 10, 10, 0, 0, lowerOrNewer, false},
		// The candidate is older, so it is not newer.
		{"LowerOrNewerEqualPriority: preemptor has same priority, newer timestamp (within 5min buffer)", 10, 10, time.Minute, 0, lowerOrNewer, false},
		{"LowerOrNewerEqualPriority: preemptor has same priority, older timestamp (within 5min buffer)", 10, 10, 0, time.Minute, lowerOrNewer, true},
		{"PreemptionPolicyAny", 10, 10, 0, 6 * time.Minute, anyPrio, true},
		{"PreemptionPolicyNever", 10, 10, 0, 6 * time.Minute, never, false},
		{"Any: always satisfies regardless of priority or boost", 50, 100, 0, 0, anyPrio, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			places := 0
			if tc.policy != anyPrio {
				places++
				f := newFixture(t, MakeClusterQueue("q").Quota("default", "cpu", "4").Preemption(never, tc.policy).Obj())
				f.admit("q", "candidate", tc.candPrio, 4, nil)
				f.src["q"][0].Created = epoch.Add(tc.candAt)
				p := f.preemptor("q", 2, tc.preemptorPrio, nil)
				p.Created = epoch.Add(tc.preemptorAt)
				if got, want := f.findFor("q", p, Options{}), satisfiesVictims(tc.want, "q/candidate"); !reflect.DeepEqual(got, want) {
					t.Errorf("withinClusterQueue %s: victims %v, want %v", tc.policy, got, want)
				}
			}
			if tc.policy != lowerOrNewer {
				places++
				f := newFixture(t,
					MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "2").Preemption(tc.policy, never).Obj(),
					MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "0").Obj(),
				)
				f.admit("b", "candidate", tc.candPrio, 2, nil)
				f.src["b"][0].Created = epoch.Add(tc.candAt)
				p := f.preemptor("a", 2, tc.preemptorPrio, nil)
				p.Created = epoch.Add(tc.preemptorAt)
				if got, want := f.findFor("a", p, Options{}), satisfiesVictims(tc.want, "b/candidate"); !reflect.DeepEqual(got, want) {
					t.Errorf("reclaimWithinCohort %s: victims %v, want %v", tc.policy, got, want)
				}
			}
			if places == 0 {
				t.Fatal("the case runs nowhere")
			}
		})
	}
}

func satisfiesVictims(taken bool, key string) []string {
	if taken {
		return []string{key}
	}
	return []string{}
}
