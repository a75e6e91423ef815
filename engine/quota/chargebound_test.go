package quota

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
)

// Admissions written by hand may charge any usage a quantity can say. Summed
// as plain int64, three charges of MaxAmount in one queue (or in three queues
// later put under one Cohort) would wrap the queue's or the Cohort's usage
// negative, and a full queue would look empty. The cache bounds the total per
// cell at MaxChargedUsage: the charges beyond it are cut, every cell stays
// within the bound and consistent with the charges, a confirming charge of the
// same usage changes nothing, and releasing everything leaves nothing behind.
func TestChargesBeyondInt64AreBounded(t *testing.T) {
	c := New(Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	mustAccept(t, c, "cq1", c.UpsertClusterQueue(cpuQueue("cq1", "left", "10").Obj()))
	mustAccept(t, c, "cq2", c.UpsertClusterQueue(cpuQueue("cq2", "right", "10").Obj()))
	huge := func() resources.Amounts { return resources.Amounts{cpuDefault: resources.MaxAmount} }
	keys := []types.NamespacedName{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "b"}, {Namespace: "ns", Name: "c"}, {Namespace: "ns", Name: "d"}}
	c.Charge(keys[0], "cq1", huge())
	c.Charge(keys[1], "cq1", huge())
	c.Charge(keys[2], "cq2", huge())
	c.Charge(keys[3], "missing", huge())
	check := func(what string) {
		t.Helper()
		if err := c.Verify(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var total int64
		for _, name := range []string{"cq1", "cq2"} {
			q, _ := c.ClusterQueue(name)
			u := q.usageAmounts()[cpuDefault]
			if u < 0 || u > MaxChargedUsage {
				t.Fatalf("%s: %s's usage %d is outside [0, %d]", what, name, u, MaxChargedUsage)
			}
			total += u
		}
		if total < 0 || total > MaxChargedUsage {
			t.Fatalf("%s: the queues' usage totals %d, outside [0, %d]", what, total, MaxChargedUsage)
		}
		for _, name := range c.CohortNames() {
			co, _ := c.Cohort(name)
			if u := co.usageAmounts()[cpuDefault]; u < 0 || u > MaxChargedUsage {
				t.Fatalf("%s: Cohort %s's usage %d is outside [0, %d]", what, name, u, MaxChargedUsage)
			}
		}
	}
	check("four charges of MaxAmount")
	q1, _ := c.ClusterQueue("cq1")
	if got := q1.usageAmounts()[cpuDefault]; got != MaxChargedUsage {
		t.Fatalf("cq1's usage is %d, want the bound %d (its first charge whole)", got, MaxChargedUsage)
	}
	if a := c.Available(q1, cpuDefault); a.Available > 0 {
		t.Fatalf("cq1 at the bound shows %+v available, want none", a)
	}

	// A confirming charge of the same usage keeps the content and Version.
	v := c.Version()
	c.Charge(keys[1], "cq1", huge())
	if c.Version() != v {
		t.Fatalf("confirming a cut charge changed Version from %d to %d", v, c.Version())
	}

	// All the queues under one Cohort: its usage is the queues', within the bound.
	mustAccept(t, c, "cq1 into all", c.UpsertClusterQueue(cpuQueue("cq1", "all", "10").Obj()))
	mustAccept(t, c, "cq2 into all", c.UpsertClusterQueue(cpuQueue("cq2", "all", "10").Obj()))
	mustAccept(t, c, "missing into all", c.UpsertClusterQueue(cpuQueue("missing", "all", "10").Obj()))
	check("the queues under one Cohort")

	// The first charge released, the room it leaves goes to the next charge.
	c.Release(keys[0])
	c.Charge(keys[0], "cq2", resources.Amounts{cpuDefault: 5000})
	check("a release and a small charge")
	q2, _ := c.ClusterQueue("cq2")
	if got := q2.usageAmounts()[cpuDefault]; got != 5000 {
		t.Fatalf("cq2's usage is %d, want the small charge's 5000 (the room left by the release)", got)
	}

	for _, k := range keys {
		c.Release(k)
	}
	check("everything released")
	if len(c.charged) != 0 {
		t.Fatalf("the totals keep %v after every release", c.charged)
	}
	for _, name := range []string{"cq1", "cq2", "missing"} {
		q, _ := c.ClusterQueue(name)
		if u := q.usageAmounts(); len(u) != 0 {
			t.Fatalf("%s keeps usage %v after every release", name, u)
		}
	}
}
