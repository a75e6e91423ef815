package preemption

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/flavorassigner"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
)

type listSource map[string][]*Candidate

func (l listSource) Admitted(cq string) []*Candidate { return l[cq] }

var cpu = resources.FlavorResource{Flavor: "default", Resource: "cpu"}

// Find simulates on the live cache and must leave it exactly as it found it,
// whether it finds victims or not: the scheduler relies on that to stay pure.
func TestFindRestoresTheCache(t *testing.T) {
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("default").Obj())
	for _, cq := range []*kueue.ClusterQueue{
		MakeClusterQueue("a").Cohort("c").Quota("default", "cpu", "6").Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).Obj(),
		MakeClusterQueue("b").Cohort("c").Quota("default", "cpu", "2").Obj(),
	} {
		if err := c.UpsertClusterQueue(cq); err != nil {
			t.Fatal(err)
		}
	}
	src := listSource{}
	for i, n := range []int64{2000, 2000, 2000, 1000} {
		k := types.NamespacedName{Namespace: "b", Name: string(rune('w' + i))}
		cand := &Candidate{Key: k, UID: types.UID(k.String()), ClusterQueue: "b", AdmittedAt: time.Unix(int64(i), 0),
			Usage: resources.Amounts{cpu: n}}
		c.Charge(k, "b", cand.Usage)
		src["b"] = append(src["b"], cand)
	}
	a, _ := c.ClusterQueue("a")
	b, _ := c.ClusterQueue("b")
	before := []int64{a.Usage(cpu), b.Usage(cpu)}
	for _, tc := range []struct {
		need    int64
		victims int
	}{
		{4000, 2}, // 1 free + the newest (1 CPU) + the next (2 CPU) make 4
		{6000, 3},
		{9000, 0}, // more than a's nominal: no reclaim
	} {
		p := &Preemptor{Key: types.NamespacedName{Namespace: "a", Name: "p"}, Priority: 1,
			Assignment: &flavorassigner.Assignment{Usage: resources.Amounts{cpu: tc.need}}}
		got := Find(c, a, p, src, Options{})
		if len(got) != tc.victims {
			t.Errorf("need %d: %d victims %v, want %d", tc.need, len(got), got, tc.victims)
		}
		if after := []int64{a.Usage(cpu), b.Usage(cpu)}; !reflect.DeepEqual(after, before) {
			t.Fatalf("need %d: usage %v after Find, want %v", tc.need, after, before)
		}
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
	}
}
