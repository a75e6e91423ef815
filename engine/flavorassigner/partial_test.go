package flavorassigner

import (
	"testing"

	"quokka.dev/quokka/engine/workload"
)

// Kueue: pkg/scheduler/flavorassigner/podset_reducer_test.go, TestSearch.
// fits accepts counts whose total is at most the limit; the search must
// settle on the largest total it allows, reached by shrinking every pod set
// with a minCount in step.
func TestKueueReduceCounts(t *testing.T) {
	ps := func(count, minCount int32) workload.PodSet { return workload.PodSet{Count: count, MinCount: minCount} }
	four := []workload.PodSet{ps(5, 3), ps(5, 4), ps(5, 1), ps(5, 2)}
	var eightBig, oneBig []workload.PodSet
	for i := range 8 {
		eightBig = append(eightBig, ps(150_000, 1))
		if i == 0 {
			oneBig = append(oneBig, ps(150_000, 1))
		} else {
			oneBig = append(oneBig, ps(1, 0))
		}
	}
	cases := []struct {
		name      string
		podSets   []workload.PodSet
		limit     int32
		wantCount int32
		wantFound bool
	}{
		{name: "empty", limit: 10},
		// ps2's minCount equals its count: nothing may shrink.
		{name: "partial not available", podSets: []workload.PodSet{ps(1, 0), ps(2, 2)}, limit: 2},
		{name: "partial available", podSets: four, limit: 15, wantCount: 15, wantFound: true},
		{name: "one partial available", podSets: []workload.PodSet{ps(5, 3), ps(5, 0), ps(5, 0), ps(5, 0)}, limit: 19, wantCount: 19, wantFound: true},
		{name: "to min", podSets: four, limit: 10, wantCount: 10, wantFound: true},
		{name: "to max", podSets: four, limit: 20, wantCount: 20, wantFound: true},
		{name: "no overflow", podSets: eightBig, limit: 150_000, wantCount: 150_000, wantFound: true},
		{name: "max pods on 1.27", podSets: oneBig, limit: 150_000, wantCount: 150_000, wantFound: true},
		{name: "podset with replica count 0", podSets: []workload.PodSet{ps(0, 0)}, limit: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			count, found := ReduceCounts(tc.podSets, func(counts []int32) (int32, bool) {
				var total int32
				for _, c := range counts {
					total += c
				}
				return total, total <= tc.limit
			})
			if count != tc.wantCount || found != tc.wantFound {
				t.Errorf("ReduceCounts = %d, %v; want %d, %v", count, found, tc.wantCount, tc.wantFound)
			}
		})
	}
}

// Below a limit the search cannot reach (fewer pods than every minimum) it
// finds nothing, and the counts it tries never go below a pod set's minimum
// nor above its count.
func TestReduceCountsStaysWithinBounds(t *testing.T) {
	podSets := []workload.PodSet{{Count: 7, MinCount: 3}, {Count: 4}, {Count: 9, MinCount: 2}}
	_, found := ReduceCounts(podSets, func(counts []int32) (struct{}, bool) {
		for i, c := range counts {
			lo := podSets[i].MinCount
			if lo == 0 {
				lo = podSets[i].Count
			}
			if c < lo || c > podSets[i].Count {
				t.Fatalf("tried %v: pod set %d outside [%d, %d]", counts, i, lo, podSets[i].Count)
			}
		}
		return struct{}{}, counts[0]+counts[1]+counts[2] <= 8
	})
	if found {
		t.Fatal("found counts below the minimum total of 9")
	}
}
