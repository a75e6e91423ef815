package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// A driver that runs a cycle only when NextDeadline says so never decides a
// deadline late and never early: for random admitted workloads (maximum
// execution times with earlier admissions counted, PodsReady timeouts from
// admission or from a lost pod), stepping from deadline to deadline, each
// workload is decided exactly once, in the cycle at its own deadline (its
// maximum execution time, or its pods' timeout, whichever falls first), and
// the driver's decisions, applied as the manager applies them, leave no
// deadline behind.
func TestPropertyDeadlinesAreDecidedOnTimeAndOnce(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 13))
			wait := &WaitForPodsReady{Timeout: time.Duration(1+rnd.IntN(120)) * time.Second,
				RecoveryTimeout: time.Duration(rnd.IntN(60)) * time.Second, BackoffBase: time.Second, BackoffMax: time.Minute}
			s := world(t, Options{WaitForPodsReady: wait}, MakeFlavor("h100").Obj(),
				MakeClusterQueue("a").Quota("h100", gpu, "1000").Obj(), MakeLocalQueue("ns", "lq", "a").Obj())
			want := map[types.NamespacedName]time.Time{}
			for i := range 1 + rnd.IntN(12) {
				name := fmt.Sprintf("w%02d", i)
				admitted := -time.Duration(rnd.IntN(100)) * time.Second
				w := gpus(name, 1).ReserveQuota("a", "h100").QuotaReservedAt(sinceEpoch(admitted)).AdmittedAt(sinceEpoch(admitted))
				var due []time.Time
				if rnd.IntN(2) == 0 {
					maxExec := int32(1 + rnd.IntN(200))
					past := int32(rnd.IntN(int(maxExec)))
					w.MaximumExecutionTime(maxExec).PastExecution(past)
					due = append(due, now.Add(admitted+time.Duration(maxExec-past)*time.Second))
				}
				switch rnd.IntN(3) {
				case 0: // all pods ready: no timeout
					w.Condition(metav1.Condition{Type: kueue.WorkloadPodsReady, Status: metav1.ConditionTrue, Reason: kueue.WorkloadStarted})
				case 1: // waiting for the start
					due = append(due, now.Add(admitted+wait.Timeout))
				case 2: // lost a ready pod
					lost := admitted + time.Duration(rnd.IntN(50))*time.Second
					w.Condition(metav1.Condition{Type: kueue.WorkloadPodsReady, Status: metav1.ConditionFalse,
						Reason: kueue.WorkloadWaitForRecovery, LastTransitionTime: metav1.NewTime(now.Add(lost))})
					if wait.RecoveryTimeout > 0 {
						due = append(due, now.Add(lost+wait.RecoveryTimeout))
					}
				}
				apply(t, s, w.Obj())
				for _, d := range due {
					if cur, ok := want[w.Key()]; !ok || d.Before(cur) {
						want[w.Key()] = d
					}
				}
			}
			// The first cycle, at the start, decides everything already due.
			start := now.Add(-time.Hour)
			at, decided := start, map[types.NamespacedName]time.Time{}
			for steps := 0; ; steps++ {
				if steps > 100 {
					t.Fatalf("still stepping after 100 deadlines")
				}
				for _, d := range s.Cycle(at) {
					var key types.NamespacedName
					switch d := d.(type) {
					case Evict:
						key = d.Workload
					case Deactivate:
						key = d.Workload
					default:
						continue
					}
					// Evicted or deactivated, it leaves this test: its
					// next admission would be another story.
					s.DeleteWorkload(key)
					if _, twice := decided[key]; twice {
						t.Fatalf("%s decided twice", key)
					}
					decided[key] = at
				}
				next, ok := s.NextDeadline(at)
				if !ok {
					break
				}
				at = next
			}
			for key, due := range want {
				if due.Before(start) {
					due = start
				}
				if got, ok := decided[key]; !ok || !got.Equal(due) {
					t.Errorf("%s decided at %v (%v), want at its deadline %v", key, got.Sub(now), ok, due.Sub(now))
				}
			}
			for key := range decided {
				if _, ok := want[key]; !ok {
					t.Errorf("%s decided without a deadline", key)
				}
			}
		})
	}
}
