package quota

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"quokka.dev/quokka/engine/resources"
)

// A cellSet finds cells by scanning its list up to cellScanLimit cells and
// through a map beyond; either way a key made of other copies of the same
// names (as every decoded object carries) must find the cell the first key
// added, and add must never make a second cell for it.
func TestCellSetFindsByNameNotByCopy(t *testing.T) {
	for _, n := range []int{1, cellScanLimit, cellScanLimit + 1, 3 * cellScanLimit} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var s cellSet
			key := func(i int) resources.FlavorResource {
				// strings.Clone gives each key its own bytes.
				return resources.FlavorResource{
					Flavor:   strings.Clone(fmt.Sprintf("f%d", i%3)),
					Resource: corev1.ResourceName(strings.Clone(fmt.Sprintf("example.com/r%d", i))),
				}
			}
			cells := map[int]*cell{}
			for i := 0; i < n; i++ {
				cells[i] = s.add(key(i))
				cells[i].usage = int64(i + 1)
			}
			if s.len() != n {
				t.Fatalf("%d cells after adding %d keys", s.len(), n)
			}
			if (s.index != nil) != (n > cellScanLimit) {
				t.Fatalf("%d cells: map kept = %v, want %v", n, s.index != nil, n > cellScanLimit)
			}
			for i := 0; i < n; i++ {
				if got := s.get(key(i)); got != cells[i] {
					t.Fatalf("get(%v) = %p, want the cell added for it, %p", key(i), got, cells[i])
				}
				if got := s.add(key(i)); got != cells[i] {
					t.Fatalf("add(%v) made a second cell", key(i))
				}
			}
			if got := s.get(resources.FlavorResource{Flavor: "f0", Resource: "example.com/absent"}); got != nil {
				t.Fatalf("get of a key never added = %+v, want nil", got)
			}
			seen := 0
			for fr, c := range s.all() {
				if c.usage != int64(seen+1) || fr != key(seen) {
					t.Fatalf("all() yielded %v (usage %d) at %d: want the order of adding", fr, c.usage, seen)
				}
				seen++
			}
			if seen != n {
				t.Fatalf("all() yielded %d cells, want %d", seen, n)
			}
		})
	}
}
