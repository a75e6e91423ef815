package quota

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
)

// A node keeps one cell per flavor-resource it ever saw (node.go), so the
// copies it hands out must drop the cells that went back to zero: a queue
// whose workloads all finished reports no usage, as a fresh queue does, and a
// spec change keeps what the admitted workloads use.
func TestCellsReportOnlyWhatIsHeld(t *testing.T) {
	c := threeLevels(t)
	chargeGPUs(c, "a", "a1", 12)
	chargeGPUs(c, "b", "b1", 3)
	org, _ := c.Cohort("org")
	if got := mustCQ(t, c, "a1").UsageAll(); got[h100GPU] != 12 || len(got) != 1 {
		t.Fatalf("a1 usage %v, want only 12 GPUs", got)
	}

	// Changing a1's quota keeps its usage and the tree's sums.
	if err := c.UpsertClusterQueue(MakeClusterQueue("a1").Cohort("team-a").Quota("h100", "nvidia.com/gpu", "9").Obj()); err != nil {
		t.Fatal(err)
	}
	if got := mustCQ(t, c, "a1").Usage(h100GPU); got != 12 {
		t.Fatalf("a1 usage after its quota changed: %d, want 12", got)
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}

	c.Release(types.NamespacedName{Namespace: "ns", Name: "a"})
	c.Release(types.NamespacedName{Namespace: "ns", Name: "b"})
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a1", "b1"} {
		if got := mustCQ(t, c, name).UsageAll(); len(got) != 0 {
			t.Errorf("%s usage %v after every release, want none", name, got)
		}
	}
	for _, co := range []string{"org", "team-a"} {
		ch, _ := c.Cohort(co)
		if got := ch.Usage(); len(got) != 0 {
			t.Errorf("cohort %s usage %v after every release, want none", co, got)
		}
	}

	// A Cohort object deleted while still referenced keeps no quota of its
	// own: org's subtree is then only what its children lend, team-a its
	// lendingLimit of 4 (of its 9 + 2) and b1 its 6.
	c.DeleteCohort("org")
	if _, own := org.OwnQuota(h100GPU); own {
		t.Error("org still defines quota after its object was deleted")
	}
	if got := org.SubtreeQuota(); got[h100GPU] != 10 || len(got) != 1 {
		t.Errorf("org subtree quota %v, want 4 lent by team-a + 6 of b1", got)
	}
	if err := c.Verify(); err != nil {
		t.Fatal(err)
	}
}
