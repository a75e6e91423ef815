package simulator

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	configv1beta2 "quokka.dev/quokka/apis/config/v1beta2"
	"quokka.dev/quokka/engine/resources"
)

// "At each instant, in order: jobs whose runtime ends finish and release quota;
// objects due at that instant are applied; then the engine runs cycles".
func TestFinishesComeBeforeApplicationsAndCycles(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+
		jobYAML("ns", "a", 8, "0s", "1h")+
		jobYAML("ns", "b", 8, "0s", "1h")+
		jobYAML("ns", "c", 8, "1h", ""))
	res, _ := run(t, d, Options{}, nil)
	equalStory(t, res,
		"0s Submitted ns/a", "0s Submitted ns/b", "0s Admitted ns/a",
		"1h Finished ns/a", "1h Submitted ns/c", "1h Admitted ns/b",
		"2h Finished ns/b", "2h Admitted ns/c")
	if res.End != 2*time.Hour {
		t.Errorf("end = %s, want 2h: the run ends when nothing is left to happen", res.End)
	}
	q := res.Queues[0]
	if got := q.Waits; len(got) != 3 || got[0] != 0 || got[1] != time.Hour || got[2] != time.Hour {
		t.Errorf("waits = %v, want [0 1h 1h]", got)
	}
	fr := resources.FlavorResource{Flavor: "h100", Resource: gpu}
	if got := q.UsedSeconds[fr] / 3600; got != 16 {
		t.Errorf("GPU-hours = %g, want 16 (8 GPUs for 2h; c runs to the end, which is 2h)", got)
	}
	if w := res.Workloads[2]; w.Name != "ns/c" || w.State != StateAdmitted {
		t.Errorf("a job without runtime runs to the end: %+v", w)
	}
}

// "--until DURATION: stop time"; the final state is the state at --until.
func TestUntilStopsTheClock(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "1h")+jobYAML("ns", "b", 8, "0s", "1h"))
	res, _ := run(t, d, Options{Until: 30 * time.Minute, HasUntil: true}, nil)
	equalStory(t, res, "0s Submitted ns/a", "0s Submitted ns/b", "0s Admitted ns/a")
	if res.End != 30*time.Minute {
		t.Errorf("end = %s", res.End)
	}
	if res.Workloads[1].State != StatePending || res.Workloads[1].Reason != "InsufficientQuota" {
		t.Errorf("b = %+v, want Pending with the engine's reason", res.Workloads[1])
	}
	fr := resources.FlavorResource{Flavor: "h100", Resource: gpu}
	if got := res.Queues[0].UsedSeconds[fr] / 3600; got != 4 {
		t.Errorf("GPU-hours by 30m = %g, want 4", got)
	}
}

// "A preempted job goes back to the queue and restarts from zero when admitted
// again", "without a new Submitted event", and "a victim's Preempted before its
// preemptor's Admitted".
func TestPreemptedJobRestartsFromZero(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+
		jobYAML("ns", "victim", 8, "0s", "1h")+
		jobYAML("ns", "urgent", 8, "10m", "10m"))
	res, _ := run(t, d, Options{}, func(f *fakeEngine) {
		f.preempt[types.NamespacedName{Namespace: "ns", Name: "urgent"}] = types.NamespacedName{Namespace: "ns", Name: "victim"}
	})
	equalStory(t, res,
		"0s Submitted ns/victim", "0s Admitted ns/victim",
		"10m Submitted ns/urgent", "10m Preempted ns/victim by ns/urgent", "10m Admitted ns/urgent",
		"20m Finished ns/urgent", "20m Admitted ns/victim",
		"1h20m Finished ns/victim")
	if q := res.Queues[0]; q.Preempted != 1 || q.Admitted != 3 || q.Finished != 2 {
		t.Errorf("counts: %+v", q)
	}
	if e := res.Events[3]; e.Reason != "InClusterQueue" || e.Message != "make room" || e.ClusterQueue != "cq" {
		t.Errorf("preempted event = %+v", e)
	}
}

// "A Workload that already has status.admission (and QuotaReserved True) starts
// admitted at time 0 with that assignment (Submitted and Admitted events at time
// 0; runtime counts from 0)."
func TestPresetAdmission(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: running, namespace: ns, annotations: {simulation.quokka.dev/runtime: 30m}}
spec:
  queueName: q
  podSets: [{name: main, count: 2, template: {spec: {containers: [{name: c, resources: {requests: {nvidia.com/gpu: "3"}}}]}}}]
status:
  conditions: [{type: QuotaReserved, status: "True", reason: R, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, flavors: {nvidia.com/gpu: h100}}]
`+jobYAML("ns", "next", 8, "0s", ""))
	res, engines := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/running", "0s Admitted ns/running", "0s Submitted ns/next",
		"30m Finished ns/running", "30m Admitted ns/next")
	if !res.Events[1].Preset || res.Events[1].Flavors["main"][gpu] != "h100" {
		t.Errorf("preset admission event = %+v", res.Events[1])
	}
	if w := engines[0].wls[types.NamespacedName{Namespace: "ns", Name: "running"}]; w.gpus != 6 || w.wl.Status.Admission == nil {
		t.Errorf("engine got %d GPUs", w.gpus)
	}
	if got := res.Queues[0].Waits; len(got) != 1 {
		t.Errorf("a preset admission is not a wait: waits = %v", got)
	}
}

// "A later document with the same kind, namespace and name replaces the earlier one
// at its time."
func TestReplacingAJobResubmitsIt(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "")+jobYAML("ns", "a", 4, "1h", "1h"))
	res, engines := run(t, d, Options{}, nil)
	equalStory(t, res, "0s Submitted ns/a", "0s Admitted ns/a", "1h Submitted ns/a", "1h Admitted ns/a", "2h Finished ns/a")
	if got := engines[0].wls[types.NamespacedName{Namespace: "ns", Name: "a"}].gpus; got != 4 {
		t.Errorf("engine holds the old job: %d GPUs", got)
	}
	if u := res.Queues[0].Usage(); len(u) != 0 {
		t.Errorf("usage at the end = %v, want none", u)
	}
}

// A Configuration applied during the run restarts the manager: a new engine gets
// every object, the admitted workloads with their admissions.
func TestConfigurationChangeRebuildsTheEngine(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "2h")+jobYAML("ns", "b", 8, "0s", "")+`---
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metadata: {annotations: {simulation.quokka.dev/at: 1h}}
featureGates: {DynamicQuotaOrchestration: true, RecomputeAssignmentUponPreemptionTargetsOverlap: false, SchedulingEquivalenceHashing: false}
`)
	res, engines := run(t, d, Options{}, nil)
	if len(engines) != 2 {
		t.Fatalf("want the default engine, then one for the new Configuration; got %d engines", len(engines))
	}
	for _, g := range []struct {
		gate          configv1beta2.Feature
		before, after bool
	}{
		{configv1beta2.FeatureDynamicQuotaOrchestration, false, true},
		{configv1beta2.FeatureRecomputeAssignmentUponPreemptionTargetsOverlap, true, false},
		{configv1beta2.FeatureSchedulingEquivalenceHashing, true, false},
	} {
		before := engines[0].opts.Configuration.FeatureGate(g.gate)
		after := engines[1].opts.Configuration.FeatureGate(g.gate)
		if before != g.before || after != g.after {
			t.Errorf("%s: the engines were built with %v then %v, want %v then %v", g.gate, before, after, g.before, g.after)
		}
	}
	w := engines[1].wls[types.NamespacedName{Namespace: "ns", Name: "a"}]
	if w == nil || w.wl.Status.Admission == nil || w.wl.Status.Admission.ClusterQueue != "cq" {
		t.Fatalf("the rebuilt engine must hold a's admission: %+v", w)
	}
	if _, ok := engines[1].namespaces["ns"]; !ok {
		t.Errorf("the rebuilt engine must know the implicit namespace")
	}
	equalStory(t, res, "0s Submitted ns/a", "0s Submitted ns/b", "0s Admitted ns/a", "2h Finished ns/a", "2h Admitted ns/b")
}

// "Namespaces that no document declares exist implicitly with no labels."
func TestImplicitNamespaces(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "team", 8)+jobYAML("team", "a", 1, "0s", ""))
	_, engines := run(t, d, Options{}, nil)
	labels, ok := engines[0].namespaces["team"]
	if !ok || labels != nil {
		t.Errorf("namespace team: %v %v", labels, ok)
	}
}

func TestUIDsFollowDocumentOrder(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "z", 1, "0s", "")+jobYAML("ns", "a", 1, "0s", ""))
	_, engines := run(t, d, Options{}, nil)
	z := engines[0].wls[types.NamespacedName{Namespace: "ns", Name: "z"}].wl.UID
	a := engines[0].wls[types.NamespacedName{Namespace: "ns", Name: "a"}].wl.UID
	if !(z < a) {
		t.Errorf("UIDs must sort in document order: z=%s a=%s", z, a)
	}
}

func TestUnknownPriorityClassNamesTheDocument(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+`---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: gold}}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
`)
	_, err := Run(d, Options{NewEngine: func(o EngineOptions) (Engine, error) { return newFakeEngine(o), nil }})
	if err == nil || !strings.Contains(err.Error(), `test.yaml document 3 (Job ns/j): WorkloadPriorityClass "gold" does not exist at 0s`) {
		t.Errorf("got %v", err)
	}
}

func TestEngineThatNeverSettlesIsReported(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "")+jobYAML("ns", "b", 8, "1m", ""))
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	_, err := Run(d, Options{NewEngine: func(o EngineOptions) (Engine, error) {
		f := newFakeEngine(o)
		f.preempt[a], f.preempt[b], f.loop = b, a, true
		return f, nil
	}})
	if err == nil || !strings.Contains(err.Error(), "at 1m the engine was still changing its decisions after 1000 cycles") ||
		!strings.Contains(err.Error(), "ns/a preempts ns/b in cq (InClusterQueue)") {
		t.Errorf("got %v", err)
	}
}

func TestLocalQueueClusterQueueIsImmutable(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns, annotations: {simulation.quokka.dev/at: 5m}}
spec: {clusterQueue: other}
`)
	_, err := Run(d, Options{NewEngine: func(o EngineOptions) (Engine, error) { return newFakeEngine(o), nil }})
	if err == nil || !strings.Contains(err.Error(), `document 3 (LocalQueue ns/q): spec.clusterQueue: Invalid value: "other": clusterQueue is immutable`) {
		t.Errorf("got %v", err)
	}
}

func TestSeriesRecordsUsageAndQueueLength(t *testing.T) {
	t.Parallel()
	d := docs(t, queueYAML("cq", "ns", 8)+jobYAML("ns", "a", 8, "0s", "1h")+jobYAML("ns", "b", 8, "0s", "1h"))
	res, _ := run(t, d, Options{Series: true}, nil)
	s := res.Queues[0].Series
	fr := resources.FlavorResource{Flavor: "h100", Resource: gpu}
	want := []struct {
		t       time.Duration
		usage   int64
		pending int
	}{{0, 8, 1}, {time.Hour, 8, 0}, {2 * time.Hour, 0, 0}}
	if len(s) != len(want) {
		t.Fatalf("series = %+v", s)
	}
	for i, w := range want {
		if s[i].Time != w.t || s[i].Usage[fr] != w.usage || s[i].Pending != w.pending {
			t.Errorf("sample %d = %+v, want %+v", i, s[i], w)
		}
	}
	if qs := res.Queues[0].QuotaSeries; len(qs) != 1 || qs[0].Quotas.Cells[fr].Nominal != 8 {
		t.Errorf("quota series = %+v", qs)
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{0: "0s", 90 * time.Second: "1m30s", 26 * time.Hour: "1d2h", 1500 * time.Millisecond: "1.5s"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
