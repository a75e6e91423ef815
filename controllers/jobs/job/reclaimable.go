package job

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
)

// Reclaimable pods, as Kueue's Job integration counts them: once a Job's
// remaining completions need fewer pods than its parallelism, the pods it
// will not run again are written to its Workload's status.reclaimablePods,
// and the core gives their quota back while the Job still runs.

// reclaimablePods is Kueue's Job.ReclaimablePods: parallelism less the
// remaining completions, once some pod is terminal and the remaining ones
// need fewer pods than the parallelism; nil otherwise. An Indexed Job's
// terminal pods are its completed indexes and those failed for good
// (backoffLimitPerIndex exhausted), counted once each; a NonIndexed Job's
// are its succeeded pods.
func reclaimablePods(job *batchv1.Job) []kueue.ReclaimablePod {
	parallelism := ptr.Deref(job.Spec.Parallelism, 1)
	completions := ptr.Deref(job.Spec.Completions, parallelism)
	terminal := job.Status.Succeeded
	if ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion {
		terminal = terminalIndexes(job.Status.CompletedIndexes, ptr.Deref(job.Status.FailedIndexes, ""), completions)
	}
	if parallelism <= 1 || terminal <= 0 {
		return nil
	}
	remaining := max(completions-terminal, 0)
	if remaining >= parallelism {
		return nil
	}
	return []kueue.ReclaimablePod{{Name: kueue.DefaultPodSetName, Count: parallelism - remaining}}
}

// terminalIndexes counts the indexes below completions that the two
// interval lists ("0-3,5") name, each once (the lists may overlap). Intervals
// the Job controller would not write (malformed or descending) are ignored.
func terminalIndexes(completed, failed string, completions int32) int32 {
	if completions <= 0 {
		return 0
	}
	var intervals [][2]int
	for _, list := range []string{completed, failed} {
		if list == "" {
			continue
		}
		for interval := range strings.SplitSeq(list, ",") {
			first, last, ok := indexInterval(interval)
			if last = min(last, int(completions)-1); ok && first <= last {
				intervals = append(intervals, [2]int{first, last})
			}
		}
	}
	slices.SortFunc(intervals, func(a, b [2]int) int { return a[0] - b[0] })
	count, counted := 0, -1
	for _, iv := range intervals {
		if from := max(iv[0], counted+1); from <= iv[1] {
			count += iv[1] - from + 1
			counted = iv[1]
		}
	}
	return int32(count)
}

// indexInterval parses "3" or "3-5" into its inclusive bounds.
func indexInterval(s string) (first, last int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	first, err := strconv.Atoi(a)
	if err != nil || first < 0 {
		return 0, 0, false
	}
	last = first
	if isRange {
		if last, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return first, last, last >= first
}

// withinPodSets holds each count to its pod set's size, dropping entries of
// pod sets the Workload does not have: the API server refuses both.
func withinPodSets(wl *kueue.Workload, rps []kueue.ReclaimablePod) []kueue.ReclaimablePod {
	var out []kueue.ReclaimablePod
	for _, rp := range rps {
		for _, ps := range wl.Spec.PodSets {
			if ps.Name == rp.Name {
				out = append(out, kueue.ReclaimablePod{Name: rp.Name, Count: min(rp.Count, ps.Count)})
			}
		}
	}
	return out
}

// reclaimableMap is a reclaimablePods list as counts by pod set.
func reclaimableMap(rps []kueue.ReclaimablePod) map[kueue.PodSetReference]int32 {
	m := make(map[kueue.PodSetReference]int32, len(rps))
	for _, rp := range rps {
		m[rp.Name] = rp.Count
	}
	return m
}

// lowers tells whether want takes away or lowers a count that have has: the
// API server refuses that while the Workload holds quota.
func lowers(have, want map[kueue.PodSetReference]int32) bool {
	for name, n := range have {
		if m, ok := want[name]; !ok || m < n {
			return true
		}
	}
	return false
}

// syncReclaimable writes the Job's reclaimable pods to its Workload when they
// differ, as Kueue's job framework does before anything else for a running
// Job; it tells whether it wrote. A change the API server would refuse (a
// count going down while quota is reserved: a Job admitted again with fewer
// pods after an eviction) is left as it is, as the pods it counted are still
// done.
func (r *Reconciler) syncReclaimable(ctx context.Context, job *batchv1.Job, wl *kueue.Workload) (bool, error) {
	want := withinPodSets(wl, reclaimablePods(job))
	have, wantM := reclaimableMap(wl.Status.ReclaimablePods), reclaimableMap(want)
	if maps.Equal(have, wantM) {
		return false, nil
	}
	if meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved) && lowers(have, wantM) {
		log.FromContext(ctx).V(3).Info("reclaimable pods would go down while quota is reserved; kept",
			"workload", wl.Name, "have", have, "want", wantM)
		return false, nil
	}
	slices.SortFunc(want, func(a, b kueue.ReclaimablePod) int { return strings.Compare(string(a.Name), string(b.Name)) })
	wl.Status.ReclaimablePods = want
	if err := r.Client.Status().Update(ctx, wl); err != nil {
		return false, fmt.Errorf("updating reclaimable pods of workload %s/%s: %w", wl.Namespace, wl.Name, err)
	}
	log.FromContext(ctx).V(2).Info("updated reclaimable pods", "workload", wl.Name, "reclaimablePods", wantM)
	return true, nil
}
