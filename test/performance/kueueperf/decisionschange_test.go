package main

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
)

// With --priority-changes the worlds are those of the seed without it; every
// workload names the scenario's WorkloadPriorityClass of its priority (Kueue's
// PriorityChanged reads a change only of such a workload), and some of the
// events that would finish a workload move one to another class instead,
// never to the class it has.
func TestPriorityChangeScenarios(t *testing.T) {
	changes := 0
	for i, sc := range scenariosOfSeed7(t, scenarioKinds{reprioritize: true}, "priority changes") {
		if plain := newScenario(7, i, scenarioKinds{}); len(sc.classes) != len(scenarioPriorities) || len(plain.classes) != 0 {
			t.Fatalf("%s: %d classes with priority changes, %d without; want %d and 0", sc.name, len(sc.classes), len(plain.classes), len(scenarioPriorities))
		}
		values := map[string]int32{}
		for _, c := range sc.classes {
			values[c.Name] = c.Value
		}
		for _, ev := range sc.events {
			if ev.reprioritize {
				changes++
			}
			if ev.create == nil {
				continue
			}
			spec := ev.create.Spec
			ref := spec.PriorityClassRef
			if ref == nil || ref.Group != kueue.WorkloadPriorityClassGroup || ref.Kind != kueue.WorkloadPriorityClassKind {
				t.Fatalf("%s/%s: priorityClassRef %+v, want a WorkloadPriorityClass", sc.name, ev.create.Name, ref)
			}
			if v, ok := values[ref.Name]; !ok || spec.Priority == nil || v != *spec.Priority {
				t.Errorf("%s/%s: class %s (value %d, known %t) and priority %v disagree", sc.name, ev.create.Name, ref.Name, v, ok, spec.Priority)
			}
		}
	}
	if changes == 0 {
		t.Fatal("no priority change in 10 scenarios")
	}
	for _, p := range scenarioPriorities {
		seen := map[int32]bool{}
		for shift := 0; shift < len(scenarioPriorities)-1; shift++ {
			q := shifted(p, shift)
			if q == p || seen[q] {
				t.Errorf("shifted(%d, %d) = %d: the same priority, or one another shift gives", p, shift, q)
			}
			seen[q] = true
		}
	}
}

// A priority change is replayed as Kueue paces it: one of a pending workload
// as a creation (Kueue moves it out of the inadmissible list, and requeues
// nothing else), one of an admitted workload as a finish (Kueue requeues the
// tree's parked workloads, which may now preempt it).
//
// cq-b (BestEffortFIFO, nominal 2, withinClusterQueue LowerPriority) runs x
// (2 cpu); p (2 cpu) waits, parked, since it may not preempt x.
func TestReplayPlaysAPriorityChange(t *testing.T) {
	cq := replayCQ("cq-b", kueue.BestEffortFIFO, 2)
	cq.Spec.Preemption.WithinClusterQueue = kueue.PreemptionPolicyLowerPriority
	sc := &scenario{name: "ns",
		flavors: []*kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "f"}}},
		cqs:     []*kueue.ClusterQueue{cq},
		lqs:     []*kueue.LocalQueue{replayLQ("lq-b", "cq-b")},
	}
	parked := "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed"
	for _, tc := range []struct {
		name        string
		x, p        int32
		change      string
		to          int32
		want        map[string]string
		wantEvicted []string
	}{
		{name: "admitted x lowered below p", x: 20, p: 10, change: "x", to: 0,
			want: map[string]string{"p": "cq-b/f"}, wantEvicted: []string{"x"}},
		{name: "pending p raised above x", x: 10, p: 0, change: "p", to: 20,
			want: map[string]string{"p": "cq-b/f"}, wantEvicted: []string{"x"}},
		{name: "pending p raised to x's priority", x: 10, p: 0, change: "p", to: 10,
			want: map[string]string{"x": "cq-b/f"}},
		{name: "admitted x lowered to p's priority", x: 20, p: 10, change: "x", to: 10,
			want: map[string]string{"x": "cq-b/f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, p := withPriority(replayWL("x", "lq-b", 1, "cq-b", ""), tc.x), withPriority(replayWL("p", "lq-b", 2, "", parked), tc.p)
			step := &kueueStep{before: []kueue.Workload{x, p}}
			changed := x
			if tc.change == "p" {
				changed = p
			}
			step.changed = ptr.To(withPriority(*changed.DeepCopy(), tc.to))
			warm, after, evicted, err := replayStep(scheduler.Options{}, sc, step)
			if err != nil || warm != "" {
				t.Fatalf("replayStep: %v %s", err, warm)
			}
			if !reflect.DeepEqual(after, tc.want) || !reflect.DeepEqual(evicted, tc.wantEvicted) {
				t.Errorf("after %s's priority became %d: %v, evicted %v; want %v, evicted %v", tc.change, tc.to, after, evicted, tc.want, tc.wantEvicted)
			}
		})
	}
}

// withPriority gives wl priority p from the class the scenarios name "ns-p<p>".
func withPriority(wl kueue.Workload, p int32) kueue.Workload {
	wl.Spec.Priority = ptr.To(p)
	wl.Spec.PriorityClassRef = &kueue.PriorityClassRef{Group: kueue.WorkloadPriorityClassGroup, Kind: kueue.WorkloadPriorityClassKind,
		Name: (&scenario{name: "ns"}).className(p)}
	return wl
}

// With --deactivations the worlds are those of the seed without it, and some
// of the events that would finish a workload flip one's spec.active instead.
func TestDeactivationScenarios(t *testing.T) {
	toggles := 0
	for _, sc := range scenariosOfSeed7(t, scenarioKinds{toggle: true}, "deactivations") {
		for _, ev := range sc.events {
			if ev.toggle {
				toggles++
				if ev.create != nil || ev.reclaim || ev.reprioritize {
					t.Errorf("%s: a toggle that is also another event: %+v", sc.name, ev)
				}
			}
		}
	}
	if toggles == 0 {
		t.Fatal("no flip of spec.active in 10 scenarios")
	}
}

// A flip of spec.active is replayed as Kueue paces it: a deactivation as a
// finish (Kueue evicts an admitted workload, and requeues the tree's parked
// workloads, for a pending one too), a reactivation as a creation.
func TestReplayPlaysADeactivation(t *testing.T) {
	parked := "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed"
	inactive := func(wl kueue.Workload) kueue.Workload {
		wl.Spec.Active = ptr.To(false)
		return wl
	}
	for _, tc := range []struct {
		name        string
		strategy    kueue.QueueingStrategy
		nominal     int64
		before      []kueue.Workload
		changed     kueue.Workload
		want        map[string]string
		wantEvicted []string
	}{
		{name: "admitted x deactivated, parked p takes its room", strategy: kueue.BestEffortFIFO, nominal: 2,
			before:  []kueue.Workload{replayWL("x", "lq-b", 1, "cq-b", ""), replayWL("p", "lq-b", 2, "", parked)},
			changed: inactive(replayWL("x", "lq-b", 1, "cq-b", "")),
			want:    map[string]string{"p": "cq-b/f"}, wantEvicted: []string{"x"}},
		{name: "pending p reactivated", strategy: kueue.BestEffortFIFO, nominal: 4,
			before:  []kueue.Workload{replayWL("x", "lq-b", 1, "cq-b", ""), inactive(replayWL("p", "lq-b", 2, "", parked))},
			changed: replayWL("p", "lq-b", 2, "", parked),
			want:    map[string]string{"x": "cq-b/f", "p": "cq-b/f"}},
		{name: "StrictFIFO head h deactivated, q behind it admitted", strategy: kueue.StrictFIFO, nominal: 2,
			before:  []kueue.Workload{fourCPU(replayWL("h", "lq-b", 1, "", parked)), replayWL("q", "lq-b", 2, "", "")},
			changed: inactive(fourCPU(replayWL("h", "lq-b", 1, "", parked))),
			want:    map[string]string{"q": "cq-b/f"}},
		{name: "pending p deactivated", strategy: kueue.BestEffortFIFO, nominal: 2,
			before:  []kueue.Workload{replayWL("x", "lq-b", 1, "cq-b", ""), replayWL("p", "lq-b", 2, "", parked)},
			changed: inactive(replayWL("p", "lq-b", 2, "", parked)),
			want:    map[string]string{"x": "cq-b/f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scenario{name: "ns",
				flavors: []*kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "f"}}},
				cqs:     []*kueue.ClusterQueue{replayCQ("cq-b", tc.strategy, tc.nominal)},
				lqs:     []*kueue.LocalQueue{replayLQ("lq-b", "cq-b")},
			}
			step := &kueueStep{before: tc.before, changed: &tc.changed}
			warm, after, evicted, err := replayStep(scheduler.Options{}, sc, step)
			if err != nil || warm != "" {
				t.Fatalf("replayStep: %v %s", err, warm)
			}
			if !reflect.DeepEqual(after, tc.want) || !reflect.DeepEqual(evicted, tc.wantEvicted) {
				t.Errorf("after the flip of %s: %v, evicted %v; want %v, evicted %v", tc.changed.Name, after, evicted, tc.want, tc.wantEvicted)
			}
		})
	}
}

// fourCPU makes a replayWL workload ask for 4 cpu.
func fourCPU(wl kueue.Workload) kueue.Workload {
	wl.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("4")
	return wl
}
