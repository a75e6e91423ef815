package preemption

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

// orderedWorkload is an admitted workload of the ordering cases: its CPUs
// are charged to its queue, and it is a candidate when its queue is listed.
type orderedWorkload struct {
	name, cq string
	cpus     int64
}

// Kueue: pkg/scheduler/preemption/fairsharing/ordering_test.go,
// TestMakeClusterQueueOrdering. Quokka's TargetClusterQueueOrdering is
// fairOrder (fairorder.go): next is Kueue's Iter step, pop its PopWorkload,
// drop its DropQueue. As in Kueue's test, no preemptor workload is charged
// and the candidates are given in the order of the admitted list; the
// queues' shares come from the admitted workloads' usage, which popping a
// candidate does not release.
func TestKueueMakeClusterQueueOrdering(t *testing.T) {
	cpuQueue := func(name, cohort, nominal string) *kueue.ClusterQueue {
		return MakeClusterQueue(name).Cohort(cohort).Quota("default", "cpu", nominal).Obj()
	}
	// preemptor (4), high and low (2 each) in cohort all.
	highLow := []*kueue.ClusterQueue{cpuQueue("preemptor", "all", "4"), cpuQueue("high", "all", "2"), cpuQueue("low", "all", "2")}
	cases := []struct {
		name         string
		queues       []*kueue.ClusterQueue
		cohorts      []*kueue.Cohort
		admitted     []orderedWorkload
		preemptor    string
		candidateCQs []string
		// actions, one per queue returned: "drop" drops it, anything
		// else (or none) pops its next candidate.
		actions   []string
		wantOrder []string
	}{
		{
			name:         "no cohort: preemptor CQ yielded for in-CQ preemption; repro for nil pointer panic issue",
			queues:       []*kueue.ClusterQueue{cpuQueue("preemptor", "", "4")},
			admitted:     []orderedWorkload{{"wl1", "preemptor", 1000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"preemptor"},
			wantOrder:    []string{"preemptor"},
		},
		{
			name:         "no cohort: DropQueue ends the iteration with candidates remaining",
			queues:       []*kueue.ClusterQueue{cpuQueue("preemptor", "", "4")},
			admitted:     []orderedWorkload{{"wl1", "preemptor", 1000}, {"wl2", "preemptor", 1000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"preemptor"},
			actions:      []string{"drop"},
			wantOrder:    []string{"preemptor"},
		},
		{
			// target is within its nominal quota (2 of 5): not borrowing.
			name:         "non-borrowing CQ is pruned even with candidates",
			queues:       []*kueue.ClusterQueue{cpuQueue("preemptor", "all", "4"), cpuQueue("target", "all", "5")},
			admitted:     []orderedWorkload{{"t1", "target", 2000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"target"},
			wantOrder:    nil,
		},
		{
			// high borrows 3 of 8, low 1 of 8.
			name:         "higher DRS CQ returned before lower DRS CQ",
			queues:       highLow,
			admitted:     []orderedWorkload{{"h1", "high", 5000}, {"l1", "low", 3000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"high", "low"},
			wantOrder:    []string{"high", "low"},
		},
		{
			// high keeps its share while it has candidates: the share
			// follows usage, not the candidates left.
			name:         "CQ with highest DRS returned again while it still has candidates",
			queues:       highLow,
			admitted:     []orderedWorkload{{"h1", "high", 3000}, {"h2", "high", 2000}, {"l1", "low", 3000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"high", "low"},
			wantOrder:    []string{"high", "high", "low"},
		},
		{
			name:         "drop queue prevents CQ from being returned again",
			queues:       highLow,
			admitted:     []orderedWorkload{{"h1", "high", 3000}, {"h2", "high", 2000}, {"l1", "low", 3000}},
			preemptor:    "preemptor",
			candidateCQs: []string{"high", "low"},
			actions:      []string{"drop", "pop"},
			wantOrder:    []string{"high", "low"},
		},
		{
			// root holds preemptor-cq (4) and cohorts left-cohort and
			// right-cohort, with left-cq and right-cq (2 each) using 5
			// and 3: left-cohort borrows more, so left-cq comes first.
			name: "hierarchical cohorts: higher-DRS subtree visited first",
			queues: []*kueue.ClusterQueue{
				cpuQueue("preemptor-cq", "root", "4"),
				cpuQueue("left-cq", "left-cohort", "2"),
				cpuQueue("right-cq", "right-cohort", "2"),
			},
			cohorts: []*kueue.Cohort{
				MakeCohort("root").Obj(),
				MakeCohort("left-cohort").Parent("root").Obj(),
				MakeCohort("right-cohort").Parent("root").Obj(),
			},
			admitted:     []orderedWorkload{{"lc1", "left-cq", 5000}, {"rc1", "right-cq", 3000}},
			preemptor:    "preemptor-cq",
			candidateCQs: []string{"left-cq", "right-cq"},
			wantOrder:    []string{"left-cq", "right-cq"},
		},
	}
	now := time.Now().Truncate(time.Second)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := quota.New(quota.Options{})
			c.UpsertResourceFlavor(MakeFlavor("default").Obj())
			for _, co := range tc.cohorts {
				if err := c.UpsertCohort(co); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range tc.queues {
				if err := c.UpsertClusterQueue(q); err != nil {
					t.Fatal(err)
				}
			}
			var cands []*Candidate
			for _, w := range tc.admitted {
				k := types.NamespacedName{Namespace: "ns", Name: w.name}
				usage := resources.Amounts{cpu: w.cpus}
				c.Charge(k, w.cq, usage)
				if slices.Contains(tc.candidateCQs, w.cq) {
					cands = append(cands, &Candidate{Key: k, UID: types.UID(w.name), ClusterQueue: w.cq, AdmittedAt: now, Usage: usage})
				}
			}
			q, ok := c.ClusterQueue(tc.preemptor)
			if !ok {
				t.Fatalf("no ClusterQueue %s", tc.preemptor)
			}

			ord := newFairOrder(q, cands)
			var got []string
			for target := ord.next(); target != nil; target = ord.next() {
				if len(got) > 50 {
					t.Fatal("more than 50 queues returned: the ordering does not end")
				}
				if len(got) < len(tc.actions) && tc.actions[len(got)] == "drop" {
					ord.drop(target)
				} else {
					ord.pop(target)
				}
				got = append(got, target.Name())
			}
			if !slices.Equal(got, tc.wantOrder) {
				t.Errorf("order %v, want %v", got, tc.wantOrder)
			}
		})
	}
}
