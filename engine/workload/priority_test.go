package workload_test

import (
	"math"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/workload"
)

// Kueue: pkg/scheduler/preemption/preemption_test.go, TestPriorityInfo: the
// effective priority is the base priority plus the kueue.x-k8s.io/priority-boost
// annotation with the PriorityBoost gate on; a missing or unparsable
// annotation counts 0, and with the gate off the annotation is not read. One
// deliberate difference: Kueue adds in 64 bits ("workload with effective
// priority above int32 max" is 2^31), the engine's priorities are 32-bit and
// the sum is held at the end (2^31 - 1).
func TestKueuePriorityInfo(t *testing.T) {
	t.Parallel()
	withBoost := func(prio int32, boost string) *kueue.Workload {
		wl := &kueue.Workload{Spec: kueue.WorkloadSpec{Priority: &prio}}
		if boost != "" {
			wl.ObjectMeta = metav1.ObjectMeta{Annotations: map[string]string{kueue.PriorityBoostAnnotation: boost}}
		}
		return wl
	}
	for _, tc := range []struct {
		name          string
		wl            *kueue.Workload
		gate          bool
		wantEffective int32
		wantBase      int32
	}{
		{"empty workload", &kueue.Workload{}, true, 0, 0},
		{"workload with priority only", withBoost(100, ""), true, 100, 100},
		{"workload with priority and positive boost", withBoost(200, "50"), true, 250, 200},
		{"workload with priority and negative boost", withBoost(100, "-30"), true, 70, 100},
		{"workload with invalid boost annotation falls back to zero", withBoost(100, "not-a-number"), true, 100, 100},
		{"workload with effective priority above int32 max", withBoost(math.MaxInt32, "1"), true, math.MaxInt32, math.MaxInt32},
		{"feature disabled: boost annotation ignored", withBoost(100, "50"), false, 100, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := workload.FromAPI(tc.wl)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.EffectivePriority(nil, tc.gate); got != tc.wantEffective {
				t.Errorf("effective priority %d, want %d", got, tc.wantEffective)
			}
			if got := info.ResolvePriority(nil); got != tc.wantBase {
				t.Errorf("base priority %d, want %d", got, tc.wantBase)
			}
		})
	}
	// The clamp at the other end.
	info, err := workload.FromAPI(withBoost(math.MinInt32, "-1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.EffectivePriority(nil, true); got != math.MinInt32 {
		t.Errorf("effective priority %d below int32's least, want it held at %d", got, math.MinInt32)
	}
}
