package scheduler

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	. "quokka.dev/quokka/engine/enginetest"
)

// 002: "When a flavor maps to a node pool, put cpu, memory and nvidia.com/gpu in
// the same group so all three are charged to the same flavor." and "Kueue tries
// flavors in list order and takes the first one with enough unused quota in the
// queue or its cohort."
func TestResourceGroupUsesOneFlavorInListOrder(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(), MakeFlavor("a100").Obj(),
		MakeClusterQueue("a").
			Quota("h100", "cpu", "100").Quota("h100", gpu, "8").
			Quota("a100", "cpu", "1").Quota("a100", gpu, "8").Obj(),
		MakeLocalQueue("ns", "lq", "a").Obj(),
		// Fits h100 for both resources: h100 first in the list wins.
		MakeWorkload("ns", "first").Queue("lq").Request(gpu, "4").Request("cpu", "4").Obj(),
		// 5 more GPUs do not fit h100's remaining 4: falls to a100, but a100 has
		// only 1 CPU, so cpu cannot go to h100 while gpu goes to a100: no fit.
		MakeWorkload("ns", "split").Queue("lq").Request(gpu, "5").Request("cpu", "2").Created(time.Second).Obj(),
		MakeWorkload("ns", "fallback").Queue("lq").Request(gpu, "5").Request("cpu", "1").Created(2*time.Second).Obj(),
	)
	ds := s.Cycle(now)
	a := admits(ds)
	if len(a) != 2 || a[0].Workload.Name != "first" || a[1].Workload.Name != "fallback" {
		t.Fatalf("admitted %v", admittedNames(ds))
	}
	for _, adm := range a {
		f := adm.PodSets[0].Flavors
		if f[gpu] != f["cpu"] {
			t.Errorf("%s: resources of one group in different flavors: %v", adm.Workload.Name, f)
		}
	}
	if a[0].PodSets[0].Flavors[gpu] != "h100" || a[1].PodSets[0].Flavors[gpu] != "a100" {
		t.Errorf("flavors: first %v, fallback %v", a[0].PodSets[0].Flavors, a[1].PodSets[0].Flavors)
	}
	p := mustPending(t, ds, "split", ReasonInsufficientQuota)
	if !strings.Contains(p.Message, "flavor h100") || !strings.Contains(p.Message, "flavor a100") {
		t.Errorf("message must cover both flavors tried: %s", p.Message)
	}
}

// 002: "By default (whenCanBorrow: MayStopSearch), Kueue stops at the first flavor
// that fits by borrowing. Set flavorFungibility.whenCanBorrow: TryNextFlavor if
// teams should prefer in-quota A100s over borrowed H100s."
func TestFlavorFungibilityWhenCanBorrow(t *testing.T) {
	cases := []struct {
		policy kueue.FlavorFungibilityPolicy
		a100   string // a's a100 quota
		want   string
		borrow bool
	}{
		{kueue.MayStopSearch, "8", "h100", true},
		{"", "8", "h100", true}, // default
		{kueue.TryNextFlavor, "8", "a100", false},
		// TryNextFlavor without an in-quota alternative falls back to the first
		// flavor that fits by borrowing.
		{kueue.TryNextFlavor, "0", "h100", true},
	}
	for _, tc := range cases {
		t.Run(string(tc.policy)+"/a100="+tc.a100, func(t *testing.T) {
			a := MakeClusterQueue("a").Quota("h100", gpu, "2").Quota("a100", gpu, tc.a100)
			if tc.policy != "" {
				a.WhenCanBorrow(tc.policy)
			}
			s := twoQueues(t, a, MakeClusterQueue("b").Quota("h100", gpu, "8"))
			apply(t, s, gpus("w", 4).Obj())
			got := admits(s.Cycle(now))
			if len(got) != 1 || got[0].PodSets[0].Flavors[gpu] != tc.want || got[0].Borrowing != tc.borrow {
				t.Fatalf("got %+v, want flavor %s borrowing=%v", got, tc.want, tc.borrow)
			}
		})
	}
}

// 002: "spec.nodeTaints works the other way round. Only Workloads that already
// tolerate the taint can use the flavor" and brief: "Skip a flavor for a pod set
// when the pod template does not tolerate the flavor's spec.nodeTaints
// (NoSchedule/NoExecute), or when the flavor's nodeLabels contradict the
// template's nodeSelector or required node affinity".
func TestFlavorSkippedForTaintsAndLabels(t *testing.T) {
	tainted := MakeFlavor("h100").NodeLabel("nvidia.com/gpu.product", "H100").Taint("dedicated", "ml", corev1.TaintEffectNoSchedule).Obj()
	a100 := MakeFlavor("a100").NodeLabel("nvidia.com/gpu.product", "A100").Obj()
	tolerate := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ml", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name     string
		wl       *WorkloadWrapper
		want     string // admitted flavor, or "" for pending FlavorSkipped
		contains string
	}{
		{"untolerated taint skips h100", gpus("w", 1), "a100", ""},
		{"toleration allows h100", gpus("w", 1).Toleration(tolerate), "h100", ""},
		{"exists-all toleration", gpus("w", 1).Toleration(corev1.Toleration{Operator: corev1.TolerationOpExists}), "h100", ""},
		{"nodeSelector picks a100", gpus("w", 1).Toleration(tolerate).NodeSelector("nvidia.com/gpu.product", "A100"), "a100", ""},
		{"nodeSelector on other keys is ignored", gpus("w", 1).Toleration(tolerate).NodeSelector("zone", "z1"), "h100", ""},
		{"affinity In", gpus("w", 1).Toleration(tolerate).AffinityTerm("nvidia.com/gpu.product", corev1.NodeSelectorOpIn, "A100", "B200"), "a100", ""},
		{"affinity terms are ORed", gpus("w", 1).Toleration(tolerate).
			AffinityTerm("nvidia.com/gpu.product", corev1.NodeSelectorOpIn, "B200").
			AffinityTerm("nvidia.com/gpu.product", corev1.NodeSelectorOpNotIn, "A100"), "h100", ""},
		{"nothing fits", gpus("w", 1).NodeSelector("nvidia.com/gpu.product", "H100"), "",
			"flavor h100 skipped: pod set main does not tolerate the flavor's taint dedicated=ml:NoSchedule; flavor a100 skipped: pod set main has nodeSelector nvidia.com/gpu.product=H100 but the flavor's nodes have nvidia.com/gpu.product=A100"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := world(t, Options{}, tainted, a100,
				MakeClusterQueue("a").Quota("h100", gpu, "8").Quota("a100", gpu, "8").Obj(),
				MakeLocalQueue("ns", "lq", "a").Obj(), tc.wl.Obj())
			ds := s.Cycle(now)
			if tc.want == "" {
				p := mustPending(t, ds, "w", ReasonFlavorSkipped)
				if p.Message != tc.contains {
					t.Fatalf("message\n%s\nwant\n%s", p.Message, tc.contains)
				}
				return
			}
			a := admits(ds)
			if len(a) != 1 || a[0].PodSets[0].Flavors[gpu] != tc.want {
				t.Fatalf("got %v, want flavor %s", ds, tc.want)
			}
		})
	}
}

// brief: "any resource the CQ does not cover → inadmissible with reason."
func TestResourceNotCovered(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Quota("h100", gpu, "8").Obj(), MakeLocalQueue("ns", "lq", "a").Obj(),
		gpus("w", 1).Request("example.com/fpga", "1").Obj())
	p := mustPending(t, s.Cycle(now), "w", ReasonResourceNotCovered)
	if !strings.Contains(p.Message, "example.com/fpga") {
		t.Errorf("message must name the resource: %s", p.Message)
	}
}

// brief: "A workload's pod sets: count × per-pod requests [...] summed per
// resource" — two pod sets in the same flavor are charged together.
func TestPodSetsChargedTogether(t *testing.T) {
	s := world(t, Options{}, MakeFlavor("h100").Obj(),
		MakeClusterQueue("a").Quota("h100", gpu, "8").Obj(), MakeLocalQueue("ns", "lq", "a").Obj(),
		MakeWorkload("ns", "too-big").Queue("lq").PodSet("launcher", 1).Request(gpu, "2").PodSet("workers", 4).Request(gpu, "2").Obj(),
		MakeWorkload("ns", "fits").Queue("lq").PodSet("launcher", 1).Request(gpu, "2").PodSet("workers", 3).Request(gpu, "1").Created(time.Second).Obj(),
	)
	ds := s.Cycle(now)
	a := admits(ds)
	if len(a) != 1 || a[0].Workload.Name != "fits" {
		t.Fatalf("admitted %v", admittedNames(ds))
	}
	if ps := a[0].PodSets; len(ps) != 2 || ps[1].Count != 3 || ps[1].Usage[gpu] != 3 || ps[0].Usage[gpu] != 2 {
		t.Fatalf("pod set assignments %+v", ps)
	}
	p := mustPending(t, ds, "too-big", ReasonExceedsMaximumQuota)
	if !strings.HasPrefix(p.Message, "pod set workers: needs 10 nvidia.com/gpu in flavor h100") {
		t.Errorf("message must count the launcher's 2 GPUs with the workers' 8: %s", p.Message)
	}
}
