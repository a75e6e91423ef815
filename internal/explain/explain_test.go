package explain

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configapi "quokka.dev/quokka/apis/config/v1beta2"
	kueue "quokka.dev/quokka/apis/kueue/v1beta2"
	"quokka.dev/quokka/engine/decision"
	tb "quokka.dev/quokka/engine/enginetest"
	"quokka.dev/quokka/internal/scheme"
)

const gpu = corev1.ResourceName("nvidia.com/gpu")

// gpuCluster is examples/gpu-cluster: research 32 H100s borrowing at most 16,
// product-training 24 lending at most 12, eval 8, all in cohort ml-platform and
// reclaiming with reclaimWithinCohort: Any; research falls back to a100, where it
// has no quota.
func gpuCluster(researchBorrowing string) []client.Object {
	objs := []client.Object{tb.MakeFlavor("h100").Obj(), tb.MakeFlavor("a100").Obj(), tb.MakeCohort("ml-platform").Obj()}
	for _, team := range []string{"research", "product-training", "eval"} {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team, Labels: map[string]string{"tenant": team}}},
			tb.MakeLocalQueue(team, team+"-gpu", team).Obj())
	}
	return append(objs,
		tb.MakeClusterQueue("research").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "research"}).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
			Quota("h100", corev1.ResourceCPU, "384").Quota("h100", corev1.ResourceMemory, "3840Gi").Quota("h100", gpu, "32", tb.Borrowing(researchBorrowing)).
			Quota("a100", corev1.ResourceCPU, "0").Quota("a100", corev1.ResourceMemory, "0").Quota("a100", gpu, "0").Obj(),
		tb.MakeClusterQueue("product-training").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "product-training"}).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
			Quota("h100", corev1.ResourceCPU, "288", tb.Lending("144")).Quota("h100", corev1.ResourceMemory, "2880Gi", tb.Lending("1440Gi")).
			Quota("h100", gpu, "24", tb.Lending("12")).Obj(),
		tb.MakeClusterQueue("eval").Cohort("ml-platform").NamespaceSelector(map[string]string{"tenant": "eval"}).
			Preemption(kueue.PreemptionPolicyAny, kueue.PreemptionPolicyLowerPriority).
			Quota("h100", corev1.ResourceCPU, "96").Quota("h100", corev1.ResourceMemory, "960Gi").Quota("h100", gpu, "8").Obj(),
	)
}

// gpuJob is the spec's job shape: 12 CPU and 120Gi per GPU.
func gpuJob(ns, name string, gpus int, created time.Duration) *tb.WorkloadWrapper {
	return tb.MakeWorkload(ns, name).Queue(ns+"-gpu").Created(created).PodSet("main", 1).
		Request(gpu, fmt.Sprint(gpus)).Request(corev1.ResourceCPU, fmt.Sprint(12*gpus)).
		Request(corev1.ResourceMemory, fmt.Sprintf("%dGi", 120*gpus))
}

// step0 is the worked example's step 0: product-training runs 6 GPUs, research
// six 8-GPU jobs (48: 32 nominal and 16 borrowed), and train-6 waits.
func step0() []client.Object {
	objs := gpuCluster("16")
	objs = append(objs, gpuJob("product-training", "pt-6", 6, 0).ReserveQuota("product-training", "h100").QuotaReservedAt(0).Obj())
	for i := range 6 {
		objs = append(objs, gpuJob("research", fmt.Sprintf("train-%d", i), 8, time.Duration(i+1)*time.Second).
			ReserveQuota("research", "h100").QuotaReservedAt(time.Minute).Obj())
	}
	return append(objs, gpuJob("research", "train-6", 8, 7*time.Second).Obj())
}

// load builds the explainer through a fake API client, as the command does.
func load(t *testing.T, objs []client.Object) *Explainer {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	e, err := Load(t.Context(), c, configapi.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Refused) > 0 {
		t.Fatalf("engine refused %v", e.Refused)
	}
	return e
}

func explainWL(t *testing.T, e *Explainer, ns, name string) *WorkloadReport {
	t.Helper()
	rep, err := e.Workload(types.NamespacedName{Namespace: ns, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func flavor(t *testing.T, rep *WorkloadReport, name string) FlavorReport {
	t.Helper()
	for _, f := range rep.Flavors {
		if f.Flavor == name {
			return f
		}
	}
	t.Fatalf("flavor %s not tried: %+v", name, rep.Flavors)
	return FlavorReport{}
}

func resourceOf(t *testing.T, f FlavorReport, r corev1.ResourceName) ResourceReport {
	t.Helper()
	for _, rr := range f.Resources {
		if rr.Resource == string(r) {
			return rr
		}
	}
	t.Fatalf("flavor %s has no %s: %+v", f.Flavor, r, f.Resources)
	return ResourceReport{}
}

// 002, step 0: "the seventh waits at research's borrowing limit". Explain names
// the limit with its numbers, finds nothing to preempt (research may not reclaim
// while borrowing and its own jobs have its priority), and says what would admit
// it: 8 more GPUs of nominal quota, or a borrowingLimit of 24 (48 + 8 - 32).
func TestExplainWorkloadAtBorrowingLimit(t *testing.T) {
	t.Parallel()
	rep := explainWL(t, load(t, step0()), "research", "train-6")
	if rep.State != "Pending" || rep.ClusterQueue != "research" || rep.Cohort != "ml-platform" || rep.Position != 1 || rep.Pending != 1 {
		t.Errorf("report = %+v, want pending first of one in research, cohort ml-platform", rep)
	}
	if rep.Fits || rep.Reason != decision.ReasonBorrowingLimitReached {
		t.Errorf("fits=%v reason=%s, want BorrowingLimitReached", rep.Fits, rep.Reason)
	}
	// What the workload's condition says: the limit blocks now, not forever.
	if rep.ConditionReason != kueue.WorkloadQuotaReservedReasonWaitingForQuota {
		t.Errorf("condition reason = %q, want Kueue's WaitingForQuota", rep.ConditionReason)
	}
	h100 := flavor(t, rep, "h100")
	if !h100.Best || h100.Outcome != "Preempt" {
		t.Errorf("h100 = %+v, want the best flavor, Preempt", h100)
	}
	if g := resourceOf(t, h100, gpu); g.Requested != "8" || g.Available != "0" || g.LimitedBy != "research" {
		t.Errorf("h100 GPUs = %+v, want requested 8, available 0, limited by research", g)
	}
	if a100 := flavor(t, rep, "a100"); a100.Outcome != "NoFit" || resourceOf(t, a100, gpu).Potential != "0" {
		t.Errorf("a100 = %+v, want NoFit with at most 0 GPUs", a100)
	}
	if !strings.Contains(rep.Message, "borrowing limit of research reached (research uses 48, nominal 32, borrowing limit 16)") {
		t.Errorf("message = %q, want the engine's numbers", rep.Message)
	}
	if rep.Preemption == nil || len(rep.Preemption.Victims) != 0 || rep.Preemption.Impossible == "" {
		t.Errorf("preemption = %+v, want no victims and why", rep.Preemption)
	}
	// CPU and memory are short too: product-training lends only half of its
	// 288 CPUs, so research can reach 384 + 144 + 96 = 624 CPUs, 48 short of the
	// 576 + 96 it would use. The cohort has 4 GPUs unused (32 + 12 lent + 8 - 48).
	want := "8 more nvidia.com/gpu of nominal quota in ClusterQueue research (flavor h100), " +
		"or research's borrowingLimit raised to 24 together with 4 more nvidia.com/gpu unused in cohort ml-platform"
	wantChanges := []string{
		"48 more cpu of nominal quota in ClusterQueue research (flavor h100)",
		"480Gi more memory of nominal quota in ClusterQueue research (flavor h100)",
		want,
	}
	if got := changeTexts(rep); !slices.Equal(got, wantChanges) {
		t.Errorf("changes = %q, want %q", got, wantChanges)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Position:     1 of 1 pending", "flavor h100: Preempt", "requested 8, available 0", want} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
}

// 002, step 1: "6 + 16 = 22 <= 24, so it may reclaim; 10 GPUs are idle, 6 more
// are needed, and preempting ONE research job is enough". Explain names the
// victim and, for admission without preemption, the 6 GPUs that are missing.
func TestExplainWorkloadNamesVictims(t *testing.T) {
	t.Parallel()
	objs := append(step0(), gpuJob("product-training", "pt-16", 16, time.Hour).Obj())
	rep := explainWL(t, load(t, objs), "product-training", "pt-16")
	if rep.Fits || rep.Position != 1 {
		t.Errorf("fits=%v position=%d, want not fitting, first", rep.Fits, rep.Position)
	}
	if rep.Preemption == nil || len(rep.Preemption.Victims) != 1 {
		t.Fatalf("preemption = %+v, want one victim", rep.Preemption)
	}
	v := rep.Preemption.Victims[0]
	if v.ClusterQueue != "research" || !strings.HasPrefix(v.Workload, "research/train-") || v.Reason != kueue.InCohortReclamationReason {
		t.Errorf("victim = %+v, want a research job reclaimed in cohort", v)
	}
	// 10 GPUs idle of the 16 asked: 6 short.
	want := "6 more nvidia.com/gpu of nominal quota in ClusterQueue product-training (flavor h100)"
	if got := changeTexts(rep); !slices.Contains(got, want) {
		t.Errorf("changes = %q, want %q among them", got, want)
	}
}

// With borrowing limited to 8, research runs five jobs (40 GPUs) and the cohort
// keeps 12 unused: raising the limit to 16 alone would admit the sixth.
func TestExplainSuggestsBorrowingLimit(t *testing.T) {
	t.Parallel()
	objs := gpuCluster("8")
	for i := range 5 {
		objs = append(objs, gpuJob("research", fmt.Sprintf("train-%d", i), 8, time.Duration(i+1)*time.Second).
			ReserveQuota("research", "h100").QuotaReservedAt(time.Minute).Obj())
	}
	objs = append(objs, gpuJob("research", "train-5", 8, 6*time.Second).Obj())
	rep := explainWL(t, load(t, objs), "research", "train-5")
	want := "8 more nvidia.com/gpu of nominal quota in ClusterQueue research (flavor h100), or research's borrowingLimit raised to 16"
	if got := changeTexts(rep); !slices.Equal(got, []string{want}) {
		t.Errorf("changes = %q, want only %q", got, want)
	}
}

func changeTexts(rep *WorkloadReport) []string {
	var out []string
	for _, c := range rep.Changes {
		out = append(out, c.Text)
	}
	return out
}

// Position counts the pending workloads ordered before it (BestEffortFIFO: by
// priority, then creation time).
func TestExplainWorkloadPosition(t *testing.T) {
	t.Parallel()
	objs := append(step0(), gpuJob("research", "train-7", 8, 8*time.Second).Obj(),
		gpuJob("research", "urgent", 8, 9*time.Second).Priority(100).Obj())
	e := load(t, objs)
	for name, pos := range map[string]int{"urgent": 1, "train-6": 2, "train-7": 3} {
		if rep := explainWL(t, e, "research", name); rep.Position != pos || rep.Pending != 3 {
			t.Errorf("%s position %d of %d, want %d of 3", name, rep.Position, rep.Pending, pos)
		}
	}
	q, err := e.ClusterQueue("research")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Pending) != 3 || q.Pending[0].Workload != "research/urgent" || q.Pending[2].Workload != "research/train-7" || q.Admitted != 6 {
		t.Errorf("clusterqueue report = %+v", q)
	}
	lq, err := e.LocalQueue(types.NamespacedName{Namespace: "research", Name: "research-gpu"})
	if err != nil || lq.ClusterQueue != "research" || len(lq.Pending) != 3 {
		t.Errorf("localqueue report = %+v, %v", lq, err)
	}
}

// What blocks a workload besides quota is said: a StrictFIFO head, a stopped
// queue, a missing LocalQueue.
func TestExplainWorkloadBlockedByOtherThanQuota(t *testing.T) {
	t.Parallel()
	strict := tb.MakeClusterQueue("strict").Strategy(kueue.StrictFIFO).Quota("h100", gpu, "8").Obj()
	stopped := tb.MakeClusterQueue("stopped").StopPolicy(kueue.Hold).Quota("h100", gpu, "8").Obj()
	objs := []client.Object{tb.MakeFlavor("h100").Obj(), strict, stopped,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}},
		tb.MakeLocalQueue("ns", "strict", "strict").Obj(), tb.MakeLocalQueue("ns", "stopped", "stopped").Obj(),
		tb.MakeWorkload("ns", "big").Queue("strict").PodSet("main", 1).Request(gpu, "16").Obj(),
		tb.MakeWorkload("ns", "small").Queue("strict").Created(time.Second).PodSet("main", 1).Request(gpu, "1").Obj(),
		tb.MakeWorkload("ns", "held").Queue("stopped").PodSet("main", 1).Request(gpu, "1").Obj(),
		tb.MakeWorkload("ns", "lost").Queue("nowhere").PodSet("main", 1).Request(gpu, "1").Obj(),
	}
	e := load(t, objs)
	for _, tc := range []struct{ name, want string }{
		{"small", "the head ns/big blocks the queue: it does not fit (ExceedsMaximumQuota)"},
		{"held", "ClusterQueue stopped is stopped"},
		{"lost", "LocalQueue ns/nowhere does not exist"},
	} {
		rep := explainWL(t, e, "ns", tc.name)
		if len(rep.Blocked) != 1 || !strings.Contains(rep.Blocked[0], tc.want) {
			t.Errorf("%s blocked = %q, want %q", tc.name, rep.Blocked, tc.want)
		}
	}
	if rep := explainWL(t, e, "ns", "big"); len(rep.Changes) != 1 || rep.Changes[0].MoreNominalQuota != "8" ||
		rep.Preemption == nil || !strings.Contains(rep.Preemption.Impossible, "can ever get") {
		t.Errorf("big = %+v, want 8 more GPUs and no preemption", rep)
	}
}

// A workload that may be admitted with fewer pods (partial admission) is
// explained with the pods it would get: eval may use its 8 GPUs, research's
// 32 and the 12 product-training lends, 52 in all, of which a running job
// holds 5; a sweep of 100 one-GPU pods with a minCount of 2 gets 47.
func TestExplainWorkloadFitsWithFewerPods(t *testing.T) {
	t.Parallel()
	objs := gpuCluster("16")
	objs = append(objs, gpuJob("eval", "running", 5, 0).ReserveQuota("eval", "h100").QuotaReservedAt(0).Obj())
	partial := tb.MakeWorkload("eval", "sweep").Queue("eval-gpu").Created(time.Second).PodSet("main", 100).
		Request(gpu, "1").Request(corev1.ResourceCPU, "12").Request(corev1.ResourceMemory, "120Gi").Obj()
	partial.Spec.PodSets[0].MinCount = ptr.To[int32](2)
	e := load(t, append(objs, partial))
	rep := explainWL(t, e, "eval", "sweep")
	if !rep.Fits || rep.PodCounts["main"] != 47 {
		t.Fatalf("report fits %v, pod counts %v; want it to fit with 47 pods", rep.Fits, rep.PodCounts)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "Fits now:     yes, with 47 pods") {
		t.Fatalf("text %q (err %v); want the pods it would get", b.String(), err)
	}
}

// Under admission fair sharing explain gives each pending workload's
// LocalQueue usage, the first key of its ClusterQueue's order, and its
// position in that order: heavy used 8 GPUs (its status says so), light
// nothing, so light's newer job is first.
func TestExplainWorkloadUnderAdmissionFairSharing(t *testing.T) {
	t.Parallel()
	objs := []client.Object{tb.MakeFlavor("h100").Obj(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "t"}},
		tb.MakeClusterQueue("shared").Quota("h100", gpu, "8").AdmissionFairSharing().Obj(),
		tb.MakeLocalQueue("t", "heavy", "shared").ConsumedResources(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC),
			map[corev1.ResourceName]string{gpu: "8"}).Obj(),
		tb.MakeLocalQueue("t", "light", "shared").Obj(),
		tb.MakeWorkload("t", "running").Queue("heavy").PodSet("main", 1).Request(gpu, "8").ReserveQuota("shared", "h100").QuotaReservedAt(0).Obj(),
		tb.MakeWorkload("t", "h1").Queue("heavy").PodSet("main", 1).Request(gpu, "1").Created(time.Second).Obj(),
		tb.MakeWorkload("t", "l1").Queue("light").PodSet("main", 1).Request(gpu, "1").Created(2 * time.Second).Obj(),
	}
	cfg := configapi.Default()
	cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{UsageHalfLifeTime: metav1.Duration{Duration: time.Hour}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	e, err := Load(t.Context(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, usage string
		position    int
	}{{"l1", "0", 1}, {"h1", "8", 2}} {
		rep := explainWL(t, e, "t", tc.name)
		if rep.LocalQueueUsage != tc.usage || rep.Position != tc.position {
			t.Errorf("%s: LocalQueue usage %q at position %d, want %q at %d", tc.name, rep.LocalQueueUsage, rep.Position, tc.usage, tc.position)
		}
		var out bytes.Buffer
		if err := rep.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "LQ usage:     "+tc.usage+" (admission fair sharing") {
			t.Errorf("%s's text does not give its LocalQueue usage:\n%s", tc.name, out.String())
		}
	}
	// Without the configuration nothing orders by usage, and nothing is said.
	if rep := explainWL(t, load(t, objs), "t", "l1"); rep.LocalQueueUsage != "" || rep.Position != 2 {
		t.Errorf("without admission fair sharing: usage %q at position %d, want none at 2", rep.LocalQueueUsage, rep.Position)
	}
}
