package scheduler

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	config "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// Ports of Kueue's fair-sharing preemption tables. Kueue asks the preemptor
// directly for targets given a flavor assignment in preemption mode; here the
// same world goes through one Cycle, and the Preempt decision's victims (with
// their reasons) must be the targets Kueue picks, or there must be none.

// kfNS is the namespace of every workload and LocalQueue of these ports.
const kfNS = "default"

const kfCPU = corev1.ResourceCPU

var (
	kfAny    = kueue.PreemptionPolicyAny
	kfLower  = kueue.PreemptionPolicyLowerPriority
	kfNever  = kueue.PreemptionPolicyNever
	kfMinus3 = int32(-3)
)

// kfAdmitted is a workload that holds quota in cq: cpu per pod in flavor, one
// pod, admitted at Epoch (all of Kueue's admitted workloads of a case share one
// admission time). Its UID is its name, as Kueue's table sets it, so that the
// candidate order's last tie-break is the name.
func kfAdmitted(name, cq, flavor, cpu string, prio int32) *kueue.Workload {
	return MakeWorkload(kfNS, name).UID(name).Queue(cq).Priority(prio).Request(kfCPU, cpu).
		ReserveQuota(cq, flavor).QuotaReservedAt(0).Obj()
}

// kfUnit is Kueue's one-CPU admitted workload in flavor "default".
func kfUnit(name, cq string) *kueue.Workload {
	return kfAdmitted(name, cq, "default", "1", 0)
}

// kfUnitPrio is kfUnit with a priority.
func kfUnitPrio(name, cq string, prio int32) *kueue.Workload {
	return kfAdmitted(name, cq, "default", "1", prio)
}

// kfIncoming is the pending preemptor, queued to cq's LocalQueue.
func kfIncoming(name, cq, cpu string, prio int32) *kueue.Workload {
	return MakeWorkload(kfNS, name).UID(name).Queue(cq).Priority(prio).Request(kfCPU, cpu).Obj()
}

// kfBaseCQs are the table's shared queues: a, b and c with 3 CPUs each,
// preempting lower priority within and anything in the cohort, with
// borrowWithinCohort LowerPriority below -3; and "preemptible" with no quota.
func kfBaseCQs() []*kueue.ClusterQueue {
	var out []*kueue.ClusterQueue
	for _, n := range []string{"a", "b", "c"} {
		out = append(out, MakeClusterQueue(n).Cohort("all").Quota("default", kfCPU, "3").
			Preemption(kfAny, kfLower).BorrowWithinCohort(&kfMinus3).Obj())
	}
	return append(out, MakeClusterQueue("preemptible").Cohort("all").Quota("default", kfCPU, "0").Obj())
}

// kfThreeQueues is the named queues (of a, b, c) with 3 CPUs each, preempting lower priority within
// and anything in the cohort, each with the fair weight weights names ("" or
// absent for unset).
func kfThreeQueues(weights map[string]string, names ...string) []*kueue.ClusterQueue {
	var out []*kueue.ClusterQueue
	for _, n := range names {
		w := MakeClusterQueue(n).Cohort("all").Quota("default", kfCPU, "3").Preemption(kfAny, kfLower)
		if weights[n] != "" {
			w.FairWeight(weights[n])
		}
		out = append(out, w.Obj())
	}
	return out
}

// kfFairPreemptionCase is one row: the world, the pending preemptor and the
// victims Kueue picks, as victimNames renders them ("" for none).
type kfFairPreemptionCase struct {
	name       string
	flavors    []string // default: "default"
	cohorts    []*kueue.Cohort
	cqs        []*kueue.ClusterQueue
	strategies []config.PreemptionStrategy // nil: Kueue's default pair
	admitted   []*kueue.Workload
	incoming   *kueue.Workload
	want       string
}

// kfRunFairPreemption builds the case's world, runs one Cycle and checks the
// preemption decided for the incoming workload.
func kfRunFairPreemption(t *testing.T, tc kfFairPreemptionCase) {
	t.Helper()
	flavors := tc.flavors
	if flavors == nil {
		flavors = []string{"default"}
	}
	var objs []any
	for _, f := range flavors {
		objs = append(objs, MakeFlavor(f).Obj())
	}
	for _, c := range tc.cohorts {
		objs = append(objs, c)
	}
	for _, cq := range tc.cqs {
		objs = append(objs, cq, MakeLocalQueue(kfNS, cq.Name, cq.Name).Obj())
	}
	for _, w := range tc.admitted {
		objs = append(objs, w)
	}
	objs = append(objs, tc.incoming)
	s := world(t, Options{FairSharing: &config.FairSharing{PreemptionStrategies: tc.strategies}}, objs...)
	ds := s.Cycle(now)

	if got := admittedNames(ds); len(got) != 0 {
		t.Fatalf("admitted %v, want nothing admitted (the incoming workload needs preemption); decisions: %v", got, ds)
	}
	if got := victimNames(ds); got != tc.want {
		t.Fatalf("victims %q, want %q; decisions: %v", got, tc.want, ds)
	}
	ps := preempts(ds)
	in := key(tc.incoming.Namespace, tc.incoming.Name)
	if tc.want == "" {
		if len(ps) != 0 {
			t.Fatalf("preemptions %+v, want none", ps)
		}
		p, ok := pendingFor(ds, tc.incoming.Name)
		if !ok {
			t.Fatalf("%s: no pending decision; decisions: %v", tc.incoming.Name, ds)
		}
		if p.Reason == ReasonWaitingForPreemption {
			t.Fatalf("%s waits for a preemption, want no preemption; decisions: %v", tc.incoming.Name, ds)
		}
		return
	}
	if len(ps) != 1 || ps[0].Preemptor != in {
		t.Fatalf("preemptions %+v, want exactly one, by %s", ps, in)
	}
	mustPending(t, ds, tc.incoming.Name, ReasonWaitingForPreemption)
}

// Kueue: pkg/scheduler/preemption/preemption_fair_test.go, TestFairPreemptions.
func TestKueueFairPreemptions(t *testing.T) {
	fs := PreemptionInCohortFairSharing
	rc := PreemptionInCohortReclamation
	cq := PreemptionInClusterQueue
	v := func(name, reason string) string { return name + ":" + reason }
	join := func(vs ...string) string { // as victimNames renders them
		slices.Sort(vs)
		return strings.Join(vs, ",")
	}
	units := func(cq string, names ...string) []*kueue.Workload {
		var out []*kueue.Workload
		for _, n := range names {
			out = append(out, kfUnit(n, cq))
		}
		return out
	}
	cat := func(parts ...[]*kueue.Workload) []*kueue.Workload {
		var out []*kueue.Workload
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []kfFairPreemptionCase{
		{
			name: "reclaim nominal from user using the most",
			cqs:  kfBaseCQs(),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3", "b4", "b5"),
				units("c", "c1")),
			incoming: kfIncoming("c_incoming", "c", "1", 0),
			want:     v("b1", rc),
		},
		{
			// Kueue's incoming workload carries a stale admission to a; it is the
			// preemptor of c all the same, so here it is simply pending in c.
			name: "can reclaim from queue using less, if taking the latest workload from user using the most isn't enough",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "3", 0),
				kfAdmitted("a2", "a", "default", "1", 0),
				kfAdmitted("b1", "b", "default", "2", 0),
				kfAdmitted("b2", "b", "default", "3", 0),
			},
			incoming: kfIncoming("c_incoming", "c", "3", 0),
			want:     v("a1", rc),
		},
		{
			name: "reclaim borrowable quota from user using the most",
			cqs:  kfBaseCQs(),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3", "b4", "b5"),
				units("c", "c1")),
			incoming: kfIncoming("a_incoming", "a", "1", 0),
			want:     v("b1", fs),
		},
		{
			name: "preempt one from each CQ borrowing",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "0.5", 0),
				kfAdmitted("a2", "a", "default", "0.5", 0),
				kfAdmitted("a3", "a", "default", "3", 0),
				kfAdmitted("b1", "b", "default", "0.5", 0),
				kfAdmitted("b2", "b", "default", "0.5", 0),
				kfAdmitted("b3", "b", "default", "3", 0),
			},
			incoming: kfIncoming("c_incoming", "c", "2", 0),
			want:     join(v("a1", rc), v("b1", rc)),
		},
		{
			name: "can't preempt when everyone under nominal",
			cqs:  kfBaseCQs(),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3"),
				units("c", "c1", "c2", "c3")),
			incoming: kfIncoming("c_incoming", "c", "1", 0),
		},
		{
			name:     "can't preempt when it would switch the imbalance",
			cqs:      kfBaseCQs(),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3", "b4", "b5")),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
		},
		{
			name: "can preempt lower priority workloads from same CQ",
			cqs:  kfBaseCQs(),
			admitted: cat([]*kueue.Workload{kfUnitPrio("a1_low", "a", -1), kfUnitPrio("a2_low", "a", -1)},
				units("a", "a3", "a4"), units("b", "b1", "b2", "b3", "b4", "b5")),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     join(v("a1_low", cq), v("a2_low", cq)),
		},
		{
			name: "can preempt a combination of same CQ and highest user",
			cqs:  kfBaseCQs(),
			admitted: cat([]*kueue.Workload{kfUnitPrio("a_low", "a", -1)}, units("a", "a2", "a3"),
				units("b", "b1", "b2", "b3", "b4", "b5", "b6")),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     join(v("a_low", cq), v("b1", fs)),
		},
		{
			name:     "preempt huge workload if there is no other option, as long as the target CQ gets a lower share",
			cqs:      kfBaseCQs(),
			admitted: []*kueue.Workload{kfAdmitted("b1", "b", "default", "9", 0)},
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     v("b1", rc),
		},
		{
			name: "can't preempt huge workload if the incoming is also huge",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "2", 0),
				kfAdmitted("b1", "b", "default", "7", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "5", 0),
		},
		{
			name: "can't preempt 2 smaller workloads if the incoming is huge",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("b1", "b", "default", "2", 0),
				kfAdmitted("b2", "b", "default", "2", 0),
				kfAdmitted("b3", "b", "default", "3", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "6", 0),
		},
		{
			name: "preempt from target and others even if over nominal",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("a1_low", "a", "default", "2", -1),
				kfAdmitted("a2_low", "a", "default", "1", -1),
				kfAdmitted("b1", "b", "default", "3", 0),
				kfAdmitted("b2", "b", "default", "3", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "4", 0),
			want:     join(v("a1_low", cq), v("b1", fs)),
		},
		{
			// b1 would also pass LessThanInitialShare, but
			// LessThanOrEqualToFinalShare already picks b2.
			name: "prefer to preempt workloads that don't make the target CQ have the biggest share",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("b1", "b", "default", "2", 0),
				kfAdmitted("b2", "b", "default", "1", 0),
				kfAdmitted("b3", "b", "default", "2", 0),
				kfAdmitted("c1", "c", "default", "1", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "3.5", 0),
			want:     v("b2", fs),
		},
		{
			name: "preempt from different cluster queues if the end result has a smaller max share",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("b1", "b", "default", "2", 0),
				kfAdmitted("b2", "b", "default", "2.5", 0),
				kfAdmitted("c1", "c", "default", "2", 0),
				kfAdmitted("c2", "c", "default", "2.5", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "3.5", 0),
			want:     join(v("b1", fs), v("c1", fs)),
		},
		{
			name: "scenario above does not flap",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "3.5", 0),
				kfAdmitted("b2", "b", "default", "2.5", 0),
				kfAdmitted("c2", "c", "default", "2.5", 0),
			},
			incoming: kfIncoming("b_incoming", "b", "2", 0),
		},
		{
			name: "cannot preempt if it would make the candidate CQ go under nominal after preempting one element",
			cqs:  kfBaseCQs(),
			admitted: []*kueue.Workload{
				kfAdmitted("b1", "b", "default", "3", 0),
				kfAdmitted("b2", "b", "default", "3", 0),
				kfAdmitted("c1", "c", "default", "3", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "4", 0),
		},
		{
			// borrowWithinCohort plays no part under fair sharing: workloads
			// below its priority threshold are not preempted unless the shares
			// say so.
			name: "workloads under priority threshold not capriciously preempted",
			cqs:  kfBaseCQs(),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3"), []*kueue.Workload{
				kfUnitPrio("preemptible1", "preemptible", -3),
				kfUnitPrio("preemptible2", "preemptible", -3),
				kfUnitPrio("preemptible3", "preemptible", -3),
			}),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
		},
		{
			name:       "preempt lower priority first, even if big",
			cqs:        kfBaseCQs(),
			strategies: []config.PreemptionStrategy{config.LessThanInitialShare},
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "3", 0),
				kfAdmitted("b_low", "b", "default", "5", 0),
				kfAdmitted("b_high", "b", "default", "1", 1),
			},
			incoming: kfIncoming("a_incoming", "a", "1", 0),
			want:     v("b_low", fs),
		},
		{
			name:       "preempt workload that doesn't transfer the imbalance, even if high priority",
			cqs:        kfBaseCQs(),
			strategies: []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare},
			admitted: []*kueue.Workload{
				kfAdmitted("a1", "a", "default", "3", 0),
				kfAdmitted("b_low", "b", "default", "5", 0),
				kfAdmitted("b_high", "b", "default", "1", 1),
			},
			incoming: kfIncoming("a_incoming", "a", "1", 0),
			want:     v("b_high", fs),
		},
		{
			name:     "CQ with higher weight can preempt more",
			cqs:      kfThreeQueues(map[string]string{"a": "2"}, "a", "b", "c"),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3", "b4", "b5", "b6")),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     join(v("b1", fs), v("b2", fs)),
		},
		{
			name:     "can preempt anything borrowing from CQ with 0 weight",
			cqs:      kfThreeQueues(map[string]string{"b": "0"}, "a", "b", "c"),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3", "b4", "b5", "b6")),
			incoming: kfIncoming("a_incoming", "a", "3", 0),
			want:     join(v("b1", fs), v("b2", fs), v("b3", fs)),
		},
		{
			name:     "can't preempt nominal from CQ with 0 weight",
			cqs:      kfThreeQueues(map[string]string{"b": "0"}, "a", "b"),
			admitted: cat(units("a", "a1", "a2", "a3"), units("b", "b1", "b2", "b3")),
			incoming: kfIncoming("a_incoming", "a", "1", 0),
		},
		{
			name: "can't preempt nominal from Cohort with 0 weight",
			cohorts: []*kueue.Cohort{
				MakeCohort("right-cohort").Parent("root").FairWeight("0").Quota("default", kfCPU, "1").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("left-cq").Cohort("root").Quota("default", kfCPU, "0").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("right-cq").Cohort("right-cohort").Quota("default", kfCPU, "0").
					Preemption(kfAny, kfNever).FairWeight("0").Obj(),
			},
			admitted: units("right-cq", "right-1"),
			incoming: kfIncoming("left-1", "left-cq", "1", 0),
		},
		{
			name: "can preempt within cluster queue when no cohort",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Quota("default", kfCPU, "1").Preemption(kfNever, kfLower).Obj(),
			},
			admitted: units("a", "a1"),
			incoming: kfIncoming("a_incoming", "a", "1", 1000),
			want:     v("a1", cq),
		},
		{
			// ROOT, LEFT and RIGHT provide 5 CPUs each and every queue 1; a and
			// LEFT weigh 2, e 0.99 so that e goes before d.
			name: "hierarchical preemption",
			cohorts: []*kueue.Cohort{
				MakeCohort("ROOT").Quota("default", kfCPU, "5").Obj(),
				MakeCohort("LEFT").Parent("ROOT").FairWeight("2").Quota("default", kfCPU, "5").Obj(),
				MakeCohort("RIGHT").Parent("ROOT").Quota("default", kfCPU, "5").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("LEFT").FairWeight("2").Quota("default", kfCPU, "1").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("LEFT").Quota("default", kfCPU, "1").Obj(),
				MakeClusterQueue("c").Cohort("ROOT").Quota("default", kfCPU, "1").Obj(),
				MakeClusterQueue("d").Cohort("RIGHT").Quota("default", kfCPU, "1").Obj(),
				MakeClusterQueue("e").Cohort("RIGHT").FairWeight("0.99").Quota("default", kfCPU, "1").Obj(),
			},
			admitted: func() []*kueue.Workload {
				var out []*kueue.Workload
				for _, q := range []string{"b", "c", "d", "e"} {
					for p := int32(1); p <= 5; p++ {
						out = append(out, kfUnitPrio(q+string(rune('0'+p)), q, p))
					}
				}
				return out
			}(),
			incoming: kfIncoming("unit", "a", "5", 0),
			want:     join(v("b1", fs), v("b2", fs), v("c1", fs), v("c2", fs), v("e1", fs)),
		},
		{
			// b borrows, but RIGHT does not: b is protected, and a must preempt
			// its own workloads whatever the weights.
			name: "borrowing cq in non-borrowing cohort is protected",
			cohorts: []*kueue.Cohort{
				MakeCohort("ROOT").Obj(),
				MakeCohort("RIGHT").Parent("ROOT").FairWeight("0.1").Quota("default", kfCPU, "1").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("ROOT").FairWeight("10").Quota("default", kfCPU, "5").Preemption(kfAny, kfLower).Obj(),
				MakeClusterQueue("b").Cohort("RIGHT").FairWeight("0.1").Obj(),
			},
			admitted: []*kueue.Workload{
				kfUnitPrio("a1", "a", -1), kfUnitPrio("a2", "a", -1), kfUnitPrio("a3", "a", -1),
				kfUnitPrio("b1", "b", -1),
			},
			incoming: kfIncoming("unit", "a", "5", 0),
			want:     join(v("a1", cq), v("a2", cq), v("a3", cq)),
		},
		{
			// Preempting b1 would bring RIGHT to a share of 0, and it has a high
			// priority anyway: a must preempt its own workloads.
			name: "forced to preempt within clusterqueue because borrowing workload too important",
			cohorts: []*kueue.Cohort{
				MakeCohort("ROOT").Obj(),
				MakeCohort("RIGHT").Parent("ROOT").FairWeight("0.1").Quota("default", kfCPU, "3").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("ROOT").FairWeight("10").Quota("default", kfCPU, "5").Preemption(kfLower, kfLower).Obj(),
				MakeClusterQueue("b").Cohort("RIGHT").FairWeight("0.1").Obj(),
			},
			admitted: []*kueue.Workload{
				kfUnitPrio("a1", "a", -1), kfUnitPrio("a2", "a", -1), kfUnitPrio("a3", "a", -1),
				kfAdmitted("b1", "b", "default", "4", 100),
			},
			incoming: kfIncoming("unit", "a", "4", 0),
			want:     join(v("a1", cq), v("a2", cq), v("a3", cq)),
		},
		{
			// a wants capacity, b uses it and CCCC provides it; A weighs more
			// than B, so the preemption happens.
			name: "deep preemption",
			cohorts: []*kueue.Cohort{
				MakeCohort("ROOT").Obj(),
				MakeCohort("A").Parent("ROOT").FairWeight("1.01").Obj(),
				MakeCohort("AA").Parent("A").Obj(),
				MakeCohort("AAA").Parent("AA").Obj(),
				MakeCohort("B").Parent("ROOT").FairWeight("0.99").Obj(),
				MakeCohort("BB").Parent("B").Obj(),
				MakeCohort("BBB").Parent("BB").Obj(),
				MakeCohort("C").Parent("ROOT").Obj(),
				MakeCohort("CC").Parent("C").Obj(),
				MakeCohort("CCC").Parent("CC").Obj(),
				MakeCohort("CCCC").Parent("CCC").Quota("default", kfCPU, "1").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("AAA").Quota("default", kfCPU, "0").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("BBB").Quota("default", kfCPU, "0").Obj(),
			},
			admitted: units("b", "b1"),
			incoming: kfIncoming("a1", "a", "1", 0),
			want:     v("b1", fs),
		},
		{
			name: "cq with zero weight can reclaim nominal quota",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("ROOT").FairWeight("0.0").Quota("default", kfCPU, "1").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("ROOT").FairWeight("1.0").Quota("default", kfCPU, "0").Obj(),
			},
			admitted: units("b", "b1"),
			incoming: kfIncoming("a1", "a", "1", 0),
			want:     v("b1", rc),
		},
		{
			name: "cohort with zero weight can reclaim nominal quota",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Parent("ROOT").FairWeight("0.0").Quota("default", kfCPU, "1").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("A").FairWeight("0.0").Quota("default", kfCPU, "0").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("ROOT").FairWeight("1.0").Quota("default", kfCPU, "0").Obj(),
			},
			admitted: units("b", "b1"),
			incoming: kfIncoming("a1", "a", "1", 0),
			want:     v("b1", fs),
		},
		{
			// a holds 2 premium CPUs (within its nominal 3) and borrows 5 cheap
			// ones; b borrows 1 premium. a's share is the higher, but the
			// incoming premium CPU keeps a within nominal in premium, so it may
			// reclaim. Kueue hands the preemptor premium in preemption mode;
			// here a's flavor fungibility stops the search at premium.
			name:    "nominal first: workload fitting within nominal can preempt despite high aggregate DRS",
			flavors: []string{"premium", "cheap"},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("all").Quota("premium", kfCPU, "3").Quota("cheap", kfCPU, "0").
					Preemption(kfAny, kfNever).WhenCanBorrow(kueue.MayStopSearch).WhenCanPreempt(kueue.MayStopSearch).Obj(),
				MakeClusterQueue("b").Cohort("all").Quota("premium", kfCPU, "0").Quota("cheap", kfCPU, "6").Obj(),
			},
			admitted: []*kueue.Workload{
				kfAdmitted("a_prem1", "a", "premium", "1", 0),
				kfAdmitted("a_prem2", "a", "premium", "1", 0),
				kfAdmitted("a_cheap1", "a", "cheap", "1", 0),
				kfAdmitted("a_cheap2", "a", "cheap", "1", 0),
				kfAdmitted("a_cheap3", "a", "cheap", "1", 0),
				kfAdmitted("a_cheap4", "a", "cheap", "1", 0),
				kfAdmitted("a_cheap5", "a", "cheap", "1", 0),
				kfAdmitted("b_prem1", "b", "premium", "1", 0),
			},
			incoming: kfIncoming("a_incoming", "a", "1", 0),
			want:     v("b_prem1", rc),
		},
		{
			// a borrows on a weight of 0, so its share is infinite; b's is not:
			// neither strategy can pass.
			name: "zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight",
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("all").FairWeight("0").Quota("default", kfCPU, "1").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("all").FairWeight("1").Quota("default", kfCPU, "1").Obj(),
			},
			admitted: cat(units("a", "a1"), units("b", "b1", "b2")),
			incoming: kfIncoming("a_incoming", "a", "1", 0),
		},
		{
			// Both shares are infinite; the unweighted ratios decide.
			name: "zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight",
			cohorts: []*kueue.Cohort{
				MakeCohort("all").Quota("default", kfCPU, "3").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("all").FairWeight("0").Quota("default", kfCPU, "1").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("all").FairWeight("0").Quota("default", kfCPU, "0").Obj(),
			},
			admitted: units("b", "b1", "b2", "b3"),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     v("b1", fs),
		},
		{
			name: "non-zero weight borrowing preemptor preempts from a borrowing CQ",
			cohorts: []*kueue.Cohort{
				MakeCohort("all").Quota("default", kfCPU, "3").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("a").Cohort("all").FairWeight("1").Quota("default", kfCPU, "1").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("b").Cohort("all").FairWeight("1").Quota("default", kfCPU, "0").Obj(),
			},
			admitted: units("b", "b1", "b2", "b3"),
			incoming: kfIncoming("a_incoming", "a", "2", 0),
			want:     v("b1", fs),
		},
		{
			// ROOT has A (weight 0, 1 CPU; children p, the preemptor, and y, 2
			// CPUs each) and x (1 CPU). A borrows on a zero weight, so no x
			// candidate passes the first strategy at first; once y1 goes A
			// stops borrowing and x1 wins under the second.
			name: "candidates skipped by the first strategy are still available to the second strategy",
			cohorts: []*kueue.Cohort{
				MakeCohort("A").Parent("ROOT").FairWeight("0").Quota("default", kfCPU, "1").Obj(),
			},
			cqs: []*kueue.ClusterQueue{
				MakeClusterQueue("p").Cohort("A").FairWeight("1").Quota("default", kfCPU, "2").Preemption(kfAny, kfNever).Obj(),
				MakeClusterQueue("y").Cohort("A").FairWeight("1").Quota("default", kfCPU, "2").Obj(),
				MakeClusterQueue("x").Cohort("ROOT").FairWeight("1").Quota("default", kfCPU, "1").Obj(),
			},
			admitted: cat([]*kueue.Workload{
				kfAdmitted("p1", "p", "default", "2", 0),
				kfAdmitted("y1", "y", "default", "2", 0),
				kfAdmitted("y2", "y", "default", "2", 0),
			}, units("x", "x1", "x2")),
			incoming: kfIncoming("p_incoming", "p", "1", 0),
			want:     join(v("x1", fs), v("y1", fs)),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { kfRunFairPreemption(t, tc) })
	}
}

// Kueue: pkg/scheduler/preemption/preemption_fair_test.go,
// TestFairPreemptionSkipsUnsatisfiableTournament. Kueue's case counts how many
// candidates its log says were simulated; the decision itself is that nothing
// is preempted, whether the preemptor's weight is 0 (infinite share) or 1.
func TestKueueFairPreemptionSkipsUnsatisfiableTournament(t *testing.T) {
	for _, tc := range []struct {
		name, weight string
	}{
		{"zero weight preemptor: share is +Inf and the tournament is skipped", "0"},
		{"non-zero weight preemptor: share is finite so the tournament runs", "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kfRunFairPreemption(t, kfFairPreemptionCase{
				cqs: []*kueue.ClusterQueue{
					MakeClusterQueue("a").Cohort("all").FairWeight(tc.weight).Quota("default", kfCPU, "1").
						Preemption(kfAny, kfNever).Obj(),
					MakeClusterQueue("b").Cohort("all").FairWeight("1").Quota("default", kfCPU, "1").Obj(),
				},
				admitted: []*kueue.Workload{kfUnit("a1", "a"), kfUnit("b1", "b"), kfUnit("b2", "b")},
				incoming: kfIncoming("a_incoming", "a", "1", 0),
			})
		})
	}
}
