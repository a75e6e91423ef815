package elasticquota

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestPropertyNeverOverAdmitsNorLosesUnits drives random quota trees, policies,
// oversell rates and streams of units (added, finished, deleted) through the
// scheduler and checks after every cycle:
//
//   - no over-admission: for every quota on every chain, the requests of the
//     admitted units charged to it (its own and its descendants') are at most
//     max × oversell rate for each resource max lists, counted independently of
//     the cache; and the cache's Used agrees with that count;
//   - no lost units: every pending unit gets exactly one decision per cycle, and
//     every unit ever added is pending, admitted, finished or deleted, never two
//     of these and never none.
func TestPropertyNeverOverAdmitsNorLosesUnits(t *testing.T) {
	t.Parallel()
	rates := []string{"1", "1.5", "0.5", "2"}
	policies := []string{"Priority", "Block", "Intelligent", "Round", ""}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		rate, _ := ParseOversellRate(rates[rng.IntN(len(rates))])
		s := NewScheduler(rate)

		// A random forest: quota i has a parent among 0..i-1 or the root; now and
		// then a parent that does not exist, to exercise CheckUsage's errors.
		nq := 2 + rng.IntN(5)
		parent := map[string]string{}
		maxes := map[string]int64{}
		for i := 0; i < nq; i++ {
			name := fmt.Sprintf("q%d", i)
			p := ""
			switch r := rng.IntN(10); {
			case i > 0 && r < 6:
				p = fmt.Sprintf("q%d", rng.IntN(i))
			case r == 9:
				p = "ghost"
			}
			max := int64(1 + rng.IntN(8))
			eq := policy(quota(name, p, map[string]string{"cpu": fmt.Sprint(max)}), policies[rng.IntN(len(policies))])
			if err := s.UpsertQuota(eq); err != nil {
				t.Fatal(err)
			}
			parent[name], maxes[name] = p, max
		}

		state := map[types.NamespacedName]string{} // pending, admitted, finished, deleted
		requests := map[types.NamespacedName]int64{}
		quotaOf := map[types.NamespacedName]string{}
		next := 0
		for step := 0; step < 40; step++ {
			for n := rng.IntN(4); n > 0; n-- {
				b := mkUnit(fmt.Sprintf("u%03d", next)).CPU(int64(rng.IntN(5))).Priority(int32(rng.IntN(8))).At(next)
				q := ""
				if rng.IntN(12) > 0 {
					q = fmt.Sprintf("q%d", rng.IntN(nq+1)) // q<nq> does not exist
					b.Quota(q)
				}
				u := b.Obj()
				next++
				if err := s.AddUnit(u); err != nil {
					t.Fatal(err)
				}
				state[u.Key()], requests[u.Key()], quotaOf[u.Key()] = "pending", u.Request[corev1.ResourceCPU], q
			}
			for k, st := range state {
				if st == "admitted" && rng.IntN(4) == 0 {
					if err := s.FinishUnit(k); err != nil {
						t.Fatal(err)
					}
					state[k] = "finished"
				} else if (st == "admitted" || st == "pending") && rng.IntN(15) == 0 {
					if !s.DeleteUnit(k) {
						t.Fatalf("seed %d: deleting %s (%s) reported unknown", seed, k, st)
					}
					state[k] = "deleted"
				}
			}

			decided := map[types.NamespacedName]bool{}
			for _, d := range s.Cycle() {
				k := d.UnitKey()
				if decided[k] {
					t.Fatalf("seed %d step %d: two decisions for %s", seed, step, k)
				}
				decided[k] = true
				if state[k] != "pending" {
					t.Fatalf("seed %d step %d: a decision for %s, which is %q", seed, step, k, state[k])
				}
				if a, ok := d.(Admit); ok {
					state[k] = "admitted"
					if a.Quota != quotaOf[k] {
						t.Fatalf("seed %d: %s admitted to %s, its label says %s", seed, k, a.Quota, quotaOf[k])
					}
				}
			}
			pending, admitted := 0, 0
			for k, st := range state {
				switch st {
				case "pending":
					pending++
					if !decided[k] {
						t.Fatalf("seed %d step %d: pending %s got no decision", seed, step, k)
					}
				case "admitted":
					admitted++
				}
			}
			if pending != s.PendingCount() || admitted != s.AdmittedCount() {
				t.Fatalf("seed %d step %d: scheduler holds %d pending and %d admitted, the model %d and %d",
					seed, step, s.PendingCount(), s.AdmittedCount(), pending, admitted)
			}

			// Usage per quota, from the model: every admitted unit charges its
			// quota and each ancestor up to the root.
			used := map[string]int64{}
			for k, st := range state {
				if st != "admitted" {
					continue
				}
				for q := quotaOf[k]; q != ""; q = parent[q] {
					used[q] += requests[k]
				}
			}
			for q, max := range maxes {
				limit := new(big.Rat).Mul(big.NewRat(max*1000, 1), rate.r)
				if new(big.Rat).SetInt64(used[q]).Cmp(limit) > 0 {
					t.Fatalf("seed %d step %d: %s uses %dm CPU, above max %d × rate %s", seed, step, q, used[q], max, rate)
				}
				got := s.Cache().Used(q)
				if c := got[corev1.ResourceCPU]; c.MilliValue() != used[q] {
					t.Fatalf("seed %d step %d: cache says %s uses %v, the model %dm", seed, step, q, got, used[q])
				}
			}
		}
	}
}
