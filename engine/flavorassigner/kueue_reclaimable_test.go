package flavorassigner_test

import (
	"reflect"
	"testing"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/engine/resources"
	"quokka.dev/quokka/engine/workload"
)

// Kueue: pkg/scheduler/flavorassigner/flavorassigner_test.go, TestAssignFlavors,
// "with reclaimable pods; reclaimablePods on" and "... off". A pod set of 5
// pods of 1 cpu, 2 of them reclaimable, in a queue with room for 3 pods (gate
// on: only the 3 still needed are assigned) or 5 (gate off: all 5 are).
func TestKueueAssignFlavorsReclaimablePods(t *testing.T) {
	cases := []struct {
		name string
		pods string
		// gateOff reads the workload as Kueue does with the ReclaimablePods
		// gate off.
		gateOff bool
		count   int32
		cpu     int64
	}{
		{name: "with reclaimable pods; reclaimablePods on", pods: "3", count: 3, cpu: 3_000},
		{name: "with reclaimable pods; reclaimablePods off", pods: "5", gateOff: true, count: 5, cpu: 5_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			world := kaIn(kaQueues(MakeClusterQueue(kaMain).Quota("default", kaPod, tc.pods).Quota("default", kaCPU, "10")))
			wl := kaPending().PodSet(string(kueue.DefaultPodSetName), 5).Request(kaCPU, "1").Obj()
			wl.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: kueue.DefaultPodSetName, Count: 2}}
			if tc.gateOff {
				wl = workload.IgnoringReclaimablePods(wl)
			}
			res := kaAssign(t, world, kaMain, wl)
			mode, flavors, _ := kaOutcome(res)
			if mode != "Fit" {
				t.Fatalf("representative mode %s, want Fit (reason %q: %s)", mode, res.Reason, res.Message)
			}
			if want := kaFlavors(kaPS(kaCPU, "default", kaPod, "default")); !reflect.DeepEqual(flavors, want) {
				t.Errorf("flavors %s, want %s", kaFormat(flavors), kaFormat(want))
			}
			if got := res.PodSets[0].Count; got != tc.count {
				t.Errorf("assigned count %d, want %d", got, tc.count)
			}
			want := resources.Amounts{
				{Flavor: "default", Resource: kaCPU}: tc.cpu,
				{Flavor: "default", Resource: kaPod}: int64(tc.count),
			}
			if !reflect.DeepEqual(res.Usage, want) {
				t.Errorf("usage %v, want %v", res.Usage, want)
			}
		})
	}
}
