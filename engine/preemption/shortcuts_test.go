package preemption

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

var gpu = resources.FlavorResource{Flavor: "default", Resource: "nvidia.com/gpu"}

// fullClassic is the classic search without its shortcuts (onlyWithBorrowing,
// beyondReach): every candidate collected, sorted and tried in every attempt.
func fullClassic(c *quota.Cache, q *quota.ClusterQueue, p *Preemptor, src Source) []Target {
	frs := needs(c, q, p.Assignment.Usage)
	if len(frs) == 0 {
		return nil
	}
	own := sameQueueCandidates(q, p, src, frs)
	var abuf [8]*quota.Cohort
	hier, prio := hierarchicalCandidates(c, q, p, src, frs, reclaimLevels(q, p, false, abuf[:]))
	for _, l := range [][]*classicCand{own, hier, prio} {
		slices.SortFunc(l, func(a, b *classicCand) int { return compareCandidates(a.Candidate, b.Candidate, q.Name()) })
	}
	order := append(append(append([]*classicCand{}, hier...), prio...), own...)
	if len(order) == 0 {
		return nil
	}
	for _, borrow := range attempts(q, frs, len(hier), len(prio)) {
		if t := attempt(c, q, p, frs, order, borrow); t != nil {
			return t
		}
	}
	return nil
}

// randomTree builds a two-level Cohort tree with random quotas, limits and
// preemption policies, and charges random workloads to its queues.
func randomTree(t *testing.T, rng *rand.Rand) (*quota.Cache, listSource) {
	t.Helper()
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	n := func(lo, hi int) string { return fmt.Sprint(lo + rng.IntN(hi-lo+1)) }
	limits := func(nominal string) []QuotaOption {
		var opts []QuotaOption
		if rng.IntN(2) == 0 {
			opts = append(opts, Borrowing(n(0, 6)))
		}
		if rng.IntN(3) == 0 {
			opts = append(opts, Lending(nominal))
		}
		return opts
	}
	policies := []kueue.PreemptionPolicy{kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyNever}
	within := []kueue.PreemptionPolicy{kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority, kueue.PreemptionPolicyNever}
	errs := []error{c.UpsertCohort(MakeCohort("org").Quota("default", "nvidia.com/gpu", n(0, 4)).Obj())}
	for _, name := range []string{"t1", "t2"} {
		nominal := n(0, 2)
		errs = append(errs, c.UpsertCohort(MakeCohort(name).Parent("org").Quota("default", "nvidia.com/gpu", nominal, limits(nominal)...).Obj()))
	}
	for _, qc := range [][2]string{{"q1", "t1"}, {"q2", "t1"}, {"q3", "t2"}, {"q4", "org"}} {
		name, cohort := qc[0], qc[1]
		gpus, cpus := n(0, 6), n(0, 8)
		cq := MakeClusterQueue(name).Cohort(cohort).
			Quota("default", "nvidia.com/gpu", gpus, limits(gpus)...).
			Quota("default", corev1.ResourceCPU, cpus, limits(cpus)...).
			Preemption(policies[rng.IntN(len(policies))], within[rng.IntN(len(within))])
		switch rng.IntN(3) {
		case 0:
			cq = cq.BorrowWithinCohort(nil)
		case 1:
			threshold := int32(rng.IntN(4))
			cq = cq.BorrowWithinCohort(&threshold)
		}
		errs = append(errs, c.UpsertClusterQueue(cq.Obj()))
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	src := listSource{}
	queues := []string{"q1", "q2", "q3", "q4"}
	for i := range 3 + rng.IntN(12) {
		k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("w", i)}
		usage := resources.Amounts{gpu: int64(1 + rng.IntN(4))}
		if rng.IntN(2) == 0 {
			usage[cpu] = int64(1000 * (1 + rng.IntN(3)))
		}
		cq := queues[rng.IntN(len(queues))]
		cand := &Candidate{Key: k, UID: types.UID(k.String()), ClusterQueue: cq, Priority: int32(rng.IntN(4)),
			Created: time.Unix(int64(rng.IntN(50)), 0), AdmittedAt: time.Unix(int64(100+rng.IntN(50)), 0), Usage: usage}
		c.Charge(k, cq, usage)
		src[cq] = append(src[cq], cand)
	}
	return c, src
}

// The classic search's shortcuts must never change its answer: leaving out
// the candidates only priority allows when the one attempt made allows
// borrowing (onlyWithBorrowing), and skipping every attempt that would not
// make room even with all the candidates it may take gone (beyondReach), and
// ending the search before listing other queues' candidates when even their
// queues' whole usage would not make room (othersOutOfReach). Each
// random case is searched with and without them; the victims and their
// reasons must be the same, and the cases must exercise every shortcut and
// searches that succeed.
func TestPropertySearchShortcutsDecideAsTheFullSearch(t *testing.T) {
	var hierOnly, outOfReach, perAttempt, early, found int
	for seed := uint64(1); seed <= 3000; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		c, src := randomTree(t, rng)
		q, _ := c.ClusterQueue(fmt.Sprint("q", 1+rng.IntN(4)))
		usage := resources.Amounts{gpu: int64(1 + rng.IntN(8))}
		if rng.IntN(2) == 0 {
			usage[cpu] = int64(1000 * rng.IntN(5))
		}
		p := &Preemptor{Key: types.NamespacedName{Namespace: "ns", Name: "preemptor"}, UID: "preemptor",
			Priority: int32(rng.IntN(5)), Created: time.Unix(int64(rng.IntN(50)), 0),
			Assignment: &flavorassigner.Assignment{Usage: usage}}

		want := fullClassic(c, q, p, src)
		got := Find(c, q, p, src, Options{})
		if fmt.Sprint(targetsOf(got)) != fmt.Sprint(targetsOf(want)) {
			t.Fatalf("seed %d: preemptor %v in %s: victims %v, the full search finds %v", seed, usage, q.Name(), targetsOf(got), targetsOf(want))
		}
		if err := c.Verify(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}

		frs := needs(c, q, usage)
		if len(frs) == 0 {
			continue
		}
		own := sameQueueCandidates(q, p, src, frs)
		var abuf [8]*quota.Cohort
		if othersOutOfReach(c, q, p, frs, reclaimLevels(q, p, onlyWithBorrowing(q, frs, nil), abuf[:]), own) {
			early++
		}
		hier, prio := hierarchicalCandidates(c, q, p, src, frs, reclaimLevels(q, p, false, abuf[:]))
		if onlyWithBorrowing(q, frs, nil) && len(prio) > 0 {
			hierOnly++
		}
		if len(own)+len(hier)+len(prio) == 0 {
			continue
		}
		out := true
		for _, borrow := range attempts(q, frs, len(hier), len(prio)) {
			out = out && beyondReach(c, q, usage, frs, borrow, own, hier, prio)
		}
		if out {
			outOfReach++
			if !beyondAllUsage(c, q, usage, frs, own, hier, prio) {
				perAttempt++
			}
		}
		if len(want) > 0 {
			found++
		}
	}
	if hierOnly == 0 || perAttempt == 0 || early == 0 || found == 0 {
		t.Fatalf("the cases do not exercise every path: %d skipped priority candidates, %d out of reach (%d only attempt by attempt, %d before listing other queues' candidates), %d found victims",
			hierOnly, outOfReach, perAttempt, early, found)
	}
	t.Logf("%d searches skipped priority candidates, %d were out of reach (%d only attempt by attempt, %d before listing other queues' candidates), %d found victims",
		hierOnly, outOfReach, perAttempt, early, found)
}

// beyondAllUsage is the bound beyondReach sharpens: the request exceeds what
// q has available plus everything every candidate uses, whatever the attempt.
func beyondAllUsage(c *quota.Cache, q *quota.ClusterQueue, usage resources.Amounts, frs map[resources.FlavorResource]bool, groups ...[]*classicCand) bool {
	for fr := range frs {
		reach := c.Available(q, fr).Available
		for _, g := range groups {
			for _, cand := range g {
				reach += cand.Usage[fr]
			}
		}
		if usage[fr] > reach {
			return true
		}
	}
	return false
}

func targetsOf(ts []Target) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Key.Name+"/"+t.Reason)
	}
	return out
}
