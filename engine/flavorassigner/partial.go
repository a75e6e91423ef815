package flavorassigner

import (
	"sort"

	"quokka.dev/quokka/engine/workload"
)

// ReduceCounts is Kueue's search for a partial admission (its
// PodSetReducer): it walks every pod set with a minCount down from its count
// towards that minimum, all of them in step, and returns the result of fits
// for the largest counts it accepts. Step i of totalDelta (the sum of every
// pod set's count minus its minimum) takes delta×i/totalDelta pods off each
// pod set, rounded down, so pod sets shrink in proportion to how far they
// may. The search is Kueue's binary search over those steps (sort.Search),
// which assumes that fewer pods never fit worse; where fits is not monotone
// it decides as Kueue's does, and it reports a result only when the last
// accepted step is the one the search settles on.
//
// It reports nothing when no pod set may shrink. Step 0 is the full counts,
// which the caller has already tried; the search may ask for it again, as
// Kueue's does.
func ReduceCounts[R any](podSets []workload.PodSet, fits func(counts []int32) (R, bool)) (R, bool) {
	var best R
	full := make([]int32, len(podSets))
	deltas := make([]int32, len(podSets))
	var total int32
	for i := range podSets {
		ps := &podSets[i]
		full[i] = ps.Count
		if ps.MinCount > 0 && ps.MinCount < ps.Count {
			deltas[i] = ps.Count - ps.MinCount
			total += deltas[i]
		}
	}
	if total == 0 {
		return best, false
	}
	counts := make([]int32, len(podSets))
	lastGood := 0
	idx := sort.Search(int(total)+1, func(step int) bool {
		for i, d := range deltas {
			// In 64 bits: a count of 150,000 times as many steps overflows
			// 32 (Kueue's "no overflow" case).
			counts[i] = full[i] - int32(int64(d)*int64(step)/int64(total))
		}
		r, ok := fits(counts)
		if ok {
			lastGood, best = step, r
		}
		return ok
	})
	if idx != lastGood {
		var none R
		return none, false
	}
	return best, true
}

// WithCounts is the pod sets with the given counts (see
// workload.PodSet.WithCount), for assigning flavors to a partial admission.
func WithCounts(podSets []workload.PodSet, counts []int32) []workload.PodSet {
	out := make([]workload.PodSet, len(podSets))
	for i := range podSets {
		out[i] = podSets[i].WithCount(counts[i])
	}
	return out
}
