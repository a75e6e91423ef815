package quota

import (
	"testing"

	. "quokka.dev/quokka/engine/enginetest"
)

// Exactly at nominal quota is not borrowing: a queue whose usage plus the
// request equals its nominal quota does not borrow; one unit more borrows,
// from its Cohort (level 1).
//
// Queue q (nominal 4 GPUs, 1 in use) and a lender (8) share cohort c.
func TestExactlyAtNominalIsNotBorrowing(t *testing.T) {
	t.Parallel()
	c := New(Options{})
	c.UpsertResourceFlavor(MakeFlavor("h100").Obj())
	for _, err := range []error{
		c.UpsertClusterQueue(MakeClusterQueue("q").Cohort("c").Quota("h100", "nvidia.com/gpu", "4").Obj()),
		c.UpsertClusterQueue(MakeClusterQueue("lender").Cohort("c").Quota("h100", "nvidia.com/gpu", "8").Obj()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	chargeGPUs(c, "used", "q", 1)
	q := mustCQ(t, c, "q")
	for _, tc := range []struct {
		name      string
		request   int64
		borrowing bool
		height    int
	}{
		{"below nominal", 2, false, 0},
		{"usage + request == nominal", 3, false, 0},
		{"one unit above nominal", 4, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := q.BorrowingWith(h100GPU, tc.request); got != tc.borrowing {
				t.Errorf("BorrowingWith(%d) = %v, want %v", tc.request, got, tc.borrowing)
			}
			if h, _ := BorrowHeight(q, h100GPU, tc.request); h != tc.height {
				t.Errorf("BorrowHeight(%d) = %d, want %d", tc.request, h, tc.height)
			}
		})
	}
}
