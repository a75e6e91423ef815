package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/scheduler"
	"quokka.dev/quokka/engine/workload"
)

// Scenarios are the same for the same seed and index (a difference can be
// played again with --scenario), stay within what Kueue's CRDs accept
// (borrowing and lending limits only in a cohort, borrowWithinCohort only with
// reclaimWithinCohort), and every object is one Quokka's engine takes. Some
// have a tree of cohorts.
// With --partial-admission the worlds are those of the seed without it, and
// some workloads ask for two to four pods with a minCount below that, which
// the engine reads as partially admissible.
func TestPartialAdmissionScenarios(t *testing.T) {
	variable := 0
	for _, sc := range scenariosOfSeed7(t, scenarioKinds{partial: true}, "partial admission") {
		for _, ev := range sc.events {
			if ev.create == nil || ev.create.Spec.PodSets[0].MinCount == nil {
				continue
			}
			variable++
			ps := ev.create.Spec.PodSets[0]
			if m := *ps.MinCount; m < 1 || m >= ps.Count {
				t.Errorf("%s/%s: minCount %d of %d pods", sc.name, ev.create.Name, m, ps.Count)
			}
			info, err := workload.FromAPI(ev.create)
			if err != nil || !info.CanBePartiallyAdmitted() {
				t.Errorf("%s/%s: the engine does not read it as partially admissible (%v)", sc.name, ev.create.Name, err)
			}
			if sc.fullCount(ev.create.Name) != ps.Count {
				t.Errorf("%s/%s: fullCount %d, want %d", sc.name, ev.create.Name, sc.fullCount(ev.create.Name), ps.Count)
			}
		}
	}
	if variable == 0 {
		t.Fatal("no workload of 10 partial-admission scenarios has a minCount")
	}
}

// With --reclaimable-pods the worlds are those of the seed without it, some
// workloads ask for two to four pods, and some of the events that would
// finish a workload mark one of its pods reclaimable instead.
func TestReclaimablePodsScenarios(t *testing.T) {
	reclaims, multi := 0, 0
	for _, sc := range scenariosOfSeed7(t, scenarioKinds{reclaim: true}, "reclaimable pods") {
		for _, ev := range sc.events {
			switch {
			case ev.create != nil && ev.create.Spec.PodSets[0].Count > 1:
				multi++
			case ev.reclaim:
				reclaims++
			}
		}
	}
	if reclaims == 0 || multi == 0 {
		t.Fatalf("10 scenarios with reclaimable pods: %d reclaims, %d workloads of several pods; want some of each", reclaims, multi)
	}
}

// scenariosOfSeed7 draws the first ten scenarios of seed 7 with kinds (named
// what in messages) and fails unless their worlds (Cohorts, ClusterQueues)
// are those of the seed without them: an option changes the workloads and
// events only, so that a seed's worlds stay what earlier runs recorded.
func scenariosOfSeed7(t *testing.T, kinds scenarioKinds, what string) []*scenario {
	t.Helper()
	var out []*scenario
	for i := 0; i < 10; i++ {
		sc, plain := newScenario(7, i, kinds), newScenario(7, i, scenarioKinds{})
		if !reflect.DeepEqual(sc.cqs, plain.cqs) || !reflect.DeepEqual(sc.cohorts, plain.cohorts) {
			t.Fatalf("%s: the world changed with %s", sc.name, what)
		}
		out = append(out, sc)
	}
	return out
}

func TestScenariosAreReproducibleAndValid(t *testing.T) {
	trees := 0
	for seed := int64(1); seed <= 3; seed++ {
		for i := 0; i < 20; i++ {
			fair := i%2 == 1
			sc := newScenario(seed, i, scenarioKinds{fair: fair})
			if again := newScenario(seed, i, scenarioKinds{fair: fair}); !reflect.DeepEqual(sc, again) {
				t.Fatalf("scenario %d of seed %d differs between two draws", i, seed)
			}
			creates := 0
			for _, ev := range sc.events {
				if ev.create != nil {
					creates++
				}
			}
			if len(sc.cohorts) > 0 {
				trees++
			}
			if creates != scenarioCreates {
				t.Errorf("%s: %d creates, want %d", sc.name, creates, scenarioCreates)
			}
			s := scheduler.New(scheduler.Options{})
			for _, c := range sc.cohorts {
				if err := s.UpsertCohort(c); err != nil {
					t.Errorf("%s: the engine refuses it: %v", c.Name, err)
				}
			}
			for _, cq := range sc.cqs {
				for _, f := range cq.Spec.ResourceGroups[0].Flavors {
					rq := f.Resources[0]
					if cq.Spec.CohortName == "" && (rq.BorrowingLimit != nil || rq.LendingLimit != nil) {
						t.Errorf("%s: a limit without a cohort, which Kueue refuses", cq.Name)
					}
					if rq.LendingLimit != nil && rq.LendingLimit.Cmp(rq.NominalQuota) > 0 {
						t.Errorf("%s: lendingLimit above nominalQuota", cq.Name)
					}
				}
				p := cq.Spec.Preemption
				if p.ReclaimWithinCohort == kueue.PreemptionPolicyNever && p.BorrowWithinCohort != nil {
					t.Errorf("%s: borrowWithinCohort with reclaimWithinCohort Never, which Kueue refuses", cq.Name)
				}
				if fair && p.BorrowWithinCohort != nil {
					t.Errorf("%s: borrowWithinCohort under fair sharing, which Quokka refuses", cq.Name)
				}
				if !fair && cq.Spec.FairSharing != nil {
					t.Errorf("%s: a fair-sharing weight without fair sharing", cq.Name)
				}
				if err := s.UpsertClusterQueue(cq); err != nil {
					t.Errorf("%s: the engine refuses it: %v", cq.Name, err)
				}
			}
		}
	}
	if trees == 0 {
		t.Error("no scenario of 60 has a Cohort object")
	}
}

// A finish is replayed as Kueue paces it: the queues Kueue keeps in its heap
// (StrictFIFO heads, and workloads its cycles skip for another's sake, see
// inHeap) decide first, the workloads it parked a second later
// (docs/kueue-conformance.md, deliberate difference 5).
//
// cq-b (BestEffortFIFO, nominal 4) runs x and y; h, the head of the StrictFIFO
// cq-a (nominal 0), and p (cq-b) wait for 2 cpu. y finishing frees 2: in one
// step the engine takes p first (it fits within cq-b's nominal quota, h
// borrows), but Kueue's h is tried at once and p only a second later.
func TestReplayPacesAFinishAsKueue(t *testing.T) {
	sc := &scenario{name: "ns",
		flavors: []*kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "f"}}},
		cqs: []*kueue.ClusterQueue{
			replayCQ("cq-a", kueue.StrictFIFO, 0),
			replayCQ("cq-b", kueue.BestEffortFIFO, 4),
		},
		lqs: []*kueue.LocalQueue{replayLQ("lq-a", "cq-a"), replayLQ("lq-b", "cq-b")},
	}
	parkedMessage := "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed"
	for _, tc := range []struct {
		name     string
		pMessage string
		want     map[string]string
	}{
		{"p parked", parkedMessage, map[string]string{"x": "cq-b/f", "h": "cq-a/f"}},
		// Kueue tried p again at once after the skip, found no room and
		// parked it, writing no new condition (see inHeap); nothing skips it
		// in the settled state.
		{"p skipped once, then parked", kueueSkippedMessage, map[string]string{"x": "cq-b/f", "h": "cq-a/f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step := &kueueStep{
				before: []kueue.Workload{
					replayWL("x", "lq-b", 1, "cq-b", ""),
					replayWL("y", "lq-b", 2, "cq-b", ""),
					replayWL("p", "lq-b", 3, "", tc.pMessage),
					replayWL("h", "lq-a", 4, "", parkedMessage),
				},
				finished: "y",
			}
			warm, after, evicted, err := replayStep(scheduler.Options{}, sc, step)
			if err != nil || warm != "" {
				t.Fatalf("replayStep: %v %s", err, warm)
			}
			if !reflect.DeepEqual(after, tc.want) || len(evicted) != 0 {
				t.Errorf("after y finished: %v, evicted %v; want %v", after, evicted, tc.want)
			}
		})
	}
}

// A workload skipped in every cycle stays in Kueue's heap: here cq-s's
// StrictFIFO head s (4 cpu, within cq-s's nominal quota, which cq-b's z
// borrows) can reclaim nothing and holds 4 cpu in every cycle, and p (cq-b),
// which would borrow the cohort's 2 free cpu, no longer fits beside the
// hold. The engine's settling cycles report p as skipped, so the replay
// keeps it in the heap; a workload with the same condition that the engine
// does not skip is taken as parked.
func TestSettleEngineReportsWorkloadsSkippedEveryCycle(t *testing.T) {
	sc := &scenario{name: "ns",
		flavors: []*kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "f"}}},
		cqs: []*kueue.ClusterQueue{
			replayCQ("cq-s", kueue.StrictFIFO, 4),
			replayCQ("cq-b", kueue.BestEffortFIFO, 4),
		},
		lqs: []*kueue.LocalQueue{replayLQ("lq-s", "cq-s"), replayLQ("lq-b", "cq-b")},
	}
	sWL := replayWL("s", "lq-s", 4, "", "")
	sWL.Spec.PodSets[0].Count = 2
	wls := []kueue.Workload{
		replayWL("x", "lq-b", 1, "cq-b", ""),
		replayWL("y", "lq-b", 2, "cq-b", ""),
		replayWL("z", "lq-b", 3, "cq-b", ""),
		sWL,
		replayWL("p", "lq-b", 5, "", kueueSkippedMessage),
	}
	s, err := replayEngine(scheduler.Options{}, sc, wls, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := admissions(wls)
	evicted, skipping, err := settleEngine(s, time.Date(2026, 12, 4, 0, 1, 0, 0, time.UTC), held, sc.fullCount)
	if err != nil {
		t.Fatal(err)
	}
	if len(evicted) != 0 || !reflect.DeepEqual(skipping, map[string]bool{"p": true}) {
		t.Fatalf("settled: evicted %v, skipping %v; want nothing evicted and p skipped under s's hold", evicted, skipping)
	}
	if !inHeap(&wls[4], skipping) {
		t.Error("inHeap(p) = false for a workload skipped in every cycle")
	}
	parked := replayWL("p", "lq-b", 5, "", "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed")
	if inHeap(&parked, skipping) {
		t.Error("inHeap = true for a workload whose condition says it got no flavor")
	}
	if inHeap(&wls[4], map[string]bool{}) {
		t.Error("inHeap = true for a workload the settled engine does not skip")
	}
}

// Kueue's settled state must be settled for Quokka too: a workload Kueue
// left pending that Quokka would admit at once is a difference, reported
// before the event.
func TestReplayReportsAnUnsettledState(t *testing.T) {
	sc := &scenario{name: "ns",
		flavors: []*kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "f"}}},
		cqs:     []*kueue.ClusterQueue{replayCQ("cq-b", kueue.BestEffortFIFO, 4)},
		lqs:     []*kueue.LocalQueue{replayLQ("lq-b", "cq-b")},
	}
	step := &kueueStep{before: []kueue.Workload{replayWL("x", "lq-b", 1, "", "pending")}, created: ptr.To(replayWL("y", "lq-b", 2, "", ""))}
	warm, _, _, err := replayStep(scheduler.Options{}, sc, step)
	if err != nil {
		t.Fatal(err)
	}
	if want := "before the event, from Kueue's settled state: x: Kueue pending, Quokka admitted in cq-b/f"; warm != want {
		t.Errorf("warm = %q, want %q", warm, want)
	}
}

func TestStepDiff(t *testing.T) {
	if d := stepDiff(map[string]string{"a": "q/f"}, map[string]string{"a": "q/f"}, []string{"b"}, []string{"b"}); d != "" {
		t.Errorf("same outcome: %q", d)
	}
	d := stepDiff(map[string]string{"a": "q/f"}, map[string]string{"b": "q/g"}, []string{"c"}, nil)
	for _, want := range []string{"a: Kueue admitted in q/f, Quokka pending", "b: Kueue pending, Quokka admitted in q/g", "evicted: Kueue [c], Quokka []"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff %q lacks %q", d, want)
		}
	}
}

func replayCQ(name string, strategy kueue.QueueingStrategy, nominal int64) *kueue.ClusterQueue {
	return &kueue.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueue.ClusterQueueSpec{
		CohortName:        "c",
		QueueingStrategy:  strategy,
		NamespaceSelector: &metav1.LabelSelector{},
		FlavorFungibility: &kueue.FlavorFungibility{WhenCanBorrow: kueue.MayStopSearch, WhenCanPreempt: kueue.TryNextFlavor},
		Preemption:        &kueue.ClusterQueuePreemption{WithinClusterQueue: kueue.PreemptionPolicyNever, ReclaimWithinCohort: kueue.PreemptionPolicyNever},
		ResourceGroups: []kueue.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
			Flavors: []kueue.FlavorQuotas{{Name: "f", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU,
				NominalQuota: *resource.NewQuantity(nominal, resource.DecimalSI)}}}}}},
	}}
}

func replayLQ(name, cq string) *kueue.LocalQueue {
	return &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}}
}

// replayWL is a 2-cpu workload created at second `at`, admitted in cq (""
// for pending, with message as its QuotaReserved=False condition's).
func replayWL(name, lq string, at int, cq, message string) kueue.Workload {
	created := metav1.NewTime(time.Date(2026, 12, 4, 0, 0, at, 0, time.UTC))
	wl := kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), CreationTimestamp: created},
		Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(lq), PodSets: []kueue.PodSet{{Name: "main", Count: 1,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}}}}},
	}
	if cq != "" {
		wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq), PodSetAssignments: []kueue.PodSetAssignment{{
			Name: "main", Count: ptr.To[int32](1), Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f"},
			ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}
		wl.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue,
			Reason: "QuotaReserved", LastTransitionTime: created}}
	} else if message != "" {
		wl.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse,
			Reason: "Pending", Message: message, LastTransitionTime: created}}
	}
	return wl
}

// The engine decides with the gates quokka manager would get from
// --quokka-feature-gates: by default Kueue v0.17.0's behaviour, which
// waits on overlapping preemption targets.
func TestEngineOptionsFromGates(t *testing.T) {
	opts, err := engineOptions(asKueueV017)
	if err != nil || !opts.WaitOnOverlappingTargets || !opts.NoEquivalenceHashing {
		t.Errorf("engineOptions(%q) = %+v, %v; want WaitOnOverlappingTargets and NoEquivalenceHashing", asKueueV017, opts, err)
	}
	if opts, err := engineOptions(""); err != nil || opts.WaitOnOverlappingTargets {
		t.Errorf("engineOptions(\"\") = %+v, %v; want Quokka's defaults (the gate on)", opts, err)
	}
	if _, err := engineOptions("NoSuchGate=true"); err == nil || !strings.Contains(err.Error(), `unknown feature gate "NoSuchGate"`) {
		t.Errorf("an unknown gate: %v", err)
	}
}

// A crash of Kueue's manager is reported by its panic and the Kueue function
// it happened in (here Kueue v0.17.0's, kubernetes-sigs/kueue#10891), read
// from the end of its log, where client-go's crash handler repeats it.
func TestLastPanicNamesKueuesFunction(t *testing.T) {
	log := filepath.Join(t.TempDir(), "kueue.log")
	const text = `E1205 08:31:30.355521    3419 panic.go:336] "Observed a panic" panic="runtime error: invalid memory address or nil pointer dereference"
	goroutine 801 [running]:
	panic({0x2d61520?, 0x56b1820?})
		runtime/panic.go:860 +0x13a
 >
panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]
[signal SIGSEGV: segmentation violation code=0x1 addr=0x28 pc=0x226d00e]

goroutine 801 [running]:
k8s.io/apimachinery/pkg/util/runtime.handleCrash({0x35172c8, 0x3e31095cae00}, {0x2d61520, 0x56b1820}, {0x0, 0x0, 0x3e3109e02c70?})
	k8s.io/apimachinery@v0.35.3/pkg/util/runtime/runtime.go:114 +0x1a9
panic({0x2d61520?, 0x56b1820?})
	runtime/panic.go:860 +0x13a
sigs.k8s.io/kueue/pkg/cache/scheduler.(*CohortSnapshot).Root(0x3e3109e02e70?)
	sigs.k8s.io/kueue@v0.17.0/pkg/cache/scheduler/cohort_snapshot.go:41 +0xe
sigs.k8s.io/kueue/pkg/scheduler/preemption.runFirstFsStrategy(0x3e3109e03368, {0x3e310a3ab4b0, 0x2, 0x2}, 0x34c8c38)
`
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "runtime error: invalid memory address or nil pointer dereference in sigs.k8s.io/kueue/pkg/cache/scheduler.(*CohortSnapshot).Root"
	if got := lastPanic(log); got != want {
		t.Errorf("lastPanic = %q, want %q", got, want)
	}
	if got := lastPanic(filepath.Join(t.TempDir(), "none.log")); !strings.HasPrefix(got, "no log") {
		t.Errorf("lastPanic of a missing log = %q", got)
	}
}

// An event that never settles is reported with how often each workload was
// evicted meanwhile: a livelock of preemptions shows as one name many times.
func TestUnsettledCountsEvictions(t *testing.T) {
	u := &unsettled{ns: "s6-4", after: 2 * time.Minute, evicted: []string{"w04", "w09", "w04", "w04"}}
	want := "namespace s6-4: Workloads still changing after 2m0s (evicted meanwhile: w04 3 times, w09 1 times)"
	if got := u.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	lost := &kueueLost{event: 19, why: u.Error()}
	if got := lost.Error(); !strings.HasPrefix(got, "Kueue's manager did not settle during event 19: namespace s6-4") {
		t.Errorf("lost: %q", got)
	}
}

// --kueue-feature-gates joins the gate Kueue's manager gets on its command
// line (it refuses gates given both there and in its Configuration).
func TestKueueGatesJoinTheCommandLine(t *testing.T) {
	args, err := withKueueGates([]string{"kueue", "--config", "c.yaml", "--feature-gates=VisibilityOnDemand=false"}, "PrioritySortingWithinCohort=false")
	if err != nil {
		t.Fatal(err)
	}
	if want := "--feature-gates=VisibilityOnDemand=false,PrioritySortingWithinCohort=false"; args[3] != want {
		t.Errorf("feature gates %q, want %q", args[3], want)
	}
	if _, err := withKueueGates(nil, "NotAGate"); err == nil {
		t.Error("a gate without a value was accepted")
	}
}

// With --two-resources every resource group covers cpu and memory, every
// flavor lists both in that order (as Kueue requires) with quotas the engine
// accepts, and most workloads, not all, ask for memory too.
func TestTwoResourceScenarios(t *testing.T) {
	withMemory, without := 0, 0
	for i := 0; i < 10; i++ {
		sc := newScenario(9, i, scenarioKinds{memory: true})
		s := scheduler.New(scheduler.Options{})
		groups := func(name string, rgs []kueue.ResourceGroup) {
			for _, g := range rgs {
				if !reflect.DeepEqual(g.CoveredResources, []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}) {
					t.Errorf("%s covers %v, want cpu and memory", name, g.CoveredResources)
				}
				for _, f := range g.Flavors {
					if len(f.Resources) != 2 || f.Resources[0].Name != corev1.ResourceCPU || f.Resources[1].Name != corev1.ResourceMemory {
						t.Errorf("%s flavor %s lists %v, want cpu then memory", name, f.Name, f.Resources)
					}
				}
			}
		}
		for _, c := range sc.cohorts {
			groups(c.Name, c.Spec.ResourceGroups)
			if err := s.UpsertCohort(c); err != nil {
				t.Errorf("%s: the engine refuses it: %v", c.Name, err)
			}
		}
		for _, cq := range sc.cqs {
			groups(cq.Name, cq.Spec.ResourceGroups)
			if err := s.UpsertClusterQueue(cq); err != nil {
				t.Errorf("%s: the engine refuses it: %v", cq.Name, err)
			}
		}
		for _, ev := range sc.events {
			if ev.create == nil {
				continue
			}
			if _, ok := ev.create.Spec.PodSets[0].Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]; ok {
				withMemory++
			} else {
				without++
			}
		}
	}
	if withMemory == 0 || without == 0 {
		t.Errorf("10 two-resource scenarios: %d workloads ask for memory, %d do not; want some of each", withMemory, without)
	}
}

// With --two-groups memory has a resource group of its own, with flavors of its
// own, on every ClusterQueue and every Cohort with quota; the engine takes
// them, and the cpu-only worlds of a seed are drawn as before.
func TestTwoGroupScenarios(t *testing.T) {
	for i := 0; i < 10; i++ {
		sc := newScenario(9, i, scenarioKinds{memory: true, groups: true})
		if len(sc.memFlavors) == 0 {
			t.Fatalf("%s: no flavor for memory's group", sc.name)
		}
		s := scheduler.New(scheduler.Options{})
		check := func(name string, rgs []kueue.ResourceGroup) {
			if len(rgs) != 2 || !reflect.DeepEqual(rgs[0].CoveredResources, []corev1.ResourceName{corev1.ResourceCPU}) ||
				!reflect.DeepEqual(rgs[1].CoveredResources, []corev1.ResourceName{corev1.ResourceMemory}) {
				t.Errorf("%s: resource groups %v, want cpu's and memory's", name, rgs)
				return
			}
			for _, f := range rgs[1].Flavors {
				if !strings.Contains(string(f.Name), "-m") {
					t.Errorf("%s: memory's group names flavor %s, not one of its own", name, f.Name)
				}
			}
		}
		for _, c := range sc.cohorts {
			if len(c.Spec.ResourceGroups) > 0 {
				check(c.Name, c.Spec.ResourceGroups)
			}
			if err := s.UpsertCohort(c); err != nil {
				t.Errorf("%s: the engine refuses it: %v", c.Name, err)
			}
		}
		for _, cq := range sc.cqs {
			check(cq.Name, cq.Spec.ResourceGroups)
			if err := s.UpsertClusterQueue(cq); err != nil {
				t.Errorf("%s: the engine refuses it: %v", cq.Name, err)
			}
		}
	}
	if got := admissionString("cq", "f1", "m2", 2, 3); got != "cq/f1+m2×2" {
		t.Errorf("admissionString with a memory flavor of its own = %q", got)
	}
	if got := admissionString("cq", "f1", "f1", 3, 3); got != "cq/f1" {
		t.Errorf("admissionString with memory in cpu's flavor = %q", got)
	}
}

// What settle waits on while a status churns: a pending workload's message
// rewritten changes nothing; an admission, or a condition's status or reason,
// does.
func TestDecisionSignatureIgnoresPendingMessages(t *testing.T) {
	wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "w04"},
		Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "main", Count: 1}}}}
	pending := func(msg string) *kueue.Workload {
		c := wl.DeepCopy()
		apimeta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
			Status: metav1.ConditionFalse, Reason: "Pending", Message: msg})
		return c
	}
	a, b := pending("insufficient unused quota for cpu"), pending("insufficient unused quota for memory")
	if decisionSignature(a) != decisionSignature(b) {
		t.Errorf("a new pending message changed the signature: %q vs %q", decisionSignature(a), decisionSignature(b))
	}
	admitted := a.DeepCopy()
	admitted.Status.Admission = &kueue.Admission{ClusterQueue: "cq", PodSetAssignments: []kueue.PodSetAssignment{{Name: "main",
		Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: "f1"}}}}
	apimeta.SetStatusCondition(&admitted.Status.Conditions, metav1.Condition{Type: kueue.WorkloadQuotaReserved,
		Status: metav1.ConditionTrue, Reason: "QuotaReserved"})
	if decisionSignature(admitted) == decisionSignature(a) {
		t.Error("an admission left the signature unchanged")
	}
	evicted := admitted.DeepCopy()
	apimeta.SetStatusCondition(&evicted.Status.Conditions, metav1.Condition{Type: kueue.WorkloadEvicted,
		Status: metav1.ConditionTrue, Reason: "Preempted"})
	if decisionSignature(evicted) == decisionSignature(admitted) {
		t.Error("an eviction left the signature unchanged")
	}
}

// A difference's report shows a Cohort's quotas as a ClusterQueue's: groups
// apart, every resource after the first after a slash, and limits, which a
// Cohort with quota may have too.
func TestWriteQuotasShowsGroupsAndLimits(t *testing.T) {
	groups := []kueue.ResourceGroup{
		{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory},
			Flavors: []kueue.FlavorQuotas{{Name: "f1", Resources: []kueue.ResourceQuota{
				{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("4"), BorrowingLimit: ptr.To(resource.MustParse("2"))},
				{Name: corev1.ResourceMemory, NominalQuota: resource.MustParse("2Gi")},
			}}}},
		{CoveredResources: []corev1.ResourceName{"example.com/gpu"},
			Flavors: []kueue.FlavorQuotas{{Name: "g1", Resources: []kueue.ResourceQuota{
				{Name: "example.com/gpu", NominalQuota: resource.MustParse("1"), LendingLimit: ptr.To(resource.MustParse("0"))},
			}}}},
	}
	var b strings.Builder
	writeQuotas(&b, groups)
	if got, want := b.String(), " f1:4,borrow<=2/2Gi | g1:1,lend<=0"; got != want {
		t.Errorf("writeQuotas = %q, want %q", got, want)
	}
}

// A difference's report shows the fair-sharing weights of ClusterQueues and
// Cohorts: under fair sharing they decide as much as the quotas do.
func TestDescribeWorldShowsFairSharingWeights(t *testing.T) {
	sc := newScenario(30, 7, scenarioKinds{fair: true, memory: true, groups: true})
	weighted := 0
	for _, cq := range sc.cqs {
		if cq.Spec.FairSharing != nil && cq.Spec.FairSharing.Weight != nil {
			weighted++
			line := fmt.Sprintf("  %s cohort=", cq.Name)
			got := describeWorld(sc)
			i := strings.Index(got, line)
			if i < 0 {
				t.Fatalf("no line for %s in\n%s", cq.Name, got)
			}
			end := strings.Index(got[i:], "\n")
			if want := " weight=" + cq.Spec.FairSharing.Weight.String(); !strings.Contains(got[i:i+end], want) {
				t.Errorf("%s's line %q lacks %q", cq.Name, got[i:i+end], want)
			}
		}
	}
	if weighted == 0 {
		t.Fatal("the scenario has no weighted ClusterQueue: pick another")
	}
}

// A difference's report shows what decides a workload's room besides its
// requests: its minCount (partial admission) and its reclaimable pods.
func TestDescribeWorkloadsShowsMinCountAndReclaimablePods(t *testing.T) {
	wl := kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "w04", CreationTimestamp: metav1.NewTime(time.Date(2026, 12, 5, 23, 48, 32, 0, time.UTC))},
		Spec: kueue.WorkloadSpec{QueueName: "lq", Priority: ptr.To[int32](10), PodSets: []kueue.PodSet{{
			Name: "main", Count: 3, MinCount: ptr.To[int32](2),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}}},
		}}},
		Status: kueue.WorkloadStatus{ReclaimablePods: []kueue.ReclaimablePod{{Name: "main", Count: 1}}},
	}
	got := describeWorkloads([]kueue.Workload{wl})
	want := "  w04 queue=lq priority=10 3 pod(s) (min 2) x 3 cpu, created 23:48:32: pending, 1 pod(s) reclaimable\n"
	if got != want {
		t.Errorf("describeWorkloads =\n%q\nwant\n%q", got, want)
	}
}
