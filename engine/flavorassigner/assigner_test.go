package flavorassigner

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/quota"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// Quiet "skips the explaining pass on failure: Reason, Message and Groups stay
// empty, while Fits and Preemption are what they would be". And a result
// computed with Explain decides as the fast pass does, when it fits too: the
// scheduler admits with either.
func TestQuietAndExplainDecideAsTheFastPass(t *testing.T) {
	const gpu = corev1.ResourceName("nvidia.com/gpu")
	cases := []struct {
		name    string
		used    string // GPUs in use in flavor a, by a workload of the same queue
		request string
		fits    bool
		preempt bool
	}{
		{name: "fits in the first flavor", used: "0", request: "2", fits: true},
		{name: "fits in the second flavor", used: "4", request: "2", fits: true},
		{name: "fits nowhere now, after preemption in a", used: "4", request: "5", preempt: true},
		{name: "can never fit", used: "0", request: "9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := quota.New(quota.Options{})
			for _, f := range []string{"a", "b"} {
				c.UpsertResourceFlavor(MakeFlavor(f).Obj())
			}
			if err := c.UpsertClusterQueue(MakeClusterQueue("cq").Quota("a", gpu, "6").Quota("b", gpu, "2").Obj()); err != nil {
				t.Fatal(err)
			}
			cq, _ := c.ClusterQueue("cq")
			used := MakeWorkload("ns", "used").Request(gpu, tc.used).Obj()
			ui, err := workload.FromAPI(used)
			if err != nil {
				t.Fatal(err)
			}
			c.Charge(types.NamespacedName{Namespace: "ns", Name: "used"}, "cq",
				resources.Amounts{{Flavor: "a", Resource: gpu}: ui.PodSets[0].Total[gpu]})
			wl, err := workload.FromAPI(MakeWorkload("ns", "wl").Request(gpu, tc.request).Obj())
			if err != nil {
				t.Fatal(err)
			}
			base := Assign(c, cq, wl.PodSets, Options{})
			quiet := Assign(c, cq, wl.PodSets, Options{Quiet: true})
			explained := Assign(c, cq, wl.PodSets, Options{Explain: true})
			if base.Fits != tc.fits || (base.Preemption != nil) != tc.preempt {
				t.Fatalf("fits %v, preemption %v; want %v, %v", base.Fits, base.Preemption, tc.fits, tc.preempt)
			}
			for name, r := range map[string]Result{"quiet": quiet, "explained": explained} {
				if r.Fits != base.Fits || r.Borrowing != base.Borrowing || !reflect.DeepEqual(r.PodSets, base.PodSets) ||
					!reflect.DeepEqual(r.Usage, base.Usage) || !reflect.DeepEqual(r.Preemption, base.Preemption) {
					t.Errorf("%s decided %+v, the default %+v", name, r, base)
				}
			}
			if base.Fits {
				return
			}
			if base.Reason == "" || base.Message == "" || len(base.Groups) == 0 {
				t.Errorf("the default explains a failure; got reason %q, message %q", base.Reason, base.Message)
			}
			if quiet.Reason != "" || quiet.Message != "" || quiet.Groups != nil {
				t.Errorf("quiet explained: reason %q, message %q, groups %v", quiet.Reason, quiet.Message, quiet.Groups)
			}
		})
	}
}

// countingOracle answers that preemption finds no victims, counting the
// questions.
type countingOracle struct{ asked int }

func (o *countingOracle) SimulatePreemption(*quota.ClusterQueue, resources.FlavorResource, int64) (Possibility, int) {
	o.asked++
	return NoCandidates, 0
}

// OracleChose "tells that the oracle was consulted for a resource group with
// more than one flavor": with one flavor per group the oracle is asked but
// cannot choose; with two it may; and without a question it is false either
// way.
func TestOracleChoseOnlyBetweenFlavors(t *testing.T) {
	const gpu = corev1.ResourceName("nvidia.com/gpu")
	cases := []struct {
		name    string
		flavors []string
		request string
		asked   bool
		chose   bool
	}{
		{name: "one flavor, needs preemption", flavors: []string{"a"}, request: "3", asked: true},
		{name: "two flavors, needs preemption", flavors: []string{"a", "b"}, request: "3", asked: true, chose: true},
		{name: "two flavors, fits", flavors: []string{"a", "b"}, request: "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := quota.New(quota.Options{})
			cq := MakeClusterQueue("cq")
			for _, f := range tc.flavors {
				c.UpsertResourceFlavor(MakeFlavor(f).Obj())
				cq.Quota(f, gpu, "4")
			}
			if err := c.UpsertClusterQueue(cq.Obj()); err != nil {
				t.Fatal(err)
			}
			q, _ := c.ClusterQueue("cq")
			for _, f := range tc.flavors {
				c.Charge(types.NamespacedName{Namespace: "ns", Name: "used-" + f}, "cq", resources.Amounts{{Flavor: f, Resource: gpu}: 2})
			}
			wl, err := workload.FromAPI(MakeWorkload("ns", "wl").Request(gpu, tc.request).Obj())
			if err != nil {
				t.Fatal(err)
			}
			o := &countingOracle{}
			res := Assign(c, q, wl.PodSets, Options{Oracle: o})
			if (o.asked > 0) != tc.asked || res.Oracled != tc.asked || res.OracleChose != tc.chose {
				t.Fatalf("asked %d times, Oracled %v, OracleChose %v; want asked %v, chose %v", o.asked, res.Oracled, res.OracleChose, tc.asked, tc.chose)
			}
		})
	}
}

// Kueue: pkg/scheduler/flavorassigner/flavorassigner.go (v0.19.2), the rule
// behind quotaCheckStrategy IgnoreUndeclared, and its e2e case "should not
// report metrics for resource usage for undeclared resources": a request of a
// resource no group of the queue covers is left out of the assignment and of
// the usage (no flavor, no charge) instead of ResourceNotCovered, which stays
// the default (BlockUndeclared).
func TestIgnoreUndeclaredLeavesUncoveredRequestsOut(t *testing.T) {
	c := quota.New(quota.Options{})
	c.UpsertResourceFlavor(MakeFlavor("f").Obj())
	if err := c.UpsertClusterQueue(MakeClusterQueue("cq").Quota("f", "cpu", "100").Obj()); err != nil {
		t.Fatal(err)
	}
	cq, _ := c.ClusterQueue("cq")
	wl, err := workload.FromAPI(MakeWorkload("ns", "wl").Request("cpu", "1").Request("memory", "1Gi").Obj())
	if err != nil {
		t.Fatal(err)
	}
	if res := Assign(c, cq, wl.PodSets, Options{}); res.Fits || res.Reason != "ResourceNotCovered" {
		t.Fatalf("BlockUndeclared: fits %v, reason %q; want ResourceNotCovered", res.Fits, res.Reason)
	}
	res := Assign(c, cq, wl.PodSets, Options{IgnoreUndeclared: true})
	if !res.Fits {
		t.Fatalf("IgnoreUndeclared: does not fit (%s: %s)", res.Reason, res.Message)
	}
	want := resources.Amounts{{Flavor: "f", Resource: "cpu"}: 1000}
	if !reflect.DeepEqual(res.Usage, want) {
		t.Errorf("usage %v, want %v (memory not charged)", res.Usage, want)
	}
	if f, ok := res.PodSets[0].Flavors["memory"]; ok {
		t.Errorf("memory got flavor %q, want none", f)
	}
}
