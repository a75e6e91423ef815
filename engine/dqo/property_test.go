package dqo

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// randomSubtree builds a random Cohort tree under "root" with ClusterQueues and Cohorts
// that list random subsets of pairs with random nominal quotas (often zero, often
// equal, so that ties and all-zero pairs happen).
func randomSubtree(rng *rand.Rand, pairs []resources.FlavorResource) ([]*v1beta2.ClusterQueue, []*v1beta2.Cohort) {
	cohorts := []*v1beta2.Cohort{makeCohort("root").Obj()}
	names := []string{"root"}
	for i := rng.Intn(5); i > 0; i-- {
		name := fmt.Sprintf("co-%d", len(names))
		w := makeCohort(name).Parent(names[rng.Intn(len(names))]).UID(fmt.Sprintf("u%d", rng.Intn(6)))
		if g, ok := randomGroup(rng, pairs); ok {
			w.Group(g...)
		}
		cohorts = append(cohorts, w.Obj())
		names = append(names, name)
	}
	var cqs []*v1beta2.ClusterQueue
	for i := 1 + rng.Intn(15); i > 0; i-- {
		w := makeCQ(fmt.Sprintf("cq-%d", i)).Cohort(names[rng.Intn(len(names))]).UID(fmt.Sprintf("u%d", rng.Intn(6)))
		if g, ok := randomGroup(rng, pairs); ok {
			w.Group(g...)
		}
		cqs = append(cqs, w.Obj())
	}
	// Something outside the subtree that must never be written.
	cqs = append(cqs, makeCQ("outsider").Cohort("elsewhere").Quota("f0", "cpu", "5").Obj())
	return cqs, cohorts
}

// randomGroup returns the flavors of one resource group covering cpu and gpu, each
// flavor picked with probability 1/2.
func randomGroup(rng *rand.Rand, pairs []resources.FlavorResource) ([]v1beta2.FlavorQuotas, bool) {
	var out []v1beta2.FlavorQuotas
	seen := map[string]bool{}
	for _, p := range pairs {
		if seen[p.Flavor] || rng.Intn(2) == 0 {
			seen[p.Flavor] = true
			continue
		}
		seen[p.Flavor] = true
		nominal := func() string {
			switch rng.Intn(4) {
			case 0:
				return "0"
			case 1:
				return "10"
			}
			return fmt.Sprint(rng.Intn(1000))
		}
		out = append(out, flavor(p.Flavor, quota("cpu", nominal()+"m"), quota(gpu, nominal())))
	}
	return out, len(out) > 0
}

// Property over whole distributions: for each orchestrated pair, the effective
// nominal quotas of its participants sum exactly to the capacity when some
// participant has a nonzero nominal quota (and are all zero otherwise), each is less
// than one unit from its exact proportional share, and shuffling the order in which
// ClusterQueues and Cohorts are listed changes nothing.
func TestDistributionProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(20260801))
	pairs := []resources.FlavorResource{{Flavor: "f0", Resource: "cpu"}, {Flavor: "f0", Resource: gpu}, {Flavor: "f1", Resource: "cpu"}, {Flavor: "f1", Resource: gpu}, {Flavor: "f2", Resource: "cpu"}, {Flavor: "f2", Resource: gpu}}
	d := makeDQO("prod").Provider("nodes", "").Root(cohortKind, "root").Obj()
	for iter := 0; iter < 3000; iter++ {
		cqs, cohorts := randomSubtree(rng, pairs)
		// f2 is not orchestrated; f1 reports no gpu.
		capacity := capacityOf(map[string]map[corev1.ResourceName]int64{
			"f0": {"cpu": rng.Int63n(1 << 40), gpu: rng.Int63n(100)},
			"f1": {"cpu": rng.Int63n(1000)},
		})
		r := distributeOver(d, capacity, cqs, cohorts)
		if !r.Distributed() {
			t.Fatalf("case %d: %+v", iter, r.Condition)
		}
		checkDistribution(t, iter, r, cqs, cohorts, capacity)

		sc := append([]*v1beta2.ClusterQueue(nil), cqs...)
		sco := append([]*v1beta2.Cohort(nil), cohorts...)
		rng.Shuffle(len(sc), func(a, b int) { sc[a], sc[b] = sc[b], sc[a] })
		rng.Shuffle(len(sco), func(a, b int) { sco[a], sco[b] = sco[b], sco[a] })
		again := distributeOver(d, capacity, sc, sco)
		if len(again.Updates) != len(r.Updates) {
			t.Fatalf("case %d: shuffled input gives %d updates, want %d", iter, len(again.Updates), len(r.Updates))
		}
		for i := range r.Updates {
			if r.Updates[i].Node != again.Updates[i].Node || !EffectiveQuotasEqual(&r.Updates[i].EffectiveQuotas, &again.Updates[i].EffectiveQuotas) {
				t.Fatalf("case %d: shuffled input changes %s", iter, r.Updates[i].Node)
			}
		}
	}
}

func checkDistribution(t *testing.T, iter int, r DistributionResult, cqs []*v1beta2.ClusterQueue, cohorts []*v1beta2.Cohort, capacity *Capacity) {
	t.Helper()
	spec := map[NodeRef][]v1beta2.ResourceGroup{}
	for _, q := range cqs {
		spec[cq(q.Name)] = q.Spec.ResourceGroups
	}
	for _, c := range cohorts {
		spec[cohort(c.Name)] = c.Spec.ResourceGroups
	}
	type cell struct{ weight, got int64 }
	perPair := map[resources.FlavorResource][]cell{}
	for _, u := range r.Updates {
		if u.Node == cq("outsider") {
			t.Fatalf("case %d: a ClusterQueue outside the subtree was written", iter)
		}
		s := spec[u.Node]
		for gi, g := range u.EffectiveQuotas.ResourceGroups {
			for fi, f := range g.Flavors {
				for ri, rq := range f.Resources {
					specQ := s[gi].Flavors[fi].Resources[ri].NominalQuota
					if !capacity.Orchestrates(string(f.Name)) {
						if rq.NominalQuota.Cmp(specQ) != 0 {
							t.Fatalf("case %d: %s non-orchestrated %s/%s changed from %s to %s", iter, u.Node, f.Name, rq.Name, specQ.String(), rq.NominalQuota.String())
						}
						continue
					}
					fr := resources.FlavorResource{Flavor: string(f.Name), Resource: rq.Name}
					perPair[fr] = append(perPair[fr], cell{canonical(t, rq.Name, specQ), canonical(t, rq.Name, rq.NominalQuota)})
				}
			}
		}
	}
	for fr, cells := range perPair {
		total := capacity.Amount(fr.Flavor, fr.Resource)
		sumW, sum := new(big.Int), int64(0)
		for _, c := range cells {
			sumW.Add(sumW, big.NewInt(c.weight))
			sum += c.got
		}
		if sumW.Sign() == 0 {
			if sum != 0 {
				t.Fatalf("case %d: %s all-zero nominal quotas got %d", iter, fr, sum)
			}
			continue
		}
		if sum != total {
			t.Fatalf("case %d: %s shares sum to %d, capacity %d", iter, fr, sum, total)
		}
		for _, c := range cells {
			diff := new(big.Int).Mul(big.NewInt(c.got), sumW)
			diff.Sub(diff, new(big.Int).Mul(big.NewInt(total), big.NewInt(c.weight)))
			if diff.Abs(diff).Cmp(sumW) >= 0 {
				t.Fatalf("case %d: %s share %d for weight %d of %s is a unit or more from exact", iter, fr, c.got, c.weight, sumW)
			}
		}
	}
}

func canonical(t *testing.T, name corev1.ResourceName, q resource.Quantity) int64 {
	t.Helper()
	v, err := resources.ToCanonical(name, q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
